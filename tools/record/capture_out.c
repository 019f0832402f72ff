// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Writing a trace run's records into a capture file (capture_out.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture_out.h"
#include "probes_io.h"

int capture_out_open(struct capture_out *c, const char *prog, const char *path)
{
	memset(c, 0, sizeof(*c));
	c->w = cap_writer__open(prog, path);
	return c->w ? 0 : -errno;
}

int capture_out_begin(struct capture_out *c, const struct cap_meta *m,
		      const struct probe_set *set)
{
	return capture_meta_write(c->w, m) ?: capture_probes_write(c->w, set);
}

int capture_out_error(const struct capture_out *c)
{
	return c->w ? cap_writer__error(c->w) : c->werr;
}

/* Room for CPU @cpu's counts: no fixed bound, as many as the highest CPU
 * number seen. False (the record dropped, counted) without memory. */
static bool have_cpu(struct capture_out *c, int cpu)
{
	size_t n = c->ncpu ? c->ncpu : 64;
	struct capture_cpu *more;

	if (cpu < 0)
		return false;
	if ((size_t)cpu < c->ncpu)
		return true;
	while (n <= (size_t)cpu)
		n *= 2;
	more = realloc(c->cpu, n * sizeof(*more));
	if (!more) {
		c->dropped++;
		return false;
	}
	c->cpu = more;
	memset(c->cpu + c->ncpu, 0, (n - c->ncpu) * sizeof(*c->cpu));
	c->ncpu = n;
	return true;
}

__u64 capture_out_bytes(const struct capture_out *c, int cpu)
{
	return cpu >= 0 && (size_t)cpu < c->ncpu ? c->cpu[cpu].bytes : 0;
}

__u64 capture_out_unwritten(const struct capture_out *c, int cpu)
{
	return cpu >= 0 && (size_t)cpu < c->ncpu ? c->cpu[cpu].unwritten : 0;
}

int capture_out_publish(struct capture_out *c, bool keep)
{
	return c->w ? cap_writer__publish(c->w, keep) : 0;
}

/* The samples among a span's records (a failed frame's: only then are
 * the headers walked). Records are 8-byte aligned: a header is never
 * split between the pieces, a payload may be. */
static __u64 span_samples(const struct iovec *iov, int cnt)
{
	size_t skip = 0;
	__u64 n = 0;

	for (int i = 0; i < cnt; i++) {
		const char *p = iov[i].iov_base;
		size_t len = iov[i].iov_len, off = skip;
		struct perf_event_header h;

		while (off + sizeof(h) <= len) {
			memcpy(&h, p + off, sizeof(h));
			if (h.size < sizeof(h))
				return n;
			n += h.type == PERF_RECORD_SAMPLE;
			off += h.size;
		}
		skip = off > len ? off - len : 0;
	}
	return n;
}

void capture_out_span(struct capture_out *c, int cpu, const struct iovec *iov,
		      int cnt)
{
	size_t len = 0;

	if (!have_cpu(c, cpu))
		return;
	for (int i = 0; i < cnt; i++)
		len += iov[i].iov_len;
	/* counted once in the file: the summary states what report finds */
	if (!cap_writer__frame(c->w, CAP_DATA, (__u32)cpu, iov, cnt))
		c->cpu[cpu].bytes += len;
	else
		c->cpu[cpu].unwritten += span_samples(iov, cnt);
}

/* Room for a record of @len bytes: all of it or none. */
static bool snap_reserve(struct snap_buf *b, size_t len)
{
	size_t cap = 2 * (b->len + len);
	unsigned char *q;

	if (b->len + len <= b->cap)
		return true;
	q = realloc(b->p, cap);
	if (!q)
		return false;
	b->p = q;
	b->cap = cap;
	return true;
}

static void snap_put(struct snap_buf *b, const void *p, size_t len)
{
	memcpy(b->p + b->len, p, len);
	b->len += len;
}

/* A snapshot's sample or LOST record, laid out as the ring had it
 * (PERF_SAMPLE_TIME | PERF_SAMPLE_RAW, sample_id_all). */
