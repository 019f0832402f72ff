// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The generic programs of `perfbuf trace` (see trace.h).
 *
 * What a kernel from 5.10 (Debian 11) on may lack is chosen at load time,
 * as libbpf-tools do it:
 * - attach cookies (5.15), bpf_get_current_task_btf() (5.11),
 *   bpf_get_func_arg() (5.17): by the kfeat_* constants below, set by
 *   userspace from its probes (tools/common/kfeat.c). The verifier follows
 *   only the branch a constant takes and, for a privileged load, removes
 *   the other before the program runs: a helper the kernel does not know
 *   is never checked there. Without cookies, userspace loads a program
 *   per probe with its index in probe_cookie.
 * - bpf_loop() (5.17): a program that holds a callback's address is
 *   refused by older verifiers even where that code is dead (the ld_imm64
 *   of a BPF_PSEUDO_FUNC is checked before any branch is followed). So
 *   each such program NAME has a twin NAME_bounded with a bounded loop,
 *   and userspace loads one of the two (kfeat_prepare()).
 * - atomic fetch-and-add (5.12): the one choice made at build time. Before
 *   5.12 the verifier checks every instruction's fields before it follows
 *   any branch, and refuses an atomic add with BPF_FETCH even in dead
 *   code; every program takes a nesting level with it, so twins would
 *   double them all. This file is built a second time with
 *   PERFBUF_NO_FETCH (the Makefile's NOFETCH_SRCS), with the same
 *   programs, maps and globals (the build compares them), and userspace
 *   opens that ELF where the kernel has no fetch-and-add (KFEAT_OPEN). */
#include "common.bpf.h"
#include <bpf/bpf_tracing.h>

#include <perfbuf/bpf.h>

#include "trace.h"
#include "trace_filter.bpf.h"

/* Filters, set before load. 0 / -1 / empty: no filter. */
const volatile __u32 targ_tgid = 0;
const volatile __u32 self_tgid = 0;	/* never trace ourselves: feedback */
const volatile int targ_cpu = -1;
const volatile bool filter_comm = false;
const volatile char targ_comm[TRACE_COMM_LEN] = {};
/* any --filter at all: without one, no event pays for a look-up */
const volatile bool any_filter = false;
/* --kstack, --ustack: the stacks after the data */
const volatile bool want_kstack = false;
const volatile bool want_ustack = false;

/* What the kernel has (kfeat.h: kfeat_set_consts() sets each from the
 * probe of its name); the newest kernels' choice by default */
const volatile bool kfeat_cookie = true;	/* bpf_get_attach_cookie() */
const volatile bool kfeat_task_btf = true;	/* bpf_get_current_task_btf() */
const volatile bool kfeat_func_arg = true;	/* bpf_get_func_arg() */

#define STACK_BYTES (TRACE_STACK_MAX * 8)

/* Every output counted by its outcome, per CPU and per probe (the kind
 * is the probe's index): written, ring full (the kernel's lost), no ring
 * in the CPU's slot (a CPU just back online, before the collector opened
 * its new ring; a CPU past the map), any other failure (a dead event,
 * nesting). Only after every filter: a probe filtered out is not
 * offered. perfbuf/bpf.h, read by the library's perfbuf_ledger__*. */
PERFBUF_LEDGER(TRACE_MAX_PROBES);

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACE_MAX_PROBES);
	__type(key, __u32);
	__type(value, struct trace_probe_cfg);
} cfgs SEC(".maps");

#include "trace_latency.bpf.h"
#include "trace_members.bpf.h"

/* A record under construction: too big for the 512-byte stack. */
struct scratch {
	__u8 buf[sizeof(struct trace_record) + TRACE_DATA_MAX];
};

/* One buffer per nesting level: a program interrupted on its CPU (by an
 * IRQ-time raw tracepoint, say) must not see its record rewritten. */
