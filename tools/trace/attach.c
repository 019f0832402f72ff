// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Probes of `perfbuf trace`, attached: one generic program per kind with
 * the probe's index as its cookie (an instance of its own for the kinds
 * whose programs name their target at load), the syscalls through the raw
 * tracepoints sys_enter/exit; and detached. probe.c parses them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "common/cli.h"
#include "common/kfeat.h"
#include "common/loaderr.h"
#include "common/say.h"
#include "format.h"
#include "hint.h"
#include "probe.h"
#include "stop.h"
#include "syscalls.h"
#include "tracefs.h"
#include "trace.skel.h"
#include "trace_nofetch.skel.h"

struct trace *trace_obj_open(const struct probe_set *set)
{
	const struct trace_filter *tf = &set->filter;
	struct trace *obj = KFEAT_OPEN(trace);

	if (!obj)
		return NULL;
	/* no attach cookies: kprobes by address (kprobe_ip) */
	obj->rodata->probe_cookie = kfeat_has(KFEAT_COOKIE) ? 0 : TRACE_BY_IP;
	obj->rodata->self_tgid = getpid();
	/* the ledger: a kind per probe (its index), not TRACE_MAX_PROBES:
	 * 32 bytes an entry on every CPU */
	obj->rodata->perfbuf_ledger_max_kinds = (__u32)set->n;
	bpf_map__set_max_entries(obj->maps.perfbuf_ledger, (__u32)set->n + 1);
	obj->rodata->str_size = set->read.str_size;
	obj->rodata->targ_tgid = tf->pid;
	obj->rodata->targ_cpu = tf->cpu;
	obj->rodata->want_kstack = tf->kstack;
	obj->rodata->want_ustack = tf->ustack;
	obj->rodata->any_latency = probes_latency(set);
	obj->rodata->any_members = probes_members(set);
	if (tf->comm) {
		obj->rodata->filter_comm = true;
		strncpy((char *)obj->rodata->targ_comm, tf->comm,
			TRACE_COMM_LEN - 1);
	}
	return obj;
}

/* Every map of @obj but its own globals (.rodata) is @main_obj's. */
static int share_maps(struct trace *obj, struct trace *main_obj)
{
	struct bpf_map *map;
	int err;

	bpf_object__for_each_map(map, obj->obj) {
		if (bpf_map__is_internal(map))
			continue;
		err = bpf_map__reuse_fd(map, bpf_map__fd(bpf_object__find_map_by_name(
					     main_obj->obj, bpf_map__name(map))));
		if (err)
			return err;
	}
	return 0;
}

/* The program of @o that pick() names, as loaded: the twin without
 * bpf_loop() where the kernel has none (kfeat_prog()). Before the load,
 * pick() names the program to load. */
static struct bpf_program *loaded(struct trace *o, struct bpf_program *(*pick)(struct trace *))
{
	return kfeat_prog(o->obj, pick(o));
}

/* tp_btf, raw_tp, fentry and fexit: an instance of the object for this
 * probe alone, sharing the main instance's maps. */
static struct bpf_program *pick_tp_btf(struct trace *o) { return o->progs.trace_tp_btf; }
static struct bpf_program *pick_raw_tp(struct trace *o) { return o->progs.trace_raw_tp; }
static struct bpf_program *pick_fentry(struct trace *o) { return o->progs.trace_fentry; }
static struct bpf_program *pick_fexit(struct trace *o) { return o->progs.trace_fexit; }
static struct bpf_program *pick_sys_enter_btf(struct trace *o) { return o->progs.trace_sys_enter_btf; }
static struct bpf_program *pick_sys_exit_btf(struct trace *o) { return o->progs.trace_sys_exit_btf; }
static struct bpf_program *pick_sys_enter(struct trace *o) { return o->progs.trace_sys_enter; }
static struct bpf_program *pick_sys_exit(struct trace *o) { return o->progs.trace_sys_exit; }

int trace_obj_load_alone(struct trace **obj, struct trace *main_obj,
			 struct bpf_program *(*pick)(struct trace *),
			 const char *target, __u64 cookie, int nargs)
{
	struct bpf_program *prog, *want;
	int err;

	*obj = KFEAT_OPEN(trace);
	if (!*obj)
		return -errno;
	*(*obj)->rodata = *main_obj->rodata;	/* the same filter and sizes */
	want = pick(*obj);
	bpf_object__for_each_program(prog, (*obj)->obj)
		bpf_program__set_autoload(prog, prog == want);
	(*obj)->rodata->probe_cookie = cookie;
	(*obj)->rodata->nargs = nargs;
	/* the main object's passed: nothing left to say here */
	err = kfeat_prepare((*obj)->obj, NULL);
	if (!err && target)
		err = bpf_program__set_attach_target(loaded(*obj, pick), 0, target);
	return err ?: share_maps(*obj, main_obj) ?: trace__load(*obj);
}

