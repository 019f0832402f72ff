// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "common.bpf.h"

#include "emit.h"

#define E2BIG 7
#define ENOENT 2
#define EAGAIN 11
#define ENOSPC 28
#define EOPNOTSUPP 95

/* For the benchmark's libbpf ring_buffer peer: userspace sets the size. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct emit_stats);
} stats SEC(".maps");

struct scratch {
	__u8 buf[EMIT_MAX_SIZE] __attribute__((aligned(8)));
	__u64 seq;
	__u32 ready;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

static __always_inline void count(struct emit_stats *st, long err)
{
	switch (err) {
	case 0: st->ok++; break;
	case -ENOSPC: st->enospc++; break;
	case -E2BIG: st->e2big++; break;
	case -ENOENT: st->enoent++; break;
	case -EOPNOTSUPP: st->eopnotsupp++; break;
	default: st->other++; break;
	}
}

/* What a batch's records share, for the bpf_loop() callbacks */
struct batch {
	void *ctx;
	struct scratch *s;
	struct emit_stats *st;
	__u64 size;
};

/* One record of the batch; @ringbuf is a constant. */
static __always_inline long emit_one(struct batch *b, bool ringbuf)
{
	struct emit_rec *r = (struct emit_rec *)b->s->buf;
	__u64 len = b->size;
	long err;

	/* bounded again in the register the helper gets: clang keeps
	 * size on the stack and checked a copy of it, and verifiers
	 * before 6.8 or so do not carry a copy's bounds back to the
	 * stack slot (6.1: "R5 min value is negative") */
	barrier_var(len);
	if (len > EMIT_MAX_SIZE)
		len = EMIT_MAX_SIZE;
	r->seq = b->s->seq++;
	r->time_ns = bpf_ktime_get_ns();
	b->st->attempts++;
	if (ringbuf) {
		/* a full BPF ring buffer says -EAGAIN */
		err = bpf_ringbuf_output(&rb, b->s->buf, len, 0);
		if (err == -EAGAIN)
			err = -ENOSPC;
	} else {
		err = bpf_perf_event_output(b->ctx, &events, BPF_F_CURRENT_CPU,
					    b->s->buf, len);
	}
	count(b->st, err);
	return 0;
}

static long emit_perf_one(__u32 i, void *b) { return emit_one(b, false); }
static long emit_rb_one(__u32 i, void *b) { return emit_one(b, true); }

/* The batch shared by both outputs; @ringbuf and @loop are constants.
 * A bpf_loop(), not a bounded loop: the verifier walked every one of its
 * 1024 turns (730 000 instructions, 1 s a load; 10 000 now). Kernels
 * before 5.17 have none, and refuse a program that names a callback even
 * in dead code: there the _bounded twins load instead, with the bounded
 * loop (tools/common/kfeat.h: kfeat_prepare()). */
static __always_inline int emit_batch(struct bpf_raw_tracepoint_args *ctx,
				      bool ringbuf, bool loop)
{
	__u64 n = ctx->args[0], size = ctx->args[1];
	struct batch b = { .ctx = ctx, .size = size };
	struct emit_rec *r;
	__u32 zero = 0;

	b.s = bpf_map_lookup_elem(&scratch, &zero);
	b.st = bpf_map_lookup_elem(&stats, &zero);
	if (!b.s || !b.st)
		return 1;
	if (size < sizeof(*r) || size > EMIT_MAX_SIZE)
		return 2;
	if (!b.s->ready) {
		/* byte i = i, eight at a time: the verifier walks every
		 * iteration, so fewer make a faster load */
		for (__u32 i = 0; i < EMIT_MAX_SIZE / 8; i++)
			((__u64 *)b.s->buf)[i] = ((i * 8) & 0xff) * 0x0101010101010101ULL +
						 0x0706050403020100ULL;
		b.s->ready = 1;
	}
	r = (struct emit_rec *)b.s->buf;
	r->cpu = bpf_get_smp_processor_id();
	r->size = size;
	if (loop)
		bpf_loop(n < EMIT_MAX_BATCH ? n : EMIT_MAX_BATCH,
			 ringbuf ? emit_rb_one : emit_perf_one, &b, 0);
	else
		for (__u32 i = 0; i < EMIT_MAX_BATCH && i < n; i++)
			emit_one(&b, ringbuf);
	return 0;
}

SEC("raw_tp")
int emit(struct bpf_raw_tracepoint_args *ctx)
{
	return emit_batch(ctx, false, true);
}

SEC("raw_tp")
int emit_bounded(struct bpf_raw_tracepoint_args *ctx)
{
	return emit_batch(ctx, false, false);
}

/* The same records into the BPF ring buffer (adaptive wake-ups). */
SEC("raw_tp")
int emit_rb(struct bpf_raw_tracepoint_args *ctx)
{
	return emit_batch(ctx, true, true);
}

SEC("raw_tp")
int emit_rb_bounded(struct bpf_raw_tracepoint_args *ctx)
{
	return emit_batch(ctx, true, false);
}
