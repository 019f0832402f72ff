// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One perf ring: a header page (struct perf_event_mmap_page) and 2^n data
 * pages the kernel writes records into.
 *
 * Reading protocol (kernel/events/ring_buffer.c, perf_output_put_handle):
 *   head = load-acquire(data_head)   -- pairs with the kernel's write barrier
 *                                       before it publishes data_head
 *   read records in [tail, head)
 *   store-release(data_tail, head)   -- the kernel may overwrite only after
 *                                       our reads are done
 * Positions are free-running u64; offset = pos & (data_size - 1). Records
 * are 8-byte aligned and the header is 8 bytes, so a header never straddles
 * the ring end, but a payload may: it is then handed over as two slices.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/* fixed-size fields a raw sample may carry before its RAW part, in their
 * order in the record (include/uapi/linux/perf_event.h) */
#define SAMPLE_FIXED (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
		      PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | \
		      PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
		      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
/* sample_id fields that follow TIME in a sample_id_all trailer */
#define ID_AFTER_TIME (PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
		       PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define LOST_RECORD_SZ 24	/* { header, u64 id, u64 lost } */

size_t perfbuf_record__copy(const struct perfbuf_record *rec, void *dst,
			   size_t dst_sz)
{
	size_t n1 = rec->data_sz < dst_sz ? rec->data_sz : dst_sz;
	size_t n2 = rec->data2_sz < dst_sz - n1 ? rec->data2_sz : dst_sz - n1;

	if (n1)
		memcpy(dst, rec->data, n1);
	if (n2)
		memcpy((char *)dst + n1, rec->data2, n2);
	return n1 + n2;
}

/* Bytes before a raw sample's u32 size. */
static size_t raw_offset(__u64 sample_type)
{
	return sizeof(struct perf_event_header) +
	       8 * (size_t)__builtin_popcountll(sample_type & SAMPLE_FIXED);
}

size_t perfbuf_record__sample_size(size_t payload, __u64 sample_type)
{
	size_t fixed = raw_offset(sample_type) + 4;

	if (payload > MAX_RECORD_SZ)
		return 0;
	payload = (fixed + payload + 7) & ~(size_t)7;
	return payload > MAX_RECORD_SZ ? 0 : payload;
}

bool ring_forked(const struct perfbuf_ring *r)
{
	return r->map_len && perfbuf_forked(r->fork_gen);
}

static bool is_pow2(size_t n)
{
	return n && !(n & (n - 1));
}

int perfbuf_ring__check_page_cnt(size_t page_cnt)
{
	return is_pow2(page_cnt) && page_cnt <= MAX_PAGE_CNT ? 0 : -EINVAL;
}

size_t perfbuf_ring__budget_pages(size_t bytes, size_t ring_cnt)
{
	size_t share = ring_cnt ? bytes / (size_t)sysconf(_SC_PAGESIZE) / ring_cnt : 0;
	size_t p = 1;

	if (!share)
		return 0;
	if (share > MAX_PAGE_CNT)
		share = MAX_PAGE_CNT;
	while (p <= share / 2)
		p *= 2;
	return p;
}

int perfbuf_check_page_cnt_log(size_t page_cnt)
{
	int err = perfbuf_ring__check_page_cnt(page_cnt);

	if (err)
		pr_warn("ring: page count %zu is not a power of two from 1 to %lu\n",
			page_cnt, MAX_PAGE_CNT);
	return err;
}

static struct perfbuf_ring *ring_alloc(void *base, size_t page_size,
				       size_t data_size)
{
	struct perfbuf_ring *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->hdr = base;
	r->data = (const char *)base + page_size;
	r->mask = data_size - 1;
	r->cpu = -1;
	r->fd = -1;
	perfbuf_ring__set_sample_type(r, PERF_SAMPLE_RAW, false);
	return r;
}

struct perfbuf_ring *perfbuf_ring__new(int fd, size_t page_cnt)
{
	return perfbuf_ring__new_opts(fd, page_cnt, NULL);
}

