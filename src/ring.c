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

#define MAX_PAGE_CNT (1UL << 20)	/* 4 GiB of 4 KiB pages per ring */

struct perfbuf_ring {
	struct perf_event_mmap_page *hdr;
	const char *data;
	__u64 mask;		/* data_size - 1 */
	size_t map_len;		/* 0 when the memory is the caller's */
	int cpu;
	bool raw_samples;	/* SAMPLE records are PERF_SAMPLE_RAW only */
	int err;		/* -EBADMSG found by the current iteration */
	struct perfbuf_ring_stats st;
};

size_t perfbuf_record_copy(const struct perfbuf_record *rec, void *dst,
			   size_t dst_sz)
{
	size_t n1 = rec->data_sz < dst_sz ? rec->data_sz : dst_sz;
	size_t n2 = rec->data2_sz < dst_sz - n1 ? rec->data2_sz : dst_sz - n1;

	memcpy(dst, rec->data, n1);
	if (n2)
		memcpy((char *)dst + n1, rec->data2, n2);
	return n1 + n2;
}

static bool is_pow2(size_t n)
{
	return n && !(n & (n - 1));
}

int perfbuf_check_page_cnt(size_t page_cnt)
{
	if (!is_pow2(page_cnt)) {
		pr_warn("ring: page count %zu is not a power of two (use 1, 2, 4, ... %lu)\n",
			page_cnt, MAX_PAGE_CNT);
		return -EINVAL;
	}
	if (page_cnt > MAX_PAGE_CNT) {
		pr_warn("ring: page count %zu is too large (at most %lu)\n",
			page_cnt, MAX_PAGE_CNT);
		return -EINVAL;
	}
	return 0;
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
	r->raw_samples = true;
	return r;
}

struct perfbuf_ring *perfbuf_ring__new(int fd, size_t page_cnt)
{
	size_t page_size = (size_t)sysconf(_SC_PAGESIZE), len;
	struct perfbuf_ring *r;
	void *base;
	int err;

	err = perfbuf_check_page_cnt(page_cnt);
	if (err)
		return err_ptr(err);
	len = page_size * (page_cnt + 1);
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
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
	return r;
}

struct perfbuf_ring *perfbuf_ring__new_mem(void *mem, size_t page_size,
					   size_t page_cnt)
{
	int err;

	if (!mem || !is_pow2(page_size) ||
	    page_size < sizeof(struct perf_event_mmap_page)) {
		pr_warn("ring: memory ring needs a header page of at least %zu bytes, power of two\n",
			sizeof(struct perf_event_mmap_page));
		return err_ptr(-EINVAL);
	}
	err = perfbuf_check_page_cnt(page_cnt);
	if (err)
		return err_ptr(err);
	if (page_cnt > SIZE_MAX / page_size)
		return err_ptr(-EINVAL);
	return ring_alloc(mem, page_size, page_size * page_cnt) ?:
	       err_ptr(-ENOMEM);
}

void perfbuf_ring__free(struct perfbuf_ring *r)
{
	if (!r)
		return;
	if (r->map_len)
		munmap(r->hdr, r->map_len);
	free(r);
}

void perfbuf_ring__set_cpu(struct perfbuf_ring *r, int cpu)
{
	r->cpu = cpu;
}