static struct bpf_program *pick_tp(struct trace *o) { return o->progs.trace_tp; }
static struct bpf_program *pick_kprobe(struct trace *o) { return o->progs.trace_kprobe; }
static struct bpf_program *pick_kretprobe(struct trace *o) { return o->progs.trace_kretprobe; }
static struct bpf_program *pick_uprobe(struct trace *o) { return o->progs.trace_uprobe; }
static struct bpf_program *pick_uretprobe(struct trace *o) { return o->progs.trace_uretprobe; }

static void drop_obj(struct trace_probe *p);

__u64 probe_cookie(__u64 i)
{
	/* libbpf 1.1 attaches a non-zero cookie through a BPF link, which
	 * kernels without cookies refuse (EOPNOTSUPP) */
	return kfeat_has(KFEAT_COOKIE) ? i : 0;
}

/* Without cookies, kprobe @p (index @i) shares the main object's
 * program, which finds @i by the address probed */
static struct bpf_program *kprobe_by_ip(struct trace_probe *p, struct trace *skel,
					__u64 i)
{
	__u64 addr = ksym_addr(p->target);
	__u32 val = i;

	if (addr)
		addr += p->offset;
	if (!addr || bpf_map_update_elem(bpf_map__fd(skel->maps.kprobe_ip), &addr, &val,
					 BPF_ANY)) {
		cli_say(p->prog, "%s: %s\n", p->spec, addr ? strerror(errno) :
			"no address in /proc/kallsyms (kernel.kptr_restrict?)");
		errno = addr ? errno : ENOENT;
		return NULL;
	}
	return skel->progs.trace_kprobe;
}

/* The program probe @p (index @i) attaches with: the shared one of its
 * kind, told from the others by its cookie; on a kernel without attach
 * cookies (before 5.15), an instance of its own with @i a constant. NULL
 * with errno set when that load failed (said here, in one line). */
struct bpf_program *probe_prog(struct trace_probe *p, struct trace *skel, __u64 i)
{
	bool ret = p->kind == PK_KRETPROBE || p->kind == PK_FEXIT ||
		   p->kind == PK_URETPROBE;
	struct bpf_program *(*pick)(struct trace *) =
		p->kind == PK_TRACEPOINT ? pick_tp :
		p->kind == PK_UPROBE || p->kind == PK_URETPROBE ?
			(ret ? pick_uretprobe : pick_uprobe) :
		ret ? pick_kretprobe : pick_kprobe;
	int err;

	if (kfeat_has(KFEAT_COOKIE))
		return loaded(skel, pick);
	if (pick == pick_kprobe)
		return kprobe_by_ip(p, skel, i);
	err = trace_obj_load_alone(&p->obj, skel, pick, NULL, i, 0);
	if (err) {
		loaderr_say(p->prog, p->spec, err);
		drop_obj(p);
		errno = -err;
		return NULL;
	}
	return loaded(p->obj, pick);
}

static int attach_own(struct trace_probe *p, struct trace *main_obj,
		      struct bpf_program *(*pick)(struct trace *), __u64 cookie,
		      int nargs)
{
	struct trace *obj;
	struct bpf_program *want;
	/* raw_tp takes its target at attach time, the others at load */
	bool raw = pick == pick_raw_tp;
	int err = trace_obj_load_alone(&p->obj, main_obj, pick, raw ? NULL : p->target,
			     cookie, nargs);

	if (err)
		return err;
	obj = p->obj;
	want = loaded(obj, pick);
	if (p->kind == PK_RAWTP && raw)
		p->link = bpf_program__attach_raw_tracepoint(want, p->target);
	else
		p->link = bpf_program__attach(want);
	return p->link ? 0 : -errno;
}

static void drop_obj(struct trace_probe *p)
{
	bpf_link__destroy(p->link);
	p->link = NULL;
	trace__destroy(p->obj);
	p->obj = NULL;
}

static void probe_release(struct trace_probe *p)
{
	drop_obj(p);
	probe_clear(p);
}