struct perfbuf_ring *perfbuf_ring__new_opts(int fd, size_t page_cnt,
					    const struct perfbuf_ring_opts *opts)
{
	size_t page_size = (size_t)sysconf(_SC_PAGESIZE), len;
	bool overwrite = OPTS_GET(opts, overwrite, false);
	struct perfbuf_ring *r;
	void *base;
	int err;

	if (!OPTS_VALID(opts, perfbuf_ring_opts))
		return err_ptr(-EINVAL);
	err = perfbuf_check_page_cnt_log(page_cnt);
	if (err)
		return err_ptr(err);
	len = page_size * (page_cnt + 1);
	/* without PROT_WRITE the kernel's ring is an overwrite ring */
	base = mmap(NULL, len, PROT_READ | (overwrite ? 0 : PROT_WRITE),
		    MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		err = -errno;
		if (err == -EPERM)
			pr_warn("ring: mmap of %zu pages refused (EPERM): over kernel.perf_event_mlock_kb and RLIMIT_MEMLOCK; run as root or raise them\n",
				page_cnt + 1);
		else
			pr_warn("ring: mmap of %zu pages failed: %s\n",
				page_cnt + 1, strerror(-err));
		return err_ptr(err);
	}
	r = ring_alloc(base, page_size, page_size * page_cnt);
	if (!r) {
		munmap(base, len);
		return err_ptr(-ENOMEM);
	}
	r->map_len = len;
	r->fork_gen = perfbuf_fork_gen();
	r->fd = fd;
	r->overwrite = overwrite;
	r->snap_head = r->hdr->data_head;
	return r;
}

struct perfbuf_ring *perfbuf_ring__new_mem(void *mem, size_t page_size,
					   size_t page_cnt)
{
	return perfbuf_ring__new_mem_opts(mem, page_size, page_cnt, NULL);
}

struct perfbuf_ring *
perfbuf_ring__new_mem_opts(void *mem, size_t page_size, size_t page_cnt,
			   const struct perfbuf_ring_opts *opts)
{
	struct perfbuf_ring *r;
	int err;

	if (!OPTS_VALID(opts, perfbuf_ring_opts))
		return err_ptr(-EINVAL);
	if (!mem || !is_pow2(page_size) ||
	    page_size < sizeof(struct perf_event_mmap_page)) {
		pr_warn("ring: memory ring needs a header page of at least %zu bytes, power of two\n",
			sizeof(struct perf_event_mmap_page));
		return err_ptr(-EINVAL);
	}
	/* the header's u64 atomics and 8-byte records read in place */
	if ((uintptr_t)mem & 7) {
		pr_warn("ring: memory ring at %p is not 8-byte aligned\n", mem);
		return err_ptr(-EINVAL);
	}
	err = perfbuf_check_page_cnt_log(page_cnt);
	if (err)
		return err_ptr(err);
	if (page_cnt > SIZE_MAX / page_size)
		return err_ptr(-EINVAL);
	r = ring_alloc(mem, page_size, page_size * page_cnt);
	if (!r)
		return err_ptr(-ENOMEM);
	r->overwrite = OPTS_GET(opts, overwrite, false);
	r->snap_head = r->hdr->data_head;
	return r;
}

void perfbuf_ring__free(struct perfbuf_ring *r)
{
	if (!r)
		return;
	/* a forked child does not have the mapping: the range may hold
	 * another mapping of its own by now */
	if (r->map_len && !ring_forked(r))
		munmap(r->hdr, r->map_len);
	free(r);
}

void perfbuf_ring__set_cpu(struct perfbuf_ring *r, int cpu)
{
	r->cpu = cpu;
}