#define TRACE_NEST 4

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TRACE_NEST);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} nest SEC(".maps");

/*
 * stop[0] != 0: the end, set by `perfbuf trace` before its final drain;
 * every program then returns at once. Checked again after the nest count
 * is raised (a full barrier): once userspace has set it and seen every
 * CPU's nest count at 0, no record can follow its drain.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} stop SEC(".maps");

static __always_inline bool stopped(void)
{
	__u32 zero = 0, *s = bpf_map_lookup_elem(&stop, &zero);

	return !s || *(volatile __u32 *)s;
}

/*
 * Take the next level's buffer, or NULL (levels all in use, or stopped).
 * Atomic: a program on a faultable (syscall) tracepoint or a uprobe runs
 * with migration, not preemption, disabled, so another task's program can
 * run on this CPU in the middle of it.
 */
static __always_inline struct trace_record *scratch_get(void)
{
	__u32 zero = 0, level, *depth = bpf_map_lookup_elem(&nest, &zero);
	struct trace_record *e;

	if (!depth)
		return NULL;
#ifdef PERFBUF_NO_FETCH
	/* no fetch-and-add before 5.12; there (no faultable tracepoints
	 * yet) a program runs with preemption off, so only an interrupt's
	 * program can come in between, and it leaves the count as it was */
	level = *(volatile __u32 *)depth;
	__sync_fetch_and_add(depth, 1);
#else
	level = __sync_fetch_and_add(depth, 1);
#endif
	e = level < TRACE_NEST && !stopped() ?
		bpf_map_lookup_elem(&scratch, &level) : NULL;
	if (!e)
		__sync_fetch_and_sub(depth, 1);
	return e;
}

static __always_inline void scratch_put(void)
{
	__u32 zero = 0, *depth = bpf_map_lookup_elem(&nest, &zero);

	if (depth)
		__sync_fetch_and_sub(depth, 1);
}

/*
 * Kinds that take their target at load time (tp_btf, fentry, fexit), have
 * no attach cookie in libbpf 1.1 (raw_tp), or run where the kernel has no
 * cookies (!kfeat_cookie) are loaded once per probe, sharing the maps
 * above; the probe's index and argument count are then constants, so the
 * verifier drops the reads of arguments that do not exist (tp_btf and
 * raw_tp refuse those).
 */
const volatile __u64 probe_cookie = 0;
const volatile __u32 nargs = 0;

/* Without attach cookies, kprobes (not kretprobes) share one program all
 * the same: the probe's index by the address probed (the function's plus
 * the probe's offset), which userspace fills. Unused where cookies exist. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TRACE_MAX_PROBES);
	__type(key, __u64);
	__type(value, __u32);
} kprobe_ip SEC(".maps");

/* The probe's index: its attach cookie, or the program's own constant */
#define probe_index(ctx) (kfeat_cookie ? bpf_get_attach_cookie(ctx) : probe_cookie)

/*
 * The task's name, its 16 bytes as they are (the decoder stops at the
 * NUL): two loads from the task where bpf_get_current_comm() copies byte
 * by byte (strscpy), a tenth of what the event costs the traced thread
 * beyond the output itself. Before 5.11 (no bpf_get_current_task_btf()),
 * the helper.
 */
static __always_inline void current_comm(char *comm)
{
	struct task_struct *t;

	if (!kfeat_task_btf) {
		bpf_get_current_comm(comm, TRACE_COMM_LEN);
		return;
	}
	t = bpf_get_current_task_btf();
	((__u64 *)comm)[0] = *(const __u64 *)&t->comm[0];
	((__u64 *)comm)[1] = *(const __u64 *)&t->comm[8];
}

/* The per-CPU event with its cookie, pid and tid, or NULL when filtered
 * out (-p, --cpu, --comm, stopped); every non-NULL one must reach
 * event_filter(), which fills the rest of the header or releases it.
 * A paired return probe's duration is in its data already, and
 * raw_size says until where (the caller's data must reach it). */
