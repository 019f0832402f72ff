// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A RINGBUF of struct run_tail records, each as long as the bytes the
 * test wrote: a variable tail (execsnoop's args) */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <perfbuf/bpf.h>
#include "run_test.h"

const volatile __u32 target_pid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} rb SEC(".maps");

PERFBUF_EVENT(rb, struct run_tail);

SEC("tracepoint/syscalls/sys_enter_write")
int ringbuf_write(struct trace_event_raw_sys_enter *ctx)
{
	__u64 n = ctx->args[2];
	struct run_tail e;

	if ((int)ctx->args[0] != -1 || n < 8 || n > sizeof(e) ||
	    bpf_get_current_pid_tgid() >> 32 != target_pid)
		return 0;
	if (bpf_probe_read_user(&e, sizeof(e), (void *)ctx->args[1]))
		return 0;
	bpf_ringbuf_output(&rb, &e, n, 0);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
