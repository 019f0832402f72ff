// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Syscall numbers by the names of the syscall tracepoints, so that
 * sys_enter_NAME and sys_exit_NAME can go through the raw tracepoints
 * sys_enter/sys_exit (bpf/trace_syscalls.bpf.h). The numbers are the
 * kernel headers' (<asm/unistd.h> at build time: the syscall ABI never
 * renumbers); the running kernel does not publish its own (its syscall
 * metadata table is init data, gone after boot). A name missing there, a
 * syscall newer than the headers, attaches as a perf event instead.
 */
#include <string.h>

#include "syscalls.h"
#include "trace.h"	/* TRACE_MAX_SYSCALLS */

#if defined(__x86_64__)		/* trace_syscalls.bpf.h reads x86-64 registers */
static const struct {
	const char *name;
	int nr;
} nrs[] = {
#include "syscall_names.h"
};

/* tracepoint name -> <asm/unistd.h> name, where they differ (x86-64's
 * syscall_64.tbl: stat -> sys_newstat, ...) */
static const char *const renamed[][2] = {
	{ "newstat", "stat" }, { "newfstat", "fstat" }, { "newlstat", "lstat" },
	{ "newuname", "uname" }, { "umount", "umount2" }, { "sendfile64", "sendfile" },
};

int syscall_nr(const char *name)
{
	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (!strcmp(name, renamed[i][0]))
			name = renamed[i][1];
	for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++)
		if (!strcmp(nrs[i].name, name))
			return nrs[i].nr < TRACE_MAX_SYSCALLS ? nrs[i].nr : -1;
	return -1;
}
#else
int syscall_nr(const char *name)
{
	(void)name;
	return -1;
}
#endif
