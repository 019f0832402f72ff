/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One CPU's channel of a collector: its BPF_OUTPUT event, ring and map
 * slot, its losses and statistics. Opened when the CPU is (or comes)
 * online, drained, closed when the collector ends or the CPU goes away.
 */
#ifndef PERFBUF_CHANNEL_H
#define PERFBUF_CHANNEL_H

#include "internal.h"

/* What every channel of a collector is opened with. */
struct channel_cfg {
	int map_fd;
	int epfd;
	size_t page_cnt;
	__u32 wakeup_events;	/* or: */
	__u32 watermark;	/* bytes */
	bool timestamps;	/* PERF_SAMPLE_TIME, sample_id_all */
	bool overwrite;		/* write_backward rings, read by snapshots,
				 * not in the epoll set */
	perfbuf_span_fn span_fn;	/* rings read as bytes (a capture) */
	bool lost_fmt;		/* PERF_FORMAT_LOST; cleared when the kernel
				 * has none (< 6.0) */
};

struct channel {
	int cpu;
	int fd;
	struct perfbuf_ring *ring;
	bool map_set;
	bool in_epoll;
	__u64 wakeups;
	__u64 polls;
};

/* Open @ch->cpu's event and ring, add it to the epoll set (data.ptr = @ch)
 * and store it in the map. 0 or a negative errno (logged); on failure
 * channel_close() releases what was set up. */
int channel_open(struct channel *ch, int cpu, struct channel_cfg *cfg);

/* Hand at most @budget records to @fn; *@stop when the callback stopped
 * (a spent budget is not a stop: the caller moves on to the next ring).
 * Returns the records delivered. With cfg->span_fn: all the bytes to it,
 * and the records they held. */
size_t channel_drain(struct channel *ch, const struct channel_cfg *cfg,
		     size_t budget, perfbuf_record_fn fn, void *ctx, bool *stop);

/* Losses the kernel counted that no LOST record reported: one LOST record
 * at @time_ns to @fn. Returns 1 when one was delivered, else 0; *@stop
 * when the callback stopped. */
int channel_settle(struct channel *ch, const struct channel_cfg *cfg,
		   __u64 time_ns, perfbuf_record_fn fn, void *ctx, bool *stop);

/* No new records: out of the map and the epoll set, event disabled. */
void channel_unpublish(struct channel *ch, const struct channel_cfg *cfg);

/* channel_unpublish(), then channel_release(). */
void channel_close(struct channel *ch, const struct channel_cfg *cfg);

/* Unmap the ring and close the fd, the map slot, epoll set and event
 * left as they are: in a forked child, where they are the parent's. */
void channel_release(struct channel *ch);

/* Add @ch's counters to @out (sums; high_water: max), without a system
 * call: not lost_kernel, not avail. */
void channel_stats_add(const struct channel *ch, struct perfbuf_cpu_stats *out);

/* The kernel's count of @ch's losses (PERF_FORMAT_LOST), 0 without it. */
__u64 channel_kernel_lost(const struct channel *ch,
			  const struct channel_cfg *cfg);

#endif