static __always_inline struct trace_record *event_start(__u64 cookie)
{
	__u64 id = bpf_get_current_pid_tgid(), dur;
	__u32 tgid = id >> 32, lat_off;
	struct trace_record *e;

	/* stopped(): in scratch_get(), after the nest count is raised */
	if (tgid == self_tgid || (targ_tgid && tgid != targ_tgid))
		return NULL;
	dur = lat_note(cookie, (__u32)id, &lat_off);
	if (targ_cpu >= 0 && bpf_get_smp_processor_id() != (__u32)targ_cpu)
		return NULL;
	e = scratch_get();
	if (!e)
		return NULL;
	if (filter_comm) {
		current_comm(e->comm);
		for (int i = 0; i < TRACE_COMM_LEN; i++) {
			if (e->comm[i] != targ_comm[i]) {
				scratch_put();
				return NULL;
			}
			if (!targ_comm[i])
				break;
		}
	}
	e->cookie = cookie;
	e->pid = tgid;
	e->tid = (__u32)id;
	e->raw_size = 0;
	if (lat_off) {
		*(__u64 *)(e->data + lat_off) = dur;
		e->raw_size = lat_off + 8;
	}
	return e;
}

/* Run the probe's --filter over @data (trace_filter.h); false: filtered
 * out, and @e released. What only a kept event needs comes after it. */
static __always_inline bool event_filter(const void *data,
					 struct trace_record *e)
{
	/* its scratch past what the arguments fill before it runs (a
	 * tracepoint's record is copied after it) */
	if (any_filter && !filter_pass(data, e->data + TRACE_RAW_MAX, e->cookie)) {
		scratch_put();
		return false;
	}
	current_comm(e->comm);
	/* no clock read here: the kernel stamps the record as it writes it
	 * (PERF_SAMPLE_TIME on CLOCK_MONOTONIC, the clock of
	 * bpf_ktime_get_ns()), and a second read costs the traced thread a
	 * tenth of its time */
	e->time_ns = 0;
	e->raw_size = 0;
	for (int i = 0; i < TRACE_MAX_STRS; i++)
		e->str_len[i] = 0;
	e->str_cut = 0;
	e->stack_off = e->kstack_n = e->ustack_n = 0;
	return true;
}

/* The kernel and user stacks at data + @off (8-aligned, with room for
 * both); returns their bytes. */
static __always_inline __u32 add_stacks(void *ctx, struct trace_record *e,
					__u32 off)
{
	long k = 0, u = 0;

	if (want_kstack) {
		k = bpf_get_stack(ctx, e->data + off, STACK_BYTES, 0);
		if (k < 0 || k > STACK_BYTES)
			k = 0;
	}
	if (want_ustack) {
		u = bpf_get_stack(ctx, e->data + off + k, STACK_BYTES,
				  BPF_F_USER_STACK);
		if (u < 0 || u > STACK_BYTES)
			u = 0;
	}
	e->stack_off = off;
	e->kstack_n = (__u64)k >> 3;	/* k, u in [0, STACK_BYTES] */
	e->ustack_n = (__u64)u >> 3;
	return k + u;
}

static __always_inline void event_send(void *ctx, struct trace_record *e,
				       __u32 data_sz)
{
	__u32 off;

	if (data_sz > TRACE_DATA_MAX)
		data_sz = TRACE_DATA_MAX;
	if (want_kstack || want_ustack) {
		off = (data_sz + 7) & ~7U;
		if (off <= TRACE_DATA_MAX - 2 * STACK_BYTES)
			data_sz = off + add_stacks(ctx, e, off);
		else
			e->stack_off = TRACE_NO_STACK_ROOM;
		if (data_sz > TRACE_DATA_MAX)
			data_sz = TRACE_DATA_MAX;	/* never: for the verifier */
	}
	perfbuf_output(ctx, &events, e->cookie, e, sizeof(*e) + data_sz);
	scratch_put();
}

