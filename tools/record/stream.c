// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A capture's records. Each CPU gets a ring in memory that its DATA frames
 * are copied into one after the other, as the kernel wrote them, so the
 * library parses them and trims LOST records against the losses the live
 * drains settled (CAP_LOST frames) exactly as it did live.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"

#define PAGE 4096
/* A frame's CPU is an index into slot[] (O(1)), and one the META frame
 * does not list is damage (each CPU costs a ring in memory: a small file
 * naming 50,000 took 455 MB): the CPUs listed bound it, however many. A
 * capture whose list cannot be read is bounded by UNLISTED_CPUS. */
#define UNLISTED_CPUS 8192

struct cpu_stream {
	int cpu;
	struct cap_view *frames;	/* DATA, LOST, CPU of this CPU */
	size_t cnt, cap, next;
	size_t max_data;
	char *mem;			/* header page + data */
	struct perfbuf_ring *ring;
	struct perfbuf_iter it;
	bool in_data;
	struct perfbuf_record rec;	/* the next one, when @have */
	bool have;
	bool taken;			/* rec handed over: advance first */
};

struct cap_stream {
	struct cap_reader *r;
	__u64 sample_type;
	bool sample_id_all;
	struct cpu_stream *cpus;
	size_t n_cpus;
	int *slot;			/* [cpu]: 1 + index into cpus, 0: none */
	bool *listed;			/* [cpu]: in META's cpus=; NULL: no list */
	size_t span;			/* CPU numbers below it may have frames */
	struct cap_view *order;		/* every frame, file order */
	size_t n_order, cap_order;
	int err;			/* damage after the last frame indexed */
};

static int push(struct cap_view **a, size_t *n, size_t *cap,
		const struct cap_view *v)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct cap_view *p = realloc(*a, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*a = p;
		*cap = c;
	}
	(*a)[(*n)++] = *v;
	return 0;
}

/* CPU @cpu's stream (made on first sight when @add); NULL: a CPU out of
 * bounds or not listed (errno EBADMSG), or no memory. */
static struct cpu_stream *cpu_of(struct cap_stream *s, __u32 cpu, bool add)
{
	struct cpu_stream *p;

	if (cpu >= s->span || (s->listed && !s->listed[cpu])) {
		errno = EBADMSG;
		return NULL;
	}
	if (!s->slot && !(s->slot = calloc(s->span, sizeof(*s->slot))))
		return NULL;
	if (s->slot[cpu] || !add)
		return s->slot[cpu] ? &s->cpus[s->slot[cpu] - 1] : NULL;
	if (!(s->n_cpus & (s->n_cpus - 1))) {	/* 0, 1, 2, 4...: grow */
		p = realloc(s->cpus, (s->n_cpus ? 2 * s->n_cpus : 1) * sizeof(*p));
		if (!p)
			return NULL;
		s->cpus = p;
	}
	p = &s->cpus[s->n_cpus++];
	memset(p, 0, sizeof(*p));
	p->cpu = (int)cpu;
	s->slot[cpu] = (int)s->n_cpus;
	return p;
}

/* META's "cpus=LIST" line: only those CPUs' frames are read. */
static int meta_cpus(struct cap_stream *s, const struct cap_view *v)
{
	const char *p = v->data, *end = p + v->len, *nl;
	char *list;
	int *cpus = NULL, n, max = -1;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if (nl - p > 5 && !memcmp(p, "cpus=", 5))
			break;
	}
	if (p >= end || s->listed || s->slot)
		return 0;
	list = strndup(p + 5, (size_t)(nl - p - 5));
	n = list ? perfbuf_cpus__parse(list, NULL, 0) : -ENOMEM;
	if (n > 0 && !(cpus = calloc((size_t)n, sizeof(*cpus))))
		n = -ENOMEM;
	if (n > 0)
		n = perfbuf_cpus__parse(list, cpus, (size_t)n);
	free(list);
	for (int i = 0; i < n; i++)
		max = cpus[i] > max ? cpus[i] : max;
	if (n > 0 && !(s->listed = calloc((size_t)max + 1, sizeof(*s->listed))))
		n = -ENOMEM;
	for (int i = 0; i < n; i++)
		s->listed[cpus[i]] = true;
	free(cpus);
	if (n == -ENOMEM)
		return n;
	/* a list this perfbuf cannot read: bounded by UNLISTED_CPUS */
	if (n > 0)
		s->span = (size_t)max + 1;
	return 0;
}

