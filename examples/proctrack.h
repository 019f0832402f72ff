/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* proctrack: one record per exec() and per process exit. */
#ifndef PROCTRACK_H
#define PROCTRACK_H

#define PROCTRACK_COMM_LEN 16
#define PROCTRACK_PATH_LEN 128

enum proctrack_kind {
	PROC_EXEC = 1,
	PROC_EXIT = 2,
};

struct proctrack_event {
	int kind;
	int pid;
	int ppid;
	unsigned int exit_code;
	unsigned long long duration_ns;	/* exits: since the exec, 0 if unseen */
	char comm[PROCTRACK_COMM_LEN];
	char filename[PROCTRACK_PATH_LEN];	/* execs */
};

#endif /* PROCTRACK_H */
