// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Snapshots of overwrite rings (a flight recorder).
 *
 * With write_backward the kernel writes each record just below the last:
 * data_head moves down (from 0, as a free-running u64) and the record at
 * data_head is the newest; walking up from it goes from newest to oldest.
 * A read-only mapping lets the kernel overwrite the oldest records when
 * the ring is full, so the bytes above head + size are gone and the record
 * that straddles that point is partly overwritten.
 *
 * A snapshot pauses the event, copies [head, end) out (end: the head of
 * the previous snapshot, or head + size when the kernel wrapped since),
 * resumes, then indexes the copy newest to oldest and hands the records
 * over oldest first, parsed by the forward ring's iterator on a ring view
 * of the copy. Pausing only for the copy keeps the loss window short.
 */
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"
#include "snapshot.h"

static size_t pow2_at_least(size_t n)
{
	size_t p = 8;

	while (p < n)
		p <<= 1;
	return p;
}

static int pause_output(struct perfbuf_ring *r, bool pause)
{
	int err;

	if (r->fd < 0)
		return 0;	/* caller memory: nothing writes meanwhile */
	err = perfbuf_event__pause_output(r->fd, pause);
	if (err)
		pr_warn("ring (cpu %d): %s output failed: %s\n", r->cpu,
			pause ? "pausing" : "resuming", strerror(-err));
	return err;
}

/* Resume: tried again at once when it fails, for a ring left paused
 * records nothing (the kernel only counts its losses) until the next
 * snapshot pauses and resumes it. */
static int resume_output(struct perfbuf_ring *r)
{
	int err = 0;

	for (int i = 0; i < 3 && r->fd >= 0; i++) {
		err = perfbuf_event__pause_output(r->fd, false);
		if (!err)
			return 0;
	}
	if (err)
		pr_warn("ring (cpu %d): resuming output failed: %s; it records nothing until the next snapshot resumes it\n",
			r->cpu, strerror(-err));
	return err;
}

/* Copy [head, head + len) of @r to the start of @s->buf. */
static void copy_out(struct ring_snap *s, const struct perfbuf_ring *r,
		     __u64 head, size_t len)
{
	size_t off = head & r->mask, room = r->mask + 1 - off;
	size_t n1 = len < room ? len : room;

	memcpy(s->buf, r->data + off, n1);
	memcpy(s->buf + n1, r->data, len - n1);
}

/*
 * Index the copy's records, newest first. @full: the kernel wrapped, so
 * the last record may be partly overwritten (it then does not fit) and
 * is dropped; anything else that does not parse is damage.
 */
static int index_records(struct ring_snap *s, size_t len, bool full)
{
	size_t pos = 0;

	s->pos = malloc((len / 8 + 1) * sizeof(*s->pos));
	if (!s->pos)
		return -ENOMEM;
	while (pos < len) {
		const struct perf_event_header *eh = (const void *)(s->buf + pos);

		if (eh->size > len - pos && full && eh->size >= 8 &&
		    !(eh->size & 7))
			break;
		if (eh->size < 8 || (eh->size & 7) || eh->size > len - pos) {
			pr_warn("ring (cpu %d): corrupt record in a snapshot, %zu bytes after the newest (header size %u); the %zu bytes older than it are dropped\n",
				s->view.cpu, pos, eh->size, len - pos);
			s->ring->st.corrupt++;
			break;
		}
		s->pos[s->cnt++] = pos;
		pos += eh->size;
	}
	s->left = s->cnt;
	return 0;
}

