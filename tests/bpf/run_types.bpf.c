// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A perf event array of struct run_event, named by the marker; --set
 * target_pid (the test's), tag (copied into each record). */
#include "common.bpf.h"
#include <perfbuf/bpf.h>
#include "run_test.h"
#include "test_write.bpf.h"

const volatile __u32 target_pid = 0;
const volatile char tag[8] = "none";
const volatile bool mark = false;

PERFBUF_EVENT(events, struct run_event);

SEC("tracepoint/syscalls/sys_enter_write")
int run_write(struct trace_event_raw_sys_enter *ctx)
{
	struct run_event e;

	if (test_write_read(ctx, &e, sizeof(e), target_pid))
		return 0;
	for (int i = 0; i < 8; i++)
		e.tag[i] = tag[i];
	if (mark)
		e.ok = true;
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}
