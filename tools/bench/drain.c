// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench part "drain": the time to drain a full ring, perfbuf
 * against libbpf. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"

#include "emit.skel.h"
#include "common/say.h"

/* What both peers' callbacks do with a sample: the same function, so
 * that the compiler gives both the same code (GCC had turned perfbuf's
 * two adds into one 16-byte vector add, a store-forwarding chain slower
 * than two scalar ones on AMD). */
static inline void drain_count(struct drain_ctx *d, const void *payload)
{
	__u64 seq;

	memcpy(&seq, payload, sizeof(seq));
	d->seq_sum += seq;
	d->n++;
}

/* A payload that wraps the ring's end: its two slices copied together.
 * The fields go by value: in drain_iter() the record's address stays the
 * loop's, and the fields the loop does not read are never stored. */
static __attribute__((noinline)) void
drain_wrapped(struct drain_ctx *d, const void *a, size_t a_sz, const void *b)
{
	char seq[sizeof(__u64)];

	memcpy(seq, a, a_sz);
	memcpy(seq + a_sz, b, sizeof(seq) - a_sz);
	drain_count(d, seq);
}

static int drain_pb_cb(void *ctx, const struct perfbuf_record *rec)
{
	struct drain_ctx *d = ctx;

	if (rec->kind != PERFBUF_REC_SAMPLE)
		return PERFBUF_CONTINUE;
	if (rec->data_sz >= sizeof(__u64))
		drain_count(d, rec->data);
	else
		drain_wrapped(d, rec->data, rec->data_sz, rec->data2);
	return PERFBUF_CONTINUE;
}

/* perf_buffer__new_raw()'s callback: the read loop and per-record dispatch
 * are libbpf's perf_buffer__consume() path either way, and the raw event
 * lets the fill use a watermark instead of one wake-up per record. */
static enum bpf_perf_event_ret drain_lb_cb(void *ctx, int cpu,
					   struct perf_event_header *eh)
{
	struct drain_ctx *d = ctx;

	(void)cpu;
	if (eh->type == PERF_RECORD_SAMPLE)
		drain_count(d, (char *)eh + 12);	/* header, u32 size */
	return LIBBPF_PERF_EVENT_CONT;
}

/* Fill the ring of the producer CPU to the brim without a loss. */
int fill_ring(int prog_fd, size_t data_size)
{
	__u64 n = (data_size - 8) / REC_BYTES;
	int err = 0;

	while (n && !err) {
		__u64 k = n < EMIT_MAX_BATCH ? n : EMIT_MAX_BATCH;

		err = emit_once(prog_fd, env.prod_cpu, k, REC_SIZE);
		n -= k;
	}
	return err;
}

/* The fastest of DRAIN_ROUNDS drains: other jobs on the CPU only ever add
 * time (a time slice, another's cache lines), and on a busy machine to
 * enough of the drains to move a median. */
__u64 fastest(const __u64 *t)
{
	__u64 m = t[0];

	for (int i = 1; i < DRAIN_ROUNDS; i++)
		m = t[i] < m ? t[i] : m;
	return m;
}

/* Rewind a ring's data_tail so the same bytes are read again: nothing is
 * written meanwhile, so the kernel does not notice. */
static void rewind_tail(void *base, __u64 tail)
{
	struct perf_event_mmap_page *hdr = base;

	__atomic_store_n(&hdr->data_tail, tail, __ATOMIC_RELEASE);
}

static __u64 ring_tail(void *base)
{
	return __atomic_load_n(&((struct perf_event_mmap_page *)base)->data_tail,
			       __ATOMIC_ACQUIRE);
}

/* The callback-free drain: the same body as drain_pb_cb(), inlined. */
static int drain_iter(struct perfbuf_ring *ring, struct drain_ctx *d)
{
	struct perfbuf_iter it = perfbuf_ring__begin(ring);
	struct perfbuf_record rec;

	while (perfbuf_iter__next(&it, &rec))
		drain_pb_cb(d, &rec);
	return perfbuf_ring__end(ring, it);
}

/* No records: one load from every 64-byte line of libbpf's ring between
 * data_tail and data_head, then data_tail = data_head. What reading the
 * bytes costs alone, for the drains above it. */
