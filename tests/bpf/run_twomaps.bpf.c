// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Two perf event arrays, one record into each per write: perfbuf run's
 * text output with several maps (MAP FIELDS under its header) */
#include "common.bpf.h"
#include <perfbuf/bpf.h>
#include "run_test.h"

const volatile __u32 target_pid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} second SEC(".maps");

PERFBUF_EVENT(events, struct run_tail);
PERFBUF_EVENT(second, struct run_tail);

SEC("tracepoint/syscalls/sys_enter_write")
int twomaps_write(struct trace_event_raw_sys_enter *ctx)
{
	struct run_tail e = {};

	if ((int)ctx->args[0] != -1 || bpf_get_current_pid_tgid() >> 32 != target_pid)
		return 0;
	e.seq = ctx->args[2];
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &e, sizeof(e));
	e.len = 1;
	bpf_perf_event_output(ctx, &second, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}