static int attach_rawtp(struct trace_probe *p, struct trace *skel, __u64 i)
{
	int n = rawtp_nargs(p->target), err;

	if (n >= 0) {
		p->nargs = n > TRACE_MAX_ARGS ? TRACE_MAX_ARGS : n;
		err = attach_own(p, skel, pick_tp_btf, i, p->nargs);
		if (!err)
			return 0;
		drop_obj(p);	/* tp_btf refused: try raw_tp */
	}
	/* raw_tp refuses reads past the tracepoint's arguments: without BTF
	 * we do not know how many there are, so try from 6 down */
	for (int k = n >= 0 ? p->nargs : TRACE_MAX_ARGS; k >= 0; k--) {
		p->nargs = k;
		err = attach_own(p, skel, pick_raw_tp, i, k);
		if (!err)
			return 0;
		drop_obj(p);
		if (err != -EINVAL)
			break;
	}
	if (err == -ENOENT)
		cli_say(p->prog, "no raw tracepoint '%s'; run 'perfbuf list' to see tracepoints\n",
			 p->target);
	else
		cli_say(p->prog, "attaching %s failed: %s%s\n", p->spec,
			 cli_strerror(err), cli_hint(err));
	return err;
}

/* Kernel function probe @p cannot attach (no kprobes, fentry refused
 * with @ferr): say so, with the tracepoints that fit it, if any */
static void say_no_kfunc(const struct trace_probe *p, int ferr, bool ret)
{
	struct kfunc_hint h;
	char what[700];

	if (kfunc_hint(p->target, ret, &h))
		snprintf(what, sizeof(what), "trace the tracepoints %s instead: %s (see 'perfbuf list')",
			 h.why, h.tps);
	else
		snprintf(what, sizeof(what), "no tracepoint is known to fit %s: see 'perfbuf list' for this kernel's",
			 p->target);
	cli_say(p->prog, "cannot trace %s: this kernel has no kprobes (CONFIG_KPROBES is off) and refuses fentry/fexit (%s%s); %s\n",
		p->spec, cli_strerror(ferr),
		ferr == -EPERM ? ", from a security module: the capabilities are there" : "", what);
}

static int attach_func(struct trace_probe *p, struct trace *skel, __u64 i)
{
	bool ret = p->kind == PK_KRETPROBE || p->kind == PK_FEXIT;
	bool want_fentry = p->kind == PK_FENTRY || p->kind == PK_FEXIT;
	bool kprobes = kfeat_kprobes();
	int ferr, err;

	/* a glob's functions: straight to kprobes (no fentry load each) */
	if (p->from_glob && kprobes) {
		LIBBPF_OPTS(bpf_kprobe_opts, go, .bpf_cookie = probe_cookie(i), .retprobe = ret);
		struct bpf_program *prog = probe_prog(p, skel, i);

		if (!prog)
			return -errno;
		p->link = bpf_program__attach_kprobe_opts(prog, p->target, &go);
		return p->link ? 0 : -errno;
	}
	ferr = kfeat_fentry(p->target);

	if (ferr == -ENOENT && !in_kallsyms(p->target)) {
		cli_say(p->prog, "%s: no kernel function '%s' (see /proc/kallsyms)\n",
			 p->spec, p->target);
		return -ENOENT;
	}
	if (p->offset)
		return kfunc_attach_offset(p, skel, i, kprobes);
	if (!ferr && (want_fentry || !kprobes)) {
		err = attach_own(p, skel, ret ? pick_fexit : pick_fentry, i,
				 kfunc_nargs(p->target));
		if (!err) {
			if (!want_fentry)
				cli_say(p->prog, "%s: no kprobes in this kernel, using %s\n",
					p->spec, ret ? "fexit" : "fentry");
			return 0;
		}
		drop_obj(p);
		ferr = err;
	}
	if (kprobes) {
		LIBBPF_OPTS(bpf_kprobe_opts, ko, .bpf_cookie = probe_cookie(i), .retprobe = ret);
		struct bpf_program *prog = probe_prog(p, skel, i);

		if (!prog)
			return -errno;
		p->link = bpf_program__attach_kprobe_opts(prog, p->target, &ko);
		if (p->link) {
			if (want_fentry)
				cli_say(p->prog, "%s: %s refused (%s), using %s\n",
					p->spec, ret ? "fexit" : "fentry",
					cli_strerror(ferr), ret ? "kretprobe" : "kprobe");
			return 0;
		}
		err = -errno;
		cli_say(p->prog, "attaching %s failed: %s%s\n", p->spec,
			 cli_strerror(err), cli_hint(err));
		return err;
	}
	say_no_kfunc(p, ferr, ret);
	return -EOPNOTSUPP;
}

