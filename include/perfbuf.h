/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libperfbuf: read BPF perf-buffer (PERF_EVENT_ARRAY) records fast and
 * account for every one of them.
 *
 * Three layers, usable on their own:
 *  - perf_event_open(2) and its ioctls      (perfbuf_event_*, perfbuf_ioc_*)
 *  - one mmapped perf ring and a fold over its records (perfbuf_ring__*)
 *  - a collector: one BPF_OUTPUT ring per CPU of a PERF_EVENT_ARRAY map,
 *    waited on with epoll, with batched wake-ups and a latency bound
 *    (perfbuf__*)
 *
 * Conventions (as libbpf): functions returning int return a negative errno
 * on failure; functions returning a pointer return NULL and set errno.
 * Options structs start with `size_t sz` (set it with PERFBUF_OPTS()).
 */
#ifndef PERFBUF_H
#define PERFBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include <linux/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PERFBUF_API __attribute__((visibility("default")))

/* Declare and zero an options struct with its size set:
 *   PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 256);
 */
#define PERFBUF_OPTS(TYPE, NAME, ...)				\
	struct TYPE NAME = ({					\
		memset(&NAME, 0, sizeof(struct TYPE));		\
		(struct TYPE){ .sz = sizeof(struct TYPE),	\
			       __VA_ARGS__ };			\
	})

/* ---------------------------------------------------------------------
 * Diagnostics
 * ------------------------------------------------------------------- */

enum perfbuf_print_level {
	PERFBUF_WARN,
	PERFBUF_INFO,
	PERFBUF_DEBUG,
};

typedef int (*perfbuf_print_fn)(enum perfbuf_print_level level,
				const char *fmt, va_list ap);

/**
 * @brief Route the library's warnings and debug messages.
 * @param fn printer, or NULL to silence the library entirely
 * @return the previous printer
 *
 * The default printer writes PERFBUF_WARN and PERFBUF_INFO to stderr.
 */
PERFBUF_API perfbuf_print_fn perfbuf_set_print(perfbuf_print_fn fn);

/* ---------------------------------------------------------------------
 * perf_event_open(2) layer
 * ------------------------------------------------------------------- */

enum perfbuf_event_kind {
	PERFBUF_EV_HARDWARE = PERF_TYPE_HARDWARE,
	PERFBUF_EV_SOFTWARE = PERF_TYPE_SOFTWARE,
	PERFBUF_EV_TRACEPOINT = PERF_TYPE_TRACEPOINT,
	PERFBUF_EV_RAW = PERF_TYPE_RAW,
	PERFBUF_EV_BREAKPOINT = PERF_TYPE_BREAKPOINT,
};

/* A typed description of one event; turned into a perf_event_attr by
 * perfbuf_event_attr(). Zero means "kernel default" for every field. */
struct perfbuf_event_opts {
	size_t sz;
	enum perfbuf_event_kind kind;
	__u64 config;		/* PERF_COUNT_*, raw code or tracepoint id */
	/* sampling: period (every N events) or frequency (N per second) */
	__u64 sample_period;
	__u64 sample_freq;	/* non-zero selects frequency mode */
	__u64 sample_type;	/* PERF_SAMPLE_* */
	__u64 read_format;	/* PERF_FORMAT_* */
	/* wake-up: every N events, or once N bytes are in the ring */
	__u32 wakeup_events;
	__u32 wakeup_watermark;	/* non-zero selects byte watermark */
	bool disabled;
	bool inherit;
	bool pinned;
	bool exclusive;
	bool exclude_user;
	bool exclude_kernel;
	bool exclude_hv;
	bool exclude_idle;
	bool enable_on_exec;
	bool write_backward;
	bool use_clockid;
	int clockid;		/* CLOCK_* when use_clockid */
	/* breakpoints */
	__u32 bp_type;		/* HW_BREAKPOINT_* */
	__u64 bp_addr;
	__u64 bp_len;
};

/**
 * @brief Fill @attr from @opts (attr.size = sizeof(struct perf_event_attr)).
 * @return 0, or -EINVAL when @opts is inconsistent (both period and freq,
 *         both wakeup_events and wakeup_watermark, bad sz)
 */
PERFBUF_API int perfbuf_event_attr(struct perf_event_attr *attr,
				   const struct perfbuf_event_opts *opts);

/**
 * @brief The raw perf_event_open(2) system call.
 * @return a file descriptor (O_CLOEXEC), or a negative errno. On -E2BIG the
 *         kernel wrote the attr size it supports into attr->size and the
 *         library logs it: a requested feature is newer than the kernel.
 */
