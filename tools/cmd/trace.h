/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfbuf trace` and `perfbuf record`: where a command assembles the
 * trace engine (trace/session.h) with its outputs.
 *   trace_opts.c  the options of both, into struct trace_opts
 *   trace.c       the assembly: the engine's steps, and what records go to:
 *                 trace: the decoder (trace/decode.h) and a sink (text,
 *                 JSON Lines: output/sink.h; NATS: nats/sink_nats.h);
 *                 record: a capture file (record/record.h)
 * A new command over the engine is a file of its own here (tools/cmd/
 * NAME.c) that does the same steps with its sinks; a new option of trace
 * and record goes into struct trace_opts and trace_opts.c.
 */
#ifndef PERFBUF_CMD_TRACE_H
#define PERFBUF_CMD_TRACE_H

#include <stdbool.h>

#include "common/clock.h"
#include "nats/options.h"
#include "output/agg.h"
#include "trace/probe.h"

struct trace_opts {
	const char *prog;	/* "perfbuf trace" or "perfbuf record": what
				 * messages start with; set by the caller */
	const char *output;	/* NULL: stdout */
	unsigned long long duration_ns;	/* -d; 0: no limit */
	long count;		/* -n; 0: no limit */
	long pages, latency;	/* latency 0: the library's default */
	unsigned long long buffer_size;	/* --buffer-size, 0: not given */
	bool sized;		/* --pages or --buffer-size given: not the
				 * default budget */
	long width;		/* --width: text lines cut (0: never) */
	enum trace_time time;	/* --time */
	bool json, stats, verbose, unordered;
	bool record;		/* perfbuf record: a capture file */
	long flight_pages;	/* record --flight-recorder: pages per CPU */
	long realtime;		/* record --realtime: the reader's SCHED_FIFO
				 * priority, 0: none */
	struct nats_opts nats;	/* --nats: events to JetStream */
	const char *metrics;	/* --metrics [ADDR:]PORT */
	struct trace_filter filter;	/* -p, --comm, --cpu, --kstack, --ustack */
	struct trace_read_opts read;	/* --string-size, --buffers */
	const char *cmd;	/* -c CMD: started, traced as -p, the end of the run */
	const char *filters[16];	/* --filter, checked in setup() */
	int nfilters;
	const char *members[16];	/* --member, resolved in setup() */
	int nmembers;
	struct agg_spec aggs[AGG_MAX_MAPS];	/* --aggregate, parsed and named */
	int naggs;
	long agg_keys;		/* --aggregate-keys: keys per map */
	bool maps_kstack, maps_ustack;	/* taken for a map by stack only */
	long interval;		/* --interval: s between prints; 0: at the end */
	bool events;		/* --events: the events printed beside the maps */
};

/* The options into @o (o->prog and o->record set by the caller): -1 to exit 1 (said why), 1 to exit 0 (--help), 0 to trace
 * the probes from argv[optind]. */
int trace_parse_options(int argc, char **argv, struct trace_opts *o);
/* What trace_parse_options() allocated (the --aggregate specs). */
void trace_opts_free(struct trace_opts *o);

#endif
