// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A perf event array of struct run_bits (a bitfield ending the struct,
 * signed char enums), named by the marker; --set target_pid. */
#include "common.bpf.h"
#include <perfbuf/bpf.h>
#include "run_test.h"
#include "test_write.bpf.h"

const volatile __u32 target_pid = 0;

PERFBUF_EVENT(events, struct run_bits);

SEC("tracepoint/syscalls/sys_enter_write")
int bits_write(struct trace_event_raw_sys_enter *ctx)
{
	struct run_bits e;

	if (test_write_read(ctx, &e, sizeof(e), target_pid))
		return 0;
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}
