/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The tracepoints that fit a kernel function that cannot be probed
 * (hint.c): a syscall's own, the scheduler's, its subsystem's, or none. */
#ifndef PERFBUF_TRACE_HINT_H
#define PERFBUF_TRACE_HINT_H

#include <stdbool.h>

struct kfunc_hint {
	char tps[512];		/* probes for the command line, space-separated */
	const char *why;	/* "of the syscalls that reach it" */
};

/* The tracepoints of this kernel that fit function @func (@ret: a return
 * probe, so syscalls' sys_exit_) into @h: false when none does. */
bool kfunc_hint(const char *func, bool ret, struct kfunc_hint *h);

#endif
