/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The Prometheus text exposition format, version 0.0.4, written into a
 * growing buffer: a family's "# HELP" and "# TYPE" lines, then its samples
 * "name{label="value",...} value\n". Label values and HELP texts escaped as
 * the format says (\\, \" in label values, \n). Out of memory sticks: the
 * buffer's @oom is set and later calls write nothing.
 */
#ifndef PERFBUF_METRICS_EXPO_H
#define PERFBUF_METRICS_EXPO_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define EXPO_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct expo {
	char *buf;
	size_t len, cap;
	bool oom;
};

struct expo_label {
	const char *name, *value;
};

/* "# HELP @name @help" and "# TYPE @name @type" (counter, gauge, ...) */
void expo_family(struct expo *e, const char *name, const char *type,
		 const char *help);
/* One sample with @n labels (none: @labels may be NULL). */
void expo_u64(struct expo *e, const char *name, const struct expo_label *labels,
	      int n, __u64 v);
void expo_double(struct expo *e, const char *name,
		 const struct expo_label *labels, int n, double v);
/* A family of one unlabelled sample. */
void expo_one_u64(struct expo *e, const char *name, const char *type,
		  const char *help, __u64 v);
void expo_one_double(struct expo *e, const char *name, const char *type,
		     const char *help, double v);
void expo_reset(struct expo *e);	/* empty, memory kept */
void expo_free(struct expo *e);

#endif
