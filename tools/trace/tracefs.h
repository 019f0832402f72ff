/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Where tracefs is (probe.c finds or mounts it; format.c reads it). */
#ifndef PERFBUF_TRACE_TRACEFS_H
#define PERFBUF_TRACE_TRACEFS_H

/* tracefs where libbpf wants it (mounted if it is nowhere; trace and demo attach through it); 0 or -errno, said. */
int tracefs_ensure(const char *prog);

extern char tracefs_dir[64];	/* format.c; tracefs_ensure() may change it */

#endif
