/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The collector's state, shared by collector.c and flight.c; not
 * installed. */
#ifndef PERFBUF_COLLECTOR_PRIV_H
#define PERFBUF_COLLECTOR_PRIV_H

#include <sys/epoll.h>

#include "channel.h"

struct slot {
	int cpu;
	struct channel *ch;		/* NULL while the CPU is offline */
	struct perfbuf_cpu_stats gone;	/* of the channels it had before */
	__u64 onlined, offlined;
};

struct notice {
	__u64 time_ns;
	enum perfbuf_record_kind kind;	/* CPU_ONLINE or CPU_OFFLINE */
	struct slot *slot;
	struct channel *ch;		/* CPU_OFFLINE: the channel to retire */
};

struct perfbuf {
	perfbuf_record_fn fn;
	void *ctx;
	struct channel_cfg cfg;
	int evfd;
	int hotplug_fd;
	struct slot *slots;
	size_t cnt;
	struct epoll_event *events;
	struct perfbuf_merge *merge;	/* ordered only */
	struct notice *notices;
	size_t notice_cnt, notice_cap;
	int latency_ms;
	size_t budget;
	bool drain_on_free;
	bool stopped;
	bool no_pwait2;		/* kernel < 5.11: epoll_wait() */
	__u64 period_ns;	/* of the latency drains: 4/5 of latency_ms */
	__u64 next_drain_ns;
	/* the current call */
	__u64 delivered;
	bool halt;		/* the callback said stop */
};

/* Hand @rec to the callback; a stop sets pb->halt. */
void collector_deliver(struct perfbuf *pb, const struct perfbuf_record *rec);
/* Drop the first queued notice. */
void collector_pop_notice(struct perfbuf *pb);
/* Reset the per-call counters. */
void collector_begin_call(struct perfbuf *pb);
/* A call's return value: @err, or the records delivered. */
int collector_result(struct perfbuf *pb, int err);

#endif
