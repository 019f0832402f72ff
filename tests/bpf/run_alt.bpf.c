// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Alternatives, as libbpf-tools objects carry them: one tracepoint by
 * tp_btf and by raw_tp (the raw_tp calls a helper raw_tp may not call, as
 * tcppktlat's does), and an fentry beside them (some kernels refuse it).
 * perfbuf run loads the tp_btf only: one record per write, not two. */
#include "common.bpf.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "run_test.h"

#define NR_WRITE 1	/* x86_64 */

const volatile __u32 target_pid = 0;

static int out(void *ctx, long fd, long len, unsigned int tag)
{
	struct run_tail e = {};

	if (fd != -1 || bpf_get_current_pid_tgid() >> 32 != target_pid)
		return 0;
	e.seq = len;
	e.len = tag;
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(alt_btf, struct pt_regs *regs, long id)
{
	if (id != NR_WRITE)
		return 0;
	return out(ctx, (int)BPF_CORE_READ(regs, di), BPF_CORE_READ(regs, dx), 1);
}

SEC("raw_tp/sys_enter")
int BPF_PROG(alt_raw, struct pt_regs *regs, long id)
{
	if (id != NR_WRITE || !bpf_get_socket_cookie(ctx))
		return 0;
	return out(ctx, (int)BPF_CORE_READ(regs, di), BPF_CORE_READ(regs, dx), 2);
}

SEC("fentry/ksys_write")
int BPF_PROG(alt_fentry, unsigned int fd, const char *buf, size_t count)
{
	return out(ctx, (int)fd, count, 3);
}
