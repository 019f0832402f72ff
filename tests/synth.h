/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A synthetic perf ring in memory, written the way the kernel writes it. */
#ifndef SYNTH_H
#define SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

#include "perfbuf.h"

#define SYNTH_PAGE 4096

struct synth {
	void *mem;
	struct perf_event_mmap_page *hdr;
	unsigned char *data;
	size_t data_size;
	__u64 head;		/* next write position (published by synth_publish) */
	struct perfbuf_ring *ring;
	bool back;		/* overwrite ring: records written downwards */
	bool rec_open;
	__u64 rec_start;
};

/* 1 + @pages pages, data_head = data_tail = @pos. */
int synth_init(struct synth *s, size_t pages, __u64 pos);
/* An overwrite ring (write_backward): the writers below put each record
 * just under the last and never refuse; data_head moves down from @pos. */
int synth_init_overwrite(struct synth *s, size_t pages, __u64 pos);
void synth_free(struct synth *s);
/* Write a record at head and advance head; false when it does not fit. */
bool synth_sample(struct synth *s, const void *payload, size_t len);
bool synth_lost(struct synth *s, __u64 id, __u64 lost);
bool synth_other(struct synth *s, __u32 type, __u16 misc, const void *body,
		 size_t len);
/* The same with PERF_SAMPLE_TIME (sample_type TIME | RAW; the LOST record
 * with a sample_id_all trailer holding the time). The ring must be told:
 * perfbuf_ring__set_sample_type(ring, PERF_SAMPLE_TIME | PERF_SAMPLE_RAW,
 * true). */
bool synth_sample_at(struct synth *s, __u64 time_ns, const void *payload,
		     size_t len);
bool synth_lost_at(struct synth *s, __u64 id, __u64 lost, __u64 time_ns);
/* Raw bytes at head, no checks: for corrupt records. */
void synth_raw(struct synth *s, const void *bytes, size_t len);
/* Make what was written visible: data_head = head. */
void synth_publish(struct synth *s);
__u64 synth_tail(const struct synth *s);

#endif
