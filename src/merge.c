// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Several sources read as one stream in time order, without copying a
 * record: a fold begins an iteration on every ring (and asks every other
 * source, struct perfbuf_source_ops, for its next record's time), keeps
 * the sources in a min-heap keyed by (time of the record at their head,
 * order of adding), and hands over the head record of the top source until
 * it is newer than the horizon. Records past the horizon stay in their
 * sources for the next fold. Each ring's head is read once and its tail
 * stored once per fold.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

struct merge_src {
	struct perfbuf_ring *ring;	/* NULL: a source of @ops */
	struct perfbuf_iter it;
	struct perfbuf_source_ops ops;
	void *ctx;
	__u64 key;		/* time of the record at the head */
	__u64 seq;		/* order of adding: ties go to the elder */
	bool done;		/* (sources) none left this fold */
};

struct perfbuf_merge {
	struct merge_src *src;
	size_t cnt, cap;
	struct merge_src **heap;
	size_t heap_cnt;
	__u64 seq;
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

static int grow(struct perfbuf_merge *m)
{
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
	return 0;
}

int perfbuf_merge__add(struct perfbuf_merge *m, struct perfbuf_ring *ring)
{
	int err;

	if (!ring)
		return -EINVAL;
	for (size_t i = 0; i < m->cnt; i++)
		if (m->src[i].ring == ring)
			return -EEXIST;
	err = grow(m);
	if (err)
		return err;
	m->src[m->cnt++] = (struct merge_src){ .ring = ring, .seq = m->seq++ };
	return 0;
}

int perfbuf_merge__add_source(struct perfbuf_merge *m,
			      const struct perfbuf_source_ops *ops, void *ctx)
{
	struct merge_src s = { .ctx = ctx };
	int err;

	if (!m || !ops || !OPTS_VALID(ops, perfbuf_source_ops) ||
	    !OPTS_HAS(ops, next) || !ops->peek || !ops->next)
		return -EINVAL;
	for (size_t i = 0; i < m->cnt; i++)
		if (!m->src[i].ring && m->src[i].ctx == ctx)
			return -EEXIST;
	err = grow(m);
	if (err)
		return err;
	s.ops.peek = ops->peek;
	s.ops.next = ops->next;
	s.ops.end = OPTS_GET(ops, end, NULL);
	s.ops.late = OPTS_GET(ops, late, NULL);
	s.seq = m->seq++;
	m->src[m->cnt++] = s;
	return 0;
}

int perfbuf_merge__remove_source(struct perfbuf_merge *m, void *ctx)
{
	for (size_t i = 0; i < m->cnt; i++) {
		if (!m->src[i].ring && m->src[i].ctx == ctx) {
			m->src[i] = m->src[--m->cnt];
			return 0;
		}
	}
	return -ENOENT;
}

int perfbuf_merge__remove(struct perfbuf_merge *m, struct perfbuf_ring *ring)
{
	for (size_t i = 0; ring && i < m->cnt; i++) {
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

static inline bool before(const struct merge_src *a, const struct merge_src *b)
{
	return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

static void sift_down(struct merge_src **h, size_t n, size_t i)
{
	struct merge_src *s = h[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && before(h[c + 1], h[c]))
			c++;
		if (!before(h[c], s))
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

		if (!s->ring) {
			s->done = !s->ops.peek(s->ctx, &s->key);
			if (!s->done)
				m->heap[m->heap_cnt++] = s;
			continue;
		}
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
		if (s->ring)
			s->ring->st.late++;
		else if (s->ops.late)
			s->ops.late(s->ctx);
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

static bool src_done(const struct merge_src *s)
{
	return s->ring ? iter_done(&s->it) : s->done;
}

/* A source's head record, then its next time: false when the fold must
 * end. One record per call: ties with the runner-up go by seq. */
static bool take(struct perfbuf_merge *m, struct merge_src *s,
		 size_t budget, size_t *n, perfbuf_record_fn fn, void *ctx)
{
	struct perfbuf_record rec;
	int r;

	if (*n == budget)
		return false;
	if (!s->ops.next(s->ctx, &rec)) {	/* none after all */
		s->done = !s->ops.peek(s->ctx, &s->key);
		return true;
	}
	++*n;
	r = deliver(m, s, &rec, fn, ctx);
	if (r != PERFBUF_CONTINUE)
		return false;	/* the next fold peeks again */
	s->done = !s->ops.peek(s->ctx, &s->key);
	return true;
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
		if (s->ring ? !run(m, s, bound < horizon ? bound : horizon,
				   budget, &n, fn, ctx) :
			      !take(m, s, budget, &n, fn, ctx)) {
			*more = true;
			break;
		}
		if (src_done(s))
			m->heap[0] = m->heap[--m->heap_cnt];
		if (m->heap_cnt)
			sift_down(m->heap, m->heap_cnt, 0);
	}
	/* corruption was logged and counted by the ring: keep going */
	for (size_t i = 0; i < m->cnt; i++) {
		struct merge_src *s = &m->src[i];

		if (s->ring)
			perfbuf_ring__end(s->ring, s->it);
		else if (s->ops.end)
			s->ops.end(s->ctx);
	}
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