static int attach_one(struct trace_probe *p, struct trace *skel, __u64 i)
{
	int err;

	switch (p->kind) {
	case PK_TRACEPOINT: {
		LIBBPF_OPTS(bpf_tracepoint_opts, to, .bpf_cookie = probe_cookie(i));
		char *colon = strchr(p->target, ':');
		__u32 key, val = i + 1;

		if (p->sys_nr >= 0) {
			key = p->sys_nr * 2 + p->sys_exit;
			err = bpf_map_update_elem(bpf_map__fd(skel->maps.syscall_probe),
						  &key, &val, BPF_ANY) ? -errno : 0;
			p->on_syscall = !err;
			if (err)
				cli_say(p->prog, "attaching %s failed: %s\n", p->spec,
					 strerror(-err));
			return err;
		}
		struct bpf_program *prog = probe_prog(p, skel, i);

		if (!prog)
			return -errno;
		*colon = '\0';
		p->link = bpf_program__attach_tracepoint_opts(prog, p->target, colon + 1, &to);
		err = p->link ? 0 : -errno;
		*colon = ':';
		if (err && p->from_glob) {
			cli_say(p->prog, "warning: skipping %s: %s\n", p->spec,
				strerror(-err));
			return 0;
		}
		if (err)
			cli_say(p->prog, "attaching %s failed: %s%s\n", p->spec,
				 cli_strerror(err), cli_hint(err));
		return err;
	}
	case PK_UPROBE:
	case PK_URETPROBE: {
		bool ret = p->kind == PK_URETPROBE;
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = probe_cookie(i), .retprobe = ret,
			    .func_name = p->func_off ? NULL : p->target);
		struct bpf_program *prog = probe_prog(p, skel, i);

		if (!prog)
			return -errno;
		p->link = bpf_program__attach_uprobe_opts(prog, -1, p->path,
							  p->func_off + p->offset, &uo);
		if (p->link)
			return 0;
		err = -errno;
		if (err == -ENOENT)
			cli_say(p->prog, "%s: no function symbol '%s' in %s\n", p->spec,
				 p->target, p->path);
		else if (p->offset && (err == -EINVAL || err == -524))
			cli_say(p->prog, "%s: the kernel cannot probe offset %lu of %s (%s): give the offset of an instruction's start, e.g. from 'objdump -d %s'\n",
				 p->spec, p->offset, p->target, cli_strerror(err),
				 p->path);
		else
			cli_say(p->prog, "attaching %s failed: %s%s\n", p->spec,
				 cli_strerror(err), cli_hint(err));
		return err;
	}
	case PK_RAWTP:
		return attach_rawtp(p, skel, i);
	default:
		return attach_func(p, skel, i);
	}
}

/*
 * Probes named exactly go first, with nothing read in between: when one
 * fails, it fails before any event is printed. Globbed tracepoints follow
 * (each attach takes tens of ms; one that fails is skipped with a warning)
 * and read in between, so hundreds of them neither fill the rings nor
 * hide a closed stdout.
 */
/* One link each for the raw tracepoints sys_enter and sys_exit, when
 * probes want them; the probes that cannot have them become perf events. */
static void attach_syscalls(struct probe_set *set, struct trace *skel)
{
	/* tp_btf reads the registers directly; raw_tp through helpers */
	struct bpf_program *(*const pick[2][2])(struct trace *) = {
		{ pick_sys_enter_btf, pick_sys_enter },
		{ pick_sys_exit_btf, pick_sys_exit },
	};
	bool want[2] = {};

	for (int i = 0; i < set->n; i++)
		if (set->v[i].sys_nr >= 0)
			want[set->v[i].sys_exit] = true;
	for (int k = 0; k < 2; k++) {
		for (int j = 0; want[k] && !set->sys_link[k] && j < 2; j++) {
			trace__destroy(set->sys_obj[k]);
			set->sys_obj[k] = NULL;
			if (!trace_obj_load_alone(&set->sys_obj[k], skel, pick[k][j], NULL, 0, 0))
				set->sys_link[k] = bpf_program__attach(loaded(set->sys_obj[k],
										  pick[k][j]));
		}
		for (int i = 0; want[k] && !set->sys_link[k] && i < set->n; i++)
			if (set->v[i].sys_exit == k)
				set->v[i].sys_nr = -1;
	}
}

int probes_attached(const struct probe_set *set)
{
	int n = 0;

	for (int i = 0; i < set->n; i++)
		n += set->v[i].link || set->v[i].on_syscall || set->v[i].multi;
	return n;
}

