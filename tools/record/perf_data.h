/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A capture as a perf.data file: `perfbuf report --perf-data OUT FILE`. */
#ifndef PERFBUF_PERF_DATA_H
#define PERFBUF_PERF_DATA_H

#include <signal.h>

#include "meta.h"
#include "stream.h"
#include "trace/probe.h"
#include "output/file.h"

struct perf_data_result {
	__u64 samples, lost;	/* written: SAMPLE records, losses in LOST ones */
	__u64 skipped;		/* records of no probe of the capture */
	int stream_err;		/* cap_stream__fold()'s -EBADMSG, else 0 */
};

struct perf_data;

/* Ready to export the capture of @r with probes @set (kept by the caller):
 * reads @r's format frames, so before cap_stream__new() (it rewinds @r).
 * NULL with errno ENOMEM. */
struct perf_data *perf_data__new(struct cap_reader *r, const struct probe_set *set);
/*
 * Write the records of @s (a stream over that capture, whose META is @m)
 * in time order to @path (out_file__open(): an old file replaced only
 * when all is written) as perf.data.
 * Everything before damage in the capture is written; res->stream_err
 * says there was some. *@stop set (by a signal) ends the write: -EINTR,
 * the old file left as it was.
 * @return 0, or a negative errno with one line in @why
 */
int perf_data__write(struct perf_data *pd, const char *path,
		     const struct cap_meta *m, struct cap_stream *s,
		     volatile sig_atomic_t *stop, struct perf_data_result *res,
		     char *why, size_t why_sz);
void perf_data__free(struct perf_data *pd);

#endif
