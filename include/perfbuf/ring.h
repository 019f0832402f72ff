/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libperfbuf, layer 2: one mmapped perf ring, read with a fold (a callback
 * per record) or an iterator (the caller's loop), and a merge that reads
 * several rings as one stream in time order.
 */
#ifndef PERFBUF_RING_H
#define PERFBUF_RING_H

#include <sys/uio.h>
#include <linux/perf_event.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct perfbuf_ring;

enum perfbuf_record_kind {
	PERFBUF_REC_SAMPLE,	/* PERF_RECORD_SAMPLE with PERF_SAMPLE_RAW */
	PERFBUF_REC_LOST,	/* PERF_RECORD_LOST, or losses a drain found */
	PERFBUF_REC_OTHER,	/* any other record type */
	PERFBUF_REC_CPU_ONLINE,	/* collector: a CPU came online, its ring is
				 * open and in the map */
	PERFBUF_REC_CPU_OFFLINE,/* collector: a CPU went offline; its records
				 * and losses were all delivered before this */
};

/* perfbuf_record.flags */
#define PERFBUF_RECF_LATE	0x1	/* merged stream: older than a record
					 * delivered before it */

/*
 * A record as the fold hands it over. Pointers point into the ring and
 * are valid only during the callback.
 *
 * SAMPLE: the raw payload (its kernel size, padding included) in two
 *   slices: @data then @data2; @data2_sz is 0 unless the payload wraps the
 *   ring end. perfbuf_record__copy() makes it contiguous. The payload is
 *   only 4-byte aligned (a u32 size precedes it in the record): read wider
 *   fields with memcpy() or copy the record first.
 * LOST: @lost is the number of records the kernel dropped.
 * OTHER: @data/@data2 is the record body after its 8-byte header.
 * CPU_ONLINE, CPU_OFFLINE: @cpu only (@size 0, no data).
 *
 * @time_ns: CLOCK_MONOTONIC when the kernel wrote the record (a SAMPLE with
 * PERF_SAMPLE_TIME, a LOST record with sample_id_all; the collector's
 * `timestamps` option gives both), when the library saw it (a drain's
 * losses, CPU notices), else 0.
 *
 * Growth (see common.h): new fields come at the end. A callback gets the
 * library's own record; an iteration fills the caller's only up to the
 * size the caller's headers gave perfbuf_ring__begin(). A record the
 * caller passes in (perfbuf_record__copy()) is read only up to
 * @flags, the 4.0 fields.
 */
struct perfbuf_record {
	enum perfbuf_record_kind kind;
	int cpu;		/* the ring's CPU, -1 if unknown */
	__u32 type;		/* perf_event_header.type */
	__u16 misc;
	__u16 size;		/* perf_event_header.size */
	__u64 time_ns;
	__u64 lost;
	const void *data;
	size_t data_sz;
	const void *data2;
	size_t data2_sz;
	__u32 flags;		/* PERFBUF_RECF_* */
};

/*
 * A record callback returns PERFBUF_CONTINUE (0) to go on, or PERFBUF_STOP
 * (any other value) to end the call early: the record stopped on is
 * consumed, and the call returns the records delivered so far, this one
 * included. The value is never passed on: a stop is not an error.
 */
enum {
	PERFBUF_CONTINUE = 0,
	PERFBUF_STOP = 1,
};
typedef int (*perfbuf_record_fn)(void *ctx, const struct perfbuf_record *rec);

/**
 * @brief Copy a record's payload into @dst.
 * @return bytes copied: min(@dst_sz, data_sz + data2_sz)
 */
PERFBUF_API size_t perfbuf_record__copy(const struct perfbuf_record *rec,
				       void *dst, size_t dst_sz);

/**
 * @brief Bytes a PERF_RECORD_SAMPLE with a raw payload of @payload bytes
 *        takes in a ring whose event has @sample_type (header, the fixed
 *        fields before RAW, the u32 size, the payload; 8-aligned).
 * @return the size, or 0 when it exceeds the u16 perf_event_header.size
 */
PERFBUF_API size_t perfbuf_record__sample_size(size_t payload, __u64 sample_type);

/**
 * @brief Is @page_cnt a valid ring size: a power of two, 1 .. 2^20 pages?
 * @return 0 or -EINVAL (nothing logged: the caller says it its own way)
 */
PERFBUF_API int perfbuf_ring__check_page_cnt(size_t page_cnt);

/**
 * @brief The data pages of each of @ring_cnt rings sharing @bytes: the
 *        largest power of two of pages within a share (at most 2^20), as
 *        perfbuf_opts.buffer_size divides it.
 * @return the pages, or 0 when a share is less than a page
 */
PERFBUF_API size_t perfbuf_ring__budget_pages(size_t bytes, size_t ring_cnt);

/**
 * @brief A ring over caller memory laid out as the mmap: one header page
 *        (struct perf_event_mmap_page) then @page_cnt data pages, at an
 *        8-byte aligned address (else NULL, errno EINVAL).
 *        Used by tests and fuzzers, and to read saved snapshots.
 */
PERFBUF_API struct perfbuf_ring *perfbuf_ring__new_mem(void *mem,
						       size_t page_size,
						       size_t page_cnt);

/*
 * A ring the library mapped (a collector's, a sampler's) belongs to the
 * process that mapped it: the kernel does not copy perf mappings into a
 * forked child. There an iteration is empty and perfbuf_ring__end()
 * returns -ECHILD, a fold and perfbuf_ring__read_spans() return -ECHILD,
 * and perfbuf_ring__free() frees without unmapping.
 */

/** @brief Unmap (if mapped by the library) and free. NULL is a no-op. */
PERFBUF_API void perfbuf_ring__free(struct perfbuf_ring *ring);

/** @brief The CPU reported in records (default -1). */
PERFBUF_API void perfbuf_ring__set_cpu(struct perfbuf_ring *ring, int cpu);

/**
 * @brief The event's sample_type and sample_id_all, which fix the record
 *        layout (default: PERF_SAMPLE_RAW, no sample_id_all).
 *
 * SAMPLE records are parsed when sample_type has PERF_SAMPLE_RAW and,
 * besides, only fixed-size fields that precede it (IDENTIFIER, IP, TID,
 * TIME, ADDR, ID, STREAM_ID, CPU, PERIOD); PERF_SAMPLE_TIME fills time_ns.
 * Other layouts are handed over as OTHER records. With @sample_id_all and
 * PERF_SAMPLE_TIME, LOST records carry time_ns too.
 */
PERFBUF_API void perfbuf_ring__set_sample_type(struct perfbuf_ring *ring,
					       __u64 sample_type,
					       bool sample_id_all);

/**
 * @brief Visit the records present, in order, then mark them consumed.
 *
 * data_head is read once (acquire), data_tail stored once (release).
 * A corrupt header is logged and counted, and the ring resynchronises to
 * data_head: the records already visited stay delivered.
 *
 * @return the records visited (the one a callback stopped on included),
 *         or -EBADMSG when corruption was found
 */
PERFBUF_API int perfbuf_ring__fold(struct perfbuf_ring *ring,
				   perfbuf_record_fn fn, void *ctx);

/*
 * A ring's waiting bytes as they are, for writing them out without
 * parsing them (a capture): whole records, in one span or, when they wrap
 * the ring end, two. They are consumed when the function returns.
 */
typedef void (*perfbuf_span_fn)(void *ctx, int cpu, const struct iovec *iov,
				int iov_cnt);

/**
 * @brief Hand the bytes waiting now, [data_tail, data_head), to @fn, then
 *        mark them consumed: data_head is read once (acquire), data_tail
 *        stored once (release). Only the headers are read: samples and
 *        LOST records are counted (LOST trimmed against settle_lost() as
 *        a fold would), damage is logged and counted, and the bytes go
 *        out as they are; sample_bytes counts all the bytes.
 * @return 1 when bytes were handed over, 0 when none waited, -EBADMSG when
 *         the positions are corrupt (logged, counted; the ring skips to
 *         data_head), -EINVAL for an overwrite ring
 */
PERFBUF_API int perfbuf_ring__read_spans(struct perfbuf_ring *ring,
					 perfbuf_span_fn fn, void *ctx);

/**
 * @brief The kernel counts @total losses on this ring so far (from
 *        PERF_FORMAT_LOST): how many of them no LOST record has reported
 *        yet. They count as reported from now on: LOST records that come
 *        later report only the losses beyond them.
 *
 * The kernel writes a LOST record only before the next record that fits,
 * so losses at the end of a run are known only this way.
 */
PERFBUF_API __u64 perfbuf_ring__settle_lost(struct perfbuf_ring *ring,
					    __u64 total);

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
 * nothing else may read the ring. The fields are the library's, and the
 * layout is fixed within a major version: the inline code of programs
 * built against any 4.x header reads it.
 */
struct perfbuf_iter {
	/* the inline part's: a pointer over one contiguous stretch of the
	 * ring, [stretch, stretch + (head or the ring's end)) */
	const char *pos;	/* the next record */
	const char *lim;	/* raw samples inline that end before lim */
	__u32 raw_off;		/* offset of a raw sample's u32 size; 0:
				 * samples are not raw, none inline */
	__u32 time_off;		/* offset of a sample's time, 0 if none */
	int cpu;
	__u64 samples;
	__u64 sample_bytes;
	/* everything the inline part does not take: the stretch's end, LOST
	 * and other records, payloads that wrap, damage */
	bool (*slow)(struct perfbuf_iter *it, struct perfbuf_record *rec);
	const char *data;	/* the ring's data area */
	const char *stretch;	/* where the stretch begins: position tail */
	__u64 tail;
	__u64 head;
	__u64 mask;
	struct perfbuf_ring *ring;
};

/**
 * @brief Start an iteration over the records present now, into records of
 *        @rec_sz bytes (the caller's sizeof(struct perfbuf_record):
 *        perfbuf_ring__begin() passes it). A corrupt position gives an
 *        empty iteration, and end() reports it.
 */
PERFBUF_API struct perfbuf_iter perfbuf_ring__begin_sz(struct perfbuf_ring *ring,
						       size_t rec_sz);

/** @brief perfbuf_ring__begin_sz() with this header's record size. */
static inline struct perfbuf_iter perfbuf_ring__begin(struct perfbuf_ring *ring)
{
	return perfbuf_ring__begin_sz(ring, sizeof(struct perfbuf_record));
}

/**
 * @brief Finish: mark what was returned consumed, update the statistics.
 *
 * Only the iterator of @ring's open iteration, as perfbuf_ring__begin()
 * gave it and perfbuf_iter__next() moved it, is taken, and only once: an
 * iterator of another ring, of an iteration ended already, or one the
 * caller changed leaves data_tail and the statistics alone (-EINVAL), and
 * the open iteration stays open for its own iterator.
 * @return 0, -EBADMSG when corruption was found (logged and counted; the
 *         ring skipped to data_head), -EINVAL for an iterator that is not
 *         the open iteration's, or -ECHILD in a process forked since
 *         the library mapped the ring (nothing read: it is not mapped there)
 */
PERFBUF_API int perfbuf_ring__end(struct perfbuf_ring *ring,
				  struct perfbuf_iter it);

/* A software prefetch this many bytes ahead of each record the iterator
 * returns inline; 0 (the default): none, the hardware prefetchers' stream
 * alone (on AMD EPYC family 25 a prefetch 1-16 KiB ahead made even a bare
 * read of a ring another CPU just wrote 3-25 % slower). */
#ifndef PERFBUF_ITER_PREFETCH
#define PERFBUF_ITER_PREFETCH 0	/* bytes */
#endif

/* perfbuf_iter__slow()'s copy of an iterator, field by field: after a
 * copy of the whole struct GCC kept samples and sample_bytes as one vector
 * and moved them to general registers and back for every record, a chain
 * that set the pace of a loop (1.0x libbpf's time a record flat out;
 * 0.81-0.94x copied so) */
static inline void perfbuf_iter__copy(struct perfbuf_iter *d,
				      const struct perfbuf_iter *s)
{
	d->pos = s->pos;
	d->lim = s->lim;
	d->raw_off = s->raw_off;
	d->time_off = s->time_off;
	d->cpu = s->cpu;
	d->samples = s->samples;
	d->sample_bytes = s->sample_bytes;
	d->slow = s->slow;
	d->data = s->data;
	d->stretch = s->stretch;
	d->tail = s->tail;
	d->head = s->head;
	d->mask = s->mask;
	d->ring = s->ring;
}

/* The out-of-line part works on copies: neither the caller's iterator nor
 * its record has its address taken, so both can stay in registers across
 * the loop body's calls (a callback the compiler cannot see into), and the
 * fields of the record that the body does not read are never stored. */
static inline bool perfbuf_iter__slow(struct perfbuf_iter *it,
				      struct perfbuf_record *rec)
{
	struct perfbuf_iter tmp;
	struct perfbuf_record r;
	bool ok;

	perfbuf_iter__copy(&tmp, it);
	ok = tmp.slow(&tmp, &r);
	perfbuf_iter__copy(it, &tmp);
	*rec = r;
	return ok;
}

/**
 * @brief The next record, or false at the end (or on corruption).
 */
static inline bool perfbuf_iter__next(struct perfbuf_iter *it,
				      struct perfbuf_record *rec)
{
	const char *p = it->pos;
	const struct perf_event_header *eh = (const struct perf_event_header *)p;
	__u32 raw_sz = *(const __u32 *)(p + it->raw_off);
	size_t size = eh->size;

	/* { header, fixed fields, u32 size, char data[size] }: the kernel's
	 * size includes the padding, so a raw sample is exactly raw_off + 4 +
	 * size long (summed in size_t: a damaged raw size near 2^32 must not
	 * wrap to the header's). pos is always readable this far (a record of
	 * the stretch, or a sentinel the slow path takes), and a sample is
	 * taken inline when it ends before lim: the next one is readable too. */
	if (__builtin_expect(eh->type != PERF_RECORD_SAMPLE ||
			     (size_t)raw_sz + it->raw_off + 4 != size || (size & 7) ||
			     size >= (size_t)(it->lim - p), 0))
		return perfbuf_iter__slow(it, rec);
	/* the line PERFBUF_ITER_PREFETCH bytes on, when the stretch holds
	 * it (a program's choice: none by default) */
	if (PERFBUF_ITER_PREFETCH &&
	    (size_t)(it->lim - p) > PERFBUF_ITER_PREFETCH)
		__builtin_prefetch(p + PERFBUF_ITER_PREFETCH);
	rec->kind = PERFBUF_REC_SAMPLE;
	rec->cpu = it->cpu;
	rec->type = PERF_RECORD_SAMPLE;
	rec->misc = eh->misc;
	rec->size = eh->size;
	rec->flags = 0;
	rec->lost = 0;
	/* 8-aligned, before the size field */
	rec->time_ns = it->time_off ? *(const __u64 *)(p + it->time_off) : 0;
	rec->data = p + it->raw_off + 4;
	rec->data_sz = raw_sz;
	rec->data2 = it->data;
	rec->data2_sz = 0;
	it->pos = p + size;
	it->samples++;
	it->sample_bytes += raw_sz;
	return true;
}

struct perfbuf_ring_stats {
	size_t sz;		/* the caller's sizeof (see common.h) */
	__u64 samples;		/* SAMPLE records */
	__u64 sample_bytes;	/* their payload bytes */
	__u64 lost;		/* losses reported: LOST records (less what
				 * settle_lost() had reported) + settle_lost() */
	__u64 lost_records;	/* LOST records */
	__u64 other;		/* other records */
	__u64 corrupt;		/* resynchronisations */
	__u64 high_water;	/* most bytes seen waiting at a fold */
	__u64 late;		/* records a merge delivered late */
};

/**
 * @brief Copy the ring's statistics (counted since the ring was made)
 *        into @out, whose sz the caller set (see common.h).
 * @return 0, or -EINVAL when out->sz is too small
 */
PERFBUF_API int perfbuf_ring__stats(const struct perfbuf_ring *ring,
				    struct perfbuf_ring_stats *out);
/** @brief Size of the data area in bytes. */
PERFBUF_API size_t perfbuf_ring__data_size(const struct perfbuf_ring *ring);

/*
 * A merge: several rings, and other sources of timed records (a capture's
 * CPU streams, a snapshot, a queue of messages: struct perfbuf_source_ops),
 * read as one stream in non-decreasing time_ns.
 * Records wait in their rings, not in copies: each fold takes the oldest
 * head record of all rings until the next one is newer than the horizon.
 *
 * Each ring is in time order but for a record whose producer was
 * interrupted between taking its time and writing it. A record older than
 * one already delivered (it arrived after the horizon passed its time) is
 * delivered anyway, with PERFBUF_RECF_LATE, and counted in the ring's
 * `late` statistic: never dropped, never silently out of order. Records
 * without a time (time_ns 0) go out as soon as they are at a ring's head.
 */
struct perfbuf_merge;

/** @brief An empty merge, or NULL with errno ENOMEM. */
PERFBUF_API struct perfbuf_merge *perfbuf_merge__new(void);
/** @brief Free the merge (not its rings). NULL is a no-op. */
PERFBUF_API void perfbuf_merge__free(struct perfbuf_merge *m);

/**
 * @brief Deliver, in time order, the records of every ring up to
 *        @horizon_ns (UINT64_MAX: everything present), at most @budget
 *        (0: no limit).
 *
 * Each ring's data_head is read once and its data_tail stored once.
 * @return the records delivered (the one a callback stopped on included)
 */
PERFBUF_API int perfbuf_merge__fold(struct perfbuf_merge *m, __u64 horizon_ns,
				    size_t budget, perfbuf_record_fn fn,
				    void *ctx);

/*
 * A source of timed records that is not a ring. The merge orders sources
 * by the time peek() gives, as given (a ring's untimed record goes as
 * "now"; a source decides itself), ties going to the source added first.
 * A late record is flagged, and counted by late() if the source has one.
 */
struct perfbuf_source_ops {
	size_t sz;
	/* the time its next record is ordered by into *time_ns: true; false
	 * when it has none now (asked again at the next fold) */
	bool (*peek)(void *ctx, __u64 *time_ns);
	/* that record into *rec, taken: valid until the next call of peek()
	 * or next() on this source. false: it gave none after all (a LOST
	 * record already reported); peek() is asked again */
	bool (*next)(void *ctx, struct perfbuf_record *rec);
	/* optional: called at the end of every fold */
	void (*end)(void *ctx);
	/* optional: its record just handed over was late (to count it) */
	void (*late)(void *ctx);
};

/** @brief Add a source (@ctx is its identity and its callbacks' argument;
 *  the caller keeps owning it). 0, -EINVAL, -EEXIST or -ENOMEM. */
PERFBUF_API int perfbuf_merge__add_source(struct perfbuf_merge *m,
					  const struct perfbuf_source_ops *ops,
					  void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* PERFBUF_RING_H */
