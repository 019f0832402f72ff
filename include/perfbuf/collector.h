/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libperfbuf, layer 3: the collector. One PERF_COUNT_SW_BPF_OUTPUT event
 * and ring per CPU of a BPF_MAP_TYPE_PERF_EVENT_ARRAY (a channel), stored in
 * the map at key = CPU number, waited on with one epoll; wake-ups batched
 * under a latency bound; optionally one stream in time order; CPUs followed
 * as they come online and go offline.
 */
#ifndef PERFBUF_COLLECTOR_H
#define PERFBUF_COLLECTOR_H

#include "common.h"
#include "ring.h"

#ifdef __cplusplus
extern "C" {
#endif

struct perfbuf;

struct perfbuf_opts {
	size_t sz;
	/* data pages per CPU, power of two; 0 = 64 (or from buffer_size) */
	size_t page_cnt;
	/* explicit CPU list (map keys are these CPU numbers); NULL = every
	 * possible CPU, clamped to the map's max_entries (those offline get
	 * their ring when they come online) */
	const int *cpus;
	size_t cpu_cnt;
	/* wake-up policy. Default: a byte watermark of a quarter of the ring,
	 * with records waiting under it drained within latency_ms. */
	__u32 wakeup_events;	/* non-zero: wake every N records instead */
	__u32 watermark;	/* bytes; 0 = data size / 4 */
	int latency_ms;		/* 0 = 10 ms; < 0 = no bound (poll waits) */
	/* largest record the producer will write (payload bytes); refused
	 * at setup with -E2BIG when it cannot fit the ring. 0 = no check */
	size_t max_record_size;
	/* records delivered per ring per drain (ordered: per drain) before
	 * moving on; 0 = all. perfbuf__drain() ignores it. */
	size_t budget;
	/* perfbuf__free() drains the rings before tearing down */
	bool drain_on_free;
	/* every record carries the kernel's CLOCK_MONOTONIC time in time_ns
	 * (PERF_SAMPLE_TIME; LOST records too): no help needed from the BPF
	 * program. Off, records have time_ns 0 and cost nothing more. */
	bool timestamps;
	/* deliver the records of all CPUs as one stream in non-decreasing
	 * time_ns (implies timestamps). A record waits in its ring until no
	 * other CPU can still show an older one, within latency_ms; one that
	 * comes later anyway is delivered with PERFBUF_RECF_LATE. */
	bool ordered;
	/* do not follow CPU hotplug. By default a CPU that comes online gets
	 * its ring and map slot within latency_ms (a CPU_ONLINE record), and
	 * one that goes offline is drained, its losses reported, its ring
	 * closed (then a CPU_OFFLINE record). */
	bool no_hotplug;
	/* a flight recorder: each CPU's ring keeps its newest records, the
	 * kernel overwriting the oldest (write_backward), and wakes nobody;
	 * records are handed over only by perfbuf__snapshot(). perfbuf__poll()
	 * then only follows hotplug; consume and drain return -EINVAL. */
	bool overwrite;
	/* a capture: each ring's bytes go to span_fn as they are (whole
	 * records, unparsed; see perfbuf_span_fn), with the collector's ctx,
	 * instead of record by record; the callback still gets the CPU
	 * notices and the LOST records of the losses a drain settles. The
	 * calls count the records in the bytes. Not with ordered or
	 * overwrite; the budget does not apply. */
	perfbuf_span_fn span_fn;
	/* the rings' data bytes for all CPUs together (not with page_cnt):
	 * each CPU the collector serves (offline ones too: they open theirs
	 * when they come online) gets the largest power of two of pages
	 * within its share, so at most this much is mapped, plus a page of
	 * header per ring. Below a page per CPU: -EINVAL. 0 = page_cnt. */
	size_t buffer_size;
};

/*
 * A collector belongs to the process that made it. In a child forked after
 * perfbuf__new() its rings are not mapped (the kernel does not copy perf
 * mappings), and its fds, map slots and epoll set are the parent's: the
 * calls that would read or change them (poll, consume, consume_ring,
 * drain, snapshot, stats, wake, stop, add_wake_fd) return -ECHILD and
 * leave them alone, and perfbuf__free() frees only the child's memory and
 * fds. A child that wants records makes its own collector, on a map of
 * its own (the map's slots are shared with the parent).
 */

/**
 * @brief Open one BPF_OUTPUT event per CPU, mmap its ring and store its fd
 *        in @map_fd at key = CPU number.
 *
 * The slots are set through a map fd of the collector's own (from the
 * map's id, where CAP_SYS_ADMIN allows): closing @map_fd early leaves
 * them set, and perfbuf__free() empties only the slots that still hold
 * the collector's events, never those another reader set since.
 * @param fn  called for every record: SAMPLE and LOST, CPU_ONLINE and
 *            CPU_OFFLINE (OTHER never occurs)
 * @return the collector, or NULL with errno (EINVAL for bad options, E2BIG
 *         when max_record_size does not fit, ENODEV when no CPU is usable,
 *         or the error of the failing syscall, logged)
 */
PERFBUF_API struct perfbuf *perfbuf__new(int map_fd, perfbuf_record_fn fn,
					 void *ctx,
					 const struct perfbuf_opts *opts);

/**
 * @brief Empty the map slots that hold our events, disable the events, (when drain_on_free:
 *        perfbuf__quiesce() and perfbuf__drain()), unmap and close. NULL is
 *        a no-op. In a forked child: unmap and close only (see above).
 *
 * Not while another thread is inside perfbuf__poll() or a consume call on
 * @pb: stop that thread with perfbuf__stop(), join it, then free.
 */
PERFBUF_API void perfbuf__free(struct perfbuf *pb);

/**
 * @brief Wait up to @timeout_ms (-1: forever) for ready rings and drain
 *        them (ordered: every ring, merged). Records waiting below the
 *        watermark are drained on a grid
 *        finer than latency_ms, so that, while the caller keeps polling,
 *        each record is handed over within latency_ms of being written;
 *        with a latency bound, the call therefore returns at each grid
 *        point (often with 0) even when @timeout_ms is -1.
 * @return records delivered (>= 0; a callback's PERFBUF_STOP ends the call
 *         early), -EINTR when a signal interrupted the wait, -ECANCELED
 *         after perfbuf__stop(), -ECHILD in a forked child (see
 *         perfbuf__new()), or another negative errno
 */
PERFBUF_API int perfbuf__poll(struct perfbuf *pb, int timeout_ms);

/** @brief Drain every ring without waiting (ordered: up to the records no
 *  other CPU can still precede). Returns as perfbuf__poll(). */
PERFBUF_API int perfbuf__consume(struct perfbuf *pb);

/**
 * @brief Empty every ring whatever the budget (ordered: in time order, to
 *        the last record), then report, per CPU, losses the kernel counted
 *        but no LOST record reported (it writes one only before the next
 *        record that fits) as a LOST record with the exact count from
 *        PERF_FORMAT_LOST. Call at the end of a run.
 * @return as perfbuf__poll()
 */
PERFBUF_API int perfbuf__drain(struct perfbuf *pb);

/**
 * @brief Overwrite collectors: hand over what every CPU's ring holds that
 *        the previous snapshot did not (its newest data_size bytes at
 *        most), in time order across CPUs when records have times
 *        (records without one: CPU by CPU, oldest first), with the CPU
 *        notices in their place. Each ring is paused only while its bytes
 *        are copied; records the kernel could not write meanwhile come as
 *        a LOST record in the next snapshot. Records older than one handed
 *        over before are flagged PERFBUF_RECF_LATE. A callback's
 *        PERFBUF_STOP ends the call: the rest of this snapshot is dropped.
 *        The rings of CPUs that went offline are read one last time, then
 *        closed.
 * @return records delivered, -EINVAL when @pb is not an overwrite
 *         collector, or a negative errno (the rings that could be read
 *         were)
 */
PERFBUF_API int perfbuf__snapshot(struct perfbuf *pb);

/**
 * @brief Wait until BPF programs that may still be writing have finished:
 *        one RCU grace period (the kernel's wait after an update of an
 *        ARRAY_OF_MAPS; without BPF privileges, membarrier
 *        MEMBARRIER_CMD_GLOBAL, which does not wait with one CPU online). Call it
 *        after detaching the programs and before perfbuf__drain(), so the
 *        drain sees every record; perfbuf__free() does with drain_on_free.
 * @return 0 or a negative errno
 */
PERFBUF_API int perfbuf__quiesce(struct perfbuf *pb);

/** @brief Make a blocked perfbuf__poll() return now (any thread of the
 *  collector's process: -ECHILD in a forked child). */
PERFBUF_API int perfbuf__wake(struct perfbuf *pb);
/** @brief Make perfbuf__poll() return -ECANCELED from now on (any thread). */
PERFBUF_API int perfbuf__stop(struct perfbuf *pb);
/**
 * @brief Make perfbuf__poll() also return when @fd becomes readable (a
 *        pidfd, a timerfd, a socket): the call drains as usual and
 *        returns; what @fd says is the caller's to read. Level-triggered:
 *        while @fd stays readable, every poll returns at once. Closing
 *        @fd (its last reference) takes it out.
 * @return 0, -EEXIST when @fd is added already, or another negative errno
 */
PERFBUF_API int perfbuf__add_wake_fd(struct perfbuf *pb, int fd);

/** @brief The epoll fd, for the caller's own event loop. */
PERFBUF_API int perfbuf__epoll_fd(const struct perfbuf *pb);
/** @brief Number of ring slots: one per CPU the collector serves, online
 *  or not. Indexes are stable for the collector's life. */
PERFBUF_API size_t perfbuf__ring_cnt(const struct perfbuf *pb);
/** @brief CPU number (= map key) of ring @idx, or -EINVAL. */
PERFBUF_API int perfbuf__ring_cpu(const struct perfbuf *pb, size_t idx);
/** @brief Perf event fd of ring @idx, -ENODEV while its CPU is offline,
 *  or -EINVAL. */
PERFBUF_API int perfbuf__ring_fd(const struct perfbuf *pb, size_t idx);

/*
 * One CPU's statistics, counted over the collector's life across every
 * ring the CPU had: a CPU that goes offline keeps its series, and its slot
 * index, and continues them when it comes back.
 */
struct perfbuf_cpu_stats {
	size_t sz;		/* the caller's sizeof (see common.h) */
	int cpu;
	bool online;		/* the CPU has a ring now */
	__u64 samples;		/* records received */
	__u64 bytes;		/* their payload bytes */
	__u64 lost;		/* reported to the callback (records + drain) */
	__u64 lost_kernel;	/* PERF_FORMAT_LOST total, 0 if unsupported */
	__u64 wakeups;		/* epoll readiness seen for this ring */
	__u64 polls;		/* drains of this ring */
	__u64 high_water;	/* most bytes waiting at a drain */
	__u64 corrupt;
	__u64 late;		/* ordered: records delivered late */
	__u64 onlined;		/* came online after the collector started */
	__u64 offlined;		/* went offline */
	__u64 data_size;	/* ring size in bytes */
	__u64 avail;		/* bytes waiting in the ring now (0 offline) */
	/* records lost, as best known at the call: the larger of lost and
	 * lost_kernel (the kernel's count runs ahead of its LOST records
	 * until perfbuf__drain() settles them). What to print as "lost". */
	__u64 lost_total;
};

/**
 * @brief Statistics of ring slot @idx into @out, whose sz the caller set
 *        (see common.h).
 *
 * Safe from any thread, while another polls: the counters are those the
 * polling thread published at the end of its last call that touched the
 * ring (or at a CPU's hotplug), read as one consistent set; lost_kernel,
 * lost_total and avail are read from the kernel at the call. Every counter only grows, across hotplug
 * too. Not during or after perfbuf__free().
 * @return 0, -EINVAL (bad index, out->sz too small), or -ECHILD in a
 *         forked child (see perfbuf__new())
 */
PERFBUF_API int perfbuf__stats(const struct perfbuf *pb, size_t idx,
			       struct perfbuf_cpu_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* PERFBUF_COLLECTOR_H */
