/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracepoint:syscalls:sys_enter_NAME and sys_exit_NAME through the raw
 * tracepoints sys_enter and sys_exit: one link each, whatever the number
 * of syscalls traced (a tracepoint's perf event costs the kernel ~40 ms
 * of RCU waits to detach, one after the other; a raw tracepoint link
 * nothing). The record the syscall tracepoint would have written is built
 * here from the registers, the way the kernel builds it (x86-64 only; tp_btf
 * where the kernel has BTF, raw_tp otherwise):
 *   common fields (8 bytes, never printed), int __syscall_nr at 8,
 *   then the arguments as unsigned longs at 16 (sys_exit: long ret at 16).
 * Included at the end of trace.bpf.c.
 */
#ifndef TRACE_SYSCALLS_BPF_H
#define TRACE_SYSCALLS_BPF_H

#include <bpf/bpf_core_read.h>

/* [nr * 2 + is_exit]: 1 + the probe's index, 0 when not traced */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACE_MAX_SYSCALLS * 2);
	__type(key, __u32);
	__type(value, __u32);
} syscall_probe SEC(".maps");

struct syscall_rec {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__u64 args[TRACE_MAX_ARGS];
};

#define TS_COMPAT 0x0002	/* arch/x86/include/asm/thread_info.h */

/*
 * The event of syscall @id for its probe, if one traces it, with the
 * record's number filled; NULL otherwise. The syscall tracepoints leave
 * out 32-bit syscalls (@compat: their numbers differ), so do we.
 */
static __always_inline struct trace_record *syscall_begin(long id, bool is_exit,
							  bool compat)
{
	__u32 key = id * 2 + is_exit, *probe;
	struct syscall_rec *r;
	struct trace_record *e;

	if (id < 0 || id >= TRACE_MAX_SYSCALLS || compat)
		return NULL;
	probe = bpf_map_lookup_elem(&syscall_probe, &key);
	if (!probe || !*probe)
		return NULL;
	e = event_start(*probe - 1);
	if (!e)
		return NULL;
	r = (void *)e->data;
	r->common = 0;
	r->nr = id;
	r->pad = 0;
	return e;
}

/* The record's arguments are in: filter it, read its strings, send it;
 * @loop: tp_send()'s (each program has a _bounded twin: execve's argv) */
static __always_inline int syscall_end(void *ctx, struct trace_record *e,
				       bool loop)
{
	__u32 key = e->cookie, raw;
	struct trace_probe_cfg *cfg = bpf_map_lookup_elem(&cfgs, &key);

	if (!cfg) {
		scratch_put();
		return 0;
	}
	if (!event_filter(e->data, e))
		return 0;
	raw = cfg->raw_size;
	if (raw > sizeof(struct syscall_rec))
		raw = sizeof(struct syscall_rec);
	tp_send(ctx, e->data, e, cfg, raw, loop);
	return 0;
}

/* The programs exist on every architecture (the tools name them); they
 * read x86-64 registers, and syscalls.c gives no numbers elsewhere. */

/* A 32-bit task's syscall: read through bpf_probe_read_kernel() (raw_tp,
 * and tp_btf before 5.11: no bpf_get_current_task_btf()) */
static __always_inline bool compat_raw(void)
{
#if defined(__TARGET_ARCH_x86)
	struct task_struct *t = (void *)bpf_get_current_task();

	return BPF_CORE_READ(t, thread_info.status) & TS_COMPAT;
#else
	return true;
#endif
}

/* A 32-bit task's syscall, where tp_btf runs */
static __always_inline bool compat_btf(void)
{
#if defined(__TARGET_ARCH_x86)
	struct task_struct *t;

	if (!kfeat_task_btf)
		return compat_raw();
	t = bpf_get_current_task_btf();
	return t->thread_info.status & TS_COMPAT;
#else
	return true;
#endif
}