/* --string-size: bytes of a string or buffer kept (its NUL aside) */
const volatile __u32 str_size = TRACE_STR_SIZE;

static __always_inline __u32 str_cap(void)
{
	return str_size > TRACE_STR_SIZE_MAX ? TRACE_STR_SIZE_MAX : str_size;
}

/*
 * A string of at most cap bytes at dst, read as @n = read(dst, cap + 2):
 * cap + 2 (with its NUL) means the string had more than cap bytes: keep
 * cap, NUL-terminated, and say it was cut.
 */
static __always_inline long str_cut(char *dst, long n, __u32 cap, bool *cut)
{
	if (n != cap + 2)
		return n;
	dst[cap] = 0;
	*cut = true;
	return cap + 1;
}

/* A user buffer at the u64 at @off, as long as the u64 at s->len_off says
 * (cut at cap): its bytes, then a NUL. 0 when unreadable. */
static __always_inline long read_buf(void *ctx, const struct trace_str_cfg *s,
				     __u32 off, char *dst, __u32 cap, bool *cut)
{
	__u64 ptr = 0, len = 0;
	__u32 n;

	bpf_probe_read_kernel(&ptr, sizeof(ptr), ctx + off);
	bpf_probe_read_kernel(&len, sizeof(len),
			      ctx + (s->len_off & (TRACE_RAW_MAX - 1)));
	*cut = len > cap;
	/* masked: clang may reload len unbounded from the stack */
	n = (*cut ? cap : len) & (TRACE_STR_SIZE_MAX * 2 - 1);
	if (bpf_probe_read_user(dst, n, (void *)ptr)) {
		*cut = false;
		return 0;
	}
	dst[n] = 0;
	return n + 1;
}

/* Read string slot @i of @cfg into e->data + pos; return the new pos. */
static __always_inline __u32 read_str(void *ctx, struct trace_record *e,
				      const struct trace_str_cfg *s, int i,
				      __u32 pos)
{
	char *dst = (char *)e->data + (pos & (TRACE_ROOM - 1));
	__u32 off = s->off & (TRACE_RAW_MAX - 1), loc = 0, cap = str_cap();
	bool cut = false;
	void *src;
	__u64 ptr = 0;
	long n = 0;

	if (pos >= TRACE_ROOM) {	/* never with TRACE_MAX_STRS slots */
		e->str_cut |= 1 << (i & (TRACE_MAX_STRS - 1));
		return pos;
	}
	switch (s->kind) {
	case TRACE_STR_DATA_LOC:
	case TRACE_STR_REL_LOC:
	case TRACE_BYTES_DATA_LOC:
	case TRACE_BYTES_REL_LOC:
		bpf_probe_read_kernel(&loc, sizeof(loc), ctx + off);
		src = ctx + (loc & 0xffff);
		if (s->kind == TRACE_STR_REL_LOC ||
		    s->kind == TRACE_BYTES_REL_LOC)
			src += off + 4;
		if (s->kind == TRACE_STR_DATA_LOC ||
		    s->kind == TRACE_STR_REL_LOC) {
			n = bpf_probe_read_kernel_str(dst, cap + 2, src);
			n = str_cut(dst, n, cap, &cut);
		} else {
			n = loc >> 16;	/* cut long arrays, never wrap them */
			if (n > cap) {
				n = cap;
				cut = true;
			}
			if (bpf_probe_read_kernel(dst, n, src))
				n = 0;
		}
		break;
	case TRACE_STR_USER_PTR:
		bpf_probe_read_kernel(&ptr, sizeof(ptr), ctx + off);
		n = bpf_probe_read_user_str(dst, cap + 2, (void *)ptr);
		n = str_cut(dst, n, cap, &cut);
		break;
	case TRACE_BUF_USER_PTR:
		n = read_buf(ctx, s, off, dst, cap, &cut);
		break;
	case TRACE_STR_ANY_PTR:
		bpf_probe_read_kernel(&ptr, sizeof(ptr), ctx + off);
		n = s->user_first ? bpf_probe_read_user_str(dst, cap + 2, (void *)ptr)
				  : bpf_probe_read_kernel_str(dst, cap + 2, (void *)ptr);
		if (n <= 0)
			n = s->user_first ? bpf_probe_read_kernel_str(dst, cap + 2, (void *)ptr)
					  : bpf_probe_read_user_str(dst, cap + 2, (void *)ptr);
		n = str_cut(dst, n, cap, &cut);
		break;
	}
	if (n <= 0)
		return pos;
	e->str_len[i & (TRACE_MAX_STRS - 1)] = n;
	if (cut)
		e->str_cut |= 1 << (i & (TRACE_MAX_STRS - 1));
	return pos + (n & (TRACE_STR_SIZE_MAX * 2 - 1));
}

