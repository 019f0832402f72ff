// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Probes of `perfbuf trace`, as specs: bpftrace's syntax parsed, what a
 * kernel offers found (tracefs, kprobes, fentry, BTF), the largest record
 * of each. attach.c attaches and detaches them.
 */
#define _GNU_SOURCE	/* vasprintf */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "common/cli.h"
#include "common/elf.h"
#include "common/say.h"
#include "common/which.h"
#include "sym/sym.h"
#include "format.h"
#include "common/kbtf.h"
#include "args.h"
#include "output/ledger.h"
#include "probe.h"
#include "stop.h"
#include "syscalls.h"
#include "tracefs.h"
#include "trace.skel.h"

void probe_features_free(void)
{
	kfunc_btf_free();
}

int kfunc_nargs(const char *func)
{
	struct btf *btf = kbtf_vmlinux();
	int id = btf ? btf__find_by_name_kind(btf, func, BTF_KIND_FUNC) : -1;
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;

	t = t ? btf__type_by_id(btf, t->type) : NULL;
	return t && btf_is_func_proto(t) ? btf_vlen(t) : 0;
}

__u64 ksym_addr(const char *func)
{
	const struct sym_ksyms *k = ksyms_get();

	return k ? ksyms_addr(k, func) : 0;
}

bool in_kallsyms(const char *func)
{
	const struct sym_ksyms *k = ksyms_get();

	return k && ksyms_find(k, func, NULL, NULL);
}

