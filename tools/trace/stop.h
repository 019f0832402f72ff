/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The end of a trace (stop.c): the flow stopped at once, then many links
 * destroyed from several threads. */
#ifndef PERFBUF_TRACE_STOP_H
#define PERFBUF_TRACE_STOP_H

#include <signal.h>

struct trace;
struct bpf_link;

/* measured on 6.18: the kernel's wait when a perf event of a tracepoint,
 * or of a uprobe (not in a uprobe_multi link), is detached; one at a time
 * (RCU grace periods under its event_mutex) */
#define DETACH_MS_PER_TP 40
#define DETACH_MS_PER_UPROBE 80

/* What makes a detach slow: the perf events of tracepoints and uprobes */
struct detach_cost {
	int tracepoints, uprobes;
};

/* Stop every program writing (the stop map) and wait for those mid-record:
 * a drain after it sees every record there will be. 0 or -errno */
int trace_stop(struct trace *skel);
/* Destroy @links from several threads (@cost: for the estimate said
 * first when it is 1 s or more; a line after 1 s if it was not; @prog:
 * what its lines start with); see probes_detach() for @signals. */
int links_destroy(const char *prog, struct bpf_link **links, int n,
		  const struct detach_cost *cost, volatile sig_atomic_t *signals);

#endif
