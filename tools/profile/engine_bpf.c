// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --engine bpf: bpf/profile.bpf.c runs on each cpu-clock overflow and
 * writes the stacks into a perf buffer (libperfbuf's collector). A dummy
 * event per CPU brings the side-band records (MMAP2, COMM) that name the
 * frames of processes started, or exiting, during the run; each cpu-clock
 * event has a one-page ring for its THROTTLE records.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "profile.h"	/* bpf/: the record */
#include "profile.skel.h"
#include "tool.h"
#include "common/cli.h"
#include "common/loaderr.h"

struct bpf_state {
	struct profile *skel;
	struct perfbuf *pb;
	struct perfbuf_sampler *clock;	/* the program's events */
	struct perfbuf_sampler *track;	/* side-band records */
	/* samples of one poll, kept until the side-band records that came
	 * with them are read */
	struct profile_sample *pending;
	size_t npending, cap;
	bool nomem;
};

static int on_record(void *ctx, const struct perfbuf_record *rec)
{
	struct bpf_state *st = ctx;
	struct profile_sample *s;

	if (rec->kind != PERFBUF_REC_SAMPLE)
		return PERFBUF_CONTINUE;	/* losses: counted by the collector */
	if (st->npending == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 256;

		s = realloc(st->pending, cap * sizeof(*s));
		if (!s) {
			st->nomem = true;
			return PERFBUF_STOP;
		}
		st->pending = s;
		st->cap = cap;
	}
	s = &st->pending[st->npending++];
	memset(s, 0, offsetof(struct profile_sample, ips));
	perfbuf_record__copy(rec, s, sizeof(*s));
	return PERFBUF_CONTINUE;
}

static int on_side(void *ctx, const struct perfbuf_sample *s)
{
	prof_side_band(ctx, s);
	return PERFBUF_CONTINUE;
}

/* Side-band records first, then the samples of the same poll; the
 * samplers follow CPU hotplug as they are polled. */
static int flush(struct prof_run *run, struct bpf_state *st)
{
	perfbuf_sampler__poll(st->track, 0, on_side, run);
	perfbuf_sampler__poll(st->clock, 0, on_side, run);
	for (size_t i = 0; i < st->npending; i++) {
		const struct profile_sample *s = &st->pending[i];
		__u32 nk = s->kstack_sz / 8, nu = s->ustack_sz / 8;

		if (nk > PROF_MAX_FRAMES || nu > PROF_MAX_FRAMES)
			continue;	/* not what the program writes */
		if (prof_add_stack(run, s->pid, s->tid, s->comm, s->ips, nk,
				   s->ips + nk, nu))
			st->nomem = true;
	}
	st->npending = 0;
	return st->nomem ? -ENOMEM : 0;
}

static struct perfbuf_sampler *open_sampler(const struct prof_run *run,
					    struct perfbuf_event_opts *ev,
					    size_t pages, int prog_fd)
{
	PERFBUF_OPTS(perfbuf_sampler_opts, so, .page_cnt = pages,
		     .prog_fd = prog_fd);

	if (run->o->cpu >= 0) {
		so.cpus = &run->o->cpu;
		so.cpu_cnt = 1;
	}
	return cli_sampler_new("perfbuf profile", ev, &so);
}

static int load(struct prof_run *run, struct bpf_state *st)
{
	int err;

	st->skel = profile__open();
	if (!st->skel)
		return -errno;
	st->skel->rodata->targ_tgid = run->o->pid;
	st->skel->rodata->kernel_stacks = run->o->kernel;
	st->skel->rodata->user_stacks = run->o->user;
	err = profile__load(st->skel);
	if (err) {
		loaderr_say("perfbuf profile", "the BPF program", err);
		run->start_said = true;
	}
	return err;
}

static int bpf_start(struct prof_run *run, void **state)
{
	/* a profile needs no 10 ms latency: fewer wake-ups, less CPU */
	PERFBUF_OPTS(perfbuf_opts, po, .page_cnt = 64, .latency_ms = 250);
	struct perfbuf_event_opts ev;
	struct bpf_state *st = calloc(1, sizeof(*st));
	int err;

	if (!st)
		return -ENOMEM;
	*state = st;
	err = load(run, st);
	if (err)
		return err;
	st->pb = cli_perfbuf_new("perfbuf profile",
				 bpf_map__fd(st->skel->maps.events), on_record,
				 st, &po, NULL);
	if (!st->pb) {
		run->start_said = true;	/* cli_perfbuf_new() said why */
		return -errno;
	}
	/* the dummy event: no samples, only side-band records */
	memset(&ev, 0, sizeof(ev));
	ev.sz = sizeof(ev);
	ev.kind = PERFBUF_EV_SOFTWARE;
	ev.config = PERF_COUNT_SW_DUMMY;
	ev.sample_period = 1;
	ev.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	ev.mmap = ev.mmap2 = ev.comm = ev.comm_exec = ev.sample_id_all = true;
	st->track = open_sampler(run, &ev, 64, 0);
	run->start_said = !st->track;	/* open_sampler() said why */
	if (!st->track)
		return -errno;
	/* the program returns 0: no sample records, only THROTTLE ones */
	prof_event_opts(run->o, &ev);
	ev.sample_type = PERF_SAMPLE_TID;
	st->clock = open_sampler(run, &ev, 1,
				 bpf_program__fd(st->skel->progs.on_sample));
	run->start_said = !st->clock;
	return st->clock ? 0 : -errno;
}

static int bpf_poll(struct prof_run *run, void *state, int timeout_ms)
{
	struct bpf_state *st = state;
	int n = perfbuf__poll(st->pb, timeout_ms);

	if (n < 0 && n != -EINTR)
		return n;
	return flush(run, st);
}

/* the program's per-CPU counts of stacks it could not take */
static void read_counts(struct prof_run *run, struct bpf_state *st)
{
	int ncpu = libbpf_num_possible_cpus();
	struct profile_counts *c;
	__u32 zero = 0;

	if (ncpu <= 0 || !(c = calloc((size_t)ncpu, sizeof(*c))))
		return;
	if (!bpf_map__lookup_elem(st->skel->maps.counts, &zero, sizeof(zero), c,
				  (size_t)ncpu * sizeof(*c), 0))
		for (int i = 0; i < ncpu; i++)
			run->counts.stack_errors += c[i].kstack_err + c[i].ustack_err;
	free(c);
}

static int bpf_stop(struct prof_run *run, void *state)
{
	struct bpf_state *st = state;
	int err = 0;

	if (st->clock) {
		struct perfbuf_sampler_stats ss = { .sz = sizeof(ss) };

		perfbuf_sampler__disable(st->clock);
		perfbuf__quiesce(st->pb);
		perfbuf__drain(st->pb);
		err = flush(run, st);
		perfbuf_sampler__stats(st->clock, &ss);
		run->counts.throttled += ss.throttled;
		for (size_t i = 0; i < perfbuf__ring_cnt(st->pb); i++) {
			struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };

			if (!perfbuf__stats(st->pb, i, &cs))
				run->counts.lost += cs.lost;
		}
		read_counts(run, st);
	}
	perfbuf_sampler__free(st->clock);
	perfbuf_sampler__free(st->track);
	perfbuf__free(st->pb);
	profile__destroy(st->skel);
	free(st->pending);
	free(st);
	return err;
}

const struct prof_engine_ops prof_engine_bpf = {
	.start = bpf_start,
	.poll = bpf_poll,
	.stop = bpf_stop,
};
