// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Several rings read as one stream in time order, without copying a
 * record: a fold begins an iteration on every ring, keeps the rings in a
 * min-heap keyed by the time of the record at their head (read in place,
 * ring_peek_time()), and hands over the head record of the top ring until
 * it is newer than the horizon. Records past the horizon stay in their
 * rings for the next fold. Each ring's head is read once and its tail
 * stored once per fold.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

struct merge_src {
	struct perfbuf_ring *ring;
	struct perfbuf_iter it;
	__u64 key;		/* time of the record at the head */
};

struct perfbuf_merge {
	struct merge_src *src;
	size_t cnt, cap;
	struct merge_src **heap;
	size_t heap_cnt;
	__u64 last_ns;		/* newest time delivered */
};

struct perfbuf_merge *perfbuf_merge__new(void)
{
	return calloc(1, sizeof(struct perfbuf_merge)) ?: err_ptr(-ENOMEM);
}

void perfbuf_merge__free(struct perfbuf_merge *m)
{
	if (!m)
		return;
	free(m->src);
	free(m->heap);
	free(m);
}

int perfbuf_merge__add(struct perfbuf_merge *m, struct perfbuf_ring *ring)
{
	for (size_t i = 0; i < m->cnt; i++)
		if (m->src[i].ring == ring)
			return -EEXIST;
	if (m->cnt == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 8;
		struct merge_src *src = realloc(m->src, cap * sizeof(*src));
		struct merge_src **heap;

		if (!src)
			return -ENOMEM;
		m->src = src;
		heap = realloc(m->heap, cap * sizeof(*heap));
		if (!heap)
			return -ENOMEM;
		m->heap = heap;
		m->cap = cap;
	}
	m->src[m->cnt++] = (struct merge_src){ .ring = ring };
	return 0;
}

int perfbuf_merge__remove(struct perfbuf_merge *m, struct perfbuf_ring *ring)
{
	for (size_t i = 0; i < m->cnt; i++) {
		if (m->src[i].ring == ring) {
			m->src[i] = m->src[--m->cnt];
			return 0;
		}
	}
	return -ENOENT;
}

__u64 perfbuf_merge__last_ns(const struct perfbuf_merge *m)
{
	return m->last_ns;
}

static void sift_down(struct merge_src **h, size_t n, size_t i)
{
	struct merge_src *s = h[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && h[c + 1]->key < h[c]->key)
			c++;
		if (s->key <= h[c]->key)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = s;
}

/* The time a record is ordered by: its own, or, without one, "now". */
static __u64 key_of(const struct perfbuf_merge *m, __u64 t)
{
	return t ?: m->last_ns;
}

static void heap_build(struct perfbuf_merge *m)
{
	m->heap_cnt = 0;
	for (size_t i = 0; i < m->cnt; i++) {
		struct merge_src *s = &m->src[i];

		s->it = perfbuf_ring__begin(s->ring);
		if (iter_done(&s->it))
			continue;
		s->key = key_of(m, ring_peek_time(&s->it));
		m->heap[m->heap_cnt++] = s;
	}
	for (size_t i = m->heap_cnt / 2; i-- > 0;)
		sift_down(m->heap, m->heap_cnt, i);
}

/* Hand over @rec, flagged late when older than what went before. */
static int deliver(struct perfbuf_merge *m,
		   struct merge_src *s, struct perfbuf_record *rec,
		   perfbuf_record_fn fn, void *ctx)
{
	if (rec->time_ns && rec->time_ns < m->last_ns) {
		rec->flags |= PERFBUF_RECF_LATE;
		s->ring->st.late++;
	} else if (rec->time_ns) {
		m->last_ns = rec->time_ns;
	}
	return fn(ctx, rec);
}

/* ring_peek_time() with its common case inline: a timed sample inside
 * the iterator's stretch (its time field is then inside too). @it is not
 * at its end. */
static inline __u64 peek_time(const struct perfbuf_iter *it)
{
	const struct perf_event_header *eh = (const void *)it->pos;

	if (__builtin_expect(it->time_off && it->pos < it->lim &&
			     eh->type == PERF_RECORD_SAMPLE &&
			     eh->size >= it->raw_off + 4, 1))
		return *(const __u64 *)(it->pos + it->time_off);
	return ring_peek_time(it);
}

/* The smallest key of the other rings: the top's children. */
static __u64 runner_up(const struct perfbuf_merge *m)
{
	__u64 k = UINT64_MAX;

	if (m->heap_cnt > 1)
		k = m->heap[1]->key;
	if (m->heap_cnt > 2 && m->heap[2]->key < k)
		k = m->heap[2]->key;
	return k;
}

/*
 * Hand over the top ring's records while they are not newer than @bound
 * (the other rings' first, or the horizon): one run, no heap work per
 * record. false when the fold must end.
 */
static bool run(struct perfbuf_merge *m, struct merge_src *s, __u64 bound,
		size_t budget, size_t *n, perfbuf_record_fn fn, void *ctx)
{
	struct perfbuf_iter *it = &s->it;
	struct perfbuf_record rec;
	bool go_on = true;

	do {
		if (*n == budget) {
			go_on = false;
			break;
		}
		if (perfbuf_iter__next(it, &rec)) {
			++*n;
			if (deliver(m, s, &rec, fn, ctx) != PERFBUF_CONTINUE) {
				go_on = false;
				break;
			}
		}
		if (iter_done(it))
			break;
		s->key = key_of(m, peek_time(it));
	} while (s->key <= bound);
	return go_on;
}

int merge_fold(struct perfbuf_merge *m, __u64 horizon, size_t budget,
	       perfbuf_record_fn fn, void *ctx, bool *more)
{
	size_t n = 0;

	*more = false;
	heap_build(m);
	while (m->heap_cnt) {
		struct merge_src *s = m->heap[0];
		__u64 bound = runner_up(m);

		if (s->key > horizon)
			break;
		if (!run(m, s, bound < horizon ? bound : horizon, budget, &n,
			 fn, ctx)) {
			*more = true;
			break;
		}
		if (iter_done(&s->it))
			m->heap[0] = m->heap[--m->heap_cnt];
		if (m->heap_cnt)
			sift_down(m->heap, m->heap_cnt, 0);
	}
	/* corruption was logged and counted by the ring: keep going */
	for (size_t i = 0; i < m->cnt; i++)
		perfbuf_ring__end(m->src[i].ring, m->src[i].it);
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

int perfbuf_merge__fold(struct perfbuf_merge *m, __u64 horizon_ns,
			size_t budget, perfbuf_record_fn fn, void *ctx)
{
	bool more;

	if (!m || !fn)
		return -EINVAL;
	return merge_fold(m, horizon_ns, budget ?: SIZE_MAX, fn, ctx, &more);
}