static int read_lines(struct drain_bench *b)
{
	struct perf_event_mmap_page *hdr = b->base;
	__u64 head = __atomic_load_n(&hdr->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = hdr->data_tail, sum = 0;
	const char *data = (const char *)b->base + PAGE_SZ;
	size_t mask = b->data_size - 1;

	for (__u64 pos = tail & ~63ULL; pos < head; pos += 64)
		sum += *(const volatile __u64 *)(data + (pos & mask));
	b->d.seq_sum += sum;
	b->d.n = b->want;
	__atomic_store_n(&hdr->data_tail, head, __ATOMIC_RELEASE);
	return 0;
}

/* One timed drain of kind @k into @slot; 0 or a negative errno. */
static int drain_timed(struct drain_bench *b, int k, __u64 *slot)
{
	__u64 t;
	int ret;

	b->d.n = 0;
	t = perfbuf_now_ns();
	switch (k) {
	case D_FOLD:
		ret = perfbuf_ring__fold(b->ring, drain_pb_cb, &b->d);
		break;
	case D_ITER:
		ret = drain_iter(b->ring, &b->d);
		break;
	case D_COLLECTOR:
		ret = perfbuf__consume(b->pb);
		break;
	case D_LINES:
		ret = read_lines(b);
		break;
	default:
		ret = perf_buffer__consume(b->lpb);
		break;
	}
	*slot = perfbuf_now_ns() - t;
	b->exact &= b->d.n == b->want;
	return ret < 0 ? ret : 0;
}

/* The producer CPU's slot of the map to the ring @kind drains (libbpf's
 * or the collector's), then a fill of it. */
static int fill_for(struct drain_bench *b, int kind)
{
	int fd = kind == D_COLLECTOR ? b->coll_fd : b->lb_fd;

	if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.events), &env.prod_cpu,
				&fd, BPF_ANY))
		return -errno;
	return fill_ring(b->prog_fd, b->data_size);
}

/* The header page of the ring @kind drains. */
static void *base_of(struct drain_bench *b, int kind)
{
	return kind == D_COLLECTOR ? b->coll_map : b->base;
}

/* DRAIN_ROUNDS rounds of every drain in turn, each after a fill of its
 * ring (fresh); then both rings filled once and read again and again
 * with data_tail rewound (replay). Each round times them all: the ratios
 * are a round's, whatever else the machine does meanwhile. Each round
 * starts one drain later, so that every drain runs after every other:
 * in a fixed order one more drain in the round moved every ratio (fold,
 * collector and replays by up to 0.25). */
static int drain_rounds(struct drain_bench *b)
{
	__u64 tail0[D_N];
	int err = 0;

	for (int i = 0; i < DRAIN_ROUNDS && !err; i++)
		for (int j = 0; j < D_N && !err; j++) {
			int k = (i + j) % D_N;

			err = fill_for(b, k);
			if (!err)
				err = drain_timed(b, k, &b->fresh[k][i]);
		}
	for (int k = 0; k < D_N && !err; k++) {
		if (k == D_COLLECTOR || k == D_LIBBPF)
			err = fill_for(b, k);
		tail0[k] = ring_tail(base_of(b, k));
	}
	for (int i = 0; i < DRAIN_ROUNDS && !err; i++)
		for (int j = 0; j < D_N && !err; j++) {
			int k = (i + j) % D_N;

			rewind_tail(base_of(b, k), tail0[k]);
			err = drain_timed(b, k, &b->replay[k][i]);
		}
	return err;
}

/* libbpf's raw perf buffer (a watermark: no wake-ups while filling, the
 * consumer is idle anyway), and a perfbuf ring over its mmap of the
 * producer CPU's ring. */
int drain_open_libbpf(struct drain_bench *b)
{
	int cpus[1024], n = perfbuf_cpus__online(cpus, 1024), idx = -1, err;
	struct perf_event_attr attr;
	size_t map_sz;

	err = perf_attr_wm(&attr, (__u32)(b->data_size / 2));
	if (err)
		return err;
	b->lpb = perf_buffer__new_raw(bpf_map__fd(b->skel->maps.events), env.pages,
				      &attr, b->lb_fn ?: drain_lb_cb, &b->d, NULL);
	if (!b->lpb)
		return -errno;
	/* libbpf's buffers are in possible-CPU order, offline ones skipped */
	for (int i = 0; i < n; i++)
		if (cpus[i] == env.prod_cpu)
			idx = i;
	err = idx < 0 ? -ENODEV : perf_buffer__buffer(b->lpb, idx, &b->base, &map_sz);
	if (err)
		return err;
	b->lb_fd = perf_buffer__buffer_fd(b->lpb, (size_t)idx);
	b->ring = perfbuf_ring__new_mem(b->base, PAGE_SZ, env.pages);
	if (!b->ring)
		return -errno;
	perfbuf_ring__set_cpu(b->ring, env.prod_cpu);
	return 0;
}

/* The collector: its own rings, every CPU drained by perfbuf__consume(). */
static int drain_open_collector(struct drain_bench *b)
{
	PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = env.pages);

	b->pb = perfbuf__new(bpf_map__fd(b->skel->maps.events), drain_pb_cb,
			     &b->d, &o);
	if (!b->pb)
		return -errno;
	/* the collector keeps its mapping to itself: map the producer CPU's
	 * ring a second time (the same size, as perf requires) to rewind its
	 * data_tail for the replay rounds */
	for (size_t i = 0; i < perfbuf__ring_cnt(b->pb); i++) {
		if (perfbuf__ring_cpu(b->pb, i) != env.prod_cpu)
			continue;
		b->coll_map = mmap(NULL, (1 + env.pages) * PAGE_SZ,
				   PROT_READ | PROT_WRITE, MAP_SHARED,
				   perfbuf__ring_fd(b->pb, i), 0);
		if (b->coll_map == MAP_FAILED) {
			b->coll_map = NULL;
			return -errno;
		}
		b->coll_fd = perfbuf__ring_fd(b->pb, i);
	}
	return b->coll_map ? 0 : -ENODEV;
}

