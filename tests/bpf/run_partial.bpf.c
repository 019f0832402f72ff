// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Two programs, one of which cannot be attached (no such tracepoint):
 * perfbuf run attaches the other, and says which one failed and why */
#include "common.bpf.h"
#include "run_test.h"

const volatile __u32 target_pid = 0;

SEC("tracepoint/perfbuf_test/no_such_event")
int missing(void *ctx)
{
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_write")
int partial_write(struct trace_event_raw_sys_enter *ctx)
{
	struct run_tail e = {};

	if ((int)ctx->args[0] != -1 || bpf_get_current_pid_tgid() >> 32 != target_pid)
		return 0;
	e.seq = ctx->args[2];
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}
