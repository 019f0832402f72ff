// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* struct run_nested records, the test's bytes: a string inside a nested
 * struct, escaped and cut-marked as a top-level one */
#include "common.bpf.h"
#include <perfbuf/bpf.h>
#include "run_test.h"

const volatile __u32 target_pid = 0;

PERFBUF_EVENT(events, struct run_nested);

SEC("tracepoint/syscalls/sys_enter_write")
int nested_write(struct trace_event_raw_sys_enter *ctx)
{
	struct run_nested e = {};

	if ((int)ctx->args[0] != -1 || ctx->args[2] != sizeof(e) ||
	    bpf_get_current_pid_tgid() >> 32 != target_pid)
		return 0;
	if (bpf_probe_read_user(&e, sizeof(e), (void *)ctx->args[1]))
		return 0;
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}
