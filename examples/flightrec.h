/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* flightrec: one record per system call entered. */
#ifndef FLIGHTREC_H
#define FLIGHTREC_H

#define FLIGHTREC_COMM_LEN 16

struct flightrec_event {
	unsigned long long seq;	/* 0, 1, 2... in the order written */
	long nr;		/* the system call's number */
	int pid;
	int tid;
	char comm[FLIGHTREC_COMM_LEN];
};

#endif /* FLIGHTREC_H */
