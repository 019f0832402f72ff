/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* perfbuf nats-tail (tail.c): its lines (tail_src.c), their check
 * (tail_check.c) and output (tail_out.c). */
#ifndef PERFBUF_NATS_TAIL_H
#define PERFBUF_NATS_TAIL_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

/* A line of a message, as it is printed. */
struct tail_line {
	__s64 time;		/* Unix ns */
	const char *host;	/* Perfbuf-Host */
	const char *args;	/* the batch's Perfbuf-Args, "" if none */
	const char *data;	/* one JSON object, NUL-terminated */
	size_t len;
	bool late;		/* handed out after a newer line */
};

/* tail_check.c: is @data (@len bytes) one JSON object on one line, fit
 * to print (valid, UTF-8, no control bytes, no "host" of its own)? */
bool tail_json_ok(const char *data, size_t len);

void tail_print_header(FILE *f);
/* The "time_ns" of JSON object @line (a number, or a string of one):
 * false when it has none. */
bool tail_line_time(const char *line, __s64 *ns);
/* @l: JSON with "host" and "realtime_ns" added, or text (events to @f,
 * '*' after the time when late, by the tracer or here; lost, cpu and
 * summary objects to stderr). */
void tail_print(FILE *f, const struct tail_line *l, bool json);

#endif
