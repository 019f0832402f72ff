/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The BPF side of `perfbuf trace --filter` (see trace_filter.h): run the
 * probe's compiled filter over the event before anything is copied into
 * the ring. Included once, by trace.bpf.c.
 */
#ifndef TRACE_FILTER_BPF_H
#define TRACE_FILTER_BPF_H

#include "trace_filter.h"

/* filter_of[cookie]: 0 no filter, else 1 + index into filters */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACE_MAX_PROBES);
	__type(key, __u32);
	__type(value, __u32);
} filter_of SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACE_MAX_FILTERS);
	__type(key, __u32);
	__type(value, struct trace_filter_prog);
} filters SEC(".maps");

/* Integer of @size bytes at @p, sign-extended when @sgn. */
static __always_inline __u64 filter_int(const void *p, __u32 size, bool sgn)
{
	__u64 v = 0;

	switch (size) {
	case 1: {
		__u8 x = 0;

		bpf_probe_read_kernel(&x, 1, p);
		v = sgn ? (__u64)(__s64)(__s8)x : x;
		break;
	}
	case 2: {
		__u16 x = 0;

		bpf_probe_read_kernel(&x, 2, p);
		v = sgn ? (__u64)(__s64)(__s16)x : x;
		break;
	}
	case 4: {
		__u32 x = 0;

		bpf_probe_read_kernel(&x, 4, p);
		v = sgn ? (__u64)(__s64)(__s32)x : x;
		break;
	}
	default:
		bpf_probe_read_kernel(&v, 8, p);
		break;
	}
	return v;
}

static __always_inline bool filter_cmp(__u64 a, const struct trace_filter_op *op)
{
	__u64 b = op->val;
	bool sgn = op->flags & TF_SIGNED;

	switch (op->cmp) {
	case TF_EQ: return a == b;
	case TF_NE: return a != b;
	case TF_LT: return sgn ? (__s64)a < (__s64)b : a < b;
	case TF_LE: return sgn ? (__s64)a <= (__s64)b : a <= b;
	case TF_GT: return sgn ? (__s64)a > (__s64)b : a > b;
	default: return sgn ? (__s64)a >= (__s64)b : a >= b;
	}
}

/* The string of @op into @tmp (TRACE_FILTER_STR * 2 bytes): op->val + 1
 * bytes at most, so that the first op->val are the string's, up to and
 * including its NUL; false if it cannot be read. */
static __always_inline bool filter_str_read(const void *data, __u8 *tmp,
					    const struct trace_filter_op *op)
{
	/* the compiler keeps val + 1 and size within TRACE_FILTER_STR */
	__u32 want = (op->val + 1) & (TRACE_FILTER_STR * 2 - 1);
	__u32 n = op->size & (TRACE_FILTER_STR * 2 - 1), loc = 0;
	const void *src = data + op->off;
	__u64 ptr = 0;

	switch (op->src) {
	case TFS_COMM:		/* only when a filter asks: it costs */
		if (bpf_get_current_comm(tmp, TRACE_COMM_LEN))
			return false;
		tmp[TRACE_COMM_LEN] = 0;
		return true;
	case TFS_CHARS:		/* char[n], NUL-terminated only if shorter */
		if (bpf_probe_read_kernel(tmp, n, src))
			return false;
		tmp[n] = 0;
		return true;
	case TFS_DATA_LOC:
	case TFS_REL_LOC:
		if (bpf_probe_read_kernel(&loc, sizeof(loc), src))
			return false;
		src = data + (loc & 0xffff);
		if (op->src == TFS_REL_LOC)
			src += op->off + 4;
		return bpf_probe_read_kernel_str(tmp, want, src) > 0;
	case TFS_USER_PTR:
		if (bpf_probe_read_kernel(&ptr, sizeof(ptr), src))
			return false;
		return bpf_probe_read_user_str(tmp, want, (void *)ptr) > 0;
	case TFS_ANY_PTR:
		if (bpf_probe_read_kernel(&ptr, sizeof(ptr), src))
			return false;
		return bpf_probe_read_kernel_str(tmp, want, (void *)ptr) > 0 ||
		       bpf_probe_read_user_str(tmp, want, (void *)ptr) > 0;
	}
	return false;
}

/*
 * The accumulator and the op to run next live in map memory, not in
 * registers: the verifier then sees unknown values at the top of each
 * step, so the paths through the ops collapse into one per step instead
 * of doubling with every known 0 or 1 (E2BIG otherwise).
 */
struct filter_state {
	__u32 pc;
	__u32 acc;
};

static __always_inline void filter_step(const void *data, __u8 *tmp,
					volatile struct filter_state *st,
					const struct trace_filter_prog *prog, __u64 id)
{
	const struct trace_filter_op *op = &prog->op[st->pc & (TRACE_FILTER_OPS - 1)];
	__u64 v;

	st->pc++;
	switch (op->code) {
	case TF_CMP:
		if (op->src == TFS_PID)
			v = id >> 32;
		else if (op->src == TFS_TID)
			v = (__u32)id;
		else if (op->src == TFS_CPU)
			v = bpf_get_smp_processor_id();
		else
			v = filter_int(data + op->off, op->size, op->flags & TF_SIGNED);
		st->acc = filter_cmp(v, op);
		break;
	case TF_STR:
		st->acc = filter_str_read(data, tmp, op);
		break;
	case TF_WORD:
		/* a string read shorter than the constant has its NUL where
		 * the constant has none: bytes past it never make a match */
		v = ((__u64 *)tmp)[op->arg & (TRACE_FILTER_STR / 8 - 1)];
		if ((v & op->mask) != op->val)
			st->acc = 0;
		break;
	case TF_NOT:
		st->acc = !st->acc;
		break;
	case TF_JMP_FALSE:
		if (!st->acc)
			st->pc = op->arg;
		break;
	case TF_JMP_TRUE:
		if (st->acc)
			st->pc = op->arg;
		break;
	}
}

/*
 * Does the event of probe @cookie pass its filter? @data: what TFS_FIELD
 * reads (see trace_filter.h); @tmp: scratch of at least
 * TRACE_FILTER_STR * 2 + 8 bytes, 8-aligned, in a map value.
 */
static __noinline bool filter_pass(const void *data, __u8 *tmp, __u32 cookie)
{
	__u32 *idx = bpf_map_lookup_elem(&filter_of, &cookie), key;
	volatile struct filter_state *st = (void *)(tmp + TRACE_FILTER_STR * 2);
	struct trace_filter_prog *prog;
	__u64 id;

	if (!idx || !*idx)
		return true;
	key = *idx - 1;
	prog = bpf_map_lookup_elem(&filters, &key);
	if (!prog)
		return true;
	id = bpf_get_current_pid_tgid();
	st->pc = 0;
	st->acc = 1;
	for (int i = 0; i < TRACE_FILTER_OPS; i++) {
		if (st->pc >= prog->n)
			break;
		filter_step(data, tmp, st, prog, id);
	}
	return st->acc;
}

#endif
