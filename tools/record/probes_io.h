/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The probes of a capture (CAP_PROBES and CAP_FORMAT frames). */
#ifndef PERFBUF_CAP_PROBES_IO_H
#define PERFBUF_CAP_PROBES_IO_H

#include "capture.h"
#include "trace/probe.h"

/* @set's probes, then the format file of each tracepoint (from tracefs).
 * 0 or a negative errno. */
int capture_probes_write(struct cap_writer *w, const struct probe_set *set);
/* The same probes into the empty @set, fields from the saved formats.
 * 0, or a negative errno with one line in @why. */
int capture_probes_read(struct cap_reader *r, struct probe_set *set,
			char *why, size_t why_sz);
/* The format file of tracepoint @target (CAT:NAME) as the capture saved
 * it, @len bytes, in @r's mapping; NULL when absent. Rewinds @r. */
const char *capture_format_find(struct cap_reader *r, const char *target,
				size_t *len);

#endif
