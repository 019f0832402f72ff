/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* tracefs format files (format.c): the fields of a tracepoint; what BPF
 * reads of strings and buffers (--string-size, --buffers). */
#ifndef PERFBUF_TRACE_FORMAT_H
#define PERFBUF_TRACE_FORMAT_H

#include <stddef.h>
#include <stdio.h>

struct trace_probe;

enum trace_buffers { BUFFERS_NONE, BUFFERS_ESCAPED, BUFFERS_HEX };
struct trace_read_opts {
	unsigned int str_size;		/* --string-size */
	enum trace_buffers buffers;	/* --buffers */
};
extern struct trace_read_opts trace_read;
/* trace_read as "buffers=hex string_size=255" (a capture's META options:
 * the slots of its records depend on it), and back: 0 or -EINVAL */
void trace_read_format(char *buf, size_t sz);
int trace_read_parse(const char *opts);
int tp_format_load(struct trace_probe *p);
/* The fields of format file @f into @p (p->target set: syscalls differ) */
int tp_format_parse(struct trace_probe *p, FILE *f);
void tp_fields_free(struct trace_probe *p);

#endif
