// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tests/test_ledger.c: records of a chosen kind, count and size written
 * with perfbuf_output() (BPF_PROG_TEST_RUN on a CPU: args kind, count,
 * size), and the same without it (raw_emit: a writer the ledger does not
 * see, so that the library's check has something to catch) */
#include "common.bpf.h"
#include <perfbuf/bpf.h>

enum ledger_test_kind { LT_OPEN, LT_EXEC, LT_CNT };

PERFBUF_LEDGER(LT_CNT);
PERFBUF_LEDGER_KINDS(enum ledger_test_kind);

#define LT_MAX_COUNT 512
#define LT_MAX_SIZE 1024

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8[LT_MAX_SIZE]);
} lt_buf SEC(".maps");

static __always_inline int lt_emit(struct bpf_raw_tracepoint_args *ctx,
				   bool counted)
{
	__u32 kind = ctx->args[0], zero = 0;
	__u64 count = ctx->args[1], size = ctx->args[2];
	__u8 *buf = bpf_map_lookup_elem(&lt_buf, &zero);

	if (!buf || size < 8 || size > LT_MAX_SIZE)
		return 1;
	for (__u32 i = 0; i < LT_MAX_COUNT && i < count; i++) {
		*(__u64 *)buf = i;
		if (counted)
			perfbuf_output(ctx, &events, kind, buf, size);
		else
			bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU,
					      buf, size);
	}
	return 0;
}

SEC("raw_tp")
int ledger_emit(struct bpf_raw_tracepoint_args *ctx)
{
	return lt_emit(ctx, true);
}

SEC("raw_tp")
int raw_emit(struct bpf_raw_tracepoint_args *ctx)
{
	return lt_emit(ctx, false);
}