struct argv_walk {
	struct trace_record *e;
	__u64 argv, arg;	/* the array, its next element */
	__u32 start;		/* the slot's first byte */
	int slot;
	bool more;		/* arguments left unread */
};

/*
 * One argument: a TRACE_ARG_* byte, the string (cut at str_size), its
 * NUL. A bpf_loop() callback that keeps the slot's length in the record,
 * not in a register: the verifier sees the same state each time round,
 * instead of walking every argument's outcomes. 1 stops.
 */
static __always_inline long argv_step(__u32 k, void *ctx)
{
	struct argv_walk *w = ctx;
	int slot = w->slot & (TRACE_MAX_STRS - 1);
	__u32 cap = str_cap(), pos = w->start + w->e->str_len[slot];
	bool cut = false;
	char *d;
	long n;

	if (!w->arg)
		return 1;
	if (pos >= TRACE_ROOM) {
		w->more = true;
		return 1;
	}
	d = (char *)w->e->data + (pos & (TRACE_ROOM - 1));
	n = bpf_probe_read_user_str(d + 1, cap + 2, (void *)w->arg);
	n = str_cut(d + 1, n, cap, &cut);
	if (n <= 0) {
		d[0] = TRACE_ARG_FAULT;
		d[1] = 0;
		n = 1;
	} else {
		d[0] = cut ? TRACE_ARG_CUT : TRACE_ARG_WHOLE;
	}
	w->e->str_len[slot] += 1 + (n & (TRACE_STR_SIZE_MAX * 2 - 1));
	if (bpf_probe_read_user(&w->arg, sizeof(w->arg),
				(void *)(w->argv + (k + 1) * 8)))
		w->arg = 0;
	return 0;
}

/* argv_step() as bpf_loop()'s callback */
static long argv_one(__u32 k, void *ctx) { return argv_step(k, ctx); }

/*
 * The argv slot: up to TRACE_ARGV_MAX arguments (argv_step()), then
 * TRACE_ARGV_END; cut (str_cut) when arguments are left unread. Read
 * after the other slots: its length depends on the room they left.
 * @loop (a constant): by bpf_loop(), else by a bounded loop (the
 * programs' _bounded twins).
 */