PERFBUF_API int perfbuf_event_open_attr(struct perf_event_attr *attr,
					pid_t pid, int cpu, int group_fd,
					unsigned long flags);

/**
 * @brief perfbuf_event_attr() then perfbuf_event_open_attr().
 * @param pid  -1 for every task (with @cpu >= 0), 0 for the caller
 * @param cpu  -1 for any CPU the task runs on
 * @param group_fd -1, or the leader of the group to join
 */
PERFBUF_API int perfbuf_event_open(const struct perfbuf_event_opts *opts,
				   pid_t pid, int cpu, int group_fd);

/* The ioctls, each returning 0 (or a value) or a negative errno. @group
 * applies the operation to the whole group the event leads. */
PERFBUF_API int perfbuf_ioc_enable(int fd, bool group);
PERFBUF_API int perfbuf_ioc_disable(int fd, bool group);
PERFBUF_API int perfbuf_ioc_reset(int fd, bool group);
PERFBUF_API int perfbuf_ioc_refresh(int fd, int count);
PERFBUF_API int perfbuf_ioc_period(int fd, __u64 period);
PERFBUF_API int perfbuf_ioc_set_output(int fd, int target_fd);
PERFBUF_API int perfbuf_ioc_set_filter(int fd, const char *filter);
PERFBUF_API int perfbuf_ioc_id(int fd, __u64 *id);
PERFBUF_API int perfbuf_ioc_set_bpf(int fd, int prog_fd);
PERFBUF_API int perfbuf_ioc_pause_output(int fd, bool pause);
/* @ids has room for *@cnt ids; on return *@cnt is the number attached */
PERFBUF_API int perfbuf_ioc_query_bpf(int fd, __u32 *ids, __u32 *cnt);
PERFBUF_API int perfbuf_ioc_modify_attributes(int fd,
					      struct perf_event_attr *attr);

/* One counter value as read(2) returns it, with the scaled estimate
 * value * time_enabled / time_running for multiplexed counters. */
struct perfbuf_count {
	__u64 value;
	__u64 time_enabled;	/* when PERF_FORMAT_TOTAL_TIME_ENABLED */
	__u64 time_running;	/* when PERF_FORMAT_TOTAL_TIME_RUNNING */
	__u64 id;		/* when PERF_FORMAT_ID */
	__u64 lost;		/* when PERF_FORMAT_LOST (kernel >= 6.0) */
	double scaled;
};

/**
 * @brief Read one counter opened with @read_format (no PERF_FORMAT_GROUP).
 */
PERFBUF_API int perfbuf_count_read(int fd, __u64 read_format,
				   struct perfbuf_count *out);

/**
 * @brief Read a group through its leader (read_format has PERF_FORMAT_GROUP).
 * @param out room for @cnt members
 * @return the number of members read, or a negative errno (-ENOSPC when the
 *         group has more than @cnt members, -EIO when read(2) returned less
 *         than @read_format describes: it is not the event's)
 */
PERFBUF_API int perfbuf_group_read(int leader_fd, __u64 read_format,
				   struct perfbuf_count *out, size_t cnt);

/* ---------------------------------------------------------------------
 * One perf ring
 * ------------------------------------------------------------------- */

struct perfbuf_ring;

enum perfbuf_record_kind {
	PERFBUF_REC_SAMPLE,	/* PERF_RECORD_SAMPLE with PERF_SAMPLE_RAW */
	PERFBUF_REC_LOST,	/* PERF_RECORD_LOST */
	PERFBUF_REC_OTHER,	/* any other record type */
};

/*
 * A record as the fold hands it over. Pointers point into the ring and
 * are valid only during the callback.
 *
 * SAMPLE: the raw payload (its kernel size, padding included) in two
 *   slices: @data then @data2; @data2_sz is 0 unless the payload wraps the
 *   ring end. perfbuf_record_copy() makes it contiguous. The payload is
 *   only 4-byte aligned (a u32 size precedes it in the record): read wider
 *   fields with memcpy() or copy the record first.
 * LOST: @lost is the number of records the kernel dropped.
 * OTHER: @data/@data2 is the record body after its 8-byte header.
 */
struct perfbuf_record {
	enum perfbuf_record_kind kind;
	int cpu;		/* the ring's CPU, -1 if unknown */
	__u32 type;		/* perf_event_header.type */
	__u16 misc;
	__u16 size;		/* perf_event_header.size */
	__u64 lost;
	const void *data;
	size_t data_sz;
	const void *data2;
	size_t data2_sz;
};