static void drain_report(struct drain_bench *b)
{
	static const char *what[D_N] = {
		"perfbuf fold (perfbuf_ring__fold)",
		"perfbuf iterator (perfbuf_iter__next)",
		"perfbuf__consume (collector)",
		"libbpf perf_buffer__consume",
		"no records, a load a 64-byte line (the floor)",
	};
	__u64 mf[D_N], mr[D_N];

	for (int k = 0; k < D_N; k++) {
		mf[k] = fastest(b->fresh[k]);
		mr[k] = fastest(b->replay[k]);
	}
	emit_section("Drain of a full ring");
	emit_md("%llu records of %d B in a %zu KiB ring, filled with the consumer idle; "
		"the fastest of %d drains on CPU%d. fresh: each drain follows a fill from "
		"CPU%d; replay: data_tail rewound, the same bytes read again (warm).%s\n\n",
		(unsigned long long)b->want, REC_SIZE, b->data_size / 1024, DRAIN_ROUNDS,
		env.cons_cpu, env.prod_cpu,
		b->exact ? "" : " **A drain missed records.**");
	emit_md("| drain | fresh | ns/record | replay | ns/record |\n"
		"|---|---:|---:|---:|---:|\n");
	for (int k = 0; k < D_N; k++)
		emit_md("| %s | %.3f ms | %.1f | %.3f ms | %.1f |\n", what[k],
			mf[k] / 1e6, (double)mf[k] / b->want, mr[k] / 1e6,
			(double)mr[k] / b->want);
	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	ratio_aim_line("fold / perf_buffer__consume, fresh", (double)mf[D_FOLD],
		       (double)mf[D_LIBBPF], 1.0, 0.8);
	ratio_aim_line("fold / perf_buffer__consume, replay", (double)mr[D_FOLD],
		       (double)mr[D_LIBBPF], 1.0, 0.8);
	ratio_aim_line("iterator / perf_buffer__consume, fresh", (double)mf[D_ITER],
		       (double)mf[D_LIBBPF], 1.0, 0.8);
	ratio_aim_line("iterator / perf_buffer__consume, replay", (double)mr[D_ITER],
		       (double)mr[D_LIBBPF], 1.0, 0.8);
	ratio_aim_line("perfbuf__consume / perf_buffer__consume, fresh",
		       (double)mf[D_COLLECTOR], (double)mf[D_LIBBPF], 1.0, 0.8);
	ratio_aim_line("perfbuf__consume / perf_buffer__consume, replay",
		       (double)mr[D_COLLECTOR], (double)mr[D_LIBBPF], 1.0, 0.8);
	info_line("the floor / perf_buffer__consume, fresh", (double)mf[D_LINES],
		  (double)mf[D_LIBBPF]);
	info_line("the floor / perf_buffer__consume, replay", (double)mr[D_LINES],
		  (double)mr[D_LIBBPF]);
}

/*
 * The same kernel ring, filled the same way before each timed drain, read
 * in turn by perfbuf's fold and iterator (a perfbuf_ring over libbpf's own
 * mmap) and by perf_buffer__consume(), and the collector's ring of the
 * same size (the map slot swapped before its fill) by perfbuf__consume(),
 * all in every round, in turn. "fresh": each drain follows a fill by the
 * producer CPU (cache lines come from the other core); "replay": data_tail
 * rewound, the same bytes again.
 */
int bench_drain(void)
{
	struct drain_bench *b = calloc(1, sizeof(*b));
	int err;

	if (!b)
		return -ENOMEM;
	pin_self(env.cons_cpu);
	b->data_size = env.pages * PAGE_SZ;
	b->want = (b->data_size - 8) / REC_BYTES;
	b->exact = true;
	b->skel = emit_open_load(false, 0);
	err = b->skel ? 0 : -errno;
	if (!err) {
		b->prog_fd = emit_prog_fd(b->skel, false);
		err = drain_open_libbpf(b) ?: drain_open_collector(b) ?:
		      drain_rounds(b);
	}
	if (!err)
		drain_report(b);
	else
		cli_say("perfbuf-bench", "drain test: %s\n", strerror(-err));
	if (b->coll_map)
		munmap(b->coll_map, (1 + env.pages) * PAGE_SZ);
	perfbuf__free(b->pb);
	perfbuf_ring__free(b->ring);
	perf_buffer__free(b->lpb);
	emit__destroy(b->skel);
	free(b);
	return err;
}
