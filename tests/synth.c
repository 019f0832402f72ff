// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>

#include "synth.h"
#include "ring_priv.h"

int synth_init(struct synth *s, size_t pages, __u64 pos)
{
	memset(s, 0, sizeof(*s));
	/* exact size: ASan flags any read past the ring */
	s->mem = calloc(1, SYNTH_PAGE * (pages + 1));
	if (!s->mem)
		return -1;
	s->hdr = s->mem;
	s->data = (unsigned char *)s->mem + SYNTH_PAGE;
	s->data_size = SYNTH_PAGE * pages;
	s->hdr->data_head = s->hdr->data_tail = s->head = pos;
	s->ring = perfbuf_ring__new_mem(s->mem, SYNTH_PAGE, pages);
	return s->ring ? 0 : -1;
}

int synth_init_overwrite(struct synth *s, size_t pages, __u64 pos)
{
	struct perfbuf_ring_opts o = { .sz = sizeof(o), .overwrite = true };

	if (synth_init(s, pages, pos))
		return -1;
	perfbuf_ring__free(s->ring);
	s->ring = perfbuf_ring__new_mem_opts(s->mem, SYNTH_PAGE, pages, &o);
	s->back = true;
	return s->ring ? 0 : -1;
}

void synth_free(struct synth *s)
{
	perfbuf_ring__free(s->ring);
	free(s->mem);
}

void synth_raw(struct synth *s, const void *bytes, size_t len)
{
	const unsigned char *p = bytes;

	for (size_t i = 0; i < len; i++)
		s->data[(s->head + i) & (s->data_size - 1)] = p[i];
	s->head += len;
}

/* The position where the last record written starts. */
static void back_settle(struct synth *s)
{
	if (s->back && s->rec_open) {
		s->head = s->rec_start;
		s->rec_open = false;
	}
}

static bool room(struct synth *s, size_t len)
{
	if (s->back) {
		/* write_backward: each record just below the last, over
		 * whatever was there */
		back_settle(s);
		s->head -= len;
		s->rec_start = s->head;
		s->rec_open = true;
		return true;
	}
	/* the kernel keeps the ring from filling completely */
	return s->head - s->hdr->data_tail + len <= s->data_size - 8;
}

bool synth_other(struct synth *s, __u32 type, __u16 misc, const void *body,
		 size_t len)
{
	struct perf_event_header h = {
		.type = type, .misc = misc, .size = (__u16)(8 + len),
	};

	if (len & 7 || !room(s, 8 + len))
		return false;
	synth_raw(s, &h, sizeof(h));
	synth_raw(s, body, len);
	return true;
}

/* A SAMPLE of PERF_SAMPLE_RAW, its time first when @timed */
static bool sample(struct synth *s, bool timed, __u64 time_ns, const void *payload,
		   size_t len)
{
	size_t total = perfbuf_record__sample_size(len, PERF_SAMPLE_RAW |
						   (timed ? PERF_SAMPLE_TIME : 0));
	struct perf_event_header h = {
		.type = PERF_RECORD_SAMPLE, .size = (__u16)total,
	};
	/* the kernel's size: padding included */
	__u32 raw = (__u32)(total - 12 - (timed ? 8 : 0));
	static const unsigned char zero[8];

	if (!room(s, total))
		return false;
	synth_raw(s, &h, sizeof(h));
	if (timed)
		synth_raw(s, &time_ns, sizeof(time_ns));
	synth_raw(s, &raw, sizeof(raw));
	synth_raw(s, payload, len);
	synth_raw(s, zero, raw - len);
	return true;
}

bool synth_sample(struct synth *s, const void *payload, size_t len)
{
	return sample(s, false, 0, payload, len);
}

bool synth_sample_at(struct synth *s, __u64 time_ns, const void *payload,
		     size_t len)
{
	return sample(s, true, time_ns, payload, len);
}

bool synth_lost(struct synth *s, __u64 id, __u64 lost)
{
	return synth_other(s, PERF_RECORD_LOST, 0, (__u64[]){ id, lost }, 16);
}

bool synth_lost_at(struct synth *s, __u64 id, __u64 lost, __u64 time_ns)
{
	return synth_other(s, PERF_RECORD_LOST, 0, (__u64[]){ id, lost, time_ns }, 24);
}

void synth_publish(struct synth *s)
{
	back_settle(s);
	__atomic_store_n(&s->hdr->data_head, s->head, __ATOMIC_RELEASE);
}

__u64 synth_tail(const struct synth *s)
{
	return __atomic_load_n(&s->hdr->data_tail, __ATOMIC_ACQUIRE);
}
