/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfbuf record`: `perfbuf trace`'s probes and loop (tools/cmd/trace.c)
 * with a capture file for output; and `perfbuf report`, which reads one.
 */
#ifndef PERFBUF_RECORD_H
#define PERFBUF_RECORD_H

#include "perfbuf.h"
#include "capture_out.h"

#define RECORD_DEFAULT_OUTPUT "perfbuf.cap"
#define RECORD_DEFAULT_RTPRIO 1	/* --realtime: the lowest real-time one */

extern const char record_usage[];

/* --flight-recorder SIZE (a size, common/units.h) into pages per CPU, a
 * power of two; false after one line on stderr naming @prog. */
bool record_parse_size(const char *prog, const char *arg, long *pages);
/* META of this run (the collector @pb is set up) and the probes. */
int record_begin(struct capture_out *c, struct perfbuf *pb,
		 const struct probe_set *set, long pages, bool flight,
		 const char *options);
/* The summary on stderr and in the END frame: events, bytes written and
 * losses per CPU; the probes' ledger @v (NULL: none) in a LEDGER frame;
 * close. 0, or -EIO after saying what failed. */
struct ledger_view;
int record_finish(struct capture_out *c, struct perfbuf *pb,
		  struct trace *skel, const struct ledger_view *v, const char *path);

/* The calling thread (the reader) to SCHED_FIFO @prio (0: nothing).
 * Refused (no CAP_SYS_NICE): one line on stderr, the normal scheduler,
 * -errno. */
int record_realtime(const char *prog, int prio);
/* Back to the normal scheduler, after the reading (the detach of many
 * probes is long work: not at a real-time priority). */
void record_realtime_end(int prio);

#endif
