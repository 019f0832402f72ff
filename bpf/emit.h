/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * emit: a BPF record producer for tests, `perfbuf stress` and the
 * benchmark. Run with BPF_PROG_TEST_RUN; the context is
 * struct emit_args. Each run writes `count` records of `size` bytes to
 * the perf buffer of the CPU it runs on (program emit), or to the BPF
 * ring buffer `rb` (program emit_rb, the benchmark's ring_buffer peer).
 */
#ifndef EMIT_H
#define EMIT_H

#define EMIT_MAX_SIZE 8192	/* largest record payload */
#define EMIT_MAX_BATCH 1024	/* records per run */

/* The context passed to BPF_PROG_TEST_RUN (raw_tp args). */
struct emit_args {
	unsigned long long count;
	unsigned long long size;	/* >= sizeof(struct emit_rec) */
};

/* Every record starts with this; the rest of the payload is byte i = i. */
struct emit_rec {
	unsigned long long seq;		/* per CPU, from 0 */
	unsigned long long time_ns;	/* bpf_ktime_get_ns() at emit */
	unsigned int cpu;
	unsigned int size;
};

/* Per-CPU outcome of every bpf_perf_event_output() call. */
struct emit_stats {
	unsigned long long attempts;
	unsigned long long ok;
	unsigned long long enospc;	/* ring full: the kernel counts it lost */
	unsigned long long e2big;	/* CPU >= map max_entries */
	unsigned long long enoent;	/* no event in the map slot */
	unsigned long long eopnotsupp;	/* event belongs to another CPU */
	unsigned long long other;
};

#endif
