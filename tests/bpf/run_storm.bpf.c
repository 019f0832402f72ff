// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench's part "run": the getpgid() storm's calls of one process
 * as typed records, the fields `perfbuf trace` prints for the same
 * tracepoint (its task, its argument) */
#include "common.bpf.h"
#include <perfbuf/bpf.h>

const volatile __u32 target_pid = 0;

struct storm_event {
	__u32 pid;
	__u32 tid;
	__s64 arg;
	char comm[16];
};

PERFBUF_EVENT(events, struct storm_event);

SEC("tracepoint/syscalls/sys_enter_getpgid")
int storm_getpgid(struct trace_event_raw_sys_enter *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct storm_event e = { .pid = id >> 32, .tid = (__u32)id, .arg = ctx->args[0] };

	if (e.pid != target_pid)
		return 0;
	bpf_get_current_comm(e.comm, sizeof(e.comm));
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}
