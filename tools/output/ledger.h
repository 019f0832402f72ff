/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A program's ledger (perfbuf/ledger.h: every perfbuf_output() counted
 * per kind and CPU) as the outputs show it: the summary's per-kind lines
 * (values.h), the per-CPU reasons of --metrics, the --stats rates.
 */
#ifndef PERFBUF_OUTPUT_LEDGER_H
#define PERFBUF_OUTPUT_LEDGER_H

#include <stddef.h>
#include <linux/types.h>

#include "perfbuf.h"
#include "values.h"

/* Per-CPU outcomes the kernel does not count as lost, for --metrics */
enum ledger_reason {
	LEDGER_FULL,		/* -ENOSPC: the ring was full */
	LEDGER_NO_READER,	/* -ENOENT, -E2BIG: no ring in the CPU's slot */
	LEDGER_FAILED,		/* -EOPNOTSUPP (a dead event), -EBUSY, ... */
	LEDGER_REASONS,
};

/* A kind's name (NULL: "kind N"), for kinds 0..nkinds-1 */
typedef const char *(*ledger_name_fn)(void *ctx, size_t kind);

struct ledger_view {
	struct tv_kind_summary *kinds;
	size_t nkinds;
	__u64 no_reader, failed;	/* all kinds */
	int mismatch;			/* CPUs that disagree (checked reads) */
};

/*
 * Read @l (with @pb: checked against it, each CPU that disagrees said on
 * stderr, @prog first) into @v: kinds 0..@nkinds-1 named by @name(@ctx),
 * then every other kind that offered anything (its ledger name, or
 * "kind N"). 0 or -errno (said). ledger_view_free() after.
 */
int ledger_view_read(struct ledger_view *v, struct perfbuf_ledger *l,
		     const struct perfbuf *pb, const char *prog, size_t nkinds,
		     ledger_name_fn name, void *ctx);
void ledger_view_free(struct ledger_view *v);
/* The view's kinds and totals into @sum, as kinds of @word ("probe") */
void ledger_view_summary(const struct ledger_view *v, struct tv_summary *sum,
			 const char *word);

/* The highest CPU number of @l's entries + 1 */
int ledger_cpu_end(const struct perfbuf_ledger *l);
/* @l read now, per CPU number 0..@ncpu-1 by reason (every kind): 0 or
 * -errno. Not with another thread reading @l. */
int ledger_cpu_reasons(struct perfbuf_ledger *l, int ncpu,
		       __u64 (*out)[LEDGER_REASONS]);

#endif
