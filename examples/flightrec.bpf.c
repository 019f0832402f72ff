// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <perfbuf/bpf.h>

#include "flightrec.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* set before load: only this process (0: every process) */
const volatile int target_pid = 0;

/* records written so far: the next one's seq */
__u64 next_seq = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} events SEC(".maps");

/* every output counted: written (into the rings), or no reader yet */
PERFBUF_LEDGER(1);

SEC("tp/raw_syscalls/sys_enter")
int record_syscall(struct trace_event_raw_sys_enter *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct flightrec_event e = { .pid = id >> 32, .tid = (__u32)id };

	if (target_pid && e.pid != target_pid)
		return 0;
	e.nr = ctx->id;
	e.seq = __sync_fetch_and_add(&next_seq, 1);
	bpf_get_current_comm(e.comm, sizeof(e.comm));
	/* an overwrite ring: the oldest records make room, nothing is lost */
	perfbuf_output(ctx, &events, 0, &e, sizeof(e));
	return 0;
}
