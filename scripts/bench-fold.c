// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench-fold: the per-record CPU cost of perfbuf_ring__fold() and of the
 * callback-free perfbuf_iter__next() walk on a warm, synthetic 4 MiB ring
 * of 80-byte samples (64-byte payloads), against a copy of libbpf 1.1's
 * perf_buffer__consume() loop (perf_event_read_simple +
 * perf_buffer__process_record + event_cb) and a lean fold with the same
 * checks. noipa keeps the compiler from specialising the copies on their
 * callbacks, which the shared libbpf cannot do. Not part of the build.
 *   cc -O2 -Iinclude scripts/bench-fold.c build/libperfbuf.a -o /tmp/bench-fold
 *   taskset -c 1 /tmp/bench-fold
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "perfbuf.h"
#include <linux/perf_event.h>
static unsigned long long n, sum;
static int cb(void *ctx, const struct perfbuf_record *rec) {
	unsigned long long seq; (void)ctx;
	if (rec->kind == PERFBUF_REC_SAMPLE) { memcpy(&seq, rec->data, 8); sum += seq; n++; }
	return 0;
}
struct ring { struct perf_event_mmap_page *hdr; const char *data; __u64 mask; int cpu; };
/* the library's fold, with the ring's fields in locals (an opaque callback
 * forces reloads through r otherwise) and the common case first */
__attribute__((noipa)) static int fold2(struct ring *r, perfbuf_record_fn fn, void *ctx)
{
	struct perf_event_mmap_page *hdr = r->hdr;
	const char *data = r->data;
	const __u64 mask = r->mask;
	__u64 head = __atomic_load_n(&hdr->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = hdr->data_tail;
	struct perfbuf_record rec = { .cpu = r->cpu };
	__u64 samples = 0;
	int ret = 0;
	while (tail != head) {
		size_t off = tail & mask;
		const struct perf_event_header *eh = (const void *)(data + off);
		__u32 size = eh->size;
		if (__builtin_expect(size < 8 || (size & 7) || size > head - tail, 0)) return -1;
		if (__builtin_expect(eh->type == PERF_RECORD_SAMPLE, 1)) {
			__u32 raw_sz = *(const __u32 *)(data + ((tail + 8) & mask));
			size_t doff = (tail + 12) & mask, room = mask + 1 - doff;
			if (__builtin_expect(raw_sz > size - 12, 0)) return -1;
			rec.kind = PERFBUF_REC_SAMPLE;
			rec.type = PERF_RECORD_SAMPLE; rec.misc = eh->misc; rec.size = size;
			rec.data = data + doff;
			if (__builtin_expect(raw_sz <= room, 1)) { rec.data_sz = raw_sz; rec.data2_sz = 0; }
			else { rec.data_sz = room; rec.data2 = data; rec.data2_sz = raw_sz - room; }
			samples++;
		} else return -1;
		tail += size;
		ret = fn(ctx, &rec);
		if (ret) break;
	}
	__atomic_store_n(&hdr->data_tail, tail, __ATOMIC_RELEASE);
	(void)samples;
	return ret;
}
typedef int (*evfn)(void *ctx, int cpu, struct perf_event_header *e);
struct pbx { evfn fn; void *ctx; int cpu; };
__attribute__((noipa)) static int lcb(void *ctx, int cpu, struct perf_event_header *eh) {
	unsigned long long seq; (void)ctx; (void)cpu;
	if (eh->type == PERF_RECORD_SAMPLE) { memcpy(&seq, (char*)eh + 12, 8); sum += seq; n++; }
	return -2;
}
__attribute__((noipa)) static int process(struct perf_event_header *e, void *p) { struct pbx *b = p; return b->fn(b->ctx, b->cpu, e); }
typedef int (*rfn)(struct perf_event_header *e, void *p);
__attribute__((noipa)) static void lb_loop(void *base_, size_t mmap_size, rfn fn, void *priv) {
	struct perf_event_mmap_page *h = base_; char *base = (char*)base_ + 4096;
	unsigned long long head = __atomic_load_n(&h->data_head, __ATOMIC_ACQUIRE), tail = h->data_tail;
	while (head != tail) {
		struct perf_event_header *eh = (void*)(base + (tail & (mmap_size - 1)));
		unsigned sz = eh->size;
		int ret = fn(eh, priv);
		tail += sz;
		if (ret != -2) break;
	}
	__atomic_store_n(&h->data_tail, tail, __ATOMIC_RELEASE);
}
__attribute__((noipa)) static void iter_drain(struct perfbuf_ring *r)
{
	struct perfbuf_iter it = perfbuf_ring__begin(r); struct perfbuf_record rec; unsigned long long seq;
	while (perfbuf_iter__next(&it, &rec))
		if (rec.kind == PERFBUF_REC_SAMPLE) { memcpy(&seq, rec.data, 8); sum += seq; n++; }
	perfbuf_ring__end(r, it);
}
static double now(void){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+t.tv_nsec/1e9;}
int main(void) {
	size_t pages = 1024, ps = 4096, ds = pages*ps;
	char *mem = aligned_alloc(4096, ps + ds);
	memset(mem, 0, ps+ds);
	struct perf_event_mmap_page *h = (void*)mem;
	char *d = mem + ps; unsigned long long pos = 0, cnt = 0;
	while (pos + 80 <= ds - 8) {
		struct perf_event_header *eh = (void*)(d + pos);
		eh->type = PERF_RECORD_SAMPLE; eh->size = 80; *(unsigned*)(d+pos+8) = 68;
		*(unsigned long long*)(d+pos+12) = cnt++; pos += 80;
	}
	struct perfbuf_ring *r = perfbuf_ring__new_mem(mem, ps, pages);
	struct ring r2 = { h, d, ds - 1, 0 };
	struct pbx b = { lcb, NULL, 0 };
	double bp = 1e9, b2 = 1e9, bl = 1e9, bi = 1e9;
	for (int i = 0; i < 300; i++) {
		h->data_tail = 0; h->data_head = pos; n = 0;
		double t = now(); perfbuf_ring__fold(r, cb, NULL); t = now() - t;
		if (t < bp) bp = t;
		h->data_tail = 0; n = 0;
		t = now(); fold2(&r2, cb, NULL); t = now() - t;
		if (t < b2) b2 = t;
		h->data_tail = 0; n = 0;
		t = now(); iter_drain(r); t = now() - t;
		if (t < bi) bi = t;
		h->data_tail = 0; n = 0;
		t = now(); lb_loop(mem, ds, process, &b); t = now() - t;
		if (t < bl) bl = t;
	}
	printf("%llu records, best of 300 drains, ns/record:\n"
	       "  perfbuf_ring__fold       %.2f\n  lean fold, same checks   %.2f\n"
	       "  libbpf 1.1 consume loop  %.2f\n  perfbuf iterator         %.2f\n", n, bp*1e9/n, b2*1e9/n, bl*1e9/n, bi*1e9/n);
	return 0;
}
