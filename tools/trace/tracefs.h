/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Where tracefs is (tracefs.c finds or mounts it; the rest read it). */
#ifndef PERFBUF_TRACE_TRACEFS_H
#define PERFBUF_TRACE_TRACEFS_H

#include <stdbool.h>

/* tracefs where libbpf wants it (mounted if it is nowhere; trace and
 * demo attach through it); 0 or -errno, said. */
int tracefs_ensure(const char *prog);
/* Its directory: /sys/kernel/tracing, or the debugfs one that
 * tracefs_ensure() found instead. */
const char *tracefs_path(void);
/* stat(), not access(): access() drops the capabilities of a non-root
 * user granted CAP_DAC_READ_SEARCH */
bool path_exists(const char *path);

#endif
