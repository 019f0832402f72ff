// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which programs of an object `perfbuf run` loads, chosen as the
 * libbpf-tools' own userspace chooses: their objects carry alternatives
 * (fentry and kprobe programs for one function, tp_btf and raw_tp sets
 * for one tracepoint) and the tool turns off the ones it does not want
 * with bpf_program__set_autoload(prog, false) after probing the kernel.
 * Loading them all attaches one target twice (every record twice), and
 * one program the kernel refuses (fentry under some lockdowns, a raw_tp
 * calling a helper raw_tp may not call) fails the whole load.
 *
 * The rule: the programs of one target (a function, a tracepoint) come in
 * kinds, best first: fentry/fexit, then kprobe/kretprobe; tp_btf, then
 * raw_tp, then tracepoint. Of a target with several kinds, the best kind
 * this kernel can run is kept, the others dropped; a fexit kept over a
 * kretprobe takes the place of its kprobe too (the pair's). A program the
 * kernel cannot load at all (fentry refused, a tp_btf of a tracepoint it does
 * not have) is dropped too when the object keeps others. A tracepoint
 * that every call of a syscall family passes through covers that
 * family's syscall tracepoints (signal:signal_generate sees each
 * kill(2), tkill(2) and tgkill(2)): with a program on it, the syscalls'
 * programs are dropped, as sigsnoop's own default does. --prog NAME
 * chooses by hand (those only), --no-prog NAME drops one. The kernel's
 * features are probed in common/kfeat.c, the one place.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "common/cli.h"
#include "common/kfeat.h"
#include "trace/probe.h"
#include "trace/tracefs.h"
#include "run.h"

/* Kinds of one family, best first: an entry's, a return's, a tracepoint's */
enum kind { K_OTHER, K_FENTRY, K_KPROBE, K_FEXIT, K_KRETPROBE, K_TP_BTF, K_RAW_TP,
	    K_TRACEPOINT };

static const char *const kind_names[] = {
	[K_FENTRY] = "fentry", [K_KPROBE] = "kprobe", [K_FEXIT] = "fexit",
	[K_KRETPROBE] = "kretprobe", [K_TP_BTF] = "tp_btf", [K_RAW_TP] = "raw_tp",
	[K_TRACEPOINT] = "tracepoint",
};

struct cand {
	struct bpf_program *p;
	enum kind kind;
	const char *target;	/* in sec: the function or tracepoint */
	const char *cat;	/* tracepoint/CAT/NAME: CAT (len catlen) */
	int catlen;
	int can;		/* 0, or why this kernel cannot run it (-errno) */
	bool drop;
	char why[96];		/* why it was dropped */
};

static const struct { const char *prefix; enum kind kind; } sections[] = {
	{ "fentry/", K_FENTRY }, { "fexit/", K_FEXIT }, { "kprobe/", K_KPROBE },
	{ "kretprobe/", K_KRETPROBE }, { "tp_btf/", K_TP_BTF }, { "raw_tp/", K_RAW_TP },
	{ "raw_tracepoint/", K_RAW_TP }, { "tracepoint/", K_TRACEPOINT },
	{ "tp/", K_TRACEPOINT },
};

static void classify(struct cand *c)
{
	const char *sec = bpf_program__section_name(c->p);

	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		size_t n = strlen(sections[i].prefix);
		const char *slash;

		if (strncmp(sec, sections[i].prefix, n) || !sec[n])
			continue;
		c->kind = sections[i].kind;
		c->target = sec + n;
		if (c->kind == K_TRACEPOINT) {
			slash = strchr(c->target, '/');
			if (!slash) {
				c->kind = K_OTHER;
				return;
			}
			c->cat = c->target;
			c->catlen = slash - c->target;
			c->target = slash + 1;
		}
		return;
	}
}

/* The family's rank of a kind (0 best) and its family (entry, return, tp) */
static int family(enum kind k) { return k <= K_KPROBE ? 0 : k <= K_KRETPROBE ? 1 : 2; }
static int rank(enum kind k)
{
	static const int r[] = { [K_KPROBE] = 1, [K_KRETPROBE] = 1, [K_RAW_TP] = 1,
				 [K_TRACEPOINT] = 2 };

	return r[k];
}

