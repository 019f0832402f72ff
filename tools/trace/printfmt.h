/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef PERFBUF_TRACE_PRINTFMT_H
#define PERFBUF_TRACE_PRINTFMT_H

struct trace_probe;

/* printfmt.c: address and value-name hints of @p's fields from the
 * format file's "print fmt:" @line */
void tp_printfmt_parse(struct trace_probe *p, const char *line);

#endif
