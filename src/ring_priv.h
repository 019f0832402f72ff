/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Rings and merges as the collector and the sampler make them: mapped from
 * a perf event fd, with options (a flight recorder's overwrite ring),
 * folded with a budget, snapshotted, merged ring by ring. Not exported
 * since 4.0 (ring.h has what a program calls); not installed. The tests
 * call them by linking the library's objects.
 */
#ifndef PERFBUF_RING_PRIV_H
#define PERFBUF_RING_PRIV_H

#include "perfbuf/ring.h"

/**
 * @brief mmap 1 + @page_cnt pages of perf event @fd.
 * @param page_cnt data pages, a non-zero power of two
 * @return the ring, or NULL with errno: EINVAL (bad page count, logged),
 *         ENOMEM, EPERM (logged with perf_event_mlock_kb / RLIMIT_MEMLOCK)
 */
struct perfbuf_ring *perfbuf_ring__new(int fd, size_t page_cnt);

/*
 * Ring options. @overwrite: a flight recorder's ring. Its event was opened
 * with write_backward, and the ring is mapped read-only, which tells the
 * kernel to overwrite the oldest records when full rather than drop new
 * ones. It is read only by perfbuf_ring__snapshot(); fold and iterate
 * refuse it (-EINVAL).
 */
struct perfbuf_ring_opts {
	size_t sz;
	bool overwrite;
	__u8 __reserved[7];	/* 0: room for the next fields (no hole at
				 * the end, see common.h) */
};

/** @brief perfbuf_ring__new() with options (NULL: the defaults). */
struct perfbuf_ring *
perfbuf_ring__new_opts(int fd, size_t page_cnt,
		       const struct perfbuf_ring_opts *opts);

/** @brief perfbuf_ring__new_mem() with options (NULL: the defaults). */
struct perfbuf_ring *
perfbuf_ring__new_mem_opts(void *mem, size_t page_size, size_t page_cnt,
			   const struct perfbuf_ring_opts *opts);

/** @brief As perfbuf_ring__fold(), visiting at most @budget records. */
int perfbuf_ring__fold_n(struct perfbuf_ring *ring,
				     perfbuf_record_fn fn, void *ctx,
				     size_t budget);

/**
 * @brief Overwrite rings: visit, oldest first, the records written since
 *        the previous snapshot that the ring still holds (at most its
 *        size: the kernel has overwritten older ones).
 *
 * The event's output is paused (PERF_EVENT_IOC_PAUSE_OUTPUT) only while
 * the bytes are copied out; the kernel counts what it could not write
 * meanwhile as lost, and the next snapshot reports it in a LOST record.
 * A callback's stop ends the visit: the records not visited are dropped.
 * Damage in the new records is logged and counted (corrupt), and the
 * records older than it are dropped.
 *
 * @return the records visited, -EINVAL when the ring is not an overwrite
 *         ring, -ENOMEM, or the pause ioctl's negative errno
 */
int perfbuf_ring__snapshot(struct perfbuf_ring *ring,
				       perfbuf_record_fn fn, void *ctx);

/** @brief Bytes waiting to be read now (overwrite rings: written since
 *  the last snapshot, at most the ring's size). */
size_t perfbuf_ring__avail(const struct perfbuf_ring *ring);

/** @brief Add @ring (the caller keeps owning it). 0, -EEXIST or -ENOMEM. */
int perfbuf_merge__add(struct perfbuf_merge *m,
				   struct perfbuf_ring *ring);

/** @brief Take @ring out of the merge. 0 or -ENOENT. */
int perfbuf_merge__remove(struct perfbuf_merge *m,
				      struct perfbuf_ring *ring);

/** @brief Take the source of @ctx out of the merge. 0 or -ENOENT. */
int perfbuf_merge__remove_source(struct perfbuf_merge *m,
					     void *ctx);

/** @brief time_ns of the newest record delivered so far (0: none). */
__u64 perfbuf_merge__last_ns(const struct perfbuf_merge *m);

#endif
