// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A program that writes with perfbuf_output(): each record of the test
 * (write(-1, rec)) counted as the kind it carries (run_check.py's
 * ledger_kinds: run's and report's summaries per kind) */
#include "common.bpf.h"
#include <perfbuf/bpf.h>
#include "test_write.bpf.h"

struct run_ledger_event {
	__u32 kind;		/* RL_*, or out of range */
	__u32 seq;
};

enum run_ledger_kind { RL_SMALL, RL_BIG, RL_CNT };

const volatile __u32 target_pid = 0;

PERFBUF_EVENT(events, struct run_ledger_event);
PERFBUF_LEDGER(RL_CNT);
PERFBUF_LEDGER_KINDS(enum run_ledger_kind);

SEC("tracepoint/syscalls/sys_enter_write")
int run_ledger(struct trace_event_raw_sys_enter *ctx)
{
	struct run_ledger_event e;

	if (test_write_read(ctx, &e, sizeof(e), target_pid))
		return 0;
	perfbuf_output(ctx, &events, e.kind, &e, sizeof(e));
	return 0;
}
