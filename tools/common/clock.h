/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What an event's time means (--time), one convention for trace, report
 * and demo, text and JSON alike: rel, since the start (the default);
 * mono, CLOCK_MONOTONIC (the clock of the records: perf's and bpftrace's
 * nsecs); wall, CLOCK_REALTIME (the monotonic time plus the offset
 * between the two clocks measured at the start: a clock step while
 * tracing does not move the events).
 */
#ifndef PERFBUF_TRACE_CLOCK_H
#define PERFBUF_TRACE_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

enum trace_time { TRACE_TIME_REL, TRACE_TIME_MONO, TRACE_TIME_WALL };

struct trace_clock {
	enum trace_time mode;
	__u64 start_ns;		/* CLOCK_MONOTONIC at the start */
	__s64 wall_off_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
};

/* @mode, starting now. */
void trace_clock_init(struct trace_clock *c, enum trace_time mode);
/* "rel", "mono" or "wall": 0, or -EINVAL. */
int trace_time_parse(const char *arg, enum trace_time *mode);
/* The same for --time of command @prog: false after the line "PROG:
 * --time wants rel, mono or wall, not 'ARG'". */
bool trace_time_option(const char *prog, const char *arg, enum trace_time *mode);
/* A record's CLOCK_MONOTONIC time on the clock: nanoseconds since the
 * start (0 before it), of CLOCK_MONOTONIC, or since the Unix epoch. */
__u64 trace_clock_ns(const struct trace_clock *c, __u64 mono_ns);
/* Its text: seconds with microseconds ("12.345678"; rel, mono) or the
 * local date and time ("2026-11-23T02:40:01.123456"; wall). The length
 * written, NUL aside (@sz >= 32 holds any). */
size_t trace_clock_text(const struct trace_clock *c, __u64 mono_ns, char *buf,
			size_t sz);
/* The text column's header: "TIME(s)", or "TIME" (wall). */
const char *trace_clock_header(const struct trace_clock *c);

#endif
