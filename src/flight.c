// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The collector as a flight recorder (opts.overwrite): every CPU's ring
 * keeps its newest records and nothing is read until perfbuf__snapshot().
 * A snapshot copies each ring's new records out (snapshot.c), then hands
 * them over merged by time (each a source of merge.c), with the CPU
 * notices queued since the last one in their place. A CPU that went
 * offline keeps its ring until then: it is read one last time, and closed
 * after its CPU_OFFLINE notice.
 */
#include <stdlib.h>

#include "collector_priv.h"
#include "snapshot.h"

/* Copy the new records of every ring out: those of the online CPUs and
 * those of the CPUs whose offline notice waits. */
static int take_all(struct perfbuf *pb, struct ring_snap *snaps, size_t *n)
{
	int err = 0;

	*n = 0;
	for (size_t i = 0; i < pb->cnt + pb->notice_cnt; i++) {
		struct channel *ch = i < pb->cnt ? pb->slots[i].ch :
				     pb->notices[i - pb->cnt].ch;
		int e;

		if (!ch)
			continue;
		e = ring_snap_take(ch->ring, &snaps[*n]);
		if (snaps[*n].ring)
			(*n)++;
		err = err ?: e;
	}
	return err;
}

/* The snapshots' records up to @horizon, in time order. */
static void merge_to(struct perfbuf *pb, struct perfbuf_merge *m,
		     __u64 horizon)
{
	bool stop;

	pb->delivered += merge_fold(m, horizon, SIZE_MAX, pb->fn, pb->ctx,
				    &stop);
	pb->halt |= stop;
}

static void close_retired(struct perfbuf *pb, struct notice *gone, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		collector_retire_stats(pb, gone[i].slot, gone[i].ch);
		channel_close(gone[i].ch, &pb->cfg);
		free(gone[i].ch);
	}
}

int perfbuf__snapshot(struct perfbuf *pb)
{
	size_t cnt = pb->cnt + pb->notice_cnt, n, n_gone = 0;
	struct perfbuf_merge *m;
	struct ring_snap *snaps;
	struct notice *gone;
	int err, e = 0;

	if (!pb->cfg.overwrite)
		return -EINVAL;
	if (collector_check_fork(pb))
		return -ECHILD;
	collector_begin_call(pb);
	pb->publish_all = true;		/* every ring was read */
	snaps = calloc(cnt, sizeof(*snaps));
	gone = calloc(pb->notice_cnt + 1, sizeof(*gone));
	m = perfbuf_merge__new();
	if (!snaps || !gone || !m) {
		free(snaps);
		free(gone);
		perfbuf_merge__free(m);
		return -ENOMEM;
	}
	err = take_all(pb, snaps, &n);
	for (size_t i = 0; i < n && !e; i++)
		e = ring_snap_add(m, &snaps[i]);
	err = err ?: e;		/* ENOMEM: the copies released unread */
	while (!e && pb->notice_cnt && !pb->halt) {
		struct notice no = pb->notices[0];
		struct perfbuf_record rec = {
			.kind = no.kind, .cpu = no.slot->cpu, .time_ns = no.time_ns,
		};

		merge_to(pb, m, no.time_ns);
		if (pb->halt)
			break;
		collector_pop_notice(pb);
		if (no.ch)
			gone[n_gone++] = no;
		collector_deliver(pb, &rec);
	}
	if (!e && !pb->halt)
		merge_to(pb, m, UINT64_MAX);
	perfbuf_merge__free(m);
	/* the snapshots point at their rings: release them first */
	for (size_t i = 0; i < n; i++)
		ring_snap_release(&snaps[i]);
	close_retired(pb, gone, n_gone);
	free(snaps);
	free(gone);
	return collector_result(pb, err);
}
