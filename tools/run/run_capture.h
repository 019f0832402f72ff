/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* perfbuf run --record (capture.c) and perfbuf report of its captures
 * (report.c): the records of one's own maps with their types. */
#ifndef PERFBUF_RUN_CAPTURE_H
#define PERFBUF_RUN_CAPTURE_H

#include "record/capture.h"
#include "run.h"

struct run_capture;

/* Every map's type as perfbuf report reads it back (the writer takes
 * nothing the reader refuses): 0, or -E2BIG (said, with @prog) */
int run_capture__check(const char *prog, const struct run_map *maps, int n);
/* Create @path with the META and the maps' types: NULL with *@err */
struct run_capture *run_capture__open(const char *prog, const char *path, const struct run_map *maps,
				      int n, int *err);
/* A record of map @map (a batch written when full): 0 or -errno */
int run_capture__record(struct run_capture *c, int map, int cpu, __u64 time_ns,
			__u32 flags, const void *data, size_t sz);
int run_capture__lost(struct run_capture *c, int cpu, __u64 time_ns, __u64 lost);
/* The programs' ledger at the end (before the close): 0 or -errno */
int run_capture__ledger(struct run_capture *c, const struct ledger_view *v);
/* The batch so far into the file: 0 or the writer's first error */
int run_capture__flush(struct run_capture *c);
__u64 run_capture__records(const struct run_capture *c);
/* The run started: the capture becomes the file at its path, and is
 * written on there (cap_writer__publish()). 0 or -errno, said. */
int run_capture__publish(struct run_capture *c);
/* The END frame with @summary (NULL: a run that failed after it
 * started, none), then closed in place of the old file: 0 or the first
 * error */
int run_capture__close(struct run_capture *c, const char *summary);
/* A run that never started: the capture removed, an old file left. */
void run_capture__discard(struct run_capture *c);

struct cap_reader;
struct cap_meta;
struct agg_spec;
/* What perfbuf report was asked for */
struct run_report_opts {
	bool json;
	enum trace_time time;
	long width;
	const struct agg_spec *aggs;	/* --aggregate (named): maps, not records */
	int naggs;
	long agg_keys;
};
/* perfbuf report of a run capture: 0, or 1 (said why) */
int run_report(struct cap_reader *r, const char *path, const struct cap_meta *meta,
	       const struct run_report_opts *o);

#endif
