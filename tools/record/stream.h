/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The records of a capture, per CPU or merged by time, as the collector
 * handed them to `perfbuf trace`: SAMPLE and LOST records (LOST trimmed
 * against the losses drains settled, as live), CPU_ONLINE and CPU_OFFLINE.
 */
#ifndef PERFBUF_CAP_STREAM_H
#define PERFBUF_CAP_STREAM_H

#include "perfbuf.h"
#include "capture.h"

struct cap_stream;

/* Index the data frames of @r (from its first frame) for a stream of
 * records laid out by @sample_type (and @sample_id_all, as the events
 * were opened). NULL with errno ENOMEM. */
struct cap_stream *cap_stream__new(struct cap_reader *r, __u64 sample_type,
				   bool sample_id_all);
/*
 * Hand every record to @fn: in time order across CPUs (@ordered; a record
 * older than one before it is flagged PERFBUF_RECF_LATE, as live), or in
 * file order. A stop ends the fold.
 * @return records delivered, or -EBADMSG after delivering every record
 *         before the damage (cap_reader__error() says where)
 */
long long cap_stream__fold(struct cap_stream *s, bool ordered,
			   perfbuf_record_fn fn, void *ctx);
/* Statistics of the @i-th CPU seen (false past the last). */
bool cap_stream__stats(const struct cap_stream *s, size_t i, int *cpu,
		       struct perfbuf_ring_stats *st);
void cap_stream__free(struct cap_stream *s);

#endif
