// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Event times per --time (clock.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "perfbuf.h"
#include "clock.h"
#include "say.h"

static __u64 ns_of(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000ULL + ts->tv_nsec;
}

void trace_clock_init(struct trace_clock *c, enum trace_time mode)
{
	struct timespec wall;
	__u64 before, after;

	/* the wall clock read between two monotonic reads: their middle */
	before = perfbuf_now_ns();
	clock_gettime(CLOCK_REALTIME, &wall);
	after = perfbuf_now_ns();
	c->mode = mode;
	c->start_ns = before + (after - before) / 2;
	c->wall_off_ns = (__s64)(ns_of(&wall) - c->start_ns);
}

int trace_time_parse(const char *arg, enum trace_time *mode)
{
	static const char *const names[] = { "rel", "mono", "wall" };

	for (int i = 0; i < 3; i++) {
		if (!strcmp(arg, names[i])) {
			*mode = (enum trace_time)i;
			return 0;
		}
	}
	return -EINVAL;
}

bool trace_time_option(const char *prog, const char *arg, enum trace_time *mode)
{
	if (!trace_time_parse(arg, mode))
		return true;
	cli_say(prog, "--time wants rel, mono or wall, not '%s'\n", arg);
	return false;
}

__u64 trace_clock_ns(const struct trace_clock *c, __u64 mono_ns)
{
	switch (c->mode) {
	case TRACE_TIME_REL:
		return mono_ns > c->start_ns ? mono_ns - c->start_ns : 0;
	case TRACE_TIME_WALL:
		return mono_ns + c->wall_off_ns;
	default:
		return mono_ns;
	}
}

size_t trace_clock_text(const struct trace_clock *c, __u64 mono_ns, char *buf,
			size_t sz)
{
	__u64 t = trace_clock_ns(c, mono_ns);
	unsigned int us = t % 1000000000 / 1000;
	time_t sec = t / 1000000000;
	struct tm tm;
	size_t n;
	int m;

	if (c->mode != TRACE_TIME_WALL) {
		m = snprintf(buf, sz, "%llu.%06u", (unsigned long long)sec, us);
		return m < 0 ? 0 : (size_t)m < sz ? (size_t)m : sz - 1;
	}
	if (!localtime_r(&sec, &tm) ||
	    !(n = strftime(buf, sz, "%Y-%m-%dT%H:%M:%S", &tm)))
		n = 0;
	m = snprintf(buf + n, sz - n, ".%06u", us);
	return m < 0 ? n : n + ((size_t)m < sz - n ? (size_t)m : sz - n - 1);
}

const char *trace_clock_header(const struct trace_clock *c)
{
	return c->mode == TRACE_TIME_WALL ? "TIME" : "TIME(s)";
}
