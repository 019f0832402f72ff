// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the text and JSON sinks share: an output buffer behind the sink,
 * its flush and end, the summary's way out, and numbers.
 */
#include <errno.h>
#include <stdlib.h>

#include "output.h"

static struct outbuf *ob_of(struct trace_sink *s)
{
	return &((struct buf_sink *)s)->ob;
}

void *buf_sink_new(size_t size, const struct trace_sink_ops *ops, int fd,
		   bool (*is_event)(const char *p, size_t n))
{
	struct buf_sink *b = calloc(1, size);

	if (!b || outbuf_init(&b->ob, fd, is_event)) {
		free(b);
		errno = ENOMEM;
		return NULL;
	}
	b->base.ops = ops;
	return b;
}

int buf_sink_flush(struct trace_sink *s)
{
	struct outbuf *o = ob_of(s);

	s->err = outbuf_flush(o);
	s->written = o->ev_written;
	return s->err;
}

void buf_sink_end(struct trace_sink *s)
{
	outbuf_free(ob_of(s));
	free(s);
}

int buf_sink_summary(struct trace_sink *s, int fd, const struct tv_summary *sum,
		     void (*write)(struct outbuf *o, const struct tv_summary *sum))
{
	struct outbuf *o = ob_of(s);
	int out_fd = o->fd, err, werr;

	buf_sink_flush(s);
	err = o->err;
	if (fd >= 0) {
		o->fd = fd;
		o->err = 0;
	}
	write(o, sum);
	werr = outbuf_flush(o);
	o->fd = out_fd;
	o->err = err;
	return werr;
}

bool out_number(struct outbuf *o, const struct tv_field *f)
{
	switch (f->type) {
	case TV_INT:
		if (f->is_signed)
			out_s64(o, f->i);
		else
			out_u64(o, f->u);
		return true;
	case TV_ARRAY:
		out_ints(o, f->data, f->len, f->width, f->is_signed);
		return true;
	default:
		return false;
	}
}