/* Arguments of raw tracepoint @name from BTF (btf_trace_NAME), or -1. */
int rawtp_nargs(const char *name)
{
	struct btf *btf = kbtf_vmlinux();
	const struct btf_type *t;
	char tn[256];
	int id;

	if (!btf)
		return -1;
	snprintf(tn, sizeof(tn), "btf_trace_%s", name);
	id = btf__find_by_name_kind(btf, tn, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return -1;
	return btf_vlen(t) - 1;	/* the first is the tracepoint's void *data */
}

void probe_clear(struct trace_probe *p)
{
	tp_fields_free(p);
	free(p->spec);
	free(p->label);
	free(p->target);
	free(p->path);
}

struct trace_probe *probe_new(struct probe_set *set, enum probe_kind kind)
{
	struct trace_probe *v, *p;

	if (set->n >= TRACE_MAX_PROBES) {
		cli_say(set->prog, "more than %d probes; narrow the globs\n",
			 TRACE_MAX_PROBES);
		return NULL;
	}
	if (set->n == set->cap) {
		int cap = set->cap ? set->cap * 2 : 16;

		v = realloc(set->v, cap * sizeof(*v));
		if (!v) {
			cli_say(set->prog, "out of memory\n");
			return NULL;
		}
		set->v = v;
		set->cap = cap;
	}
	p = &set->v[set->n++];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->read = &set->read;
	p->prog = set->prog;
	p->sys_nr = -1;
	p->cfg.argv_slot = -1;
	return p;
}

__attribute__((format(printf, 1, 2)))
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

static int add_tracepoint(struct probe_set *set, const char *cat,
			  const char *name, bool glob)
{
	struct trace_probe *p = probe_new(set, PK_TRACEPOINT);
	int err;

	if (!p)
		return -ENOMEM;
	p->from_glob = glob;
	p->spec = xasprintf("tracepoint:%s:%s", cat, name);
	p->target = xasprintf("%s:%s", cat, name);
	p->label = strdup(name);
	if (!p->spec || !p->target || !p->label) {
		cli_say(set->prog, "out of memory\n");
		return -ENOMEM;
	}
	err = tp_format_load(p);
	if (err) {
		cli_say(set->prog, "cannot read the format of tracepoint %s: %s\n",
			 p->target, strerror(-err));
		return err;
	}
	if (!strcmp(cat, "syscalls")) {
		p->sys_exit = !strncmp(name, "sys_exit_", 9);
		if (p->sys_exit || !strncmp(name, "sys_enter_", 10))
			p->sys_nr = syscall_nr(name + (p->sys_exit ? 9 : 10));
	}
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int dir_only(const struct dirent *d)
{
	return d->d_name[0] != '.' && d->d_type == DT_DIR;
}

/* A category's directory that scandir() could not read: 0 when it went
 * away since the list of categories was read (a module unloaded: it has
 * nothing left to match), else said and -errno. */
static int category_failed(struct probe_set *set, const char *path)
{
	int err = -errno;

	if (err == -ENOENT || err == -ENOTDIR)
		return 0;
	cli_say(set->prog, "cannot read %s: %s\n", path, strerror(-err));
	return err;
}

/* tracepoint:CAT:NAME, globs allowed in both. */
static int parse_tracepoint(struct probe_set *set, const char *spec,
			    const char *rest)
{
	char cat[256], path[512];
	const char *name = strchr(rest, ':');
	struct dirent **cats = NULL, **tps = NULL;
	int ncat, ntp, found = 0, err = 0;
	bool glob;

	if (!name || name == rest || !name[1] || strchr(name + 1, ':') ||
	    name - rest >= (long)sizeof(cat)) {
		cli_say(set->prog, "bad probe '%s': want tracepoint:CATEGORY:NAME, e.g. tracepoint:sched:sched_process_exec\n",
			 spec);
		return -EINVAL;
	}
	snprintf(cat, sizeof(cat), "%.*s", (int)(name - rest), rest);
	name++;
	glob = strpbrk(rest, "*?[") != NULL;
	snprintf(path, sizeof(path), "%s/events", tracefs_path());
	ncat = scandir(path, &cats, dir_only, by_name);
	if (ncat < 0) {
		err = -errno;
		cli_say(set->prog, "cannot read %s: %s\n", path, strerror(-err));
		return err;
	}
	for (int i = 0; i < ncat; i++) {
		/* ftrace's own events cannot be attached to: only by name */
		if (!err && !fnmatch(cat, cats[i]->d_name, 0) &&
		    (!glob || strcmp(cats[i]->d_name, "ftrace"))) {
			snprintf(path, sizeof(path), "%s/events/%s", tracefs_path(),
				 cats[i]->d_name);
			/* scandir() leaves tps as it was when it fails */
			tps = NULL;
			ntp = scandir(path, &tps, dir_only, by_name);
			if (ntp < 0)
				err = category_failed(set, path);
			for (int j = 0; j < ntp; j++) {
				if (!err && !fnmatch(name, tps[j]->d_name, 0)) {
					err = add_tracepoint(set, cats[i]->d_name,
							     tps[j]->d_name, glob);
					found++;
				}
				free(tps[j]);
			}
			free(tps);
		}
		free(cats[i]);
	}
	free(cats);
	if (!err && !found) {
		cli_say(set->prog, "no tracepoint matches '%s:%s'; run 'perfbuf list' to see them\n",
			 cat, name);
		return -ENOENT;
	}
	return err;
}

/* @p's name matches functions at several addresses (no weak one among
 * them): two versions (realpath@GLIBC_2.2.5, realpath@@GLIBC_2.3), or
 * local functions of one name. Neither is chosen for the user: a default
 * version leaves out the programs bound to the old one, and the reverse. */
static int uprobe_ambiguous(const struct trace_probe *p, const struct sym_elf *e)
{
	char vers[1024];

	if (elfsyms_versions(e, p->target, vers, sizeof(vers)) > 1 && !strchr(p->target, '@'))
		cli_say(p->prog, "%s: '%s' is ambiguous: %s defines several versions of it, %s; give one, e.g. %s:%s:%.*s\n",
			p->spec, p->target, p->path, vers, p->kind == PK_UPROBE ? "uprobe" : "uretprobe",
			p->path, (int)strcspn(vers, " ,"), vers);
	else
		cli_say(p->prog, "%s: '%s' is ambiguous: %s has several functions of that name at different addresses (local ones); none can be told from the others\n",
			p->spec, p->target, p->path);
	return -EEXIST;
}

/* NAME@VERSION of a version @p's binary does not define */
static int uprobe_no_version(const struct trace_probe *p, const struct sym_elf *e)
{
	const char *at = strchr(p->target, '@');
	char vers[1024];
	__u64 off;

	if (elfsyms_versions(e, p->target, vers, sizeof(vers)))
		cli_say(p->prog, "%s: %s defines no version '%s' of '%.*s'; its versions: %s\n",
			p->spec, p->path, at + 1 + (at[1] == '@'), (int)(at - p->target),
			p->target, vers);
	else
		cli_say(p->prog, "%s: no function symbol '%s' in %s%s\n", p->spec, p->target,
			p->path, !elfsyms_offset(e, strndupa(p->target, (size_t)(at - p->target)), &off) ?
			" (its functions carry no versions: give the name alone)" : "");
	return -ENOENT;
}

/* What libbpf and the kernel would say unclearly: not ELF ("Unknown error
 * 4001"), an offset past the function ("Invalid argument"), a name with
 * two versions ("BPF object format invalid"). A function found here is
 * attached by its offset: libbpf 1.1 knows no versions (NAME@VERSION),
 * and takes two versions of one function (one address) for two
 * functions. A name not found is left to libbpf (it knows more ways to
 * find one). */
static int uprobe_check(struct trace_probe *p)
{
	struct sym_elf *e = elfsyms_load(p->path);
	bool versioned = strchr(p->target, '@');
	__u64 off = 0, size = 0;
	int err;

	if (!e && errno == ENOEXEC)
		cli_say(p->prog, "%s: %s is not an ELF executable or library; give a binary, e.g. uprobe:/bin/bash:readline\n",
			 p->spec, p->path);
	if (!e)
		return errno == ENOEXEC ? -ENOEXEC : 0;	/* else libbpf says why */
	err = elfsyms_find(e, p->target, &off, &size);
	if (err == -EEXIST)
		err = uprobe_ambiguous(p, e);
	else if (err == -ENOENT)
		err = versioned ? uprobe_no_version(p, e) : 0;
	else if (!err)
		p->func_off = off;
	if (!err && size && p->offset >= size) {
		cli_say(p->prog, "%s: offset %lu is past the end of %s (%llu bytes); give one from 0 to %llu\n",
			 p->spec, p->offset, p->target, (unsigned long long)size,
			 (unsigned long long)size - 1);
		err = -EINVAL;
	}
	elfsyms_free(e);
	return err;
}

static int parse_uprobe(struct probe_set *set, enum probe_kind kind,
			const char *spec, const char *rest)
{
	const char *sym = strrchr(rest, ':'), *kw = kind == PK_UPROBE ?
		"uprobe" : "uretprobe";
	char name[4096], path[4200], *plus, *end;
	struct trace_probe *p;
	int err;

	if (!sym || sym == rest || !sym[1]) {
		cli_say(set->prog, "bad probe '%s': want %s:PATH:SYMBOL%s\n", spec, kw,
			 kind == PK_UPROBE ? "[+OFFSET]" : "");
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(sym - rest), rest);
	err = cli_which(name, path, sizeof(path));
	if (err) {
		cli_which_say(set->prog, spec, name, err);
		return err;
	}
	p = probe_new(set, kind);
	if (!p)
		return -ENOMEM;
	/* one name per file: /bin/bash and bash are one probe */
	p->path = realpath(path, NULL);
	p->target = strdup(sym + 1);
	p->spec = xasprintf("%s:%s:%s", kw, p->path ? p->path : "", sym + 1);
	p->label = xasprintf("%s:%s", kw, sym + 1);
	if (!p->path || !p->target || !p->spec || !p->label) {
		cli_say(set->prog, "out of memory\n");
		return -ENOMEM;
	}
	plus = strchr(p->target, '+');
	if (plus) {
		errno = 0;
		p->offset = strtoul(plus + 1, &end, 0);
		if (errno || *end || end == plus + 1 || plus == p->target ||
		    kind == PK_URETPROBE) {
			cli_say(set->prog, "bad probe '%s': %s\n", spec,
				 kind == PK_URETPROBE ? "a uretprobe takes no +OFFSET"
						      : "want SYMBOL+OFFSET, e.g. main+8");
			return -EINVAL;
		}
		*plus = '\0';
		/* one spelling of the offset: +0x10 and +16 are one probe */
		free(p->spec);
		p->spec = xasprintf("%s:%s:%s+%lu", kw, p->path, p->target, p->offset);
		if (!p->spec) {
			cli_say(set->prog, "out of memory\n");
			return -ENOMEM;
		}
	}
	err = uprobe_check(p);
	/* typed from DWARF at the function's start (no DWARF: arg0..arg5) */
	if (!err && !p->offset && ufunc_fields(p) == -ENOMEM) {
		cli_say(set->prog, "out of memory\n");
		return -ENOMEM;
	}
	return err;
}

static const struct {
	const char *name, *alias;
	enum probe_kind kind;
} kinds[] = {
	{ "tracepoint", "t", PK_TRACEPOINT },
	{ "rawtracepoint", "rt", PK_RAWTP },
	{ "kprobe", "k", PK_KPROBE },
	{ "kretprobe", "kr", PK_KRETPROBE },
	{ "fentry", "f", PK_FENTRY },
	{ "fexit", "fr", PK_FEXIT },
	{ "uprobe", "u", PK_UPROBE },
	{ "uretprobe", "ur", PK_URETPROBE },
};

/* The index in kinds[] of @spec's KIND: (its name or alias), -1 */
static int kind_index(const char *spec)
{
	const char *colon = strchr(spec, ':');
	size_t klen = colon ? (size_t)(colon - spec) : 0;

	for (int k = 0; colon && k < (int)(sizeof(kinds) / sizeof(kinds[0])); k++)
		if ((strlen(kinds[k].name) == klen &&
		     !strncmp(spec, kinds[k].name, klen)) ||
		    (strlen(kinds[k].alias) == klen &&
		     !strncmp(spec, kinds[k].alias, klen)))
			return k;
	return -1;
}

int probe_kind_of(const char *spec)
{
	int k = kind_index(spec);

	return k < 0 ? -EINVAL : (int)kinds[k].kind;
}

static int parse_one(struct probe_set *set, const char *spec)
{
	const char *colon = strchr(spec, ':'), *rest;
	struct trace_probe *p;
	int k = kind_index(spec);

	if (k < 0) {
		cli_say(set->prog, "unknown probe '%s': want tracepoint:, rawtracepoint:, kprobe:, kretprobe:, fentry:, fexit:, uprobe: or uretprobe: (see --help)\n",
			 spec);
		return -EINVAL;
	}
	rest = colon + 1;
	switch (kinds[k].kind) {
	case PK_TRACEPOINT:
		return parse_tracepoint(set, spec, rest);
	case PK_UPROBE:
	case PK_URETPROBE:
		return parse_uprobe(set, kinds[k].kind, spec, rest);
	default:
		break;
	}
	if ((kinds[k].kind == PK_KPROBE || kinds[k].kind == PK_KRETPROBE) &&
	    strpbrk(rest, "*?[") && !strpbrk(rest, ":+ "))
		return kfunc_parse_glob(set, kinds[k].kind, kinds[k].name, spec, rest);
	if (!*rest || strpbrk(rest, ":*?[ ")) {
		cli_say(set->prog, "bad probe '%s': want %s:NAME (no globs)\n", spec,
			 kinds[k].name);
		return -EINVAL;
	}
	p = probe_new(set, kinds[k].kind);
	if (!p)
		return -ENOMEM;
	p->target = strdup(rest);
	if (p->target && kinds[k].kind == PK_KPROBE && kfunc_parse_offset(p, spec))
		return -EINVAL;
	p->spec = p->offset ? xasprintf("%s:%s+%lu", kinds[k].name, p->target, p->offset)
			    : xasprintf("%s:%s", kinds[k].name, rest);
	p->label = kinds[k].kind == PK_RAWTP ? strdup(rest) : strdup(p->spec ? p->spec : "");
	if (!p->target || !p->spec || !p->label) {
		cli_say(set->prog, "out of memory\n");
		return -ENOMEM;
	}
	if (p->kind == PK_RAWTP)
		p->nargs = rawtp_nargs(rest);
	/* typed at the function's start (past it the registers may hold
	 * something else); -ENOENT: arg0..arg5, said */
	else if (!p->offset && kfunc_fields(p) == -ENOMEM)
		return -ENOMEM;
	return 0;
}

const char *probe_spec_of(void *set, size_t i)
{
	const struct probe_set *ps = set;

	return (int)i < ps->n ? ps->v[i].spec : NULL;
}

__u64 *trace_undelivered(struct trace *skel, int *ncpu)
{
	struct perfbuf_ledger *l = skel ?
		perfbuf_ledger__new(bpf_map__fd(skel->maps.perfbuf_ledger), NULL) : NULL;
	int n = l ? ledger_cpu_end(l) : 0;
	__u64 (*why)[LEDGER_REASONS] = n > 0 ? calloc((size_t)n, sizeof(*why)) : NULL;
	__u64 *u = n > 0 ? calloc((size_t)n, sizeof(*u)) : NULL;

	*ncpu = 0;
	if (!why || !u || ledger_cpu_reasons(l, n, why)) {
		free(u);
		u = NULL;
		n = 0;
	}
	for (int cpu = 0; cpu < n; cpu++)
		u[cpu] = why[cpu][LEDGER_NO_READER] + why[cpu][LEDGER_FAILED];
	free(why);
	perfbuf_ledger__free(l);
	*ncpu = n;
	return u;
}

/*
 * One rule for a probe named twice, by its name or through globs: it is
 * attached once (the kernel refuses a program twice on one tracepoint:
 * EEXIST), as exactly named if either names it exactly. The probes
 * parsed from one argument, from @first on, are checked against those
 * before them.
 */
static void probes_dedupe(struct probe_set *set, int first)
{
	int n = first;

	for (int i = first; i < set->n; i++) {
		struct trace_probe *p = &set->v[i], *dup = NULL;

		for (int j = 0; j < first && !dup; j++)
			if (!strcmp(set->v[j].spec, p->spec))
				dup = &set->v[j];
		if (dup) {
			dup->from_glob &= p->from_glob;
			probe_clear(p);
			continue;
		}
		if (n != i)
			set->v[n] = *p;
		n++;
	}
	set->n = n;
}

int probes_parse(struct probe_set *set, const char *spec)
{
	int first = set->n, err = parse_one(set, spec);

	for (int i = first; i < set->n; i++)
		set->v[i].arg = spec;
	if (!err)
		probes_dedupe(set, first);
	return err;
}

/* The largest record trace.bpf.c writes for @p: the bounds of its
 * read_str() (a slot: str_size bytes and a NUL) and read_argv() (each
 * argument a mark byte more, the list an end byte). */
/* --kstack/--ustack: the stacks after @pos bytes of data, when they fit */
static size_t with_stacks(const struct trace_filter *tf, size_t pos)
{
	size_t off = (pos + 7) & ~(size_t)7;

	if ((!tf->kstack && !tf->ustack) ||
	    off > TRACE_DATA_MAX - 2 * TRACE_STACK_MAX * 8)
		return pos;
	return off + 2 * TRACE_STACK_MAX * 8;
}

static size_t record_max(const struct trace_probe *p, size_t str_size,
			 const struct trace_filter *tf)
{
	const struct trace_probe_cfg *c = &p->cfg;
	size_t pos = c->raw_size < TRACE_RAW_MAX ? c->raw_size : TRACE_RAW_MAX;

	if (p->kind != PK_TRACEPOINT)	/* fexit: ret, the arguments, duration */
		pos = (TRACE_MAX_ARGS + 2) * 8;
	if (c->nmem)	/* struct members, then their fault bytes */
		pos = c->mem_off + TRACE_MAX_MEMBERS * 8 + 8;
	for (int i = 0; i < (int)c->nstr && i < TRACE_MAX_STRS; i++)
		if (i != c->argv_slot && pos < TRACE_ROOM)
			pos += str_size + 1;
	if (c->argv_slot >= 0) {
		for (int k = 0; k < TRACE_ARGV_MAX && pos < TRACE_ROOM; k++)
			pos += str_size + 2;
		pos++;
	}
	return sizeof(struct trace_record) + with_stacks(tf, pos);
}

size_t probes_record_max(const struct probe_set *set)
{
	size_t max = 0;

	for (int i = 0; i < set->n; i++) {
		size_t n = record_max(&set->v[i], set->read.str_size, &set->filter);
		if (n > max)
			max = n;
	}
	return max;
}
