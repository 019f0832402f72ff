// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The trace pipeline's entry: a record of the collector (or, read back,
 * of a capture file) -> the decoder's values -> a sink.
 */
#include "decode.h"

int trace_pipe__record(struct trace_pipe *p, const struct perfbuf_record *rec)
{
	const struct tv_event *e;
	size_t sz;

	switch (rec->kind) {
	case PERFBUF_REC_SAMPLE:
		break;
	case PERFBUF_REC_LOST: {
		struct tv_lost l = { .time_ns = rec->time_ns, .cpu = rec->cpu,
				     .count = rec->lost };

		trace_sink__lost(p->also ?: p->sink, &l);
		return 0;
	}
	case PERFBUF_REC_CPU_ONLINE:
	case PERFBUF_REC_CPU_OFFLINE: {
		struct tv_notice n = {
			.kind = rec->kind == PERFBUF_REC_CPU_ONLINE ? TV_CPU_ONLINE
								    : TV_CPU_OFFLINE,
			.time_ns = rec->time_ns, .cpu = rec->cpu };

		trace_sink__notice(p->also ?: p->sink, &n);
		return 0;
	}
	default:
		return 0;
	}
	sz = perfbuf_record__copy(rec, p->buf.bytes, sizeof(p->buf.bytes));
	if (sz >= sizeof(p->buf.r) && rec->time_ns)
		p->buf.r.time_ns = rec->time_ns;
	e = trace_decoder__decode(p->dec, &p->buf.r, sz, rec->cpu,
				  rec->flags & PERFBUF_RECF_LATE);
	if (!e)
		return 0;
	trace_sink__event(p->sink, e);
	if (p->also)
		trace_sink__event(p->also, e);
	return 1;
}