static void snap_record(struct capture_out *c, const struct perfbuf_record *rec)
{
	struct snap_buf *b = &c->cpu[rec->cpu].snap;
	static const char zero[8];

	if (rec->kind == PERFBUF_REC_SAMPLE) {
		struct perf_event_header h = { PERF_RECORD_SAMPLE, rec->misc,
					       rec->size };
		__u32 raw = (__u32)(rec->data_sz + rec->data2_sz);
		size_t pad = rec->size - 20 - raw;

		if (rec->size < 20 + raw || pad > 7)
			return;
		if (!snap_reserve(b, rec->size)) {
			c->dropped++;
			return;
		}
		snap_put(b, &h, sizeof(h));
		snap_put(b, &rec->time_ns, 8);
		snap_put(b, &raw, 4);
		snap_put(b, rec->data, rec->data_sz);
		snap_put(b, rec->data2, rec->data2_sz);
		snap_put(b, zero, pad);
		b->samples++;
	} else {
		struct perf_event_header h = { PERF_RECORD_LOST, 0, 32 };
		__u64 body[3] = { 0, rec->lost, rec->time_ns };

		if (!snap_reserve(b, sizeof(h) + sizeof(body))) {
			c->dropped++;
			return;
		}
		snap_put(b, &h, sizeof(h));
		snap_put(b, body, sizeof(body));
	}
}

/* A snapshot's records of @cpu so far, as one DATA frame. */
static void flush_cpu(struct capture_out *c, int cpu)
{
	struct capture_cpu *p = &c->cpu[cpu];
	struct snap_buf *b = &p->snap;

	if (!b->len)
		return;
	if (!cap_writer__put(c->w, CAP_DATA, (__u32)cpu, b->p, b->len))
		p->bytes += b->len;
	else
		p->unwritten += b->samples;
	b->len = 0;
	b->samples = 0;
}

void capture_out_record(struct capture_out *c, const struct perfbuf_record *rec)
{
	if (!have_cpu(c, rec->cpu))
		return;
	if (rec->kind == PERFBUF_REC_CPU_ONLINE ||
	    rec->kind == PERFBUF_REC_CPU_OFFLINE) {
		struct cap_cpu n = {
			.kind = rec->kind == PERFBUF_REC_CPU_ONLINE ?
				CAP_CPU_ONLINE : CAP_CPU_OFFLINE,
			.time_ns = rec->time_ns,
		};

		flush_cpu(c, rec->cpu);	/* a CPU's frames are in its order */
		cap_writer__put(c->w, CAP_CPU, (__u32)rec->cpu, &n, sizeof(n));
	} else if (c->snapshots && (rec->kind == PERFBUF_REC_SAMPLE ||
				    rec->kind == PERFBUF_REC_LOST)) {
		snap_record(c, rec);
	} else if (rec->kind == PERFBUF_REC_LOST) {
		struct cap_lost l = { .lost = rec->lost, .time_ns = rec->time_ns };

		cap_writer__put(c->w, CAP_LOST, (__u32)rec->cpu, &l, sizeof(l));
	}
}

void capture_out_snapshot_begin(struct capture_out *c)
{
	struct cap_snapshot s = { .seq = ++c->snapshots,
				  .time_ns = perfbuf_now_ns() };

	cap_writer__put(c->w, CAP_SNAPSHOT, 0, &s, sizeof(s));
}

void capture_out_snapshot_end(struct capture_out *c)
{
	for (size_t cpu = 0; cpu < c->ncpu; cpu++)
		flush_cpu(c, (int)cpu);
}

void capture_out_discard(struct capture_out *c)
{
	cap_writer__discard(c->w);
	c->w = NULL;
	capture_out_close(c, "");	/* the buffers */
}

int capture_out_close(struct capture_out *c, const char *summary)
{
	int err;

	if (!c->w && !c->ncpu)
		return 0;
	if (c->w)
		cap_writer__put(c->w, CAP_END, 0, summary, strlen(summary));
	c->werr = capture_out_error(c);
	err = cap_writer__close(c->w, true);
	c->w = NULL;
	for (size_t cpu = 0; cpu < c->ncpu; cpu++)
		free(c->cpu[cpu].snap.p);
	free(c->cpu);
	c->cpu = NULL;
	c->ncpu = 0;
	return err;
}
