// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The README's agents and python/examples/opensnoop.py: every openat(),
 * its pid, command and file name. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <perfbuf/bpf.h>

struct event {
	__u32 pid;
	char comm[16];
	char filename[64];
};

const volatile __u32 target_pid = 0;	/* 0: every process */

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

PERFBUF_EVENT(events, struct event);
PERFBUF_LEDGER(1);	/* every output counted by its outcome */

SEC("tracepoint/syscalls/sys_enter_openat")
int opensnoop(struct trace_event_raw_sys_enter *ctx)
{
	struct event e = { .pid = bpf_get_current_pid_tgid() >> 32 };

	if (target_pid && e.pid != target_pid)
		return 0;
	bpf_get_current_comm(e.comm, sizeof(e.comm));
	bpf_probe_read_user_str(e.filename, sizeof(e.filename), (void *)ctx->args[1]);
	perfbuf_output(ctx, &events, 0, &e, sizeof(e));
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
