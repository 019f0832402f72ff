/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* tracefs format files (format.c): the fields of a tracepoint; what BPF
 * reads of strings and buffers (--string-size, --buffers). */
#ifndef PERFBUF_TRACE_FORMAT_H
#define PERFBUF_TRACE_FORMAT_H

#include <stddef.h>
#include <stdio.h>

#include "trace.h"	/* TRACE_STR_SIZE */

struct trace_probe;

enum trace_buffers { BUFFERS_NONE, BUFFERS_ESCAPED, BUFFERS_HEX };
/* What the programs read of strings and buffers: a probe set's (a
 * probe's read points there; NULL: the defaults) */
struct trace_read_opts {
	unsigned int str_size;		/* --string-size */
	enum trace_buffers buffers;	/* --buffers */
};
#define TRACE_READ_DEFAULT ((struct trace_read_opts){ .str_size = TRACE_STR_SIZE })
/* @r as "buffers=hex string_size=255" (a capture's META options: the
 * slots of its records depend on it), and back: 0 or -EINVAL */
void trace_read_format(const struct trace_read_opts *r, char *buf, size_t sz);
int trace_read_parse(struct trace_read_opts *r, const char *opts);
int tp_format_load(struct trace_probe *p);
/* The declarations of tracepoint @target's fields ("const char * filename",
 * "char prev_comm[16]"), those a probe of it has (no common_*), to @fn in
 * the format file's order until it returns non-zero: that, 0, or -errno
 * (no such tracepoint: -ENOENT) */
int tp_format_decls(const char *target, int (*fn)(const char *decl, void *ctx),
		    void *ctx);
/* The fields of format file @f into @p (p->target set: syscalls differ) */
int tp_format_parse(struct trace_probe *p, FILE *f);
void tp_fields_free(struct trace_probe *p);

#endif