static bool stream_frame(__u32 type)
{
	return type == CAP_DATA || type == CAP_LOST || type == CAP_CPU;
}

static int index_frames(struct cap_stream *s)
{
	struct cap_view v;
	int ret;

	cap_reader__rewind(s->r);
	while ((ret = cap_reader__next(s->r, &v)) > 0) {
		struct cpu_stream *c;

		if (v.type == CAP_META && meta_cpus(s, &v))
			return -ENOMEM;
		if (!stream_frame(v.type))
			continue;
		c = cpu_of(s, v.cpu, true);
		if (!c && errno == EBADMSG) {
			ret = cap_reader__damage(s->r, "a frame of CPU %llu, which the capture does not list",
						 v.cpu);
			break;
		}
		if (!c || push(&c->frames, &c->cnt, &c->cap, &v) ||
		    push(&s->order, &s->n_order, &s->cap_order, &v))
			return -ENOMEM;
		if (v.type == CAP_DATA && v.len > c->max_data)
			c->max_data = v.len;
	}
	s->err = ret;
	return 0;
}

static int ring_for(struct cap_stream *s, struct cpu_stream *c)
{
	size_t pages = 1;

	while (pages * PAGE < c->max_data)
		pages <<= 1;
	c->mem = calloc(1, PAGE * (pages + 1));
	if (!c->mem)
		return -ENOMEM;
	c->ring = perfbuf_ring__new_mem(c->mem, PAGE, pages);
	if (!c->ring)
		return -errno;
	perfbuf_ring__set_cpu(c->ring, c->cpu);
	perfbuf_ring__set_sample_type(c->ring, s->sample_type, s->sample_id_all);
	return 0;
}

struct cap_stream *cap_stream__new(struct cap_reader *r, __u64 sample_type,
				   bool sample_id_all)
{
	struct cap_stream *s = calloc(1, sizeof(*s));
	int err = -ENOMEM;

	if (!s)
		goto fail;
	s->r = r;
	s->span = UNLISTED_CPUS;	/* until META lists the CPUs */
	s->sample_type = sample_type;
	s->sample_id_all = sample_id_all;
	err = index_frames(s);
	for (size_t i = 0; !err && i < s->n_cpus; i++)
		err = ring_for(s, &s->cpus[i]);
	if (!err)
		return s;
fail:
	cap_stream__free(s);
	errno = -err;
	return NULL;
}

/* Copy a DATA frame's bytes after what the CPU's ring held, as the kernel
 * would have written them, and start iterating over them. */
static void load_data(struct cpu_stream *c, const struct cap_view *f)
{
	struct perf_event_mmap_page *hdr = (void *)c->mem;
	size_t size = perfbuf_ring__data_size(c->ring);
	size_t off = hdr->data_head & (size - 1);
	size_t n1 = f->len < size - off ? f->len : size - off;

	memcpy(c->mem + PAGE + off, f->data, n1);
	memcpy(c->mem + PAGE, (const char *)f->data + n1, f->len - n1);
	hdr->data_head += f->len;
	c->it = perfbuf_ring__begin(c->ring);
	c->in_data = true;
}

/* A CAP_LOST or CAP_CPU frame as the record live saw; false when it
 * gives none (damaged, or losses already reported). */
static bool frame_record(struct cpu_stream *c, const struct cap_view *f,
			 struct perfbuf_record *rec)
{
	struct perfbuf_ring_stats st = { .sz = sizeof(st) };
	struct cap_lost l;
	struct cap_cpu n;

	memset(rec, 0, sizeof(*rec));
	rec->cpu = c->cpu;
	if (f->type == CAP_LOST && f->len >= sizeof(l)) {
		memcpy(&l, f->data, sizeof(l));
		perfbuf_ring__stats(c->ring, &st);
		rec->kind = PERFBUF_REC_LOST;
		rec->type = PERF_RECORD_LOST;
		rec->time_ns = l.time_ns;
		rec->lost = perfbuf_ring__settle_lost(c->ring, st.lost + l.lost);
		return rec->lost;
	}
	if (f->type == CAP_CPU && f->len >= sizeof(n)) {
		memcpy(&n, f->data, sizeof(n));
		if (n.kind != CAP_CPU_ONLINE && n.kind != CAP_CPU_OFFLINE)
			return false;
		rec->kind = n.kind == CAP_CPU_ONLINE ? PERFBUF_REC_CPU_ONLINE :
						       PERFBUF_REC_CPU_OFFLINE;
		rec->time_ns = n.time_ns;
		return true;
	}
	return false;
}