/* Return 0 to go on, non-zero to stop; the record stopped on is consumed. */
typedef int (*perfbuf_record_fn)(void *ctx, const struct perfbuf_record *rec);

/**
 * @brief Copy a record's payload into @dst.
 * @return bytes copied: min(@dst_sz, data_sz + data2_sz)
 */
PERFBUF_API size_t perfbuf_record_copy(const struct perfbuf_record *rec,
				       void *dst, size_t dst_sz);

/**
 * @brief mmap 1 + @page_cnt pages of perf event @fd.
 * @param page_cnt data pages, a non-zero power of two
 * @return the ring, or NULL with errno: EINVAL (bad page count, logged),
 *         ENOMEM, EPERM (logged with perf_event_mlock_kb / RLIMIT_MEMLOCK)
 */
PERFBUF_API struct perfbuf_ring *perfbuf_ring__new(int fd, size_t page_cnt);

/**
 * @brief A ring over caller memory laid out as the mmap: one header page
 *        (struct perf_event_mmap_page) then @page_cnt data pages.
 *        Used by tests and fuzzers, and to read saved snapshots.
 */
PERFBUF_API struct perfbuf_ring *perfbuf_ring__new_mem(void *mem,
						       size_t page_size,
						       size_t page_cnt);

/** @brief Unmap (if mapped by the library) and free. NULL is a no-op. */
PERFBUF_API void perfbuf_ring__free(struct perfbuf_ring *ring);

/** @brief The CPU reported in records (default -1). */
PERFBUF_API void perfbuf_ring__set_cpu(struct perfbuf_ring *ring, int cpu);

/** @brief false: hand SAMPLE records over as OTHER (sample_type is not just
 *         PERF_SAMPLE_RAW). Default true. */
PERFBUF_API void perfbuf_ring__set_raw_samples(struct perfbuf_ring *ring,
					       bool raw);

/**
 * @brief Visit the records present, in order, then mark them consumed.
 *
 * data_head is read once (acquire), data_tail stored once (release).
 * A corrupt header is logged and counted, and the ring resynchronises to
 * data_head: the records already visited stay delivered.
 *
 * @return 0 when every record was visited, the callback's non-zero value
 *         when it stopped, or -EBADMSG when corruption was found.
 */
PERFBUF_API int perfbuf_ring__fold(struct perfbuf_ring *ring,
				   perfbuf_record_fn fn, void *ctx);

/** @brief As perfbuf_ring__fold(), visiting at most @budget records. */
PERFBUF_API int perfbuf_ring__fold_n(struct perfbuf_ring *ring,
				     perfbuf_record_fn fn, void *ctx,
				     size_t budget);

/*
 * The same walk without a callback: the loop body is the caller's and
 * perfbuf_iter__next() is inlined into it, so a drain costs no indirect
 * call per record. The iterator travels by value so that it can live in
 * registers.
 *
 *	struct perfbuf_iter it = perfbuf_ring__begin(ring);	// acquire data_head
 *	struct perfbuf_record rec;
 *
 *	while (perfbuf_iter__next(&it, &rec))
 *		handle(&rec);				// may break out early
 *	perfbuf_ring__end(ring, it);			// release data_tail
 *
 * Records up to the last one returned are consumed. Between begin and end
 * nothing else may read the ring. The fields are the library's.
 */
struct perfbuf_iter {
	struct perfbuf_ring *ring;
	const char *data;
	__u64 mask;
	__u64 head;
	__u64 tail;
	__u64 samples;
	__u64 sample_bytes;
	int cpu;
	bool raw;
};

/** @brief Start an iteration over the records present now. A corrupt
 *  position gives an empty iteration, and end() reports it. */
PERFBUF_API struct perfbuf_iter perfbuf_ring__begin(struct perfbuf_ring *ring);

/**
 * @brief Finish: mark what was returned consumed, update the statistics.
 * @return 0, or -EBADMSG when corruption was found (logged and counted;
 *         the ring skipped to data_head)
 */
PERFBUF_API int perfbuf_ring__end(struct perfbuf_ring *ring,
				  struct perfbuf_iter it);

/* Everything but a well-formed raw sample: LOST, other records, damage
 * (then .size is 0). By value, so that the caller's record stays local. */
PERFBUF_API struct perfbuf_record perfbuf_iter__next_slow(struct perfbuf_ring *ring,
							  __u64 tail, __u64 head);

/**
 * @brief The next record, or false at the end (or on corruption).
 */
static inline bool perfbuf_iter__next(struct perfbuf_iter *it,
				      struct perfbuf_record *rec)
{
	const struct perf_event_header *eh;
	__u64 raw_sz, off, room;

