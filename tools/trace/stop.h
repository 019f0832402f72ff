/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The end of a trace (stop.c): the flow stopped at once, then many links
 * destroyed from several threads. */
#ifndef PERFBUF_TRACE_STOP_H
#define PERFBUF_TRACE_STOP_H

#include <signal.h>

struct trace;
struct bpf_link;

/* measured on 6.18 (README): per tracepoint perf event */
#define DETACH_MS_PER_TP 40

/* Stop every program writing (the stop map) and wait for those mid-record:
 * a drain after it sees every record there will be. 0 or -errno */
int trace_stop(struct trace *skel);
/* Destroy @links from several threads (@slow: perf-event tracepoints, for
 * the estimate; @prog: what its lines start with); see probes_detach()
 * for @signals. */
int links_destroy(const char *prog, struct bpf_link **links, int n, int slow,
		  volatile sig_atomic_t *signals);

#endif
