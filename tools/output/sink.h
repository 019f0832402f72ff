/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where decoded values go: a sink is a small vtable. The caller runs
 * begin(schema) once, then event/lost/notice in stream order, flush
 * whenever it wants the bytes out (every poll round), summary once, and
 * end to free it. A sink never calls another; text and JSON Lines are
 * two sinks (sink_text.c, sink_json.c) over one output buffer
 * (buf.c); a capture file or a network sink is a third.
 *
 * Errors: the first failure is kept in @err (negative errno: -EPIPE when
 * the reader went away, -ENOSPC, ...) and the sink drops what follows;
 * @written counts the events that reached the output whole (as of the
 * last flush), so the caller can say how many did not.
 */
#ifndef PERFBUF_OUTPUT_SINK_H
#define PERFBUF_OUTPUT_SINK_H

#include "common/clock.h"
#include "values.h"

struct trace_sink;

struct trace_sink_ops {
	const char *name;
	/* before any event: a header, prepared keys. 0 or -errno */
	int (*begin)(struct trace_sink *s, const struct tv_schema *schema);
	void (*event)(struct trace_sink *s, const struct tv_event *e);
	void (*lost)(struct trace_sink *s, const struct tv_lost *l);
	void (*notice)(struct trace_sink *s, const struct tv_notice *n);
	/* what is buffered, to its destination: 0 or @err */
	int (*flush)(struct trace_sink *s);
	/* the closing summary, written through: 0 or -errno (of the
	 * summary's own write; @err is not changed) */
	int (*summary)(struct trace_sink *s, const struct tv_summary *sum);
	/* free the sink (not flushed: call flush first) */
	void (*end)(struct trace_sink *s);
};

struct trace_sink {
	const struct trace_sink_ops *ops;
	int err;		/* first error, negative errno; 0: fine */
	__u64 written;		/* events written whole to the output */
};

/* Options of the text and JSON sinks. */
struct trace_sink_opts {
	int fd;			/* the output */
	int max_cols;		/* text: lines cut to this width; 0: never */
	struct trace_clock clock;	/* what times mean (--time) */
	/* stacks the events carry for other sinks (the maps by stack),
	 * not asked for here: not printed */
	bool no_kstack, no_ustack;
};

/* NULL with errno set (ENOMEM). */
struct trace_sink *trace_sink_text_new(const struct trace_sink_opts *o);
struct trace_sink *trace_sink_json_new(const struct trace_sink_opts *o);

/* The JSON object line of @v ('\n' included, *@len bytes), rendered by
 * JSON sink @s into its buffer instead of written: valid until the
 * sink's next call. For sinks that send each line elsewhere (NATS). */
enum trace_line {
	TRACE_LINE_EVENT,	/* @v: struct tv_event */
	TRACE_LINE_LOST,	/* struct tv_lost */
	TRACE_LINE_NOTICE,	/* struct tv_notice */
	TRACE_LINE_SUMMARY,	/* struct tv_summary */
};
const char *trace_sink_json_line(struct trace_sink *s, enum trace_line kind,
				 const void *v, size_t *len);

static inline int trace_sink__begin(struct trace_sink *s,
				    const struct tv_schema *schema)
{
	return s->ops->begin ? s->ops->begin(s, schema) : 0;
}

static inline void trace_sink__event(struct trace_sink *s,
				     const struct tv_event *e)
{
	s->ops->event(s, e);
}

static inline void trace_sink__lost(struct trace_sink *s,
				    const struct tv_lost *l)
{
	s->ops->lost(s, l);
}

static inline void trace_sink__notice(struct trace_sink *s,
				      const struct tv_notice *n)
{
	s->ops->notice(s, n);
}

static inline int trace_sink__flush(struct trace_sink *s)
{
	return s->ops->flush(s);
}

static inline int trace_sink__summary(struct trace_sink *s,
				      const struct tv_summary *sum)
{
	return s->ops->summary(s, sum);
}

static inline void trace_sink__end(struct trace_sink *s)
{
	if (s)
		s->ops->end(s);
}

#endif