	if (it->tail == it->head)
		return false;
	eh = (const struct perf_event_header *)(it->data + (it->tail & it->mask));
	/* { header, u32 size, char data[size] }: the kernel's size includes
	 * the padding, so it is size - 12 (8-aligned: inside the ring) */
	raw_sz = *(const __u32 *)(it->data + ((it->tail + 8) & it->mask));
	if (__builtin_expect(eh->type != PERF_RECORD_SAMPLE || !it->raw ||
			     raw_sz + 12 != eh->size || (eh->size & 7) ||
			     eh->size > it->head - it->tail, 0)) {
		struct perfbuf_record slow = perfbuf_iter__next_slow(it->ring,
								     it->tail,
								     it->head);

		if (!slow.size) {
			it->tail = it->head;	/* corrupt: resynchronise */
			return false;
		}
		it->tail += slow.size;
		*rec = slow;
		return true;
	}
	rec->kind = PERFBUF_REC_SAMPLE;
	rec->cpu = it->cpu;
	rec->type = PERF_RECORD_SAMPLE;
	rec->misc = eh->misc;
	rec->size = eh->size;
	rec->lost = 0;
	off = (it->tail + 12) & it->mask;
	room = it->mask + 1 - off;
	rec->data = it->data + off;
	rec->data2 = it->data;
	if (__builtin_expect(raw_sz <= room, 1)) {
		rec->data_sz = raw_sz;
		rec->data2_sz = 0;
	} else {
		rec->data_sz = room;
		rec->data2_sz = raw_sz - room;
	}
	it->tail += eh->size;
	it->samples++;
	it->sample_bytes += raw_sz;
	return true;
}

struct perfbuf_ring_stats {
	__u64 samples;		/* SAMPLE records */
	__u64 sample_bytes;	/* their payload bytes */
	__u64 lost;		/* sum of LOST record counts */
	__u64 lost_records;	/* LOST records */
	__u64 other;		/* other records */
	__u64 corrupt;		/* resynchronisations */
	__u64 high_water;	/* most bytes seen waiting at a fold */
};

/** @brief Copy the ring's statistics (counted since perfbuf_ring__new*())
 *         into @out. */
PERFBUF_API void perfbuf_ring__stats(const struct perfbuf_ring *ring,
				     struct perfbuf_ring_stats *out);
/** @brief Bytes waiting to be read now. */
PERFBUF_API size_t perfbuf_ring__avail(const struct perfbuf_ring *ring);
/** @brief Size of the data area in bytes. */
PERFBUF_API size_t perfbuf_ring__data_size(const struct perfbuf_ring *ring);
/** @brief The header page (struct perf_event_mmap_page). */
PERFBUF_API void *perfbuf_ring__base(const struct perfbuf_ring *ring);

/* ---------------------------------------------------------------------
 * The collector: the rings of a BPF_MAP_TYPE_PERF_EVENT_ARRAY
 * ------------------------------------------------------------------- */

struct perfbuf;

struct perfbuf_opts {
	size_t sz;
	/* data pages per CPU, power of two; 0 = 64 */
	size_t page_cnt;
	/* explicit CPU list (map keys are these CPU numbers); NULL = every
	 * possible CPU that is online, clamped to the map's max_entries */
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
	/* records visited per ring per drain before moving on; 0 = all */
	size_t budget;
	/* perfbuf__free() drains the rings before tearing down */
	bool drain_on_free;
};

/**
 * @brief Open one BPF_OUTPUT event per CPU, mmap its ring and store its fd
 *        in @map_fd at key = CPU number.
 * @param fn  called for every record (SAMPLE and LOST, OTHER never occurs)
 * @return the collector, or NULL with errno (EINVAL for bad options, E2BIG
 *         when max_record_size does not fit, ENODEV when no CPU is usable,
 *         or the error of the failing syscall, logged)
 */
PERFBUF_API struct perfbuf *perfbuf__new(int map_fd, perfbuf_record_fn fn,
					 void *ctx,
					 const struct perfbuf_opts *opts);

/**
 * @brief Delete the map slots set, disable the events, (when drain_on_free:
 *        perfbuf__quiesce() and perfbuf__drain()), unmap and close. NULL is
 *        a no-op.
 *
 * Not while another thread is inside perfbuf__poll() or a consume call on
 * @pb: stop that thread with perfbuf__stop(), join it, then free.
 */
PERFBUF_API void perfbuf__free(struct perfbuf *pb);