int probes_slow(const struct probe_set *set)
{
	int n = 0;

	for (int i = 0; i < set->n; i++)
		n += set->v[i].kind == PK_TRACEPOINT && set->v[i].sys_nr < 0;
	return n;
}

/* The probes whose detach the kernel makes wait, one at a time */
static struct detach_cost detach_cost(const struct probe_set *set)
{
	struct detach_cost c = { .tracepoints = probes_slow(set) };

	for (int i = 0; i < set->n; i++)
		c.uprobes += (set->v[i].kind == PK_UPROBE || set->v[i].kind == PK_URETPROBE) &&
			     set->v[i].link;
	return c;
}

#define WARN_PROBES 300		/* warn before attaching more */
#define ATTACH_US_PER_TP 700	/* measured on 6.18 (docs/tracing.md) */

void probes_warn_cost(const struct probe_set *set)
{
	int n = probes_slow(set);

	if (n <= WARN_PROBES)
		return;
	cli_say(set->prog, "warning: %d tracepoints: attaching takes about %d s and detaching at the end about %d s (the kernel waits ~%d ms per tracepoint); narrow the globs to trace fewer\n",
		n, (n * ATTACH_US_PER_TP + 999999) / 1000000,
		(n * DETACH_MS_PER_TP + 999) / 1000, DETACH_MS_PER_TP);
}

/* Every probe's config (its strings: typed arguments too), before any
 * attach: a kprobe.multi link starts a glob's all at once */
static int write_cfgs(struct probe_set *set, struct trace *skel)
{
	int cfg_fd = bpf_map__fd(skel->maps.cfgs), err;

	for (int i = 0; i < set->n; i++) {
		__u32 key = i;

		if (bpf_map_update_elem(cfg_fd, &key, &set->v[i].cfg, BPF_ANY)) {
			err = -errno;
			cli_say(set->prog, "configuring %s failed: %s\n", set->v[i].spec,
				strerror(-err));
			return err;
		}
	}
	return 0;
}

int probes_attach(struct probe_set *set, struct trace *skel,
		  bool (*between)(void *ctx), void *ctx)
{
	int err = write_cfgs(set, skel);

	if (err)
		return err;
	attach_syscalls(set, skel);
	kfunc_attach_multi(set, skel);
	uprobe_attach_multi(set, skel);

	for (int glob = 0; glob < 2; glob++) {
		for (int i = 0; i < set->n; i++) {
			struct trace_probe *p = &set->v[i];

			if (p->from_glob != glob || p->multi)
				continue;
			err = attach_one(p, skel, i);
			if (err)
				return err;
			if (glob && between && !between(ctx))
				return 0;
		}
	}
	if (!probes_attached(set)) {
		cli_say(set->prog, "none of the probes could be attached\n");
		return -ENOENT;
	}
	return 0;
}

int probes_detach(struct probe_set *set, volatile sig_atomic_t *signals)
{
	struct bpf_link **links = calloc(set->n + 4, sizeof(*links));
	int n = 0, left = 0;

	uprobe_detach_multi(set);	/* one grace period a link */

	for (int i = 0; links && i < set->n; i++)
		if (set->v[i].link)
			links[n++] = set->v[i].link;
	for (int k = 0; links && k < 2; k++) {
		if (set->sys_link[k])
			links[n++] = set->sys_link[k];
		if (set->multi_link[k])
			links[n++] = set->multi_link[k];
	}
	if (links) {
		struct detach_cost cost = detach_cost(set);

		left = links_destroy(set->prog, links, n, &cost, signals);
		free(links);
		for (int i = 0; i < set->n; i++)
			set->v[i].link = NULL;
		set->sys_link[0] = set->sys_link[1] = NULL;
		set->multi_link[0] = set->multi_link[1] = NULL;
	}
	for (int k = 0; k < 2; k++) {
		bpf_link__destroy(set->multi_link[k]);	/* out of memory */
		set->multi_link[k] = NULL;
		bpf_link__destroy(set->sys_link[k]);
		set->sys_link[k] = NULL;
		trace__destroy(set->sys_obj[k]);
		set->sys_obj[k] = NULL;
	}
	for (int i = 0; i < set->n; i++)
		drop_obj(&set->v[i]);	/* out of memory: one at a time */
	return left;
}

void probes_free(struct probe_set *set)
{
	probes_detach(set, NULL);
	for (int i = 0; i < set->n; i++)
		probe_release(&set->v[i]);
	free(set->v);
	set->v = NULL;
	set->n = set->cap = 0;
	probe_features_free();
}
