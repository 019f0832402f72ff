/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A batch (batch.c): the JSON Lines of one subject gathered into one
 * NATS message, each line a --json object ending in '\n'. Its headers:
 *   Perfbuf-Host       --nats-host or the host name
 *   Perfbuf-Probe      the probe's spec (event batches only)
 *   Perfbuf-Count      the lines it holds
 *   Perfbuf-First-Seq  the subject's sequence number of its first line;
 *   Perfbuf-Last-Seq   of its last: a subject's lines are numbered from 0
 *                      without a gap, so a missing batch shows
 *   Perfbuf-Time       the first line's time as Unix time in ns
 *                      (CLOCK_REALTIME; the lines' time_ns are on the
 *                      --time clock): hosts merge by it
 *   Perfbuf-Time-Last  the last line's
 *   Perfbuf-Args       events: how trace's text prints each argument of
 *                      "args", a letter each, in order (NATS_ARG_*);
 *                      the same for every line of the batch
 *   Nats-Msg-Id        host/boot id/pid.start/subject/first sequence
 *                      number: a resent copy is dropped by the stream
 */
#ifndef PERFBUF_NATS_BATCH_H
#define PERFBUF_NATS_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <nats/nats.h>

#include "output/values.h"

/* Perfbuf-Args letters: what trace's text makes of a JSON argument */
#define NATS_ARG_HIDDEN	'h'	/* not printed (__syscall_nr) */
#define NATS_ARG_INT	'i'	/* a number; its "names" entry in () */
#define NATS_ARG_INTS	'v'	/* a list of numbers */
#define NATS_ARG_STR	's'	/* a string, quoted, escaped as text */
#define NATS_ARG_STRS	'l'	/* a list of strings (argv) */
#define NATS_ARG_RAW	'r'	/* a string printed bare: an address,
				 * a pointer, hex bytes */
#define NATS_ARGS_MAX	128	/* more arguments: '?' (printed as JSON) */

struct nats_batch {
	char *buf;		/* the lines */
	size_t len, cap;
	__u64 count;		/* lines */
	__u64 next_seq;		/* the subject's next line number */
	__s64 first_real, last_real;	/* Unix ns */
	__u64 opened_ns;	/* perfbuf_now_ns() at its first line */
	char args[NATS_ARGS_MAX + 1];	/* Perfbuf-Args, "" if none */
};

/* What a batch's message says besides its lines. */
struct nats_batch_hdr {
	const char *subject;
	const char *host;
	const char *probe;	/* NULL: not an event batch */
	const char *id;		/* Nats-Msg-Id without the sequence number */
};

/* @e's Perfbuf-Args into @out (NATS_ARGS_MAX + 1 bytes). */
void nats_args_kinds(const struct tv_event *e, char *out);
/* A line (its '\n' included) of Unix time @real added. 0 or -ENOMEM. */
int nats_batch_add(struct nats_batch *b, const char *line, size_t len,
		   __s64 real);
/* The batch as a message (NULL: out of memory; its lines are counted
 * dropped by the caller), and emptied for the next. */
natsMsg *nats_batch_msg(struct nats_batch *b, const struct nats_batch_hdr *h);
void nats_batch_free(struct nats_batch *b);
/* A message's lines: its Perfbuf-Count (1 without one). */
__u64 nats_msg_events(natsMsg *m);

#endif