/**
 * @brief Wait up to @timeout_ms (-1: forever) for ready rings and drain
 *        them. Records waiting below the watermark are drained on a grid
 *        of 4/5 latency_ms, so that, while the caller keeps polling, each
 *        record is handed over within latency_ms of being written; with a
 *        latency bound, the call therefore returns at each grid point
 *        (often with 0) even when @timeout_ms is -1.
 * @return records delivered (>= 0), the callback's non-zero stop value,
 *         -EINTR when a signal interrupted the wait, -ECANCELED after
 *         perfbuf__stop(), or another negative errno
 */
PERFBUF_API int perfbuf__poll(struct perfbuf *pb, int timeout_ms);

/** @brief Drain every ring without waiting. Returns as perfbuf__poll(). */
PERFBUF_API int perfbuf__consume(struct perfbuf *pb);

/** @brief Drain ring @idx only (for callers with their own event loop).
 *  Returns as perfbuf__poll(), or -EINVAL for a bad index. */
PERFBUF_API int perfbuf__consume_ring(struct perfbuf *pb, size_t idx);

/**
 * @brief perfbuf__consume(), then report losses the kernel has counted
 *        but not yet written as LOST records (they are written only before
 *        the next record that fits), as LOST records with the exact count
 *        from PERF_FORMAT_LOST. Call at the end of a run.
 */
PERFBUF_API int perfbuf__drain(struct perfbuf *pb);

/**
 * @brief Wait until BPF programs that may still be writing have finished:
 *        one RCU grace period (membarrier MEMBARRIER_CMD_GLOBAL). Call it
 *        after detaching the programs and before perfbuf__drain(), so the
 *        drain sees every record; perfbuf__free() does with drain_on_free.
 * @return 0 or a negative errno
 */
PERFBUF_API int perfbuf__quiesce(struct perfbuf *pb);

/** @brief Make a blocked perfbuf__poll() return now (any thread). */
PERFBUF_API int perfbuf__wake(struct perfbuf *pb);
/** @brief Make perfbuf__poll() return -ECANCELED from now on (any thread). */
PERFBUF_API int perfbuf__stop(struct perfbuf *pb);

/** @brief The epoll fd, for the caller's own event loop. */
PERFBUF_API int perfbuf__epoll_fd(const struct perfbuf *pb);
/** @brief Number of rings (CPUs in use). */
PERFBUF_API size_t perfbuf__ring_cnt(const struct perfbuf *pb);
/** @brief CPU number (= map key) of ring @idx, or -EINVAL. */
PERFBUF_API int perfbuf__ring_cpu(const struct perfbuf *pb, size_t idx);
/** @brief Perf event fd of ring @idx, or -EINVAL. */
PERFBUF_API int perfbuf__ring_fd(const struct perfbuf *pb, size_t idx);
/** @brief The ring @idx itself, or NULL with errno EINVAL. */
PERFBUF_API struct perfbuf_ring *perfbuf__ring(const struct perfbuf *pb,
					       size_t idx);
/** @brief CPUs skipped because they were offline. */
PERFBUF_API size_t perfbuf__offline_cnt(const struct perfbuf *pb);

struct perfbuf_cpu_stats {
	int cpu;
	__u64 samples;
	__u64 bytes;
	__u64 lost;		/* reported to the callback (records + drain) */
	__u64 lost_kernel;	/* PERF_FORMAT_LOST total, 0 if unsupported */
	__u64 wakeups;		/* epoll readiness seen for this ring */
	__u64 polls;		/* drains of this ring */
	__u64 high_water;	/* most bytes waiting at a drain */
	__u64 corrupt;
	size_t data_size;
};

/**
 * @brief Statistics of ring @idx; reads the kernel's lost total.
 * @return 0 or -EINVAL
 */
PERFBUF_API int perfbuf__stats(const struct perfbuf *pb, size_t idx,
			       struct perfbuf_cpu_stats *out);

/* ---------------------------------------------------------------------
 * CPU sets
 * ------------------------------------------------------------------- */

/**
 * @brief Parse a CPU list ("0-3,8,10-11") into @cpus.
 * @return the number of CPUs (may exceed @max, only @max are stored),
 *         or -EINVAL on bad syntax
 */
PERFBUF_API int perfbuf_parse_cpus(const char *s, int *cpus, size_t max);

/**
 * @brief Read /sys/devices/system/cpu/{possible,online}.
 * @return number of CPUs, or a negative errno
 */
PERFBUF_API int perfbuf_possible_cpus(int *cpus, size_t max);
PERFBUF_API int perfbuf_online_cpus(int *cpus, size_t max);

#ifdef __cplusplus
}
#endif

#endif /* PERFBUF_H */
