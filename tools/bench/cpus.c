// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench part "cpus": what the CPU count costs a consumer with no
 * events: the start-up (every CPU's event opened, mapped and put in the
 * map: perfbuf__new() against perf_buffer__new()) and an idle consumer's
 * CPU time a second (perfbuf with its 10 ms latency bound, and without
 * one, against perf_buffer__poll()). Run it in guests of 2, 64 and 128
 * vCPUs for the ratios at each count (tests/vm). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"

#include "emit.skel.h"
#include "common/say.h"

#define START_REPS 5
#define CPUS_PAGES 64		/* per CPU: the mapping's cost, not the size's */

static int ignore_rec(void *ctx, const struct perfbuf_record *rec)
{
	(void)ctx;
	(void)rec;
	return PERFBUF_CONTINUE;
}

static void ignore_lb(void *ctx, int cpu, void *data, __u32 size)
{
	(void)ctx;
	(void)cpu;
	(void)data;
	(void)size;
}

/* One start-up of each, alternately (a guest still settling after its
 * boot slows whichever comes first): ns into @pb_ns and @lb_ns. */
static int start_once(int map_fd, double *pb_ns, double *lb_ns)
{
	PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = CPUS_PAGES);
	struct perf_buffer *lpb;
	struct perfbuf *pb;
	__u64 t0 = perfbuf_now_ns();

	pb = perfbuf__new(map_fd, ignore_rec, NULL, &o);
	if (!pb)
		return -errno;
	*pb_ns = (double)(perfbuf_now_ns() - t0);
	perfbuf__free(pb);
	t0 = perfbuf_now_ns();
	lpb = perf_buffer__new(map_fd, CPUS_PAGES, ignore_lb, NULL, NULL, NULL);
	if (!lpb)
		return -errno;
	*lb_ns = (double)(perfbuf_now_ns() - t0);
	perf_buffer__free(lpb);
	return 0;
}

static int start_costs(int map_fd, double *pb_ns, double *lb_ns)
{
	double pb[START_REPS], lb[START_REPS];

	for (int i = 0; i < START_REPS; i++) {
		int err = start_once(map_fd, &pb[i], &lb[i]);

		if (err)
			return err;
	}
	*pb_ns = median_double(pb, START_REPS);
	*lb_ns = median_double(lb, START_REPS);
	return 0;
}

/* The CPU time a second of @poll(@pb) with 100 ms timeouts takes (the
 * consumers' own polls: nothing is written) */
static double idle_ns(void (*poll)(void *pb), void *pb)
{
	__u64 c0 = thread_cpu_ns(), w0 = perfbuf_now_ns();

	while (perfbuf_now_ns() - w0 < (__u64)(env.secs * 1e9))
		poll(pb);
	return (double)(thread_cpu_ns() - c0) / env.secs;
}

static void perfbuf_poll_100(void *pb) { perfbuf__poll(pb, 100); }
static void libbpf_poll_100(void *pb) { perf_buffer__poll(pb, 100); }

/* An idle second's CPU time of perfbuf's polls (latency_ms @lat). */
static int perfbuf_idle(int map_fd, int lat, double *idle)
{
	PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = CPUS_PAGES, .latency_ms = lat);
	struct perfbuf *pb = perfbuf__new(map_fd, ignore_rec, NULL, &o);

	if (!pb)
		return -errno;
	*idle = idle_ns(perfbuf_poll_100, pb);
	perfbuf__free(pb);
	return 0;
}

static int libbpf_idle(int map_fd, double *idle)
{
	struct perf_buffer *pb = perf_buffer__new(map_fd, CPUS_PAGES, ignore_lb,
						  NULL, NULL, NULL);

	if (!pb)
		return -errno;
	*idle = idle_ns(libbpf_poll_100, pb);
	perf_buffer__free(pb);
	return 0;
}

int bench_cpus(void)
{
	struct emit *skel = emit_open_load(false, 0);
	double pb_start = 0, pb_idle = 0, pbn_idle = 0, lb_start = 0, lb_idle = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int err, fd;

	if (!skel)
		return -errno;
	fd = bpf_map__fd(skel->maps.events);
	err = start_costs(fd, &pb_start, &lb_start) ?:
	      perfbuf_idle(fd, 0, &pb_idle) ?: perfbuf_idle(fd, -1, &pbn_idle) ?:
	      libbpf_idle(fd, &lb_idle);
	emit__destroy(skel);
	if (err) {
		cli_say("perfbuf-bench", "cpus: %s\n", strerror(-err));
		return err;
	}
	emit_section("Many CPUs: start-up and an idle consumer");
	emit_md("%ld online CPUs, rings of %d pages, no events; start-up: the median of %d, each peer in turn; idle: %.0f s of polls (100 ms timeouts).\n\n",
		ncpu, CPUS_PAGES, START_REPS, env.secs);
	emit_md("| consumer | start-up ms | idle CPU us/s |\n|---|---:|---:|\n");
	emit_md("| perfbuf default (10 ms latency bound) | %.2f | %.0f |\n", pb_start / 1e6, pb_idle / 1e3);
	emit_md("| perfbuf, no latency bound | - | %.0f |\n", pbn_idle / 1e3);
	emit_md("| libbpf perf_buffer | %.2f | %.0f |\n\n", lb_start / 1e6, lb_idle / 1e3);
	emit_md("| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	info_line("start-up: perfbuf / libbpf perf_buffer", pb_start, lb_start);
	info_line("idle CPU: perfbuf default / libbpf perf_buffer", pb_idle, lb_idle > 0 ? lb_idle : 1);
	info_line("idle CPU: perfbuf, no bound / libbpf perf_buffer", pbn_idle, lb_idle > 0 ? lb_idle : 1);
	return 0;
}
