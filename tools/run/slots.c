// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Are our rings still in the map? Another reader of a perf event array
 * (bpftool map event_pipe, a second perfbuf attach, the map's owner
 * setting its own again) replaces the map's slots with its perf events;
 * ours stay open and quiet, and without a check the run would go on
 * reporting "lost 0" while it sees nothing. A slot cannot be looked up
 * from userspace, so bpf/slots.bpf.c reads it on each CPU (test run on
 * that CPU): an empty slot, or an event enabled after ours were, is not
 * ours.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "slots.h"
#include "slots.skel.h"
#include "run.h"

#define SLACK_NS 5000000ULL	/* clocks and the enable's own time */

struct run_slots {
	struct slots *skel;
	__u64 ready_ns[MAX_SLOT_CPUS];	/* our event of the CPU enabled by then */
	unsigned char seen[MAX_SLOT_CPUS];	/* checks in a row that saw another */
};

struct run_slots *run_slots__new(int map_fd, __u64 now_ns)
{
	struct run_slots *s = calloc(1, sizeof(*s));

	if (!s || !(s->skel = slots__open()))
		goto fail;
	if (bpf_map__reuse_fd(s->skel->maps.target, map_fd) || slots__load(s->skel))
		goto fail;
	for (int i = 0; i < MAX_SLOT_CPUS; i++)
		s->ready_ns[i] = now_ns;
	return s;
fail:	/* no check, no harm: the run reads as before */
	run_slots__free(s);
	return NULL;
}

void run_slots__free(struct run_slots *s)
{
	if (!s)
		return;
	slots__destroy(s->skel);
	free(s);
}

void run_slots__online(struct run_slots *s, int cpu, __u64 now_ns)
{
	if (s && cpu >= 0 && cpu < MAX_SLOT_CPUS) {
		s->ready_ns[cpu] = now_ns;
		s->seen[cpu] = 0;
	}
}

/* CPU @cpu's slot holds another event than ours, or none, now */
static int other_event(struct run_slots *s, int cpu, __u64 now_ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);
	const struct slot *sl = &s->skel->bss->slots[cpu];	/* cpu checked */

	if (bpf_prog_test_run_opts(bpf_program__fd(s->skel->progs.perfbuf_slots), &o))
		return 0;	/* offline meanwhile: the collector's to say */
	if (sl->err == -ENOENT)
		return 1;
	return !sl->err && sl->enabled + SLACK_NS < now_ns - s->ready_ns[cpu];
}

/* 1 when CPU @cpu's slot holds another event than ours (or none) at two
 * checks in a row: a CPU coming back online gets a new ring of ours, and
 * its ONLINE record (which moves ready_ns) may come after a check */
static int replaced(struct run_slots *s, int cpu, __u64 now_ns)
{
	int r = cpu >= 0 && cpu < MAX_SLOT_CPUS ? other_event(s, cpu, now_ns) : 0;

	if (!r) {
		if (cpu >= 0 && cpu < MAX_SLOT_CPUS)
			s->seen[cpu] = 0;
		return 0;
	}
	return ++s->seen[cpu] >= 2;
}

int run_slots__check(struct run_slots *s, const int *cpus, int n, __u64 now_ns,
		     char *list, size_t sz)
{
	size_t len = 0;
	int k = 0;

	list[0] = 0;
	for (int i = 0; s && i < n; i++)
		if (replaced(s, cpus[i], now_ns)) {
			k++;
			if (len < sz)
				len += snprintf(list + len, sz - len, "%s%d", len ? "," : "",
						cpus[i]);
		}
	return k;
}
