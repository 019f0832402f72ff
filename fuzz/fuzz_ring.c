// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the ring parser: arbitrary ring contents and
 * arbitrary head/tail positions must never read out of bounds, crash or
 * spin. Input: u64 head, u64 tail, u8 flags, then the data area. Read by
 * a fold, the iterator (flags 64), fold_n with small budgets (128), a
 * merge (16), or as an overwrite ring's snapshot (32).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfbuf.h"
#include "ring_priv.h"

#define PAGE 4096

static int touch(void *ctx, const struct perfbuf_record *rec)
{
	const unsigned char *a = rec->data, *b = rec->data2;
	unsigned *sum = ctx;

	for (size_t i = 0; i < rec->data_sz; i++)
		*sum += a[i];
	for (size_t i = 0; i < rec->data2_sz; i++)
		*sum += b[i];
	return (*sum & 0xff) == 0x5a;	/* stop now and then */
}

/* The inline walk (perfbuf_iter__next()), its early exits as touch()'s. */
static void iterate(struct perfbuf_ring *r, unsigned *sum)
{
	struct perfbuf_iter it = perfbuf_ring__begin(r);
	struct perfbuf_record rec;

	while (perfbuf_iter__next(&it, &rec))
		if (touch(sum, &rec))
			break;
	perfbuf_ring__end(r, it);
}

static int quiet(enum perfbuf_print_level l, const char *f, va_list ap)
{
	(void)l; (void)f; (void)ap;
	return 0;
}

/* An overwrite ring whose last snapshot was at @tail, now at @head (the
 * head moves down: @tail - @head bytes written, maybe more than fit). */
static void snapshot_case(char *mem, size_t pages, uint64_t head,
			  uint64_t tail, uint8_t flags, unsigned *sum)
{
	struct perfbuf_ring_opts o = { .sz = sizeof(o), .overwrite = true };
	struct perf_event_mmap_page *hdr = (void *)mem;
	struct perfbuf_ring *r;

	if (!(flags & 2))
		head = tail - (tail - head) % (PAGE * pages + 64);
	hdr->data_head = tail;
	r = perfbuf_ring__new_mem_opts(mem, PAGE, pages, &o);
	if (!r)
		abort();
	perfbuf_ring__set_sample_type(r, (flags & 4) ? PERF_SAMPLE_TID :
				      PERF_SAMPLE_RAW |
				      ((flags & 8) ? PERF_SAMPLE_TIME : 0),
				      flags & 8);
	hdr->data_head = head;
	if (perfbuf_ring__snapshot(r, touch, sum) < 0)
		abort();
	if (perfbuf_ring__snapshot(r, touch, sum) != 0)
		abort();	/* nothing new: nothing twice */
	perfbuf_ring__free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	struct perf_event_mmap_page *hdr;
	struct perfbuf_merge *m = NULL;
	struct perfbuf_ring *r;
	size_t pages, data_len;
	uint64_t head, tail;
	unsigned sum = 0;
	uint8_t flags;
	char *mem;

	if (len < 17)
		return 0;
	memcpy(&head, in, 8);
	memcpy(&tail, in + 8, 8);
	flags = in[16];
	in += 17;
	len -= 17;
	pages = (flags & 1) ? 2 : 1;
	/* keep positions mostly close, sometimes anything */
	if (!(flags & 2))
		head = tail + (head % (PAGE * pages + 64));
	perfbuf_set_print(quiet);
	mem = calloc(1, PAGE * (pages + 1));	/* exact: ASan sees overreads */
	if (!mem)
		return 0;
	data_len = len < PAGE * pages ? len : PAGE * pages;
	memcpy(mem + PAGE, in, data_len);
	hdr = (void *)mem;
	if (flags & 32) {
		snapshot_case(mem, pages, head, tail, flags, &sum);
		free(mem);
		return 0;
	}
	hdr->data_head = head;
	hdr->data_tail = tail;
	r = perfbuf_ring__new_mem(mem, PAGE, pages);
	if (!r)
		abort();
	/* the layouts: raw samples, with time (and LOST records with a
	 * sample_id trailer), samples that are not raw */
	perfbuf_ring__set_sample_type(r, (flags & 4) ? PERF_SAMPLE_TID :
				      PERF_SAMPLE_RAW |
				      ((flags & 8) ? PERF_SAMPLE_TIME : 0),
				      flags & 8);
	if (flags & 16) {
		m = perfbuf_merge__new();
		if (!m || perfbuf_merge__add(m, r))
			abort();
	}
	/* each fold consumes at least one record or resynchronises */
	for (int i = 0; perfbuf_ring__avail(r); i++) {
		if (i > PAGE * 2)
			abort();	/* no progress: a hang */
		if (m)
			perfbuf_merge__fold(m, UINT64_MAX, 0, touch, &sum);
		else if (flags & 64)
			iterate(r, &sum);
		else if (flags & 128)
			perfbuf_ring__fold_n(r, touch, &sum, 1 + (flags >> 3) % 5);
		else
			perfbuf_ring__fold(r, touch, &sum);
	}
	perfbuf_merge__free(m);
	perfbuf_ring__free(r);
	free(mem);
	return 0;
}
