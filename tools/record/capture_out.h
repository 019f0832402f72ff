/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfbuf record`'s output: the capture file a trace run writes instead
 * of decoding. Streaming, the rings' bytes go to it as they are (the
 * collector's span_fn); as a flight recorder, each snapshot's records.
 */
#ifndef PERFBUF_CAPTURE_OUT_H
#define PERFBUF_CAPTURE_OUT_H

#include "perfbuf.h"
#include "capture.h"
#include "meta.h"
#include "trace/probe.h"
#include "output/file.h"

/* What one CPU's records came to in the file */
struct capture_cpu {
	__u64 bytes;			/* DATA bytes */
	__u64 unwritten;		/* samples not in the file (their
					 * frame failed) */
	/* flight recorder: the current snapshot's records */
	struct snap_buf {
		unsigned char *p;
		size_t len, cap;
		__u64 samples;
	} snap;
};

struct capture_out {
	struct cap_writer *w;
	/* per CPU number, [0, ncpu): grown to the highest CPU seen */
	size_t ncpu;
	struct capture_cpu *cpu;
	int werr;			/* the writer's first error, kept after
					 * the close */
	__u64 snapshots;
	__u64 dropped;			/* snapshot records without memory */
};

/* Create @path (out_file__open(): 0 or a negative errno that
 * out_file_error() explains). */
int capture_out_open(struct capture_out *c, const char *prog, const char *path);
/* META, the probes and their format files. 0 or a negative errno. */
int capture_out_begin(struct capture_out *c, const struct cap_meta *m,
		      const struct probe_set *set);
/* The first write error, 0 if none (after the close too). */
int capture_out_error(const struct capture_out *c);
/* Streaming: a ring's bytes as a DATA frame (a perfbuf_span_fn body). */
void capture_out_span(struct capture_out *c, int cpu, const struct iovec *iov,
		      int cnt);
/* The DATA bytes of @cpu so far. */
__u64 capture_out_bytes(const struct capture_out *c, int cpu);
/* The samples of @cpu that did not reach the file (a write failed). */
__u64 capture_out_unwritten(const struct capture_out *c, int cpu);
/* The capture becomes @path as it is, and is written on there
 * (out_file__publish()). 0 or -errno, said. */
int capture_out_publish(struct capture_out *c, bool keep);
/* A record the collector's callback got: streaming, LOST (a drain's) and
 * CPU notices; in a snapshot, samples too (kept until snapshot_end). */
void capture_out_record(struct capture_out *c, const struct perfbuf_record *rec);
/* Around perfbuf__snapshot(): a SNAPSHOT frame, then the records. */
void capture_out_snapshot_begin(struct capture_out *c);
void capture_out_snapshot_end(struct capture_out *c);
/* The END frame with @summary text, close. 0 or the first error. */
int capture_out_close(struct capture_out *c, const char *summary);
/* A run that never started: no capture (one that was there is kept). */
void capture_out_discard(struct capture_out *c);

#endif