/* With BTF (tp_btf): the registers read directly, no helper calls. */
static __always_inline int sys_enter_btf(u64 *ctx, struct pt_regs *regs, long id,
					 bool loop)
{
#if defined(__TARGET_ARCH_x86)
	struct trace_record *e = syscall_begin(id, false, compat_btf());
	struct syscall_rec *r;

	if (!e)
		return 0;
	r = (void *)e->data;
	r->args[0] = regs->di;
	r->args[1] = regs->si;
	r->args[2] = regs->dx;
	r->args[3] = regs->r10;
	r->args[4] = regs->r8;
	r->args[5] = regs->r9;
	return syscall_end(ctx, e, loop);
#else
	return 0;
#endif
}

static __always_inline int sys_exit_btf(u64 *ctx, struct pt_regs *regs, long ret,
					bool loop)
{
#if defined(__TARGET_ARCH_x86)
	struct trace_record *e = syscall_begin(regs->orig_ax, true, compat_btf());

	if (!e)
		return 0;
	((struct syscall_rec *)e->data)->args[0] = ret;
	return syscall_end(ctx, e, loop);
#else
	return 0;
#endif
}

/* Without BTF (raw_tp): the registers through bpf_probe_read_kernel(). */
static __always_inline int sys_enter_raw(struct bpf_raw_tracepoint_args *ctx, bool loop)
{
#if defined(__TARGET_ARCH_x86)
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	struct trace_record *e = syscall_begin(ctx->args[1], false, compat_raw());
	struct syscall_rec *r;

	if (!e)
		return 0;
	r = (void *)e->data;
	r->args[0] = BPF_CORE_READ(regs, di);
	r->args[1] = BPF_CORE_READ(regs, si);
	r->args[2] = BPF_CORE_READ(regs, dx);
	r->args[3] = BPF_CORE_READ(regs, r10);
	r->args[4] = BPF_CORE_READ(regs, r8);
	r->args[5] = BPF_CORE_READ(regs, r9);
	return syscall_end(ctx, e, loop);
#else
	return 0;
#endif
}

static __always_inline int sys_exit_raw(struct bpf_raw_tracepoint_args *ctx, bool loop)
{
#if defined(__TARGET_ARCH_x86)
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	struct trace_record *e = syscall_begin(BPF_CORE_READ(regs, orig_ax), true,
					       compat_raw());

	if (!e)
		return 0;
	((struct syscall_rec *)e->data)->args[0] = ctx->args[1];
	return syscall_end(ctx, e, loop);
#else
	return 0;
#endif
}

/* The programs and their twins without bpf_loop() (see trace.bpf.c) */
SEC("tp_btf/sys_enter")
int BPF_PROG(trace_sys_enter_btf, struct pt_regs *regs, long id)
{
	return sys_enter_btf(ctx, regs, id, true);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(trace_sys_enter_btf_bounded, struct pt_regs *regs, long id)
{
	return sys_enter_btf(ctx, regs, id, false);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(trace_sys_exit_btf, struct pt_regs *regs, long ret)
{
	return sys_exit_btf(ctx, regs, ret, true);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(trace_sys_exit_btf_bounded, struct pt_regs *regs, long ret)
{
	return sys_exit_btf(ctx, regs, ret, false);
}

SEC("raw_tp/sys_enter")
int trace_sys_enter(struct bpf_raw_tracepoint_args *ctx) { return sys_enter_raw(ctx, true); }

SEC("raw_tp/sys_enter")
int trace_sys_enter_bounded(struct bpf_raw_tracepoint_args *ctx) { return sys_enter_raw(ctx, false); }

SEC("raw_tp/sys_exit")
int trace_sys_exit(struct bpf_raw_tracepoint_args *ctx) { return sys_exit_raw(ctx, true); }

SEC("raw_tp/sys_exit")
int trace_sys_exit_bounded(struct bpf_raw_tracepoint_args *ctx) { return sys_exit_raw(ctx, false); }

#endif