void perfbuf_ring__set_sample_type(struct perfbuf_ring *r, __u64 sample_type,
				   bool sample_id_all)
{
	bool raw = (sample_type & PERF_SAMPLE_RAW) &&
		   !(sample_type & ~(SAMPLE_FIXED | PERF_SAMPLE_RAW));

	r->raw_off = raw ? (__u32)raw_offset(sample_type) : 0;
	r->time_off = raw && (sample_type & PERF_SAMPLE_TIME) ?
		(__u32)raw_offset(sample_type & (PERF_SAMPLE_IDENTIFIER |
						 PERF_SAMPLE_IP |
						 PERF_SAMPLE_TID)) : 0;
	r->lost_time_end = sample_id_all && (sample_type & PERF_SAMPLE_TIME) ?
		8 * (1 + __builtin_popcountll(sample_type & ID_AFTER_TIME)) : 0;
}

static int corrupt(struct perfbuf_ring *r, __u64 tail, __u64 head,
		   const char *why, __u64 val)
{
	pr_warn("ring (cpu %d): corrupt record at position %llu (%s: %llu); skipping %llu bytes to the head\n",
		r->cpu, (unsigned long long)tail, why, (unsigned long long)val,
		(unsigned long long)(head - tail));
	r->st.corrupt++;
	return -EBADMSG;
}

/* Point the record's two slices at @len bytes from position @pos. */
static void slices(const struct perfbuf_ring *r, struct perfbuf_record *rec,
		   __u64 pos, size_t len)
{
	size_t off = pos & r->mask, room = r->mask + 1 - off;

	rec->data = r->data + off;
	rec->data2 = r->data;
	rec->data_sz = len <= room ? len : room;
	rec->data2_sz = len - rec->data_sz;
}

static __u64 read_u64(const struct perfbuf_ring *r, __u64 pos)
{
	/* 8-aligned: never straddles the ring end */
	return *(const __u64 *)(r->data + (pos & r->mask));
}

static bool iter_slow(struct perfbuf_iter *it, struct perfbuf_record *rec);
static bool iter_slow_fill(struct perfbuf_iter *it, struct perfbuf_record *rec);

/* Where an iterator points when no record may be read inline: zeroes,
 * a record of type 0, which the inline part leaves to the slow path;
 * long enough for the u32 it reads at raw_off (at most 8 + 9 * 8). */
static const __u64 no_stretch[11];

/*
 * Put @it at position @tail: the stretch from there to the head or the
 * ring's end, whichever comes first. The inline part reads a header and
 * the u32 at raw_off where it points, and takes a sample that ends before
 * lim, so that the next one can be read: pos < lim but at the sentinel.
 */
static void iter_seek(struct perfbuf_iter *it, __u64 tail)
{
	size_t off = tail & it->mask, room = it->mask + 1 - off;
	size_t len = it->head - tail < room ? it->head - tail : room;

	it->tail = tail;
	if (it->raw_off && len > it->raw_off + 3) {
		it->stretch = it->pos = it->data + off;
		it->lim = it->pos + len - it->raw_off - 3;
	} else {
		it->stretch = it->pos = it->lim = (const char *)no_stretch;
	}
}

struct perfbuf_iter ring_iter(struct perfbuf_ring *r, __u64 tail, __u64 head)
{
	struct perfbuf_iter it = {
		.ring = r, .data = r->data, .mask = r->mask, .cpu = r->cpu,
		.slow = iter_slow, .raw_off = r->raw_off,
		.time_off = r->time_off, .head = head,
	};

	iter_seek(&it, tail);
	return it;
}

struct perfbuf_iter perfbuf_ring__begin_sz(struct perfbuf_ring *r,
				      size_t rec_sz)
{
	__u64 head, tail, avail;

	r->rec_sz = rec_sz;
	r->err = 0;	/* of an iteration never ended, if any */
	r->iter_open = false;
	if (r->overwrite || ring_forked(r)) {
		/* overwrite: snapshots only; forked: nothing mapped */
		r->err = r->overwrite ? -EINVAL : -ECHILD;
		return ring_iter(r, 0, 0);
	}
	head = __atomic_load_n(&r->hdr->data_head, __ATOMIC_ACQUIRE);
	tail = __atomic_load_n(&r->hdr->data_tail, __ATOMIC_RELAXED);
	avail = head - tail;
	if (avail > r->mask + 1) {
		r->err = corrupt(r, tail, head,
				 "head - tail exceeds ring size", avail);
		tail = head;
	} else if (tail & 7) {
		r->err = corrupt(r, tail, head, "misaligned tail", tail & 7);
		tail = head;
	} else if (avail > r->st.high_water) {
		r->st.high_water = avail;
	}
	r->iter_open = true;
	r->iter_tail = tail;
	r->iter_head = head;
	return ring_iter(r, tail, head);
}

