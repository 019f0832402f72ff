// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ring buffer records past 64 KiB (a perf record's bound, not a ring
 * buffer's): the test's bytes, whole */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <perfbuf/bpf.h>

const volatile __u32 target_pid = 0;

struct run_big {
	unsigned int seq;
	char text[80000];
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);
} big SEC(".maps");

PERFBUF_EVENT(big, struct run_big);

SEC("tracepoint/syscalls/sys_enter_write")
int ringbig_write(struct trace_event_raw_sys_enter *ctx)
{
	struct run_big *e;

	if ((int)ctx->args[0] != -1 || ctx->args[2] != sizeof(*e) ||
	    bpf_get_current_pid_tgid() >> 32 != target_pid)
		return 0;
	e = bpf_ringbuf_reserve(&big, sizeof(*e), 0);
	if (!e)
		return 0;
	if (bpf_probe_read_user(e, sizeof(*e), (void *)ctx->args[1]))
		__builtin_memset(e, 0, 8);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
