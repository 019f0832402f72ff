/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --metrics [ADDR:]PORT: perfbuf's own health for Prometheus, served while
 * a command runs (server.c, in its own thread). What it shows:
 *   per CPU   from the collector, read by the server's thread with
 *             perfbuf__stats() (safe while the event loop polls), and the
 *             BPF side's failed writes (the ledger, by reason)
 *   per kind  the ledger's offered and lost (a probe of trace)
 *   counters  of the event loop (sink, NATS, profile), which it publishes
 *             with metrics_publish() once a poll round: relaxed atomic
 *             stores, no lock
 *   process   CPU, memory, start time, fds (process.c)
 * At the end the command publishes its final counts with the summary; the
 * server keeps serving until the command exits (detaching many probes
 * takes a while): a scrape then shows the summary's numbers.
 */
#ifndef PERFBUF_METRICS_H
#define PERFBUF_METRICS_H

#include <stdbool.h>
#include <linux/types.h>

#include "perfbuf.h"
#include "expo.h"

#define METRICS_USAGE \
"      --metrics [ADDR:]PORT\n" \
"                       serve Prometheus metrics at http://ADDR:PORT/metrics\n" \
"                       while running (ADDR: 127.0.0.1 unless given)\n"

#define METRICS_MAX_PB 16

/* fds the server may hold: its connections, listener, epoll, eventfd */
#define METRICS_FDS (256 + 4)

/* Why bpf_perf_event_output() failed, as the BPF side counts it */
enum metrics_reason {
	METRICS_NO_SPACE,	/* -ENOSPC: the ring was full */
	METRICS_NO_RING,	/* -ENOENT, -E2BIG: no ring in the CPU's slot */
	METRICS_OTHER,		/* -EOPNOTSUPP (a dead event), -EBUSY, ... */
	METRICS_REASONS,
};

/* The BPF side's failures of CPUs 0..@ncpu-1 into @out: 0 or -errno.
 * Called from the server's thread. */
typedef int (*metrics_bpf_fn)(void *ctx, int ncpu,
			      __u64 (*out)[METRICS_REASONS]);

/* One kind of the programs' ledger (a probe): its name and counts */
struct metrics_kind {
	char *name;
	__u64 offered, lost;
};

/* The kinds now into *@out (*@n of them; the array and names malloc'd,
 * the caller frees): 0 or -errno. Called from the server's thread. */
typedef int (*metrics_kinds_fn)(void *ctx, struct metrics_kind **out,
				size_t *n);

/* Counters of the event loop, published to the server's thread */
struct metrics_counts {
	__u64 written;		/* events the sink wrote */
	__u64 sink_errors;	/* write failures of the sink */
	__u64 nats_published, nats_acknowledged;
	__u64 nats_buffer_full, nats_rejected, nats_unacked;	/* dropped */
	__u64 profile_samples, profile_lost;
};

struct metrics_server;

struct metrics {
	struct metrics_server *srv;
	/* what there is to show: set before metrics_ready() */
	/* the collectors of the per-CPU series (a CPU's counts added up
	 * over them); none: no per-CPU series */
	const struct perfbuf *pb[METRICS_MAX_PB];
	int npb;
	metrics_bpf_fn bpf;		/* NULL: no BPF-side failures */
	void *bpf_ctx;
	/* NULL: no per-kind series; else offered and lost by @kind_label */
	metrics_kinds_fn kinds;
	void *kinds_ctx;
	const char *kind_label;		/* "probe" */
	const char *sink;	/* "text", "json", "nats", "capture"; NULL: none */
	bool nats, profile;	/* their counters shown */
	bool ready;		/* set by metrics_ready(): the above are */
	struct metrics_counts pub;	/* atomic: metrics_publish() */
};

/* "[ADDR:]PORT" checked (at option time): 0, or -EINVAL said on stderr */
int metrics_check_addr(const char *prog, const char *arg);
/* Listen on @arg and serve; until metrics_ready() only the process
 * metrics and build_info. 0, or -errno said in one line on stderr. */
int metrics_start(struct metrics *m, const char *prog, const char *arg);
/* The sources in @m are set: show them from now on. */
void metrics_ready(struct metrics *m);
/* The event loop's counters, for the next scrape (cheap: call it every
 * poll round, and once more at the end). */
void metrics_publish(struct metrics *m, const struct metrics_counts *c);
/* Stop serving (before the sources are freed). Idempotent. */
void metrics_stop(struct metrics *m);

/* process.c: process_cpu_seconds_total and the other standard ones */
void metrics_process(struct expo *e);

#endif
