/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --filter (filter.c): parsed, compiled for each probe, loaded. */
#ifndef PERFBUF_TRACE_FILTER_H
#define PERFBUF_TRACE_FILTER_H

struct probe_set;

/* One --filter [PROBE:]EXPR, checked for syntax: 0 or -errno (printed) */
int filter_add(const char *arg);
/* Compile for each probe of @set into the BPF maps filter_of and filters */
int filters_load(const struct probe_set *set, int filter_of_fd, int filters_fd);
void filters_free(void);

#endif
