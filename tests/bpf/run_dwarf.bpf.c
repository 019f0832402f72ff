// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* struct event only as a local variable's type: clang leaves it out of
 * BTF, the DWARF of this -g build has it (as libbpf-tools' exitsnoop) */
#include "common.bpf.h"
#include "test_write.bpf.h"

const volatile __u32 target_pid = 0;

struct event {
	__u32 seq;
	__s16 delta;
	char name[12];
	__u64 value;
};

SEC("tracepoint/syscalls/sys_enter_write")
int dwarf_write(struct trace_event_raw_sys_enter *ctx)
{
	struct event e;

	if (test_write_read(ctx, &e, sizeof(e), target_pid))
		return 0;
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}