/* A raw sample the inline path left: a payload shorter than its record
 * (odd but harmless) or one that wraps oddly. false: corrupt. */
static bool raw_sample(struct perfbuf_iter *it, struct perfbuf_record *rec,
		       __u64 tail, __u32 size)
{
	struct perfbuf_ring *r = it->ring;
	__u32 raw_sz = size >= it->raw_off + 4 ?
		*(const __u32 *)(r->data + ((tail + it->raw_off) & r->mask)) : ~0U;

	if (raw_sz > size - it->raw_off - 4) {
		r->err = corrupt(r, tail, it->head, "raw sample size", raw_sz);
		return false;
	}
	rec->kind = PERFBUF_REC_SAMPLE;
	if (it->time_off)
		rec->time_ns = read_u64(r, tail + it->time_off);
	slices(r, rec, tail + it->raw_off + 4, raw_sz);
	it->samples++;
	it->sample_bytes += raw_sz;
	return true;
}

/* A LOST record's @cnt, less what perfbuf_ring__settle_lost() reported
 * already: the losses it reports now. */
static __u64 count_lost(struct perfbuf_ring *r, __u64 cnt)
{
	__u64 fresh;

	r->st.lost_records++;
	if (r->overwrite) {
		/* the kernel may overwrite LOST records: no sum to trim
		 * against, and a snapshot sees each at most once */
		r->st.lost += cnt;
		return cnt;
	}
	r->lost_seen += cnt;
	if (r->lost_seen <= r->st.lost)
		return 0;
	fresh = r->lost_seen - r->st.lost;
	r->st.lost = r->lost_seen;
	return fresh;
}

/* A LOST record's count, less what perfbuf_ring__settle_lost() reported
 * already. false: all of it was, skip the record. */
static bool lost_record(struct perfbuf_ring *r, struct perfbuf_record *rec,
			__u64 tail, __u32 size)
{
	rec->kind = PERFBUF_REC_LOST;
	rec->lost = count_lost(r, read_u64(r, tail + 16));
	if (!rec->lost)
		return false;
	if (r->lost_time_end && size >= LOST_RECORD_SZ + r->lost_time_end)
		rec->time_ns = read_u64(r, tail + size - r->lost_time_end);
	slices(r, rec, tail + 8, size - 8);
	return true;
}

/* The caller's record may be older (shorter) than the library's: only
 * its bytes are written. A check per slow record, none inline. */
static bool iter_slow(struct perfbuf_iter *it, struct perfbuf_record *rec)
{
	struct perfbuf_record full;
	size_t sz = it->ring->rec_sz;
	bool ok;

	if (!sz || sz >= sizeof(full))	/* 0: the library's own (snapshots) */
		return iter_slow_fill(it, rec);
	ok = iter_slow_fill(it, &full);
	memcpy(rec, &full, sz);
	return ok;
}

/* Everything the inline part leaves: the end of a stretch, LOST and
 * other records, payloads that wrap, damage. */
