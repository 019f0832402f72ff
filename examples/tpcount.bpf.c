// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "tpcount.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* set before load: only this process (0: every process) */
const volatile int target_pid = 0;

/* records the program tried to write: received + lost must add up to it */
__u64 offered = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} events SEC(".maps");

/* attached by userspace to the tracepoint named on the command line */
SEC("tp")
int count_hit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct tpcount_hit h = { .pid = id >> 32, .tid = (__u32)id };

	if (target_pid && h.pid != target_pid)
		return 0;
	__sync_fetch_and_add(&offered, 1);
	/* a full ring makes this fail with -ENOSPC: the kernel counts it */
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &h, sizeof(h));
	return 0;
}
