// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * uprobes in uprobe_multi links (Linux >= 6.6): one link per binary and
 * kind (uprobe, uretprobe) holds all its probes.
 *
 * Why: a uprobe attached through a perf event of its own costs, when it
 * is detached, RCU grace periods under the kernel's event_mutex (the
 * uprobe's unregister, then tracepoint_synchronize_unregister()), one
 * probe at a time whoever closes, so threads do not help: ~80 ms per
 * uprobe on 6.18, 16 s for 200. A uprobe_multi link unregisters all its
 * uprobes, then waits once.
 *
 * libbpf 1.1 has neither the section nor the attach call: the program is
 * loaded alone with the attach type set by hand, and the link is made
 * with bpf(BPF_LINK_CREATE) directly. Where the kernel refuses either, or
 * a function's offset is not found here (libbpf's lookup then says why),
 * the probes are attached one by one as before (attach.c).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>

#include "common/kfeat.h"
#include "common/elf.h"
#include "probe.h"
#include "trace.skel.h"

#define UPROBE_MULTI_TYPE 48	/* BPF_TRACE_UPROBE_MULTI (Linux 6.6 uapi) */
#define UPROBE_MULTI_RETURN 1	/* BPF_F_UPROBE_MULTI_RETURN */

/* bpf_attr's link_create as the 6.6 uapi has it for uprobe_multi; the
 * kernel takes a shorter attr than its own (the rest is zero) */
struct umulti_attr {
	__u32 prog_fd, target_fd, attach_type, flags;
	__u64 path, offsets, ref_ctr_offsets, cookies;
	__u32 cnt, umflags, pid, pad;
};

/* The attach type is set before the load; later picks (of the loaded
 * program) leave it. */
static struct bpf_program *as_multi(struct bpf_program *p)
{
	if (bpf_program__fd(p) < 0)
		bpf_program__set_expected_attach_type(p, (enum bpf_attach_type)UPROBE_MULTI_TYPE);
	return p;
}

static struct bpf_program *pick_uprobe(struct trace *o) { return as_multi(o->progs.trace_uprobe_multi); }
static struct bpf_program *pick_uretprobe(struct trace *o) { return as_multi(o->progs.trace_uretprobe_multi); }

static bool candidate(const struct trace_probe *p, enum probe_kind kind)
{
	return p->kind == kind && !p->link && !p->multi;
}

/* The probes of @kind on probe @first's binary not seen yet: their
 * indices in @idx, their file offsets in @offs (their cookies: the
 * indices). How many. */
struct group {
	int *idx;
	__u64 *offs, *cookies;
	bool *seen;
};

static int collect(struct probe_set *set, int first, enum probe_kind kind,
		   struct group *g)
{
	const char *path = set->v[first].path;
	struct sym_elf *e = elfsyms_load(path);
	int n = 0;

	for (int i = first; i < set->n; i++) {
		struct trace_probe *p = &set->v[i];
		__u64 off;

		if (!candidate(p, kind) || g->seen[i] || strcmp(p->path, path))
			continue;
		g->seen[i] = true;
		if (!e || elfsyms_offset(e, p->target, &off))
			continue;
		g->idx[n] = i;
		g->offs[n] = off + p->offset;
		g->cookies[n] = (__u64)i;
		n++;
	}
	elfsyms_free(e);
	return n;
}

static int link_create(struct bpf_program *prog, const char *path, bool ret,
		       const struct group *g, int n)
{
	struct umulti_attr a = {
		.prog_fd = (__u32)bpf_program__fd(prog),
		.attach_type = UPROBE_MULTI_TYPE,
		.path = (uintptr_t)path, .offsets = (uintptr_t)g->offs,
		.cookies = (uintptr_t)g->cookies, .cnt = (__u32)n,
		.umflags = ret ? UPROBE_MULTI_RETURN : 0,
	};
	long fd = syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));

	return fd < 0 ? -errno : (int)fd;
}

/* A link for @n probes of @g: 0, or -errno (attached one by one then). */
static int add_link(struct probe_set *set, int k, struct trace *skel,
		    const struct group *g, int n)
{
	static struct bpf_program *(*const pick[2])(struct trace *) = {
		pick_uprobe, pick_uretprobe };
	int *fds, fd;

	if (!set->umulti_obj[k] &&
	    trace_obj_load_alone(&set->umulti_obj[k], skel, pick[k], NULL, 0, 0)) {
		trace__destroy(set->umulti_obj[k]);
		set->umulti_obj[k] = NULL;
		return -EOPNOTSUPP;
	}
	fds = realloc(set->umulti_fd, (set->numulti + 1) * sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	set->umulti_fd = fds;
	fd = link_create(pick[k](set->umulti_obj[k]), set->v[g->idx[0]].path, k, g, n);
	if (fd < 0)
		return fd;
	fds[set->numulti++] = fd;
	for (int j = 0; j < n; j++)
		set->v[g->idx[j]].multi = true;
	return 0;
}

void uprobe_attach_multi(struct probe_set *set, struct trace *skel)
{
	static const enum probe_kind kinds[2] = { PK_UPROBE, PK_URETPROBE };
	struct group g = {
		.idx = calloc(set->n ?: 1, sizeof(*g.idx)),
		.offs = calloc(set->n ?: 1, sizeof(*g.offs)),
		.cookies = calloc(set->n ?: 1, sizeof(*g.cookies)),
		.seen = calloc(set->n ?: 1, sizeof(*g.seen)),
	};

	/* no cookies (before 5.15): no uprobe_multi either (6.6), and no
	 * load of its program to find that out */
	for (int k = 0; k < 2 && kfeat_has(KFEAT_COOKIE) && g.idx && g.offs && g.cookies &&
			g.seen; k++) {
		for (int i = 0; i < set->n; i++) {
			int n;

			if (!candidate(&set->v[i], kinds[k]) || g.seen[i])
				continue;
			n = collect(set, i, kinds[k], &g);
			/* one probe: nothing to gain */
			if (n > 1 && add_link(set, k, skel, &g, n) == -EOPNOTSUPP)
				break;	/* no uprobe_multi in this kernel */
		}
	}
	free(g.idx);
	free(g.offs);
	free(g.cookies);
	free(g.seen);
}

void uprobe_detach_multi(struct probe_set *set)
{
	for (int i = 0; i < set->numulti; i++)
		close(set->umulti_fd[i]);
	free(set->umulti_fd);
	set->umulti_fd = NULL;
	set->numulti = 0;
	for (int k = 0; k < 2; k++) {
		trace__destroy(set->umulti_obj[k]);
		set->umulti_obj[k] = NULL;
	}
}
