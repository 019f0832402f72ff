// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --engine perf: the kernel's own sample records. cpu-clock on each CPU
 * with PERF_SAMPLE_CALLCHAIN, and the side-band records (MMAP2, COMM) in
 * the same rings, all read with libperfbuf's sample parser.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "tool.h"

#define PAGES 64	/* 256 KiB per CPU: ~1 s of 999 Hz deep stacks */

struct perf_state {
	struct perfbuf_sampler *s;
};

static int on_sample(void *ctx, const struct perfbuf_sample *s)
{
	struct prof_run *run = ctx;
	__u64 kips[PROF_MAX_FRAMES], uips[PROF_MAX_FRAMES], ip, where = 0;
	__u32 nk = 0, nu = 0;
	size_t pos = 0;

	if (s->type != PERF_RECORD_SAMPLE) {
		prof_side_band(run, s);
		return PERFBUF_CONTINUE;
	}
	/* the idle task is not a process; others when one was asked for */
	if (!s->tid || (run->o->pid && s->pid != (__u32)run->o->pid))
		return PERFBUF_CONTINUE;
	while (perfbuf_callchain__next(s, &pos, &ip, &where)) {
		if (where == (__u64)PERF_CONTEXT_KERNEL && nk < PROF_MAX_FRAMES)
			kips[nk++] = ip;
		else if (where == (__u64)PERF_CONTEXT_USER && nu < PROF_MAX_FRAMES)
			uips[nu++] = ip;
	}
	if (prof_add_stack(run, s->pid, s->tid, comms_get(run->comms, s->pid, s->tid),
			   kips, nk, uips, nu))
		return PERFBUF_STOP;	/* out of memory: said at the end */
	return PERFBUF_CONTINUE;
}

static int perf_start(struct prof_run *run, void **state)
{
	struct perfbuf_event_opts ev;
	PERFBUF_OPTS(perfbuf_sampler_opts, so, .page_cnt = PAGES);
	struct perf_state *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	prof_event_opts(run->o, &ev);
	ev.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN;
	ev.sample_max_stack = PROF_MAX_FRAMES;
	ev.exclude_callchain_kernel = !run->o->kernel;
	ev.exclude_callchain_user = !run->o->user;
	ev.read_format = PERF_FORMAT_LOST;
	ev.mmap = ev.mmap2 = ev.comm = ev.comm_exec = true;
	ev.sample_id_all = true;
	ev.wakeup_watermark = PAGES * 4096 / 4;
	if (run->o->cpu >= 0) {
		so.cpus = &run->o->cpu;
		so.cpu_cnt = 1;
	}
	st->s = cli_sampler_new("perfbuf profile", &ev, &so);
	if (!st->s) {
		int err = -errno;

		run->start_said = true;	/* cli_sampler_new() said why */
		free(st);
		return err;
	}
	*state = st;
	return 0;
}

static int perf_poll(struct prof_run *run, void *state, int timeout_ms)
{
	struct perf_state *st = state;
	int n = perfbuf_sampler__poll(st->s, timeout_ms, on_sample, run);

	/* a record that does not parse is counted; the run goes on */
	return n < 0 && n != -EBADMSG ? n : 0;
}

static int perf_stop(struct prof_run *run, void *state)
{
	struct perf_state *st = state;
	struct perfbuf_sampler_stats ss = { .sz = sizeof(ss) };

	perfbuf_sampler__disable(st->s);
	perfbuf_sampler__consume(st->s, on_sample, run);
	perfbuf_sampler__stats(st->s, &ss);
	run->counts.lost += ss.lost;
	run->counts.throttled += ss.throttled;
	run->counts.bad += ss.bad;
	perfbuf_sampler__free(st->s);
	free(st);
	return 0;
}

const struct prof_engine_ops prof_engine_perf = {
	.start = perf_start,
	.poll = perf_poll,
	.stop = perf_stop,
};
