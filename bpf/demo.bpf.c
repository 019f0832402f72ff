// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "common.bpf.h"
#include <bpf/bpf_core_read.h>

#include "demo.h"

SEC("tracepoint/sched/sched_process_exec")
int on_exec(struct trace_event_raw_sched_process_exec *ctx)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	unsigned int off = ctx->__data_loc_filename & 0xffff;
	struct demo_event e = {};

	e.time_ns = bpf_ktime_get_ns();
	e.pid = bpf_get_current_pid_tgid() >> 32;
	e.ppid = BPF_CORE_READ(task, real_parent, tgid);
	bpf_get_current_comm(e.comm, sizeof(e.comm));
	bpf_probe_read_kernel_str(e.filename, sizeof(e.filename),
				  (void *)ctx + off);
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}