int ring_snap_take(struct perfbuf_ring *r, struct ring_snap *s)
{
	__u64 head, again, size = r->mask + 1, len;
	bool full;
	int err;

	memset(s, 0, sizeof(*s));
	if (!r->overwrite)
		return -EINVAL;
	if (ring_forked(r))
		return -ECHILD;	/* nothing mapped; the event is the parent's */
	err = pause_output(r, true);
	if (err)
		return err;
	head = __atomic_load_n(&r->hdr->data_head, __ATOMIC_ACQUIRE);
	len = r->snap_head - head;
	full = len > size;
	if (full)
		len = size;
	s->buf = malloc(pow2_at_least(len));
	if (s->buf)
		copy_out(s, r, head, len);
	/* a writer that was inside perf_output when the pause came may have
	 * moved head since: what it wrote over is the oldest part */
	again = __atomic_load_n(&r->hdr->data_head, __ATOMIC_ACQUIRE);
	err = resume_output(r);
	if (!s->buf)
		return -ENOMEM;
	if (r->snap_head - again > size) {
		full = true;
		len = size - (head - again) < len ? size - (head - again) : len;
	}
	__atomic_store_n(&r->snap_head, head, __ATOMIC_RELAXED);
	s->ring = r;
	s->view = *r;		/* the layout; its data is the copy */
	s->view.hdr = NULL;
	s->view.data = s->buf;
	s->view.mask = pow2_at_least(len) - 1;
	s->view.map_len = 0;
	s->view.rec_sz = 0;	/* it fills the library's record, whatever
				 * size a caller's begin_sz() last gave */
	s->corrupt0 = s->view.st.corrupt;
	return index_records(s, len, full) ?: err;
}

bool ring_snap_next(struct ring_snap *s, struct perfbuf_record *rec)
{
	while (s->left) {
		size_t pos = s->pos[--s->left];
		const struct perf_event_header *eh = (const void *)(s->buf + pos);
		struct perfbuf_iter it = ring_iter(&s->view, pos, pos + eh->size);

		if (perfbuf_iter__next(&it, rec)) {
			s->view.st.samples += it.samples;
			s->view.st.sample_bytes += it.sample_bytes;
			return true;
		}
		/* LOST records that settle_lost() reported already */
	}
	return false;
}

__u64 ring_snap_peek_time(const struct ring_snap *s)
{
	struct perfbuf_iter it;
	size_t pos;

	if (!s->left)
		return UINT64_MAX;
	pos = s->pos[s->left - 1];
	it = ring_iter((struct perfbuf_ring *)&s->view, pos,
		       pos + ((const struct perf_event_header *)(s->buf + pos))->size);
	return ring_peek_time(&it);
}

/* A snapshot as a source of the merge (merge.c): ordered by its next
 * record's time as ring_snap_peek_time() reads it, ties to the CPU added
 * first, a LOST record already reported giving none. */
static bool snap_peek(void *ctx, __u64 *time_ns)
{
	struct ring_snap *s = ctx;

	*time_ns = ring_snap_peek_time(s);
	return s->left;
}

static bool snap_next(void *ctx, struct perfbuf_record *rec)
{
	return ring_snap_next(ctx, rec);
}

static void snap_late(void *ctx)
{
	((struct ring_snap *)ctx)->view.st.late++;
}

int ring_snap_add(struct perfbuf_merge *m, struct ring_snap *s)
{
	static const struct perfbuf_source_ops ops = {
		.sz = sizeof(ops), .peek = snap_peek, .next = snap_next,
		.late = snap_late,
	};

	return perfbuf_merge__add_source(m, &ops, s);
}

void ring_snap_release(struct ring_snap *s)
{
	if (s->ring) {
		/* the view counted what was read: back to the ring */
		s->ring->st.samples = s->view.st.samples;
		s->ring->st.sample_bytes = s->view.st.sample_bytes;
		s->ring->st.lost = s->view.st.lost;
		s->ring->st.lost_records = s->view.st.lost_records;
		s->ring->st.other = s->view.st.other;
		s->ring->st.late = s->view.st.late;
		s->ring->st.corrupt += s->view.st.corrupt - s->corrupt0;
		s->ring->lost_seen = s->view.lost_seen;
	}
	free(s->buf);
	free(s->pos);
	memset(s, 0, sizeof(*s));
}

int perfbuf_ring__snapshot(struct perfbuf_ring *r, perfbuf_record_fn fn,
			   void *ctx)
{
	struct perfbuf_record rec;
	struct ring_snap s;
	size_t n = 0;
	int err;

	if (!r || !fn)
		return -EINVAL;
	err = ring_snap_take(r, &s);
	if (err && !s.ring) {
		ring_snap_release(&s);
		return err;
	}
	while (ring_snap_next(&s, &rec)) {
		n++;
		if (fn(ctx, &rec) != PERFBUF_CONTINUE)
			break;
	}
	ring_snap_release(&s);
	return err ?: (n > INT32_MAX ? INT32_MAX : (int)n);
}
