// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <perfbuf/bpf.h>

#include "proctrack.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* set before load: exits of processes that ran less are not reported */
const volatile unsigned long long min_duration_ns = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} events SEC(".maps");

/* every output counted by its outcome, per kind (PROC_EXEC, PROC_EXIT) */
PERFBUF_LEDGER(PROC_EXIT + 1);
PERFBUF_LEDGER_KINDS(enum proctrack_kind);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, pid_t);
	__type(value, u64);
} exec_start SEC(".maps");

SEC("tp/sched/sched_process_exec")
int handle_exec(struct trace_event_raw_sched_process_exec *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	unsigned int off = ctx->__data_loc_filename & 0xffff;
	struct proctrack_event e = {};
	u64 ts = bpf_ktime_get_ns();

	e.kind = PROC_EXEC;
	e.pid = bpf_get_current_pid_tgid() >> 32;
	e.ppid = BPF_CORE_READ(task, real_parent, tgid);
	bpf_map_update_elem(&exec_start, &e.pid, &ts, BPF_ANY);
	bpf_get_current_comm(e.comm, sizeof(e.comm));
	bpf_probe_read_kernel_str(e.filename, sizeof(e.filename), (void *)ctx + off);
	/* the record's time comes from the kernel (the collector's timestamps) */
	perfbuf_output(ctx, &events, PROC_EXEC, &e, sizeof(e));
	return 0;
}

SEC("tp/sched/sched_process_exit")
int handle_exit(struct trace_event_raw_sched_process_template *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	u64 id = bpf_get_current_pid_tgid(), *start, duration_ns = 0;
	struct proctrack_event e = {};
	pid_t pid = id >> 32;

	if (pid != (u32)id)	/* a thread ends, not the process */
		return 0;
	start = bpf_map_lookup_elem(&exec_start, &pid);
	if (start)
		duration_ns = bpf_ktime_get_ns() - *start;
	else if (min_duration_ns)
		return 0;
	bpf_map_delete_elem(&exec_start, &pid);
	if (min_duration_ns && duration_ns < min_duration_ns)
		return 0;
	e.kind = PROC_EXIT;
	e.pid = pid;
	e.ppid = BPF_CORE_READ(task, real_parent, tgid);
	e.exit_code = (BPF_CORE_READ(task, exit_code) >> 8) & 0xff;
	e.duration_ns = duration_ns;
	bpf_get_current_comm(e.comm, sizeof(e.comm));
	perfbuf_output(ctx, &events, PROC_EXIT, &e,
		       __builtin_offsetof(struct proctrack_event, filename));
	return 0;
}