/* The CPU's next record into c->rec (c->have); within the current frame
 * only unless @cross. */
static void advance(struct cpu_stream *c, bool cross)
{
	c->have = false;
	for (;;) {
		const struct cap_view *f;

		if (c->in_data) {
			if (perfbuf_iter__next(&c->it, &c->rec)) {
				c->have = true;
				return;
			}
			perfbuf_ring__end(c->ring, c->it);
			c->in_data = false;
			if (!cross)
				return;
		}
		if (c->next == c->cnt)
			return;
		f = &c->frames[c->next++];
		if (f->type == CAP_DATA) {
			load_data(c, f);
			continue;
		}
		c->have = frame_record(c, f, &c->rec);
		if (c->have || !cross)
			return;
	}
}

/* A CPU's stream as a source of the library's merge (perfbuf_merge):
 * the record handed over stays in c->rec until the next peek moves on. */
static bool src_peek(void *ctx, __u64 *time_ns)
{
	struct cpu_stream *c = ctx;

	if (c->taken) {
		advance(c, true);
		c->taken = false;
	}
	*time_ns = c->rec.time_ns;
	return c->have;
}

static bool src_next(void *ctx, struct perfbuf_record *rec)
{
	struct cpu_stream *c = ctx;

	*rec = c->rec;
	c->taken = true;
	return true;
}

struct count_ctx {
	perfbuf_record_fn fn;
	void *ctx;
	long long n;
};

static int count_rec(void *ctx, const struct perfbuf_record *rec)
{
	struct count_ctx *cc = ctx;

	cc->n++;
	return cc->fn(cc->ctx, rec);
}

/* Record counts are 64-bit: a capture may hold more than 2^31 records
 * (an int count wrapped negative, read as an error). */
static long long fold_ordered(struct cap_stream *s, perfbuf_record_fn fn,
			      void *ctx)
{
	static const struct perfbuf_source_ops ops = {
		.sz = sizeof(ops), .peek = src_peek, .next = src_next,
	};
	struct count_ctx cc = { .fn = fn, .ctx = ctx };
	struct perfbuf_merge *m = perfbuf_merge__new();
	int err = m ? 0 : -ENOMEM;

	for (size_t i = 0; !err && i < s->n_cpus; i++) {
		s->cpus[i].taken = true;	/* the first peek reads */
		err = perfbuf_merge__add_source(m, &ops, &s->cpus[i]);
	}
	if (!err)
		perfbuf_merge__fold(m, UINT64_MAX, 0, count_rec, &cc);
	perfbuf_merge__free(m);
	return err ? err : cc.n;
}

static long long fold_file_order(struct cap_stream *s, perfbuf_record_fn fn,
				 void *ctx)
{
	long long n = 0;

	for (size_t i = 0; i < s->n_order; i++) {
		/* by its slot, not cpu_of(): a META frame after the frames
		 * may list other CPUs (NULL: fuzz_capture) */
		struct cpu_stream *c = &s->cpus[s->slot[s->order[i].cpu] - 1];

		for (advance(c, false); c->have; advance(c, false)) {
			n++;
			if (fn(ctx, &c->rec) != PERFBUF_CONTINUE)
				return n;
			if (!c->in_data)
				break;	/* a LOST or CPU frame: one record */
		}
	}
	return n;
}

long long cap_stream__fold(struct cap_stream *s, bool ordered,
			   perfbuf_record_fn fn, void *ctx)
{
	long long n = ordered ? fold_ordered(s, fn, ctx) :
				fold_file_order(s, fn, ctx);

	/* cut after the index: the records copied from past the end were zeros */
	if (cap_reader__shrunk(s->r) && s->err >= 0)
		s->err = cap_reader__damage(s->r, "the file was cut while being read (%llu records read)",
					    (unsigned long long)n);
	return s->err < 0 ? s->err : n;
}

bool cap_stream__stats(const struct cap_stream *s, size_t i, int *cpu,
		       struct perfbuf_ring_stats *st)
{
	if (i >= s->n_cpus)
		return false;
	*cpu = s->cpus[i].cpu;
	perfbuf_ring__stats(s->cpus[i].ring, st);
	return true;
}

void cap_stream__free(struct cap_stream *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_cpus; i++) {
		perfbuf_ring__free(s->cpus[i].ring);
		free(s->cpus[i].mem);
		free(s->cpus[i].frames);
	}
	free(s->cpus);
	free(s->order);
	free(s->slot);
	free(s->listed);
	free(s);
}