static bool iter_slow_fill(struct perfbuf_iter *it, struct perfbuf_record *rec)
{
	struct perfbuf_ring *r = it->ring;
	__u64 tail = iter_tail(it);

	while (tail != it->head) {
		const struct perf_event_header *eh =
			(const void *)(r->data + (tail & r->mask));
		__u32 size = eh->size;
		bool ok = true;

		if (size < sizeof(*eh) || (size & 7) || size > it->head - tail) {
			r->err = corrupt(r, tail, it->head, "header size", size);
			break;
		}
		memset(rec, 0, sizeof(*rec));
		rec->cpu = it->cpu;
		rec->type = eh->type;
		rec->misc = eh->misc;
		rec->size = (__u16)size;
		if (eh->type == PERF_RECORD_SAMPLE && it->raw_off) {
			ok = raw_sample(it, rec, tail, size);
		} else if (eh->type == PERF_RECORD_LOST) {
			if (size < LOST_RECORD_SZ) {
				r->err = corrupt(r, tail, it->head,
						 "lost record size", size);
				break;
			}
			tail += size;
			if (!lost_record(r, rec, tail - size, size))
				continue;
			iter_seek(it, tail);
			return true;
		} else {
			rec->kind = PERFBUF_REC_OTHER;
			slices(r, rec, tail + 8, size - 8);
			r->st.other++;
		}
		if (!ok)
			break;
		iter_seek(it, tail + size);
		return true;
	}
	iter_seek(it, it->head);	/* the end, or corrupt: resynchronise */
	return false;
}

__u64 ring_peek_time(const struct perfbuf_iter *it)
{
	const struct perfbuf_ring *r = it->ring;
	const struct perf_event_header *eh;
	__u64 tail = iter_tail(it);

	if (tail == it->head)
		return 0;
	eh = (const void *)(r->data + (tail & r->mask));
	if (eh->size > it->head - tail || (eh->size & 7))
		return 0;
	if (eh->type == PERF_RECORD_SAMPLE && it->time_off &&
	    eh->size >= it->raw_off + 4)
		return read_u64(r, tail + it->time_off);
	if (eh->type == PERF_RECORD_LOST && r->lost_time_end &&
	    eh->size >= LOST_RECORD_SZ + r->lost_time_end)
		return read_u64(r, tail + eh->size - r->lost_time_end);
	return 0;
}

/*
 * Is @it the iterator of @r's open iteration, where begin left it or
 * moved on by whole records: its ring, its head, a position in [the
 * begin's tail, head] that is on a record or is the head (a damaged ring
 * resynchronises there, and a damaged head need not be aligned), and
 * counts the bytes it went over can hold (a sample takes 8 bytes or
 * more)? An iterator of another ring, of an
 * iteration ended already, or one the caller changed fails, so that
 * data_tail is never moved by what the library did not hand out. Once a
 * drain: nothing per record.
 */
static bool iter_ours(const struct perfbuf_ring *r,
		      const struct perfbuf_iter *it)
{
	__u64 went = iter_tail(it) - r->iter_tail;

	return r->iter_open && it->ring == r && it->data == r->data &&
	       it->mask == r->mask && it->head == r->iter_head &&
	       went <= r->iter_head - r->iter_tail &&
	       (!(went & 7) || iter_tail(it) == it->head) &&
	       it->samples <= went / 8 && it->sample_bytes <= went;
}

int perfbuf_ring__end(struct perfbuf_ring *r, struct perfbuf_iter it)
{
	int err = r->err;

	if (ring_forked(r))
		return -ECHILD;
	if (r->overwrite) {
		r->err = 0;
		return err;	/* read-only: no data_tail */
	}
	if (!iter_ours(r, &it))
		return -EINVAL;
	r->err = 0;
	r->iter_open = false;
	r->st.samples += it.samples;
	r->st.sample_bytes += it.sample_bytes;
	__atomic_store_n(&r->hdr->data_tail, iter_tail(&it), __ATOMIC_RELEASE);
	return err;
}

/* What every raw sample of a fold has in common: stored once per fold
 * (and after a record of another kind), not once per record. */
static void sample_init(struct perfbuf_record *rec, int cpu, const char *data)
{
	memset(rec, 0, sizeof(*rec));
	rec->kind = PERFBUF_REC_SAMPLE;
	rec->cpu = cpu;
	rec->type = PERF_RECORD_SAMPLE;
	rec->data2 = data;
}

