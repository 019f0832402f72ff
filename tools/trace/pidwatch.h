/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* -p PID: the run ends when the process does (pidwatch.c). */
#ifndef PERFBUF_TRACE_PIDWATCH_H
#define PERFBUF_TRACE_PIDWATCH_H

#include <stdbool.h>
#include <sys/types.h>

struct perfbuf;

struct pidwatch {
	pid_t pid;	/* 0: none watched */
	int fd;		/* its pidfd in the collector's epoll set; -1: none */
};

/* Watch @pid (0: nothing): a pidfd that wakes @pb's poll when it exits
 * (@pb NULL: a pidfd looked at by pidwatch_gone() only), or, without
 * pidfds (ENOSYS), a look at /proc. Never fails: the worst is the look. */
void pidwatch_open(struct pidwatch *w, pid_t pid, struct perfbuf *pb);
/* Has the process exited (a zombie counts)? */
bool pidwatch_gone(const struct pidwatch *w);
/* -p @pid is a process, not a thread of one: 0, or -EINVAL after one
 * line "@prog: -p TID is a thread of process PID: ..." */
int pidwatch_check_leader(const char *prog, pid_t pid);
void pidwatch_close(struct pidwatch *w);

#endif
