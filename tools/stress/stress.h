/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perfbuf stress: load the perf buffer from BPF and check that every record
 * is accounted for. One producer thread per chosen CPU runs bpf/emit.bpf.c
 * with BPF_PROG_TEST_RUN on its own CPU; this thread consumes. At the end the
 * producers stop, the rings are drained (perfbuf__drain() also reports the
 * losses no LOST record carried), and per CPU:
 *   offered == received + lost,  lost == BPF-side -ENOSPC count,
 *   every sequence gap == the LOST count reported in it.
 *
 * cmd/stress.c: the command and its options; run.c: the producers, the consumer
 * and the per-record checks; report.c: the per-CPU verdicts and the
 * table or JSON.
 */
#ifndef PERFBUF_STRESS_H
#define PERFBUF_STRESS_H

#include <stdbool.h>
#include <linux/types.h>

#include "perfbuf.h"
#include "common/producer.h"

#define MAX_CPUS 1024
#define PAGE_SZ 4096

struct cpu_seen {
	__u64 received;
	__u64 lost;
	__u64 next_seq;		/* the seq the next record must carry */
	__u64 seq_errors;	/* records whose seq a LOST count did not explain */
	__u64 bad;		/* wrong cpu or size in the record */
	__u64 first_bad_seq, first_bad_want;
};

struct stress {
	struct cpu_seen *seen;	/* indexed by CPU number */
	__u64 size;
	/* --ordered: the stream's time order */
	__u64 last_ns;
	__u64 late;		/* flagged late by the library */
	__u64 order_errors;	/* older than the one before, not flagged */
};

struct cpu_result {
	int cpu;
	__u64 offered, received, lost, enospc, failed, seq_errors, bad;
	__u64 high_water, ring_bytes, lost_kernel;
	bool ok;
};

struct stress_opts {
	long long size, batch, pages, latency, delay_us;
	double rate, duration;	/* rate 0: flat out */
	bool json, ordered, have_rate, have_max;
	int n_cpus;		/* 0: the online CPUs */
	int cpus[MAX_CPUS];
};

struct stress_run {
	struct stress_opts o;
	struct stress st;
	struct producer *prod;
	struct cpu_result *res;
	struct perfbuf *pb;
	struct emit *skel;
	int stop;		/* the producers' flag */
	double secs;
	__u64 tot_off, tot_rcv, tot_lost, tot_fail;
	bool all_ok;
};

/* run.c: privileges, CPUs, memory, the BPF program and the rings; then
 * the producers and the consumer until the end. 0 or -1 (said). */
int stress_setup(struct stress_run *run);
int stress_run(struct stress_run *run);
/* report.c: each CPU's verdict into run->res (0 or -1, said), then the
 * table or the JSON object on stdout. */
int stress_results(struct stress_run *run);
void stress_print_json(const struct stress_run *run);
void stress_print_table(const struct stress_run *run);

#endif