/*
 * The fold's inner loop over one stretch, with the record's fixed fields
 * stored before (the callback sees it const). The records of a stream are
 * mostly alike: one header (type, misc, size) and one raw size. A record
 * is checked in full once and its header and raw size learnt, with misc,
 * size and data_sz stored in the record; a record after it that has the
 * same 8 header bytes and raw size, and ends before lim, is taken on those
 * compares alone, and the next address comes from the size learnt, not
 * from the load of the header just read (the loads of a run do not wait
 * on each other). A record that differs is checked and learnt in turn; one
 * that fails the check stops the loop for the slow path. A sample costs
 * three compares, one or two stores and the call. It stops at the
 * callback's stop or when *left runs out (> 0 on entry). Inlined for the
 * collector's two layouts, raw_off 8 (RAW) and 16 with the time at 8
 * (TIME | RAW), so that the offsets are constants, and once for any other.
 */
static inline __attribute__((always_inline)) int
fold_stretch(const char **pp, const char *lim, size_t *left, size_t raw_off,
	     size_t time_off, perfbuf_record_fn fn, void *ctx,
	     struct perfbuf_record *rec)
{
	const char *p = *pp;
	size_t n = *left, k = raw_off + 4, size = 0;
	uintptr_t last = 0;	/* a run's records start below; 0: none learnt */
	__u64 hdr = 0, h;
	__u32 raw = 0, r;
	int ret;

	do {
		memcpy(&h, p, sizeof(h));
		memcpy(&r, p + raw_off, sizeof(r));
		if (__builtin_expect(h != hdr || r != raw ||
				     (uintptr_t)p >= last, 0)) {
			const struct perf_event_header *eh = (const void *)p;

			/* { header, fixed fields, u32 size, char data[size] }:
			 * the kernel's size includes the padding */
			size = eh->size;
			if (eh->type != PERF_RECORD_SAMPLE || r + k != size ||
			    (size & 7) || size >= (size_t)(lim - p)) {
				ret = PERFBUF_CONTINUE;
				break;
			}
			hdr = h;
			raw = r;
			last = (uintptr_t)(lim - size);
			/* misc then size: the same 4 bytes in both */
			memcpy(&rec->misc, p + 4, 4);
			rec->data_sz = r;
		}
		if (time_off)
			memcpy(&rec->time_ns, p + time_off, 8);
		rec->data = p + k;
		p += size;
		ret = fn(ctx, rec);
	} while (ret == PERFBUF_CONTINUE && --n);
	if (ret != PERFBUF_CONTINUE)
		n--;	/* the record stopped on is delivered */
	*pp = p;
	*left = n;
	return ret;
}

/* The fold: the stretches to the inline loop, the rest to the slow path.
 * The inline loop's samples are counted once, at the end, from how far it
 * went: a sample of size S carries S - raw_off - 4 payload bytes. */
size_t ring_fold(struct perfbuf_ring *r, perfbuf_record_fn fn, void *ctx,
		 size_t budget, bool *stopped, int *err)
{
	struct perfbuf_iter it = perfbuf_ring__begin(r);
	size_t left = budget, slow = 0;
	__u64 fast_bytes = 0, fast_n;
	struct perfbuf_record rec;
	int ret = PERFBUF_CONTINUE;

	sample_init(&rec, it.cpu, it.data);
	while (left) {
		const char *p0 = it.pos;

		if (it.raw_off == 8 && !it.time_off)
			ret = fold_stretch(&it.pos, it.lim, &left, 8, 0, fn,
					   ctx, &rec);
		else if (it.raw_off == 16 && it.time_off == 8)
			ret = fold_stretch(&it.pos, it.lim, &left, 16, 8, fn,
					   ctx, &rec);
		else
			ret = fold_stretch(&it.pos, it.lim, &left, it.raw_off,
					   it.time_off, fn, ctx, &rec);
		fast_bytes += it.pos - p0;
		if (ret != PERFBUF_CONTINUE || !left || !iter_slow(&it, &rec))
			break;
		slow++;
		left--;
		ret = fn(ctx, &rec);
		sample_init(&rec, it.cpu, it.data);
		if (ret != PERFBUF_CONTINUE)
			break;
	}
	fast_n = budget - left - slow;
	it.samples += fast_n;
	it.sample_bytes += fast_bytes - fast_n * (it.raw_off + 4);
	*stopped = ret != PERFBUF_CONTINUE;
	*err = perfbuf_ring__end(r, it);
	return budget - left;
}

