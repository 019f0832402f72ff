/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The collector's state, shared by collector.c and flight.c; not
 * installed. */
#ifndef PERFBUF_COLLECTOR_PRIV_H
#define PERFBUF_COLLECTOR_PRIV_H

#include <pthread.h>
#include <sys/epoll.h>

#include "channel.h"

/* epoll entries besides the rings: the eventfd, the hotplug socket, and
 * one event a call for the caller's wake fds (perfbuf__add_wake_fd()) */
#define EXTRA_EVENTS 3

struct slot {
	int cpu;
	struct channel *ch;		/* NULL while the CPU is offline;
					 * changed under pb->lock */
	struct perfbuf_cpu_stats gone;	/* of the channels it had before */
	__u64 onlined, offlined;
	/* what perfbuf__stats() reports, from any thread: the counters as
	 * of the end of the last call (or the last hotplug change), but
	 * the live kernel reads; under pb->lock */
	struct perfbuf_cpu_stats pub;
	bool dirty;			/* pub is behind: in pb->dirty */
};

struct notice {
	__u64 time_ns;
	enum perfbuf_record_kind kind;	/* CPU_ONLINE or CPU_OFFLINE */
	struct slot *slot;
	struct channel *ch;		/* CPU_OFFLINE: the channel to retire */
};

struct perfbuf {
	/* perfbuf__stats() against the polling thread: the slots' pub and
	 * ch (a channel is closed only after it left its slot). Recursive:
	 * a callback may ask for the statistics. */
	pthread_mutex_t lock;
	bool lock_init;
	perfbuf_record_fn fn;
	void *ctx;
	struct channel_cfg cfg;
	int own_map_fd;		/* the map through our own file, or -1
				 * (own_map_file()): cfg.map_fd then */
	int evfd;
	int hotplug_fd;
	__u64 hotplug_stale;	/* hotplug_follow()'s */
	char wake_tag;		/* epoll's tag of the caller's fds (add_wake_fd) */
	struct slot *slots;
	size_t cnt;
	/* CPU number -> slot index + 1 (0: not served), [0, cpu_span) */
	unsigned int *slot_of;
	size_t cpu_span;
	/* the slots that have a channel, ascending: what a drain of every
	 * ring walks (offline CPUs cost nothing) */
	size_t *open;
	size_t open_cnt;
	/* the slots whose counters changed in this call: the only ones
	 * published at its end (a poll costs the rings it touched) */
	size_t *dirty;
	size_t dirty_cnt;
	bool publish_all;	/* a snapshot read every ring */
	struct channel **ready;	/* the rings a wake-up named */
	struct epoll_event *events;
	struct perfbuf_merge *merge;	/* ordered only */
	struct notice *notices;
	size_t notice_cnt, notice_cap;
	int latency_ms;
	size_t budget;
	bool drain_on_free;
	bool stopped;
	bool no_pwait2;		/* kernel < 5.11: epoll_wait() */
	__u32 fork_gen;		/* perfbuf_fork_gen() at perfbuf__new() */
	__u64 period_ns;	/* of the latency drains: 4/5 of latency_ms */
	__u64 next_drain_ns;
	/* the current call */
	__u64 delivered;
	bool halt;		/* the callback said stop */
};

/* -ECHILD in a child forked since perfbuf__new(): its rings are not
 * mapped there, and its fds, map slots and epoll set are the parent's,
 * which a read, a wake or an epoll_ctl() would take from it; else 0. */
static inline int collector_check_fork(const struct perfbuf *pb)
{
	return perfbuf_forked(pb->fork_gen) ? -ECHILD : 0;
}

/* A set of CPU numbers, as flags indexed by CPU: look-ups in constant
 * time whatever the CPU count; span 0 for an empty list. */
struct cpu_set {
	unsigned char *in;
	size_t span;
};

/* The slots (slots.c): the caller's CPUs (@opts->cpus) or every possible
 * CPU the map has a key for (the online ones only with no_hotplug), and
 * the CPU -> slot map; *@online the CPUs online now (span 0: unknown),
 * for collector_open_slots(), freed by the caller. 0 or a negative errno
 * (logged). */
int collector_slots(struct perfbuf *pb, const struct perfbuf_opts *opts,
		    __u32 max_entries, struct cpu_set *online);
/* A channel on every slot whose CPU is online (every slot of an
 * @explicit list). 0 or a negative errno (logged). */
int collector_open_slots(struct perfbuf *pb, const struct cpu_set *online,
			 bool explicit);

/* Hand @rec to the callback; a stop sets pb->halt. */
void collector_deliver(struct perfbuf *pb, const struct perfbuf_record *rec);
/* Drop the first queued notice. */
void collector_pop_notice(struct perfbuf *pb);
/* Reset the per-call counters. */
void collector_begin_call(struct perfbuf *pb);
/* A call's return value: @err, or the records delivered; the statistics
 * published for perfbuf__stats(). */
int collector_result(struct perfbuf *pb, int err);
/* @s's counters changed: published at the end of the call. */
void collector_touch(struct perfbuf *pb, struct slot *s);
/* A channel that left slot @s is closed: its counters kept in s->gone. */
void collector_retire_stats(struct perfbuf *pb, struct slot *s,
			    const struct channel *ch);

/* Not exported since 4.0 (the tests call them by linking the library's
 * objects): */

/** @brief Drain ring @idx only (for callers with their own event loop).
 *  Returns as perfbuf__poll(), -EINVAL for a bad index or an ordered
 *  collector, -ENODEV when the ring's CPU is offline. */
int perfbuf__consume_ring(struct perfbuf *pb, size_t idx);

/** @brief Ring slots whose CPU is offline now. */
size_t perfbuf__offline_cnt(const struct perfbuf *pb);

#endif
