/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --filter: parsed (filter_parse.c), compiled for each probe and loaded
 * (filter.c); the filters of a session in a struct trace_filters. */
#ifndef PERFBUF_TRACE_FILTER_H
#define PERFBUF_TRACE_FILTER_H

struct probe_set;
struct filter;		/* one parsed expression: filter_ast.h */

/* A session's filters: zeroed, @prog set, before the first filter_add(). */
struct trace_filters {
	struct filter *v;
	int n;
	const char *prog;	/* "perfbuf trace": what messages start with */
};

/* One --filter [PROBE:]EXPR into @fs, checked for syntax: 0 or -errno
 * (printed) */
int filter_add(struct trace_filters *fs, const char *arg);
/* Compile for each probe of @set into the BPF maps filter_of and filters */
int filters_load(const struct trace_filters *fs, const struct probe_set *set,
		 int filter_of_fd, int filters_fd);
void filters_free(struct trace_filters *fs);

#endif