void perfbuf_ring__set_raw_samples(struct perfbuf_ring *r, bool raw)
{
	r->raw_samples = raw;
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

struct perfbuf_iter perfbuf_ring__begin(struct perfbuf_ring *r)
{
	struct perfbuf_iter it = {
		.ring = r, .data = r->data, .mask = r->mask, .cpu = r->cpu,
		.raw = r->raw_samples,
	};
	__u64 avail;

	it.head = __atomic_load_n(&r->hdr->data_head, __ATOMIC_ACQUIRE);
	it.tail = __atomic_load_n(&r->hdr->data_tail, __ATOMIC_RELAXED);
	avail = it.head - it.tail;
	if (avail > r->mask + 1) {
		r->err = corrupt(r, it.tail, it.head,
				 "head - tail exceeds ring size", avail);
		it.tail = it.head;
	} else if (it.tail & 7) {
		r->err = corrupt(r, it.tail, it.head, "misaligned tail",
				 it.tail & 7);
		it.tail = it.head;
	} else if (avail > r->st.high_water) {
		r->st.high_water = avail;
	}
	return it;
}

struct perfbuf_record perfbuf_iter__next_slow(struct perfbuf_ring *r,
					      __u64 tail, __u64 head)
{
	const struct perf_event_header *eh =
		(const void *)(r->data + (tail & r->mask));
	struct perfbuf_record rec = { .cpu = r->cpu };
	__u32 size = eh->size;

	if (tail == head)
		return rec;
	if (size < sizeof(*eh) || (size & 7) || size > head - tail) {
		r->err = corrupt(r, tail, head, "header size", size);
		return rec;
	}
	rec.type = eh->type;
	rec.misc = eh->misc;
	if (eh->type == PERF_RECORD_SAMPLE && r->raw_samples) {
		__u32 raw_sz = size >= 12 ?
			*(const __u32 *)(r->data + ((tail + 8) & r->mask)) : ~0U;

		/* a payload shorter than the record is odd but harmless */
		if (raw_sz > size - 12) {
			r->err = corrupt(r, tail, head, "raw sample size", raw_sz);
			return rec;
		}
		rec.kind = PERFBUF_REC_SAMPLE;
		slices(r, &rec, tail + 12, raw_sz);
		r->st.samples++;
		r->st.sample_bytes += raw_sz;
	} else if (eh->type == PERF_RECORD_LOST) {
		/* { header, u64 id, u64 lost, [sample_id] } */
		if (size < 24) {
			r->err = corrupt(r, tail, head, "lost record size", size);
			return rec;
		}
		rec.kind = PERFBUF_REC_LOST;
		/* 8-aligned: never straddles the end */
		rec.lost = *(const __u64 *)(r->data + ((tail + 16) & r->mask));
		slices(r, &rec, tail + 8, size - 8);
		r->st.lost += rec.lost;
		r->st.lost_records++;
	} else {
		rec.kind = PERFBUF_REC_OTHER;
		slices(r, &rec, tail + 8, size - 8);
		r->st.other++;
	}
	rec.size = (__u16)size;		/* last: 0 means no record */
	return rec;
}

int perfbuf_ring__end(struct perfbuf_ring *r, struct perfbuf_iter it)
{
	int err = r->err;

	r->err = 0;
	r->st.samples += it.samples;
	r->st.sample_bytes += it.sample_bytes;
	__atomic_store_n(&r->hdr->data_tail, it.tail, __ATOMIC_RELEASE);
	return err;
}

int perfbuf_ring__fold_n(struct perfbuf_ring *r, perfbuf_record_fn fn,
			 void *ctx, size_t budget)
{
	struct perfbuf_iter it = perfbuf_ring__begin(r);
	struct perfbuf_record rec;
	int ret = 0, err;

	while (budget-- && perfbuf_iter__next(&it, &rec)) {
		ret = fn(ctx, &rec);
		if (ret)
			break;
	}
	err = perfbuf_ring__end(r, it);
	return ret ?: err;
}

int perfbuf_ring__fold(struct perfbuf_ring *r, perfbuf_record_fn fn,
		       void *ctx)
{
	return perfbuf_ring__fold_n(r, fn, ctx, SIZE_MAX);
}

void perfbuf_ring__stats(const struct perfbuf_ring *r,
			 struct perfbuf_ring_stats *out)
{
	*out = r->st;
}

size_t perfbuf_ring__avail(const struct perfbuf_ring *r)
{
	__u64 head = __atomic_load_n(&r->hdr->data_head, __ATOMIC_ACQUIRE);

	return (size_t)(head - r->hdr->data_tail);
}

size_t perfbuf_ring__data_size(const struct perfbuf_ring *r)
{
	return (size_t)r->mask + 1;
}

void *perfbuf_ring__base(const struct perfbuf_ring *r)
{
	return r->hdr;
}
