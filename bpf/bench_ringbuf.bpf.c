// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench_ringbuf: bpf/emit.bpf.c for a BPF ring buffer, for perfbuf-bench's
 * libbpf ring_buffer peer. Same context (struct emit_args), same records
 * (struct emit_rec + byte i == i), same batch logic; the output is
 * bpf_ringbuf_output() with default flags (adaptive wake-up). A full ring
 * makes it fail with -EAGAIN, counted in emit_stats.enospc.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "emit.h"

#define EAGAIN 11

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);	/* userspace sets the real size */
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct emit_stats);
} stats SEC(".maps");

struct scratch {
	__u8 buf[EMIT_MAX_SIZE];
	__u64 seq;
	__u32 ready;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

SEC("raw_tp")
int emit_rb(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 n = ctx->args[0], size = ctx->args[1];
	struct emit_stats *st;
	struct scratch *s;
	struct emit_rec *r;
	__u32 zero = 0;

	s = bpf_map_lookup_elem(&scratch, &zero);
	st = bpf_map_lookup_elem(&stats, &zero);
	if (!s || !st)
		return 1;
	if (size < sizeof(*r) || size > EMIT_MAX_SIZE)
		return 2;
	if (!s->ready) {
		for (__u32 i = 0; i < EMIT_MAX_SIZE; i++)
			s->buf[i] = (__u8)i;
		s->ready = 1;
	}
	r = (struct emit_rec *)s->buf;
	r->cpu = bpf_get_smp_processor_id();
	r->size = size;
	for (__u32 i = 0; i < EMIT_MAX_BATCH && i < n; i++) {
		long err;

		r->seq = s->seq++;
		r->time_ns = bpf_ktime_get_ns();
		st->attempts++;
		err = bpf_ringbuf_output(&rb, s->buf, size, 0);
		if (!err)
			st->ok++;
		else if (err == -EAGAIN)
			st->enospc++;
		else
			st->other++;
	}
	return 0;
}
