/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The NATS sink of `perfbuf trace --nats` (sink_nats.c): each event,
 * lost record, CPU notice and the summary rendered as its --json object
 * line and gathered with the others of its subject into a batch, a
 * message of JSON Lines with headers (batch.h). A batch is sent when it
 * holds --nats-batch events or bytes (or as much as the server takes),
 * or at the first poll round after it has waited --latency.
 * Subjects: --subject with {probe} the probe (lost, cpu, summary for the
 * others). begin() connects and checks the stream: a failure is one line
 * and an error, before anything is attached.
 */
#ifndef PERFBUF_NATS_SINK_H
#define PERFBUF_NATS_SINK_H

#include "output/sink.h"
#include "options.h"

/* NULL with errno set (ENOMEM). @o must outlive the sink. */
struct trace_sink *trace_sink_nats_new(const struct nats_opts *o);
/* --metrics: what sink @s (text, JSON or NATS) did, into @m: the events
 * written whole, a write failure, and a NATS sink's publisher counts in
 * events (not batches). The one publish of every command with a sink. */
struct metrics_counts;
void trace_sink_metrics(struct trace_sink *s, struct metrics_counts *m);

#endif
