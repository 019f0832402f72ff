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

/* What is kept per CPU, for as many CPUs as the collector serves */
struct cpu_check {
	__u64 ready_ns;		/* our event of the CPU enabled by then */
	unsigned char seen;	/* checks in a row that saw another */
};

struct run_slots {
	struct slots *skel;
	struct cpu_check *cpu;
	size_t span;		/* CPUs [0, span) */
};

struct run_slots *run_slots__new(int map_fd, const struct perfbuf *pb, __u64 now_ns)
{
	struct run_slots *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	for (size_t r = 0; r < perfbuf__ring_cnt(pb); r++)
		if ((size_t)perfbuf__ring_cpu(pb, r) + 1 > s->span)
			s->span = (size_t)perfbuf__ring_cpu(pb, r) + 1;
	s->cpu = calloc(s->span ?: 1, sizeof(*s->cpu));
	if (!s->cpu || !(s->skel = slots__open()))
		goto fail;
	if (bpf_map__reuse_fd(s->skel->maps.target, map_fd) || slots__load(s->skel))
		goto fail;
	for (size_t i = 0; i < s->span; i++)
		s->cpu[i].ready_ns = now_ns;
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
	free(s->cpu);
	free(s);
}

void run_slots__online(struct run_slots *s, int cpu, __u64 now_ns)
{
	if (s && cpu >= 0 && (size_t)cpu < s->span) {
		s->cpu[cpu].ready_ns = now_ns;
		s->cpu[cpu].seen = 0;
	}
}

/* CPU @cpu's slot holds another event than ours, or none, now: 1, with
 * *@since_ns the time the other event was enabled (0: emptied) */
static int other_event(struct run_slots *s, int cpu, __u64 now_ns, __u64 *since_ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);
	const struct slot *sl = &s->skel->bss->seen;

	/* one CPU at a time: the program fills the one result */
	if (bpf_prog_test_run_opts(bpf_program__fd(s->skel->progs.perfbuf_slots), &o))
		return 0;	/* offline meanwhile: the collector's to say */
	*since_ns = 0;
	if (sl->err == -ENOENT)
		return 1;
	if (sl->err || sl->enabled + SLACK_NS >= now_ns - s->cpu[cpu].ready_ns)
		return 0;
	*since_ns = now_ns - sl->enabled;
	return 1;
}

/* 1 when CPU @cpu's slot holds another event than ours (or none) at two
 * checks in a row: a CPU coming back online gets a new ring of ours, and
 * its ONLINE record (which moves ready_ns) may come after a check */
static int replaced(struct run_slots *s, int cpu, __u64 now_ns, __u64 *since_ns)
{
	if (cpu < 0 || (size_t)cpu >= s->span)
		return 0;
	if (!other_event(s, cpu, now_ns, since_ns)) {
		s->cpu[cpu].seen = 0;
		return 0;
	}
	return ++s->cpu[cpu].seen >= 2;
}

int run_slots__check(struct run_slots *s, const struct perfbuf *pb, __u64 now_ns,
		     struct run_slots_taken *t)
{
	size_t len = 0;

	memset(t, 0, sizeof(*t));
	for (size_t r = 0; s && r < perfbuf__ring_cnt(pb); r++) {
		struct perfbuf_cpu_stats st = { .sz = sizeof(st) };
		__u64 since = 0;

		/* an offline CPU has no ring of ours to look for */
		if (perfbuf__stats(pb, r, &st) || !st.online || st.cpu < 0 ||
		    !replaced(s, st.cpu, now_ns, &since))
			continue;
		t->cnt++;
		if (since && (!t->since_ns || since < t->since_ns))
			t->since_ns = since;
		if (len < sizeof(t->list))
			len += snprintf(t->list + len, sizeof(t->list) - len, "%s%d",
					len ? "," : "", st.cpu);
	}
	return t->cnt;
}