/* 0, or why this kernel cannot run @c (a negative errno) */
static int probe(const struct cand *c)
{
	char path[512];

	switch (c->kind) {
	case K_FENTRY:
	case K_FEXIT:
		return kfeat_fentry(c->target);
	case K_KPROBE:
	case K_KRETPROBE:
		if (!kfeat_kprobes())
			return -EOPNOTSUPP;
		return in_kallsyms(c->target) ? 0 : -ENOENT;
	case K_TP_BTF:
	case K_RAW_TP:
		return rawtp_nargs(c->target) < 0 ? -ENOENT : 0;
	case K_TRACEPOINT:
		snprintf(path, sizeof(path), "%s/events/%.*s/%s", tracefs_path(), c->catlen,
			 c->cat, c->target);
		return path_exists(path) ? 0 : -ENOENT;
	default:
		return 0;
	}
}

static const char *cannot(const struct cand *c)
{
	switch (c->kind) {
	case K_FENTRY:
	case K_FEXIT:
		return c->can == -ENOENT ? "not in the kernel's BTF" :
		       c->can == -EPERM ? "fentry/fexit refused by this kernel" :
		       NULL;	/* the kernel's errno says it */
	case K_KPROBE:
	case K_KRETPROBE:
		return c->can == -EOPNOTSUPP ? "this kernel has no kprobes" :
		       "no such kernel function";
	default:
		return "no such tracepoint on this kernel";
	}
}

/* Of the programs of @c's target (same family and name), keep the best
 * kind this kernel runs; the others dropped */
static void choose_target(struct cand *cs, int n, int at)
{
	struct cand *c = &cs[at];
	int best = -1;

	for (int i = 0; i < n; i++) {
		struct cand *o = &cs[i];

		if (o->kind == K_OTHER || !bpf_program__autoload(o->p) ||
		    family(o->kind) != family(c->kind) || strcmp(o->target, c->target))
			continue;
		if (!o->can && (best < 0 || rank(o->kind) < rank(cs[best].kind)))
			best = i;
	}
	if (best < 0 || cs[best].kind == c->kind)
		return;
	c->drop = true;
	snprintf(c->why, sizeof(c->why), "%s %s covers %s", kind_names[cs[best].kind],
		 bpf_program__name(cs[best].p), c->target);
}

/* A fexit chosen over a kretprobe of @c's function takes the place of the
 * kprobe and kretprobe pair, as solisten's own userspace has it: @c, that
 * kprobe, alone would fill the tool's map with entries that nothing takes
 * out. Dropped too, unless a fentry of the function is there (then
 * choose_target decided). */
static void choose_pair(struct cand *cs, int n, struct cand *c)
{
	const struct cand *fexit = NULL;
	bool ret_dropped = false;

	for (int i = 0; i < n; i++) {
		const struct cand *o = &cs[i];

		if (o->kind == K_OTHER || !bpf_program__autoload(o->p) ||
		    strcmp(o->target, c->target))
			continue;
		if (o->kind == K_FENTRY)
			return;
		ret_dropped |= o->kind == K_KRETPROBE && o->drop;
		if (o->kind == K_FEXIT && !o->drop && !o->can)
			fexit = o;
	}
	if (!fexit || !ret_dropped)
		return;
	c->drop = true;
	snprintf(c->why, sizeof(c->why), "fexit %s covers %s, its kretprobe's too",
		 bpf_program__name(fexit->p), c->target);
}

/* Kernel tracepoints and the syscalls each sees every call of */
static const struct cover {
	const char *tp;			/* its name, under any kind */
	const char *syscalls[4];
} covers[] = {
	{ "signal_generate", { "kill", "tkill", "tgkill" } },
};

/* @c traces syscall @name's entry or exit (tracepoint, any section form) */
static bool traces_syscall(const struct cand *c, const char *name)
{
	const char *t = c->target;

	if (c->kind != K_TRACEPOINT || c->catlen != 8 || strncmp(c->cat, "syscalls", 8))
		return false;
	if (!strncmp(t, "sys_enter_", 10))
		t += 10;
	else if (!strncmp(t, "sys_exit_", 9))
		t += 9;
	else
		return false;
	return !strcmp(t, name);
}

/* @c traces a syscall that a kept program's tracepoint sees every call
 * of: dropped, said by that program */
static void choose_covered(struct cand *cs, int n, struct cand *c)
{
	for (size_t k = 0; k < sizeof(covers) / sizeof(covers[0]); k++) {
		const struct cover *v = &covers[k];
		const char *sc = NULL;

		for (int j = 0; j < 4 && v->syscalls[j] && !sc; j++)
			if (traces_syscall(c, v->syscalls[j]))
				sc = v->syscalls[j];
		for (int i = 0; sc && i < n; i++) {
			const struct cand *o = &cs[i];

			if (o->kind < K_TP_BTF || o->can || o->drop ||
			    !bpf_program__autoload(o->p) || strcmp(o->target, v->tp))
				continue;
			c->drop = true;
			snprintf(c->why, sizeof(c->why), "%s %s sees every %s", kind_names[o->kind],
				 bpf_program__name(o->p), sc);
			return;
		}
	}
}

