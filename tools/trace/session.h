/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The trace engine, one session: probes parsed and attached, the BPF
 * object and its filters loaded, the collector's rings read until the
 * end, then the programs stopped and detached. It knows nothing of where
 * records go: a command assembles it with its output, in these steps
 * (tools/cmd/trace.c does it for `perfbuf trace` and `perfbuf record`):
 *
 *   trace_session__init(&s, "perfbuf trace", &opts);
 *   trace_session__add_filters(&s)      --filter syntax: a typo costs nothing
 *   trace_session__prepare(&s, n, probes)  privileges, tracefs, probes
 *   (the command checks s.max_rec against its pages: trace_pages_needed())
 *   trace_session__need_fds(&s, extra)
 *   (the command opens its output: a bad path costs no BPF load)
 *   trace_session__load(&s)             the BPF object, filters in the kernel
 *   trace_session__open_rings(&s, &po, on_record, ctx)
 *   (the command opens its sink: trace_decoder + trace_sink, a capture...)
 *   trace_session__attach(&s, between, ctx)   "Attached N probes."
 *   trace_session__loop(&s, &loop)      poll until a signal, -d, done() or
 *                                       the exit of -p's process
 *   trace_session__stop(&s)             programs stop writing; then the
 *   (command drains and writes its end: trace_session__summary())
 *   trace_session__detach(&s, signals)
 *   trace_session__free(&s)
 *
 * Every step: 0 or a negative errno, its message printed.
 */
#ifndef PERFBUF_TRACE_SESSION_H
#define PERFBUF_TRACE_SESSION_H

#include <signal.h>
#include <stdbool.h>

#include "perfbuf.h"
#include "filter.h"
#include "output/ledger.h"
#include "pidwatch.h"
#include "probe.h"
#include "output/values.h"

struct trace_session_opts {
	long pages;		/* ring pages per CPU */
	long latency;		/* ms an event may wait; 0: the library's */
	unsigned long long duration_ns;	/* 0: until a signal */
	bool stats;		/* a line on stderr every second */
	bool verbose;		/* libbpf's debug output */
	struct trace_filter filter;	/* -p, --comm, --cpu, --kstack, --ustack */
	struct trace_read_opts read;	/* --string-size, --buffers */
	const char *const *filters;	/* --filter EXPR, @nfilters of them */
	int nfilters;
	const char *const *members;	/* --member EXPR[,EXPR...] */
	int nmembers;
};

struct trace_session {
	const char *prog;	/* what messages start with */
	struct trace_session_opts o;
	struct probe_set set;
	struct trace *skel;
	struct perfbuf *pb;
	size_t max_rec;		/* the largest record the probes write */
	struct trace_filters filters;	/* --filter, parsed */
	struct pidwatch pid;	/* -p: the loop ends when it exits */
	/* the programs' ledger (kind: the probe's index), and the summary's
	 * view of it */
	struct perfbuf_ledger *ledger;
	struct ledger_view view;
};

/* The loop's end, besides a signal, the duration and the exit of -p's
 * process: @stop (may be NULL) set by the record callback, or @done()
 * after a poll (may be NULL; flushes, snapshots: what the output does
 * between polls). */
struct trace_loop {
	volatile sig_atomic_t *exiting;
	const bool *stop;
	bool (*done)(void *ctx);
	void *ctx;
};

void trace_session__init(struct trace_session *s, const char *prog,
			 const struct trace_session_opts *o);
int trace_session__add_filters(struct trace_session *s);
int trace_session__prepare(struct trace_session *s, int nprobes, char **probes);
/* @extra: the command's own (a metrics server's) */
int trace_session__need_fds(struct trace_session *s, unsigned int extra);
int trace_session__load(struct trace_session *s);
/* @po: the command's ring options; page_cnt, latency_ms and
 * max_record_size are the session's when left 0. */
int trace_session__open_rings(struct trace_session *s, struct perfbuf_opts *po,
			      perfbuf_record_fn fn, void *ctx);
int trace_session__attach(struct trace_session *s, bool (*between)(void *ctx),
			  void *ctx);
int trace_session__loop(struct trace_session *s, const struct trace_loop *l);
int trace_session__stop(struct trace_session *s);
/* Per CPU: received and lost (ring full) into @cpus (perfbuf__ring_cnt()
 * of them) and their sums into @sum; per probe, the programs' ledger,
 * checked against the rings (a CPU that disagrees said on stderr). After
 * the final drain. */
void trace_session__summary(struct trace_session *s, struct tv_summary *sum,
			    struct tv_cpu_summary *cpus);
/* The ledger map's fd (loaded sessions), for a reader of another
 * thread's own (perfbuf_ledger__new()) */
int trace_session__ledger_fd(const struct trace_session *s);
int trace_session__detach(struct trace_session *s, volatile sig_atomic_t *signals);
void trace_session__free(struct trace_session *s);

/* The fewest ring pages (a power of two) holding records of @max_rec
 * bytes and a LOST record, as perfbuf__new() counts them. */
size_t trace_pages_needed(size_t max_rec);

/* The collector's totals: samples, lost, the fullest ring now and ever. */
struct trace_totals {
	__u64 samples, lost;
	double fill, peak;	/* 0..1 */
};
void trace_totals(struct perfbuf *pb, struct trace_totals *t);

#endif
