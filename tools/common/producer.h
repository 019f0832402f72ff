/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Shared by `perfbuf stress` and perfbuf-bench: producer threads that drive
 * a record emitter (bpf/emit.bpf.c, programs emit and emit_rb, both taking
 * struct emit_args) with BPF_PROG_TEST_RUN, pinned to one CPU each, at a
 * paced rate or flat out; plus clocks, CPU pinning and a latency histogram.
 */
#ifndef PERFBUF_PRODUCER_H
#define PERFBUF_PRODUCER_H

#include <pthread.h>
#include <stdbool.h>
#include <linux/types.h>

#include "emit.h"
#include "perfbuf.h"	/* perfbuf_now_ns(): CLOCK_MONOTONIC, as bpf_ktime_get_ns() */

struct producer {
	/* set by the caller */
	int prog_fd;
	int cpu;
	__u64 size;		/* bytes per record */
	__u64 batch;		/* records per BPF_PROG_TEST_RUN, <= EMIT_MAX_BATCH */
	double rate;		/* records/s; 0 = as fast as possible */
	const int *stop;	/* read with acquire; non-zero ends the loop */
	/* results */
	__u64 runs;		/* BPF_PROG_TEST_RUN calls */
	__u64 requested;	/* records asked for */
	int err;		/* negative errno of the first failure */
	pthread_t thread;
	bool started;
};

/* Start @p's thread: pinned to p->cpu, it runs the program until *p->stop. */
int producer_start(struct producer *p);
/* Wait for the thread; returns p->err. */
int producer_join(struct producer *p);

/* One run of @prog_fd on @cpu (no IPI when the caller already runs there):
 * @count records of @size bytes. Returns 0 or a negative errno. */
int emit_once(int prog_fd, int cpu, __u64 count, __u64 size);

struct emit;
/* Open and load bpf/emit.bpf.c with the one program wanted (the verifier
 * takes most of a second over each): emit_rb into a BPF ring buffer of
 * @size bytes when @ringbuf, else emit into a PERF_EVENT_ARRAY of @size
 * entries (0: the default). NULL with errno on failure. */
struct emit *emit_open_load(bool ringbuf, __u32 size);
/* The fd of @skel's loaded program: emit or, @ringbuf, emit_rb (their
 * twins with a bounded loop where the kernel has no bpf_loop()) */
int emit_prog_fd(struct emit *skel, bool ringbuf);

/* Sum of the per-CPU struct emit_stats of CPU @cpu in PERCPU_ARRAY @map_fd. */
int emit_stats_read(int map_fd, int cpu, struct emit_stats *out);

/* Pin the calling thread to @cpu. */
int pin_self(int cpu);
__u64 thread_cpu_ns(void);	/* CLOCK_THREAD_CPUTIME_ID */

/* Latency histogram: 128 linear sub-buckets per power of two (< 0.8 %
 * wide: 10 ms is told from 10.1 ms). */
#define LAT_SUB_BITS 7
#define LAT_BUCKETS (64 << LAT_SUB_BITS)
struct lat_hist {
	__u64 cnt;
	__u64 max;
	__u64 b[LAT_BUCKETS];
};

void lat_add(struct lat_hist *h, __u64 ns);
/* The @q quantile (0..1) in ns, 0 when empty. */
__u64 lat_quantile(const struct lat_hist *h, double q);

#endif
