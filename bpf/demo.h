/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* demo: one record per exec(), system-wide. */
#ifndef DEMO_H
#define DEMO_H

#define DEMO_COMM_LEN 16
#define DEMO_PATH_LEN 128

struct demo_event {
	unsigned long long time_ns;
	int pid;
	int ppid;
	char comm[DEMO_COMM_LEN];
	char filename[DEMO_PATH_LEN];
};

#endif
