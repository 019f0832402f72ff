/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* syscalls.c */
#ifndef PERFBUF_TRACE_SYSCALLS_H
#define PERFBUF_TRACE_SYSCALLS_H

/* The number of syscall NAME ("openat", "newstat"), or -1. */
int syscall_nr(const char *name);

#endif
