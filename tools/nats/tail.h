/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* perfbuf nats-tail (tail.c): its output (tail_out.c). */
#ifndef PERFBUF_NATS_TAIL_H
#define PERFBUF_NATS_TAIL_H

#include <stdbool.h>
#include <stdio.h>

#include "merge.h"

/* tail_check.c: is @data (@len bytes) one JSON object on one line, fit
 * to print (valid, UTF-8, no control bytes, no "host" of its own)? */
bool tail_json_ok(const char *data, size_t len);

void tail_print_header(FILE *f);
/* The "time_ns" of JSON object @line (a number, or a string of one):
 * false when it has none. */
bool tail_line_time(const char *line, __s64 *ns);
/* @it's message: JSON with "host" and "realtime_ns" added, or text
 * (events to @f, lost, cpu and summary objects to stderr). */
void tail_print(FILE *f, const struct merge_item *it, bool json);

#endif
