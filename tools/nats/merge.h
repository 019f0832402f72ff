/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * nats-tail's merge by time (merge.c): messages of many hosts arrive in
 * the order the stream stored them, each host's mostly in time order but
 * interleaved with the others' as the network had it. They are held in
 * a heap and handed out oldest first once the newest time seen is a
 * window past them (perf's ordered_events, with a lateness bound), or
 * all of them when the stream has gone quiet or the end is reached.
 */
#ifndef PERFBUF_NATS_MERGE_H
#define PERFBUF_NATS_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct merge_item {
	__s64 time;		/* Unix ns (Perfbuf-Time) */
	__u64 seq;		/* arrival: ties keep it */
	char *host;		/* malloc'd, with args and data */
	char *args;		/* the batch's Perfbuf-Args, "" if none */
	char *data;
	size_t len;
};

struct merge {
	struct merge_item *v;
	size_t n, cap;
	__u64 seq;
	__s64 newest;		/* the newest time pushed */
};

/* A copy of @host, @args and @data held. 0 or -ENOMEM. */
int merge_push(struct merge *m, __s64 time, const char *host,
	       const char *args, const char *data, size_t len);
/* The oldest held item into @out (free out->host after use) when it is
 * @window_ns older than the newest, or @all; false when none is due. */
bool merge_pop(struct merge *m, __s64 window_ns, bool all,
	       struct merge_item *out);
void merge_free(struct merge *m);

#endif
