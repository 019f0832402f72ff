/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libperfbuf: records gathered into arrays, for callers that pay per call
 * rather than per byte (Python through ctypes: one call per drain, then
 * numpy over the arrays). A batch is a collector's record callback:
 *
 *   struct perfbuf_batch *b = perfbuf_batch__new(NULL);
 *   struct perfbuf *pb = perfbuf__new(map_fd, perfbuf_batch__record_fn, b, &o);
 *   perfbuf__poll(pb, 100);          // fills b, stops the drain when full
 *   PERFBUF_OPTS(perfbuf_batch_view, v);
 *   perfbuf_batch__view(b, &v);       // v.cnt samples, v.lost_cnt losses
 *   perfbuf_batch__reset(b);          // before the next poll
 *
 * A full batch ends the drain (PERFBUF_STOP): what is left stays in the
 * rings for the next call (perfbuf__consume() takes it without waiting).
 */
#ifndef PERFBUF_BATCH_H
#define PERFBUF_BATCH_H

#include "common.h"
#include "ring.h"

#ifdef __cplusplus
extern "C" {
#endif

struct perfbuf_batch;

struct perfbuf_batch_opts {
	size_t sz;
	size_t data_bytes;	/* payload bytes a batch holds; 0 = 4 MiB,
				 * at least 64 KiB (the largest record) */
	size_t record_cnt;	/* samples a batch holds; 0 = 65536 */
};

/** @brief A batch with room for @opts' bytes and records.
 *  @return the batch, or NULL with errno (EINVAL, ENOMEM) */
PERFBUF_API struct perfbuf_batch *
perfbuf_batch__new(const struct perfbuf_batch_opts *opts);
/** @brief NULL is a no-op. */
PERFBUF_API void perfbuf_batch__free(struct perfbuf_batch *b);

/**
 * @brief The record callback to give perfbuf__new() with the batch as its
 *        ctx: a SAMPLE's payload is appended, a LOST record's count kept
 *        with its CPU, CPU notices counted.
 * @return PERFBUF_CONTINUE, or PERFBUF_STOP once the batch is full (the
 *         record stopped on is in the batch)
 */
PERFBUF_API int perfbuf_batch__record_fn(void *ctx,
					 const struct perfbuf_record *rec);

/** @brief Empty the batch (its arrays are reused). */
PERFBUF_API void perfbuf_batch__reset(struct perfbuf_batch *b);

/* The batch's arrays, valid until the next reset or record_fn call. */
struct perfbuf_batch_view {
	size_t sz;		/* the caller's sizeof (see common.h) */
	size_t cnt;		/* samples */
	const __u8 *data;	/* their payloads, packed */
	size_t data_bytes;
	const __u32 *offset;	/* [cnt]: payload i at data + offset[i] */
	const __u32 *size;	/* [cnt]: its bytes (the kernel pads a BPF
				 * output to 4 mod 8: 36 for a 32-byte one) */
	const __s32 *cpu;	/* [cnt] */
	const __u64 *time_ns;	/* [cnt]: 0 without timestamps */
	size_t lost_cnt;	/* LOST records */
	const __s32 *lost_cpu;	/* [lost_cnt] */
	const __u64 *lost;	/* [lost_cnt]: records lost */
	__u64 lost_total;	/* sum of lost[] */
	__u64 late;		/* ordered: samples flagged PERFBUF_RECF_LATE */
	__u64 notices;		/* CPU_ONLINE and CPU_OFFLINE records */
	bool full;		/* the last record filled it: more may wait */
	__u32 uniform;		/* every sample's size when all are the same
				 * (then offset[i] = i * stride), else 0 */
	__u32 stride;		/* uniform: the payloads' 8-aligned spacing */
};

/**
 * @brief Describe the batch in @v, whose sz the caller set.
 * @return 0, or -EINVAL (NULL, sz too small)
 */
PERFBUF_API int perfbuf_batch__view(const struct perfbuf_batch *b,
				    struct perfbuf_batch_view *v);

#ifdef __cplusplus
}
#endif

#endif /* PERFBUF_BATCH_H */
