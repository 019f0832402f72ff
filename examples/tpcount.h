/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* tpcount: one record per hit of the tracepoint. */
#ifndef TPCOUNT_H
#define TPCOUNT_H

struct tpcount_hit {
	int pid;
	int tid;
};

#endif /* TPCOUNT_H */
