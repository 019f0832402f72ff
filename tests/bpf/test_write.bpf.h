/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How the tests of `perfbuf run` hand a BPF program a record: they call
 * write(-1, rec, size) (it fails, EBADF, after the tracepoint), and the
 * program copies rec from the writer's memory (run_test.h).
 */
#ifndef TEST_WRITE_BPF_H
#define TEST_WRITE_BPF_H

/* Is this write the test's record of @size bytes, from process @pid?
 * Then copy it into @rec: 0. Else (or when it cannot be read) -1. */
static __always_inline int test_write_read(struct trace_event_raw_sys_enter *ctx,
					   void *rec, __u32 size, __u32 pid)
{
	if ((int)ctx->args[0] != -1 || ctx->args[2] != size ||
	    bpf_get_current_pid_tgid() >> 32 != pid)
		return -1;
	return bpf_probe_read_user(rec, size, (void *)ctx->args[1]) ? -1 : 0;
}

#endif /* TEST_WRITE_BPF_H */