static bool listed(const char *name, const char *const *v, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i], name))
			return true;
	return false;
}

/* --prog and --no-prog name programs of the object: 0 or -ENOENT (said) */
static int check_names(const char *prog, struct bpf_object *obj, const char *const *v,
		       int n, const char *opt)
{
	for (int i = 0; i < n; i++) {
		if (bpf_object__find_program_by_name(obj, v[i]))
			continue;
		char names[512] = "";
		struct bpf_program *p;
		size_t len = 0;

		bpf_object__for_each_program(p, obj)
			if (len < sizeof(names))
				len += snprintf(names + len, sizeof(names) - len, "%s%s",
						len ? ", " : "", bpf_program__name(p));
		cli_say(prog, "%s %s: the object has no such program (its programs: %s)\n",
			opt, v[i], names);
		return -ENOENT;
	}
	return 0;
}

/* One line: what was dropped, and why */
static void say_dropped(const char *prog, const struct cand *cs, int n)
{
	char line[1024];
	size_t len = 0;
	int k = 0;

	for (int i = 0; i < n; i++)
		if (cs[i].drop && len < sizeof(line))
			len += snprintf(line + len, sizeof(line) - len, "%s%s (%s)", k++ ? ", " : "",
					bpf_program__name(cs[i].p), cs[i].why);
	if (k)
		cli_say(prog, "not loading %d program%s: %s; --prog NAME loads one\n",
			k, k == 1 ? "" : "s", line);
}

int run_choose_programs(const struct run_opts *o, struct bpf_object *obj)
{
	struct bpf_program *p;
	struct cand *cs;
	int n = 0, i = 0, kept = 0;

	if (check_names(o->prog, obj, o->progs, o->nprogs, "--prog") ||
	    check_names(o->prog, obj, o->no_progs, o->nno_progs, "--no-prog"))
		return -ENOENT;
	bpf_object__for_each_program(p, obj)
		n++;
	cs = calloc(n + 1, sizeof(*cs));
	if (!cs)
		return -ENOMEM;
	bpf_object__for_each_program(p, obj) {
		struct cand *c = &cs[i++];

		c->p = p;
		classify(c);
		c->can = bpf_program__autoload(p) ? probe(c) : 0;
	}
	/* by hand first: --prog those only (whatever the kernel), --no-prog */
	for (i = 0; i < n; i++) {
		const char *name = bpf_program__name(cs[i].p);

		if (o->nprogs ? !listed(name, o->progs, o->nprogs)
			      : listed(name, o->no_progs, o->nno_progs))
			bpf_program__set_autoload(cs[i].p, false);
	}
	for (i = 0; i < n && !o->nprogs; i++)
		if (bpf_program__autoload(cs[i].p) && cs[i].kind != K_OTHER)
			choose_target(cs, n, i);
	for (i = 0; i < n && !o->nprogs; i++)
		if (bpf_program__autoload(cs[i].p) && !cs[i].drop && cs[i].kind == K_KPROBE)
			choose_pair(cs, n, &cs[i]);
	for (i = 0; i < n && !o->nprogs; i++)
		if (bpf_program__autoload(cs[i].p) && !cs[i].drop)
			choose_covered(cs, n, &cs[i]);
	for (i = 0; i < n; i++)
		kept += bpf_program__autoload(cs[i].p) && !cs[i].drop;
	/* what cannot load at all, when others stay (kprobes load; their
	 * attach fails later, said then) */
	for (i = 0; i < n && !o->nprogs; i++) {
		struct cand *c = &cs[i];
		bool loads = c->kind != K_FENTRY && c->kind != K_FEXIT && c->kind != K_TP_BTF;

		if (c->drop || !c->can || loads || !bpf_program__autoload(c->p) || kept < 2)
			continue;
		c->drop = true;
		kept--;
		snprintf(c->why, sizeof(c->why), "%s %s: %s", kind_names[c->kind], c->target,
			 cannot(c) ?: strerror(-c->can));
	}
	for (i = 0; i < n; i++)
		if (cs[i].drop)
			bpf_program__set_autoload(cs[i].p, false);
	say_dropped(o->prog, cs, n);
	free(cs);
	return 0;
}
