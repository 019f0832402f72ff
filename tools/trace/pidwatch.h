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

/* Watch @pid (0: nothing): a pidfd that wakes @pb's poll when it exits,
 * or, without pidfds (ENOSYS, a thread not a leader), a look at each
 * wake-up. Never fails: the worst is the look. */
void pidwatch_open(struct pidwatch *w, pid_t pid, struct perfbuf *pb);
/* Has the process exited (a zombie counts)? */
bool pidwatch_gone(const struct pidwatch *w);
void pidwatch_close(struct pidwatch *w);

#endif
