/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What a capture says about itself: the CAP_META frame. */
#ifndef PERFBUF_CAP_META_H
#define PERFBUF_CAP_META_H

#include "capture.h"

struct cap_meta {
	char perfbuf[32];	/* perfbuf_version() of the writer */
	char kernel[128];	/* uname -r */
	char machine[65];	/* uname -m */
	char host[128];
	char clock[32];		/* of record times: "monotonic" */
	__u64 start_mono_ns;	/* CLOCK_MONOTONIC at the start */
	__u64 start_wall_ns;	/* CLOCK_REALTIME at the same moment */
	__u64 sample_type;	/* of the events: the record layout */
	bool sample_id_all;
	char cpus[1024];	/* the CPU list, "0-3" */
	int page_cnt;		/* per CPU */
	__u64 ring_bytes;	/* ring data mapped at the start, 0: unknown */
	char mode[32];		/* "stream" or "flight-recorder" */
	char options[512];	/* decoding options of the tool, "k=v k=v" */
};

/* This machine and now, into @m (the caller sets the rest). */
void capture_meta_now(struct cap_meta *m);
int capture_meta_write(struct cap_writer *w, const struct cap_meta *m);
/* The CAP_META frame of @r into @m: 0, or -EBADMSG with @why. */
int capture_meta_read(struct cap_reader *r, struct cap_meta *m, char *why,
		      size_t why_sz);

#endif