int perfbuf_ring__fold_n(struct perfbuf_ring *r, perfbuf_record_fn fn,
			 void *ctx, size_t budget)
{
	bool stopped;
	int err;
	size_t n = ring_fold(r, fn, ctx, budget, &stopped, &err);

	return err ?: (n > INT32_MAX ? INT32_MAX : (int)n);
}

int perfbuf_ring__fold(struct perfbuf_ring *r, perfbuf_record_fn fn,
		       void *ctx)
{
	return perfbuf_ring__fold_n(r, fn, ctx, SIZE_MAX);
}

/*
 * The headers only, of records handed over as bytes: samples counted, and
 * LOST records trimmed against what settle_lost() reported as a fold would,
 * so that the losses a drain settles next are exactly the unreported
 * ones. Damage is logged and counted; the bytes go out as they are.
 */
static void count_records(struct perfbuf_ring *r, __u64 tail, __u64 head)
{
	while (tail != head) {
		const struct perf_event_header *eh =
			(const void *)(r->data + (tail & r->mask));

		if (eh->size < sizeof(*eh) || (eh->size & 7) ||
		    eh->size > head - tail) {
			corrupt(r, tail, head, "header size", eh->size);
			return;
		}
		if (eh->type == PERF_RECORD_SAMPLE)
			r->st.samples++;
		else if (eh->type == PERF_RECORD_LOST && eh->size >= LOST_RECORD_SZ)
			count_lost(r, read_u64(r, tail + 16));
		else
			r->st.other++;
		tail += eh->size;
	}
}

int perfbuf_ring__read_spans(struct perfbuf_ring *r, perfbuf_span_fn fn,
			    void *ctx)
{
	struct perfbuf_iter it = perfbuf_ring__begin(r);
	__u64 tail = iter_tail(&it);
	size_t off = tail & r->mask, len = it.head - tail;
	size_t room = r->mask + 1 - off;
	struct iovec iov[2] = {
		{ (void *)(r->data + off), len < room ? len : room },
		{ (void *)r->data, len < room ? 0 : len - room },
	};

	if (len) {
		count_records(r, tail, it.head);
		fn(ctx, r->cpu, iov, iov[1].iov_len ? 2 : 1);
		iter_seek(&it, it.head);
		it.sample_bytes = len;
	}
	return perfbuf_ring__end(r, it) ?: len > 0;
}

__u64 perfbuf_ring__settle_lost(struct perfbuf_ring *r, __u64 total)
{
	__u64 pending = total > r->st.lost ? total - r->st.lost : 0;

	r->st.lost += pending;
	return pending;
}

int perfbuf_ring__stats(const struct perfbuf_ring *r,
			struct perfbuf_ring_stats *out)
{
	return OUT_COPY(out, &r->st);
}

size_t perfbuf_ring__avail(const struct perfbuf_ring *r)
{
	__u64 head, snap;

	if (ring_forked(r))
		return 0;
	head = __atomic_load_n(&r->hdr->data_head, __ATOMIC_ACQUIRE);
	if (!r->overwrite)
		return (size_t)(head - __atomic_load_n(&r->hdr->data_tail,
						       __ATOMIC_RELAXED));
	/* head moves down; snapshot() moves snap_head, perhaps in another
	 * thread than this perfbuf__stats() */
	snap = __atomic_load_n(&r->snap_head, __ATOMIC_RELAXED);
	return (size_t)(snap - head < r->mask + 1 ? snap - head : r->mask + 1);
}

size_t perfbuf_ring__data_size(const struct perfbuf_ring *r)
{
	return (size_t)r->mask + 1;
}
