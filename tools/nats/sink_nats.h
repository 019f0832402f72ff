/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The NATS sink of `perfbuf trace --nats` (sink_nats.c): each event,
 * lost record, CPU notice and the summary published to JetStream as one
 * message, its payload the --json object line (without the newline),
 * with headers:
 *   Perfbuf-Host   --nats-host or the host name
 *   Perfbuf-Cpu    the CPU the record was written on
 *   Perfbuf-Probe  the probe's spec (events only)
 *   Perfbuf-Time   the event's time as Unix time in ns (CLOCK_REALTIME;
 *                  time_ns is the host's CLOCK_MONOTONIC): hosts merge by it
 *   Nats-Msg-Id    host/boot id/pid.start/CPU/sequence: a resent copy is
 *                  dropped by the stream
 * Subjects: --subject with {probe} the probe (lost, cpu, summary for the
 * others). begin() connects and checks the stream: a failure is one line
 * and an error, before anything is attached.
 */
#ifndef PERFBUF_NATS_SINK_H
#define PERFBUF_NATS_SINK_H

#include "trace/sink.h"
#include "options.h"

/* NULL with errno set (ENOMEM). @o must outlive the sink. */
struct trace_sink *trace_sink_nats_new(const struct nats_opts *o);

#endif
