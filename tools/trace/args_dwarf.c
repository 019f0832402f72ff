// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A uprobe's function's parameters from the binary's DWARF (libdw), as
 * args_btf.c makes a kernel function's from BTF: the same fields, one u64
 * register each, `char *` a user string. Only at the function's start:
 * past it (+OFFSET) the registers may hold something else.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/say.h"
#include "dwarf_walk.h"
#include "args.h"
#include "probe.h"

static int enum_name(const char *name, Dwarf_Sword val, void *ctx)
{
	struct tp_field *f = ctx;
	struct tv_name *v;

	if (!name)
		return 0;
	v = realloc(f->names, (f->nnames + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	f->names = v;
	v[f->nnames].value = f->size < 8 ? (__u64)val & ((1ULL << (f->size * 8)) - 1)
					 : (__u64)val;
	v[f->nnames].name = strdup(name);
	if (!v[f->nnames].name)
		return -ENOMEM;
	f->nnames++;
	return 0;
}

static bool is_reg_size(Dwarf_Word size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* Field @f typed by type @t (typedefs and qualifiers skipped) */
static int type_field_die(Dwarf_Die *t, struct tp_field *f)
{
	Dwarf_Die to;
	Dwarf_Word size;
	enum die_base_kind base;
	bool is_signed;
	int err;

	f->kind = FK_RAW;
	f->size = 8;
	f->slot = -1;
	size = die_udata(t, DW_AT_byte_size, 0);
	switch (dwarf_tag(t)) {
	case DW_TAG_base_type:
		base = die_base(t, &is_signed);
		if (base == DIE_BASE_FLOAT || !is_reg_size(size))
			return 0;
		f->size = size;
		f->is_signed = is_signed;
		f->kind = base == DIE_BASE_BOOL ? FK_BOOL : FK_INT;
		return 0;
	case DW_TAG_enumeration_type:
		if (!is_reg_size(size))
			return 0;
		f->size = size;
		f->kind = FK_INT;
		err = die_enum_each(t, enum_name, f);
		/* a declared-only enum (no values) is a plain number */
		if (!err && dwarf_haschildren(t) > 0)
			f->hint = TV_HINT_SYMBOLIC;
		return err;
	case DW_TAG_pointer_type:
		f->kind = FK_PTR;
		f->user_ptr = true;	/* a process's pointers are all the user's */
		if (die_type(t, &to) && die_skip(&to) && die_is_char(&to))
			f->ptr = PTR_CHARS;
		return 0;
	default:
		return 0;	/* a struct by value...: its register in hex */
	}
}

/* Field @f typed by the DW_AT_type of @die (a parameter, the function) */
static int type_field(Dwarf_Die *die, struct tp_field *f)
{
	Dwarf_Die t;

	f->kind = FK_RAW;
	f->size = 8;
	f->slot = -1;
	if (!die_type(die, &t) || !die_skip(&t))
		return 0;
	return type_field_die(&t, f);
}

static int func_fields(struct trace_probe *p, Dwarf_Die *fn)
{
	struct tp_field *f;
	Dwarf_Die c;
	char name[32];
	int i = 0;

	if (p->kind == PK_URETPROBE) {
		if (dwarf_hasattr(fn, DW_AT_type) &&
		    (!(f = probe_field_add(p, "ret", 0)) || type_field(fn, f)))
			return -ENOMEM;
		return 0;
	}
	if (dwarf_child(fn, &c))
		return 0;
	do {
		const char *n = dwarf_diename(&c);

		if (dwarf_tag(&c) == DW_TAG_unspecified_parameters)
			break;	/* ...: the rest unknown */
		if (dwarf_tag(&c) != DW_TAG_formal_parameter)
			continue;
		if (i == TRACE_MAX_ARGS) {
			cli_say(p->prog, "%s: %s has more than %d parameters; a uprobe reads the first %d\n",
				p->spec, p->target, TRACE_MAX_ARGS, TRACE_MAX_ARGS);
			break;
		}
		snprintf(name, sizeof(name), "arg%d", i);
		if (!(f = probe_field_add(p, n && *n ? n : name, i * 8)) ||
		    type_field(&c, f))
			return -ENOMEM;
		i++;
	} while (dwarf_siblingof(&c, &c) == 0);
	probe_string_slots(p);
	return 0;
}

/* A function's definition: one with code */
static bool is_func(Dwarf_Die *die, void *ctx)
{
	(void)ctx;
	return dwarf_tag(die) == DW_TAG_subprogram &&
	       (dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges));
}

static int use_func(Dwarf_Die *fn, void *ctx)
{
	struct trace_probe *p = ctx;
	int err;

	p->cfg.argv_slot = -1;
	err = func_fields(p, fn);
	if (err)
		tp_fields_free(p);
	p->typed = !err;
	return err;
}

int ufunc_fields(struct trace_probe *p)
{
	return die_find(p->path, p->target, false, is_func, use_func, p);
}

/* ---- struct members of an argument (members.c): p->next->x ---- */

struct member_walk {
	const struct member_expr *x;
	struct tp_field *f;
	struct trace_member_cfg *m;
	char *why;
	size_t whysz;
};

/* Member @name of struct or union @t, looked for through anonymous
 * members too: its DIE into @out, its byte offset added to *@off */
static bool find_member(Dwarf_Die *t, const char *name, Dwarf_Die *out,
			Dwarf_Word *off, int depth)
{
	Dwarf_Die c, ct;
	Dwarf_Word bits, width;

	if (depth > 8 || dwarf_child(t, &c))
		return false;
	do {
		const char *n = dwarf_diename(&c);

		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		die_member_bits(&c, &bits, &width);
		if (n && !strcmp(n, name)) {
			*out = c;
			*off += bits / 8;
			return true;
		}
		if (!n && die_type(&c, &ct) && die_skip(&ct) &&
		    find_member(&ct, name, out, off, depth + 1)) {
			*off += bits / 8;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

static bool is_composite(Dwarf_Die *t)
{
	return dwarf_tag(t) == DW_TAG_structure_type || dwarf_tag(t) == DW_TAG_union_type;
}

/* The last member's type @t into w->f and the last read's size */
static int member_type(struct member_walk *w, Dwarf_Die *t)
{
	Dwarf_Die el;
	int err;

	if (dwarf_tag(t) == DW_TAG_array_type && die_type(t, &el) && die_skip(&el) &&
	    die_is_char(&el)) {
		w->f->kind = FK_STR;	/* char name[N]: read from its address */
		w->m->size = 0;
		return 0;
	}
	err = type_field_die(t, w->f);
	if (err)
		return err;
	if (w->f->kind == FK_RAW) {
		snprintf(w->why, w->whysz, "'%s' is %s: name one of its members, or a number, pointer or string",
			 w->x->text, is_composite(t) ? "a struct" : "neither a number, a pointer nor a string");
		return -EINVAL;
	}
	/* char * and unsigned char *: a string */
	if (w->f->kind == FK_PTR && die_type(t, &el) && die_skip(&el) &&
	    dwarf_tag(&el) == DW_TAG_base_type && die_udata(&el, DW_AT_byte_size, 0) == 1)
		w->f->kind = FK_STR;
	w->m->size = w->f->size;
	return 0;
}

/* Walk x's members from parameter @prm's type */
static int member_walk(struct member_walk *w, Dwarf_Die *prm)
{
	const struct member_expr *x = w->x;
	Dwarf_Die t, mem;
	Dwarf_Word off = 0, bits, width;
	int step = -1;

	if (!die_type(prm, &t) || !die_skip(&t))
		goto not_ptr;
	for (int i = 0; i < x->nseg; i++) {
		if (x->seg[i].arrow) {
			if (dwarf_tag(&t) != DW_TAG_pointer_type || !die_type(&t, &t) ||
			    !die_skip(&t))
				goto not_ptr;
			if (step >= 0)
				w->m->off[step] = off;
			if (++step == TRACE_MEMBER_STEPS) {
				snprintf(w->why, w->whysz, "'%s' follows more than %d pointers",
					 x->text, TRACE_MEMBER_STEPS);
				return -EINVAL;
			}
			off = 0;
		} else if (step < 0 || dwarf_tag(&t) == DW_TAG_pointer_type) {
			snprintf(w->why, w->whysz, "'%s': before '.%s' is a pointer: write ->%s",
				 x->text, x->seg[i].name, x->seg[i].name);
			return -EINVAL;
		}
		if (!is_composite(&t) || !find_member(&t, x->seg[i].name, &mem, &off, 0)) {
			snprintf(w->why, w->whysz, "'%s': %s has no member '%s'", x->text,
				 is_composite(&t) && dwarf_diename(&t) ? dwarf_diename(&t) : "the type",
				 x->seg[i].name);
			return -EINVAL;
		}
		die_member_bits(&mem, &bits, &width);
		if (width) {
			snprintf(w->why, w->whysz, "'%s' is a bit field: not supported", x->text);
			return -EINVAL;
		}
		if (!die_type(&mem, &t) || !die_skip(&t))
			goto not_ptr;
	}
	if (off > 0xffff)
		goto not_ptr;
	w->m->off[step] = off;
	w->m->nsteps = step + 1;
	return member_type(w, &t);
not_ptr:
	snprintf(w->why, w->whysz, "'%s': '->' needs a pointer to a struct or union, and its member a type",
		 x->text);
	return -EINVAL;
}

static int use_member(Dwarf_Die *fn, void *ctx)
{
	struct member_walk *w = ctx;
	Dwarf_Die c;

	if (dwarf_child(fn, &c))
		return -ENOENT;
	do {
		const char *n = dwarf_diename(&c);

		if (dwarf_tag(&c) == DW_TAG_formal_parameter && n &&
		    !strcmp(n, w->x->base))
			return member_walk(w, &c);
	} while (dwarf_siblingof(&c, &c) == 0);
	return -ENOENT;
}

int ufunc_member(struct trace_probe *p, const struct member_expr *x,
		 struct tp_field *f, struct trace_member_cfg *m,
		 char *why, size_t whysz)
{
	struct member_walk w = { .x = x, .f = f, .m = m, .why = why, .whysz = whysz };

	return die_find(p->path, p->target, false, is_func, use_member, &w);
}
