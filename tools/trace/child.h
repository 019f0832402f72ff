/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* -c CMD: the command a run starts and traces (child.c). */
#ifndef PERFBUF_TRACE_CHILD_H
#define PERFBUF_TRACE_CHILD_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

struct trace_child {
	pid_t pid;	/* 0: none */
	int go;		/* the pipe's write end the child waits on; -1 */
	char **argv;	/* CMD split */
	char path[PATH_MAX];	/* argv[0] found (common/which.h): what runs */
};

/* CMD split into words as a shell splits them, without expanding
 * anything: blanks separate, '...' and "..." quote (\" \\ \$ \` inside
 * the latter), \ escapes outside. NULL with errno (EINVAL: an open
 * quote, or no word) */
char **child_split(const char *cmd);
void child_argv_free(char **argv);
/* Start @cmd held before its exec (its PID known, to filter on), found
 * as a uprobe's binary is (cli_which()): 0, or -errno after one line (not
 * found in $PATH, not executable) */
int child_start(struct trace_child *c, const char *prog, const char *cmd);
/* Let it run (after the attach): exec */
void child_release(struct trace_child *c);
/* Reap it (killed first when @kill: a run that ended before it did) and
 * say how it ended; never released, it exits without running */
void child_end(struct trace_child *c, const char *prog, bool kill);

#endif
