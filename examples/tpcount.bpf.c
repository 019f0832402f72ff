// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <perfbuf/bpf.h>

#include "tpcount.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* set before load: only this process (0: every process) */
const volatile int target_pid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} events SEC(".maps");

/* every output counted by its outcome: offered = received + lost + no reader */
PERFBUF_LEDGER(1);

/* attached by userspace to the tracepoint named on the command line */
SEC("tp")
int count_hit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct tpcount_hit h = { .pid = id >> 32, .tid = (__u32)id };

	if (target_pid && h.pid != target_pid)
		return 0;
	/* bpf_perf_event_output(), its outcome counted in perfbuf_ledger (kind 0):
	 * -ENOSPC (a full ring, the kernel's lost), -ENOENT (no ring yet) */
	perfbuf_output(ctx, &events, 0, &h, sizeof(h));
	return 0;
}
