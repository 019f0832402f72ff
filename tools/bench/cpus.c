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

/* The median start-up of @reps collectors (latency_ms: @lat), in ns; an
 * idle second of the last one's polls into *@idle_ns. */
static int perfbuf_costs(int map_fd, int lat, double *start_ns, double *idle_ns)
{
	PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = CPUS_PAGES, .latency_ms = lat);
	double t[START_REPS];
	struct perfbuf *pb = NULL;

	for (int i = 0; i < START_REPS; i++) {
		__u64 t0;

		perfbuf__free(pb);
		t0 = perfbuf_now_ns();
		pb = perfbuf__new(map_fd, ignore_rec, NULL, &o);
		if (!pb)
			return -errno;
		t[i] = (double)(perfbuf_now_ns() - t0);
	}
	*start_ns = median_double(t, START_REPS);
	{
		__u64 c0 = thread_cpu_ns(), w0 = perfbuf_now_ns();

		while (perfbuf_now_ns() - w0 < (__u64)(env.secs * 1e9))
			perfbuf__poll(pb, 100);
		*idle_ns = (double)(thread_cpu_ns() - c0) / env.secs;
	}
	perfbuf__free(pb);
	return 0;
}

static int libbpf_costs(int map_fd, double *start_ns, double *idle_ns)
{
	double t[START_REPS];
	struct perf_buffer *pb = NULL;

	for (int i = 0; i < START_REPS; i++) {
		__u64 t0;

		perf_buffer__free(pb);
		t0 = perfbuf_now_ns();
		pb = perf_buffer__new(map_fd, CPUS_PAGES, ignore_lb, NULL, NULL, NULL);
		if (!pb)
			return -errno;
		t[i] = (double)(perfbuf_now_ns() - t0);
	}
	*start_ns = median_double(t, START_REPS);
	{
		__u64 c0 = thread_cpu_ns(), w0 = perfbuf_now_ns();

		while (perfbuf_now_ns() - w0 < (__u64)(env.secs * 1e9))
			perf_buffer__poll(pb, 100);
		*idle_ns = (double)(thread_cpu_ns() - c0) / env.secs;
	}
	perf_buffer__free(pb);
	return 0;
}

int bench_cpus(void)
{
	struct emit *skel = emit_open_load(false, 0);
	double pb_start = 0, pb_idle = 0, pbn_start = 0, pbn_idle = 0, lb_start = 0, lb_idle = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int err, fd;

	if (!skel)
		return -errno;
	fd = bpf_map__fd(skel->maps.events);
	err = perfbuf_costs(fd, 0, &pb_start, &pb_idle) ?:
	      perfbuf_costs(fd, -1, &pbn_start, &pbn_idle) ?:
	      libbpf_costs(fd, &lb_start, &lb_idle);
	emit__destroy(skel);
	if (err) {
		fprintf(stderr, "perfbuf-bench: cpus: %s\n", strerror(-err));
		return err;
	}
	emit_section("Many CPUs: start-up and an idle consumer");
	emit_md("%ld online CPUs, rings of %d pages, no events; start-up: the median of %d; idle: %.0f s of polls (100 ms timeouts).\n\n",
		ncpu, CPUS_PAGES, START_REPS, env.secs);
	emit_md("| consumer | start-up ms | idle CPU us/s |\n|---|---:|---:|\n");
	emit_md("| perfbuf default (10 ms latency bound) | %.2f | %.0f |\n", pb_start / 1e6, pb_idle / 1e3);
	emit_md("| perfbuf, no latency bound | %.2f | %.0f |\n", pbn_start / 1e6, pbn_idle / 1e3);
	emit_md("| libbpf perf_buffer | %.2f | %.0f |\n\n", lb_start / 1e6, lb_idle / 1e3);
	emit_md("| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	info_line("start-up: perfbuf / libbpf perf_buffer", pb_start, lb_start);
	info_line("idle CPU: perfbuf default / libbpf perf_buffer", pb_idle, lb_idle > 0 ? lb_idle : 1);
	info_line("idle CPU: perfbuf, no bound / libbpf perf_buffer", pbn_idle, lb_idle > 0 ? lb_idle : 1);
	return 0;
}
