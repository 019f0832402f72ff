/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A snapshot of an overwrite ring: its new records copied out, handed over
 * oldest first. The collector merges several by time. */
#ifndef PERFBUF_SNAPSHOT_H
#define PERFBUF_SNAPSHOT_H

#include "internal.h"

struct ring_snap {
	struct perfbuf_ring *ring;
	struct perfbuf_ring view;	/* @ring's layout over @buf */
	char *buf;			/* the bytes, newest record first */
	size_t *pos;			/* record offsets in @buf, newest first */
	size_t cnt;
	size_t left;			/* records not handed over yet */
	__u64 corrupt0;			/* view.st.corrupt at the copy */
};

/* Pause, copy the records written since the last snapshot, resume. 0 or a
 * negative errno; when s->ring is set the snapshot is usable even so (the
 * resume failed) and must be released. */
int ring_snap_take(struct perfbuf_ring *r, struct ring_snap *s);
/* The next record, oldest first; false at the end. */
bool ring_snap_next(struct ring_snap *s, struct perfbuf_record *rec);
/* The next record's time: 0 when it has none, UINT64_MAX at the end. */
__u64 ring_snap_peek_time(const struct ring_snap *s);
/* @s as a source of @m (perfbuf_merge__add_source()): the collector
 * merges several snapshots by time with it, a late record counted in the
 * snapshot's ring. 0 or a negative errno. */
int ring_snap_add(struct perfbuf_merge *m, struct ring_snap *s);
/* Statistics back to the ring; memory freed. */
void ring_snap_release(struct ring_snap *s);

#endif