static __always_inline __u32 read_argv(void *ctx, struct trace_record *e,
				       const struct trace_probe_cfg *cfg,
				       __u32 pos, bool loop)
{
	int slot = cfg->argv_slot & (TRACE_MAX_STRS - 1);
	struct argv_walk w = { .e = e, .start = pos, .slot = slot };
	__u32 end;

	if (cfg->argv_slot < 0 || cfg->argv_slot >= TRACE_MAX_STRS)
		return pos;
	bpf_probe_read_kernel(&w.argv, sizeof(w.argv),
			      ctx + (cfg->str[slot].off & (TRACE_RAW_MAX - 1)));
	if (bpf_probe_read_user(&w.arg, sizeof(w.arg), (void *)w.argv))
		return pos;	/* str_len 0: printed as the pointer */
	e->str_len[slot] = 0;
	if (loop)
		bpf_loop(TRACE_ARGV_MAX, argv_one, &w, 0);
	else
		for (__u32 k = 0; k < TRACE_ARGV_MAX; k++)
			if (argv_step(k, &w))
				break;
	if (w.arg)
		w.more = true;
	end = pos + e->str_len[slot];
	if (end >= TRACE_ROOM + TRACE_STR_SIZE_MAX + 2)
		return pos;	/* never: argv_one() stops before */
	*((char *)e->data + end) = TRACE_ARGV_END;
	e->str_len[slot]++;
	if (w.more)
		e->str_cut |= 1 << slot;
	return end + 1;
}

/* The strings of tracepoint record @rec, whose first @raw bytes are in
 * e->data, then the event out; @loop: read_argv()'s */
static __always_inline void tp_send(void *ctx, void *rec,
				    struct trace_record *e,
				    const struct trace_probe_cfg *cfg, __u32 raw,
				    bool loop)
{
	__u32 pos = raw;

	e->raw_size = raw;
	for (int i = 0; i < TRACE_MAX_STRS; i++) {
		if (i >= cfg->nstr)
			break;
		if (i != cfg->argv_slot)
			pos = read_str(rec, e, &cfg->str[i], i, pos);
	}
	pos = read_argv(rec, e, cfg, pos, loop);
	event_send(ctx, e, pos);
}

static __always_inline int tp_prog(void *ctx, bool loop)
{
	__u64 cookie = probe_index(ctx);
	__u32 key = cookie, raw;
	struct trace_record *e;
	struct trace_probe_cfg *cfg;

	cfg = bpf_map_lookup_elem(&cfgs, &key);
	if (!cfg)
		return 0;
	e = event_start(cookie);
	if (!e || !event_filter(ctx, e))
		return 0;
	raw = cfg->raw_size & (TRACE_RAW_MAX * 2 - 1);
	if (raw > TRACE_RAW_MAX)
		raw = TRACE_RAW_MAX;
	if (bpf_probe_read_kernel(e->data, raw, ctx))
		raw = 0;
	tp_send(ctx, ctx, e, cfg, raw, loop);
	return 0;
}

SEC("tracepoint")
int trace_tp(void *ctx) { return tp_prog(ctx, true); }

SEC("tracepoint")
int trace_tp_bounded(void *ctx) { return tp_prog(ctx, false); }

/* A function's @raw bytes of u64s in e->data, then its string slots (typed
 * arguments: the probe's config), then the event out. */
static __always_inline void args_send(void *ctx, struct trace_record *e,
				      __u32 raw)
{
	__u32 key = e->cookie, pos = raw;
	struct trace_probe_cfg *cfg = bpf_map_lookup_elem(&cfgs, &key);

	e->raw_size = raw;
	for (int i = 0; cfg && i < TRACE_MAX_STRS; i++) {
		if (i >= cfg->nstr)
			break;
		pos = read_str(e->data, e, &cfg->str[i], i, pos);
	}
	event_send(ctx, e, pos);
}

static __always_inline int send_args(struct pt_regs *ctx, __u64 index)
{
	struct trace_record *e;
	__u64 *a;
	__u32 raw;

	if (index >= TRACE_MAX_PROBES)
		return 0;
	e = event_start(index);
	if (!e)
		return 0;
	a = (__u64 *)e->data;
	a[0] = PT_REGS_PARM1(ctx);
	a[1] = PT_REGS_PARM2(ctx);
	a[2] = PT_REGS_PARM3(ctx);
	a[3] = PT_REGS_PARM4(ctx);
	a[4] = PT_REGS_PARM5(ctx);
#if defined(__TARGET_ARCH_x86)
	a[5] = ctx->r9;		/* libbpf 1.1 has no PT_REGS_PARM6 */
#else
	a[5] = 0;
#endif
	raw = members_of(index, e->data, TRACE_MAX_ARGS * 8);
	if (!event_filter(a, e))
		return 0;
	args_send(ctx, e, raw);
	return 0;
}

