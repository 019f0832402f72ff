// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Struct members of a probe's arguments, p->x or a->b.c: named by
 * --member (printed) or in a --filter (compared, and printed), typed from
 * the binary's DWARF (uprobes: args_dwarf.c) or the kernel's BTF (kernel
 * functions, raw tracepoints' argN: args_btf.c), made into a chain of reads
 * the BPF program follows (bpf/trace_members.bpf.h), and a field of the
 * probe like any other: decoded, filtered, aggregated by its name.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/say.h"
#include "args.h"
#include "filter_ast.h"
#include "probe.h"

#define MAX_EXPRS 32

static bool ident(const char **s, char *out, size_t sz)
{
	size_t n = 0;

	if (!isalpha((unsigned char)**s) && **s != '_')
		return false;
	while (isalnum((unsigned char)(*s)[n]) || (*s)[n] == '_')
		n++;
	if (n >= sz)
		return false;
	memcpy(out, *s, n);
	out[n] = '\0';
	*s += n;
	return true;
}

/* "ARG->M[.M|->M]...": 0, or -EINVAL when @s is no such expression */
static int expr_parse(const char *s, struct member_expr *x)
{
	memset(x, 0, sizeof(*x));
	x->text = s;
	if (!ident(&s, x->base, sizeof(x->base)) || strncmp(s, "->", 2))
		return -EINVAL;
	while (*s) {
		bool arrow = !strncmp(s, "->", 2);

		if (!arrow && *s != '.')
			return -EINVAL;
		s += arrow ? 2 : 1;
		if (x->nseg == MEMBER_SEGS ||
		    !ident(&s, x->seg[x->nseg].name, sizeof(x->seg[0].name)))
			return -EINVAL;
		x->seg[x->nseg++].arrow = arrow;
	}
	return 0;
}

struct names {
	const char *v[MAX_EXPRS];
	bool given[MAX_EXPRS];	/* by --member: must match some probe */
	int n;
	char *lists[MAX_EXPRS];	/* the --member options split (owned) */
	int nlists;
};

static int name_add(struct names *nm, const char *s, bool given)
{
	for (int i = 0; i < nm->n; i++) {
		if (!strcmp(nm->v[i], s)) {
			nm->given[i] |= given;
			return 0;
		}
	}
	if (nm->n == MAX_EXPRS)
		return -E2BIG;
	nm->given[nm->n] = given;
	nm->v[nm->n++] = s;
	return 0;
}

/* The member expressions a filter's tree compares */
static int filter_names(struct names *nm, const struct fx_node *n)
{
	if (!n)
		return 0;
	if (n->name && strstr(n->name, "->") &&
	    name_add(nm, n->name + (strncmp(n->name, "args.", 5) ? 0 : 5), false))
		return -E2BIG;
	return filter_names(nm, n->l) ?: filter_names(nm, n->r);
}

static struct tp_field *field_of(struct trace_probe *p, const char *name)
{
	for (int i = 0; i < p->nfields; i++)
		if (!strcmp(p->fields[i].name, name))
			return &p->fields[i];
	return NULL;
}

/* Where a probe kind's members go in the record: after the six
 * arguments (fexit: after ret, the arguments and duration_ns) */
static unsigned int mem_off(const struct trace_probe *p)
{
	return p->kind == PK_FEXIT ? (TRACE_MAX_ARGS + 2) * 8 : TRACE_MAX_ARGS * 8;
}

/* @x read by @p (which has its base argument, typed): its field added */
static int member_add(struct trace_probe *p, const struct member_expr *x,
		      const struct tp_field *base, const struct tp_field *ty,
		      const struct trace_member_cfg *m)
{
	struct trace_probe_cfg *c = &p->cfg;
	unsigned int k = c->nmem, off;
	struct tp_field *f;

	if (k == TRACE_MAX_MEMBERS) {
		cli_say(p->prog, "%s: more than %d struct members; name fewer\n",
			p->spec, TRACE_MAX_MEMBERS);
		return -E2BIG;
	}
	c->mem_off = mem_off(p);
	off = c->mem_off + 8 * k;
	c->mem[k] = *m;
	c->mem[k].arg_off = base->off;
	c->mem[k].user = m->user || p->kind == PK_UPROBE;
	f = probe_field_add(p, x->text, off);
	if (!f)
		return -ENOMEM;
	*f = (struct tp_field){ .name = f->name, .kind = ty->kind, .off = off,
				.size = ty->size ? ty->size : 8, .is_signed = ty->is_signed,
				.slot = -1, .ptr = ty->ptr, .hint = ty->hint,
				.names = ty->names, .nnames = ty->nnames,
				.fault = c->mem_off + 8 * TRACE_MAX_MEMBERS + k };
	if (f->kind == FK_STR) {	/* char * or char[N]: its string */
		f->size = 8;
		f->user_ptr = true;	/* unread: its address printed */
		if (c->nstr < TRACE_MAX_STRS) {
			c->str[c->nstr] = (struct trace_str_cfg){ .off = off,
				.kind = p->kind == PK_UPROBE ? TRACE_STR_USER_PTR : TRACE_STR_ANY_PTR,
				.user_first = m->user };
			f->slot = c->nstr++;
		} else {
			f->kind = FK_PTR;	/* no slot left: the address */
		}
	}
	c->nmem++;
	return 0;
}

/* A raw tracepoint's arg0..: fields as they print untyped (u64s), so
 * that members can follow them; 0 or -ENOMEM */
static int rawtp_typed(struct trace_probe *p)
{
	int n = p->nargs >= 0 && p->nargs < TRACE_MAX_ARGS ? p->nargs : TRACE_MAX_ARGS;
	char name[16];
	struct tp_field *f;

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "arg%d", i);
		if (!(f = probe_field_add(p, name, i * 8)))
			return -ENOMEM;
		f->kind = FK_INT;
		f->size = 8;
		f->slot = -1;
	}
	p->cfg.argv_slot = -1;
	p->typed = true;
	return 0;
}

