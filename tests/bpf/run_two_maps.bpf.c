// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Two maps to read: `events` of struct run_event with no marker (its type
 * from --header and --type events:run_event) and a RINGBUF of struct
 * run_tail named by its marker, which --type does not name */
#include "common.bpf.h"
#include <perfbuf/bpf.h>
#include "run_test.h"
#include "test_write.bpf.h"

const volatile __u32 target_pid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} tails SEC(".maps");

PERFBUF_EVENT(tails, struct run_tail);

SEC("tracepoint/syscalls/sys_enter_write")
int two_write(struct trace_event_raw_sys_enter *ctx)
{
	struct run_event e;

	if (test_write_read(ctx, &e, sizeof(e), target_pid))
		return 0;
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}