/* raw bytes of data: @raw, or up to a duration event_start() wrote */
static __always_inline __u32 with_lat(const struct trace_record *e, __u32 raw)
{
	return e->raw_size > raw ? e->raw_size : raw;
}

static __always_inline int send_ret(struct pt_regs *ctx)
{
	struct trace_record *e = event_start(probe_index(ctx));
	__u32 raw;

	if (!e)
		return 0;
	raw = with_lat(e, 8);
	/* a fexit fallen back to a kretprobe: its duration after the
	 * arguments a kretprobe cannot read, which are 0 */
	for (int i = 1; i < TRACE_MAX_ARGS + 1; i++)
		if (raw > i * 8 + 8)
			((__u64 *)e->data)[i] = 0;
	*(__u64 *)e->data = PT_REGS_RC(ctx);
	if (!event_filter(e->data, e))
		return 0;
	e->raw_size = raw;
	event_send(ctx, e, raw);
	return 0;
}

/* The kprobe's index; TRACE_BY_IP: from the address its hit left in ip
 * (one past the probed byte, whether int3 or ftrace, as
 * bpf_get_func_ip() takes it on the kernels that have it) */
static __always_inline __u64 kprobe_index(struct pt_regs *ctx)
{
	__u64 ip = PT_REGS_IP(ctx) - 1;
	__u32 *i;

	if (kfeat_cookie)
		return bpf_get_attach_cookie(ctx);
	if (probe_cookie != TRACE_BY_IP)
		return probe_cookie;
	i = bpf_map_lookup_elem(&kprobe_ip, &ip);
	return i ? *i : TRACE_MAX_PROBES;
}

SEC("kprobe")
int trace_kprobe(struct pt_regs *ctx) { return send_args(ctx, kprobe_index(ctx)); }

SEC("kretprobe")
int trace_kretprobe(struct pt_regs *ctx) { return send_ret(ctx); }

/* kprobe:GLOB: every function in one link (Linux >= 5.18, CONFIG_FPROBE) */
SEC("kprobe.multi")
int trace_kprobe_multi(struct pt_regs *ctx) { return send_args(ctx, probe_index(ctx)); }

SEC("kretprobe.multi")
int trace_kretprobe_multi(struct pt_regs *ctx) { return send_ret(ctx); }

SEC("uprobe")
int trace_uprobe(struct pt_regs *ctx) { return send_args(ctx, probe_index(ctx)); }

SEC("uretprobe")
int trace_uretprobe(struct pt_regs *ctx) { return send_ret(ctx); }

/* uprobes of one binary in one uprobe_multi link (Linux >= 6.6): loaded
 * alone as BPF_TRACE_UPROBE_MULTI, which libbpf 1.1 has no section for
 * (tools/trace/umulti.c) */
SEC("kprobe")
int trace_uprobe_multi(struct pt_regs *ctx) { return send_args(ctx, probe_index(ctx)); }

SEC("kprobe")
int trace_uretprobe_multi(struct pt_regs *ctx) { return send_ret(ctx); }

static __always_inline void send_n(void *ctx, struct trace_record *e)
{
	__u32 n = nargs > TRACE_MAX_ARGS ? TRACE_MAX_ARGS : nargs;
	__u32 raw = members_of(probe_cookie, e->data, n * 8);

	if (!event_filter(e->data, e))
		return;
	args_send(ctx, e, raw);
}

/* tp_btf's and raw_tp's arguments: u64s in the context, nargs of them
 * (each read at a fixed offset, as the verifier wants) */