/* @x for probe @p: 1 added, 0 not @p's (no such argument), or -errno */
static int member_of(struct trace_probe *p, const struct member_expr *x)
{
	struct tp_field ty = { .slot = -1 }, *base;
	struct trace_member_cfg m = { 0 };
	char why[300];
	int err;

	if (field_of(p, x->text))
		return 1;
	if (p->kind == PK_RAWTP && !p->typed && !strncmp(x->base, "arg", 3) &&
	    rawtp_typed(p)) {
		cli_say(p->prog, "out of memory\n");
		return -ENOMEM;
	}
	base = p->typed ? field_of(p, x->base) : NULL;
	if (!base || p->kind == PK_TRACEPOINT || p->kind == PK_URETPROBE ||
	    p->kind == PK_KRETPROBE)
		return 0;
	err = p->kind == PK_UPROBE ? ufunc_member(p, x, &ty, &m, why, sizeof(why))
				   : kfunc_member(p, x, &ty, &m, why, sizeof(why));
	if (err == -ENOENT)
		return 0;
	if (err == -EINVAL)
		cli_say(p->prog, "%s: %s\n", p->spec, why);
	if (!err)
		err = member_add(p, x, base, &ty, &m);
	if (err == -ENOMEM)
		cli_say(p->prog, "out of memory\n");
	return err ? err : 1;
}

static int collect(struct names *nm, const struct trace_filters *fs,
		   const char *const *exprs, int n)
{
	char *save;

	for (int i = 0; i < n && i < MAX_EXPRS; i++) {
		char *copy = strdup(exprs[i]);

		if (!copy)
			return -ENOMEM;
		nm->lists[nm->nlists++] = copy;
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (name_add(nm, t, true))
				return -E2BIG;
	}
	for (int i = 0; fs && i < fs->n; i++)
		if (filter_names(nm, fs->v[i].root))
			return -E2BIG;
	return 0;
}

static int add_all(struct probe_set *set, struct names *nm)
{
	struct member_expr x;
	int err, found;

	for (int i = 0; i < nm->n; i++) {
		if (expr_parse(nm->v[i], &x)) {
			cli_say(set->prog, "--member '%s': want ARG->MEMBER, members after it by -> or . (p->x, a->b.c->d; names of at most 63 characters)\n",
				nm->v[i]);
			return -EINVAL;
		}
		found = 0;
		for (int k = 0; k < set->n; k++) {
			err = member_of(&set->v[k], &x);
			if (err < 0)
				return err;
			found += err;
		}
		if (!found && nm->given[i]) {
			cli_say(set->prog, "--member '%s': no probe has an argument '%s' typed from DWARF or BTF (a uprobe of a binary built with -g, a kernel function, a raw tracepoint's argN)\n",
				nm->v[i], x.base);
			return -ENOENT;
		}
	}
	return 0;
}

int probes_add_members(struct probe_set *set, const struct trace_filters *fs,
		       const char *const *exprs, int n)
{
	struct names nm = { 0 };
	int err = collect(&nm, fs, exprs, n);

	if (err == -ENOMEM)
		cli_say(set->prog, "out of memory\n");
	else if (err)
		cli_say(set->prog, "more than %d struct members named; name fewer\n", MAX_EXPRS);
	if (!err)
		err = add_all(set, &nm);
	for (int i = 0; i < nm.nlists; i++)
		free(nm.lists[i]);
	return err;
}

bool probes_members(const struct probe_set *set)
{
	for (int i = 0; i < set->n; i++)
		if (set->v[i].cfg.nmem)
			return true;
	return false;
}
