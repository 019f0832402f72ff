/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * nats-tail's merge by time (tail_src.c): messages of many hosts arrive in
 * the order the stream stored them, each host's mostly in time order but
 * interleaved with the others' as the network had it. Each host is a
 * source of the library's merge (perfbuf_merge__add_source()); its lines
 * wait in it in time order. The merge hands them out oldest first once
 * the newest time seen is a window past them (perf's ordered_events, with
 * a lateness bound), or all of them when the stream has gone quiet or the
 * end is reached. Equal times: a host's lines in the order they arrived,
 * different hosts' in the order the hosts first appeared. A line older
 * than one handed out before it (it came more than the window late) is
 * handed out anyway, flagged late and counted.
 */
#ifndef PERFBUF_NATS_TAIL_SRC_H
#define PERFBUF_NATS_TAIL_SRC_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "tail.h"

struct tail_src;

/* An empty merge, or NULL (ENOMEM). */
struct tail_src *tail_src_new(void);
void tail_src_free(struct tail_src *ts);

/*
 * A message's lines (@data, @len bytes of JSON Lines) from @host, their
 * Perfbuf-Args @args, into @host's source: a line is kept only when
 * tail_json_ok() says so; its Unix time is @first_real plus its time_ns
 * less the first line's (a line without one takes its elder's).
 * @return the lines skipped (not perfbuf's JSON, or no memory)
 */
size_t tail_src_add(struct tail_src *ts, const char *host, const char *args,
		    __s64 first_real, const char *data, size_t len);

/* @fn's return: PERFBUF_CONTINUE, or PERFBUF_STOP to end the call (the
 * line stopped on is handed out) */
typedef int (*tail_line_fn)(void *ctx, const struct tail_line *l);

/* The waiting lines at least @window_ns older than the newest added (or,
 * @all, every one) to @fn in time order. The lines handed out. */
int tail_src_emit(struct tail_src *ts, __s64 window_ns, bool all,
		  tail_line_fn fn, void *ctx);
/* Lines waiting. */
size_t tail_src_waiting(const struct tail_src *ts);
/* Lines handed out late (older than one handed out before). */
__u64 tail_src_late(const struct tail_src *ts);

#endif