static __always_inline int send_ctx_args(void *ctx, const __u64 *args)
{
	struct trace_record *e = event_start(probe_cookie);
	__u64 *a;

	if (!e)
		return 0;
	a = (__u64 *)e->data;
	a[0] = nargs > 0 ? args[0] : 0;
	a[1] = nargs > 1 ? args[1] : 0;
	a[2] = nargs > 2 ? args[2] : 0;
	a[3] = nargs > 3 ? args[3] : 0;
	a[4] = nargs > 4 ? args[4] : 0;
	a[5] = nargs > 5 ? args[5] : 0;
	send_n(ctx, e);
	return 0;
}

SEC("tp_btf")
int trace_tp_btf(__u64 *ctx)
{
	return send_ctx_args(ctx, ctx);
}

SEC("raw_tp")
int trace_raw_tp(struct bpf_raw_tracepoint_args *ctx)
{
	return send_ctx_args(ctx, ctx->args);
}

/* Slot @i of a trampoline's context (a constant: the loop is unrolled,
 * nargs a constant). Through a helper: before 5.12 the verifier refuses a
 * direct read of an argument that points to anything but a struct
 * (vfs_read's loff_t *pos). Where bpf_get_func_arg() is missing (5.17). */
static __always_inline __u64 ctx_arg(void *ctx, __u32 i)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), ctx + i * 8);
	return v;
}

/* fentry's and fexit's arguments into @a, as many as the function has
 * (TRACE_MAX_ARGS at the most; the rest 0): how many. Without
 * bpf_get_func_arg_cnt(), nargs: the function's count from BTF, set by
 * userspace. */
static __always_inline __u64 func_args(void *ctx, __u64 *a)
{
	__u64 cnt;

	if (!kfeat_func_arg) {
		cnt = nargs > TRACE_MAX_ARGS ? TRACE_MAX_ARGS : nargs;
#pragma unroll
		for (int i = 0; i < TRACE_MAX_ARGS; i++)
			a[i] = i < cnt ? ctx_arg(ctx, i) : 0;
		return cnt;
	}
	cnt = bpf_get_func_arg_cnt(ctx);
	if (cnt > TRACE_MAX_ARGS)
		cnt = TRACE_MAX_ARGS;
	for (int i = 0; i < TRACE_MAX_ARGS; i++) {
		a[i] = 0;
		if (i < cnt)
			bpf_get_func_arg(ctx, i, &a[i]);
	}
	return cnt;
}

/* the return value (after the arguments) */
static __always_inline __u64 func_ret(void *ctx)
{
	__u64 v = 0;

	if (!kfeat_func_arg)
		return ctx_arg(ctx, nargs);
	bpf_get_func_ret(ctx, &v);
	return v;
}

SEC("fentry")
int trace_fentry(void *ctx)
{
	struct trace_record *e = event_start(probe_cookie);
	__u64 cnt, *a;
	__u32 raw;

	if (!e)
		return 0;
	a = (__u64 *)e->data;
	cnt = func_args(ctx, a);
	raw = members_of(probe_cookie, e->data, cnt * 8);
	if (event_filter(a, e))
		args_send(ctx, e, raw);
	return 0;
}

/* The return value first (what a record of an exit probe starts with),
 * then the arguments, as the function had them */
SEC("fexit")
int trace_fexit(void *ctx)
{
	struct trace_record *e = event_start(probe_cookie);
	__u64 cnt, *a;
	__u32 raw;

	if (!e)
		return 0;
	raw = with_lat(e, 0);
	a = (__u64 *)e->data;
	a[0] = func_ret(ctx);
	cnt = func_args(ctx, a + 1);
	raw = members_of(probe_cookie, e->data, (cnt + 1) * 8 > raw ? (cnt + 1) * 8 : raw);
	if (event_filter(a, e))
		args_send(ctx, e, raw);
	return 0;
}

#include "trace_syscalls.bpf.h"
