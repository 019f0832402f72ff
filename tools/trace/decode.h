/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * From records to values: the decoder (decode.c) turns a trace record
 * (bpf/trace.h) of one of the probes into a struct tv_event; the pipe
 * (pipe.c) takes the collector's records, samples, losses and CPU
 * notices alike, and hands their values to a sink. A capture file read
 * back gives the same records, so it goes through the same two.
 */
#ifndef PERFBUF_TRACE_DECODE_H
#define PERFBUF_TRACE_DECODE_H

#include "perfbuf.h"
#include "output/sink.h"
#include "format.h"
#include "probe.h"

struct trace_decoder;

/* A decoder for the probes of @set, which must outlive it. NULL with
 * errno set (ENOMEM). */
struct trace_decoder *trace_decoder__new(const struct probe_set *set);
void trace_decoder__free(struct trace_decoder *d);
/* Stacks (--kstack, --ustack): the records carry them; @name gives a
 * frame's name (@pid's user address, or a kernel one), valid until the
 * decoder is freed. Without it, or for what was not asked, the event's
 * kstack/ustack are NULL. */
typedef const char *(*trace_frame_name_fn)(void *ctx, bool kernel, __u32 pid,
					   __u64 addr);
void trace_decoder__set_stacks(struct trace_decoder *d, bool kernel, bool user,
			       trace_frame_name_fn name, void *ctx);
/* Where each slot's bytes are in tracepoint record @r of probe @p (@data_sz
 * bytes of data[]): packed after the raw record in slot order, the argv
 * slot last (bpf/trace.h); NULL for a slot with no bytes. */
void trace_slots_find(const struct trace_probe *p, const struct trace_record *r,
		      size_t data_sz, const unsigned char *slot[TRACE_MAX_STRS]);
/* The probes and their field names, for trace_sink__begin(). */
const struct tv_schema *trace_decoder__schema(const struct trace_decoder *d);
/* The values of record @r (@sz bytes, 8-byte aligned) written on @cpu;
 * valid until the next call. NULL when it is not one of ours (too short,
 * an unknown probe). Fields the record does not hold are left out. */
const struct tv_event *trace_decoder__decode(struct trace_decoder *d,
					     const struct trace_record *r,
					     size_t sz, int cpu, bool late);

/* pipe.c: a collector's records to a sink. */
struct trace_pipe {
	struct trace_decoder *dec;
	struct trace_sink *sink;
	/* events printed beside --aggregate's maps (the sink), or NULL: it
	 * gets the events, the losses and CPU notices (then the sink only
	 * the events: it asks for the losses' counts itself) */
	struct trace_sink *also;
	union {
		struct trace_record r;
		unsigned char bytes[sizeof(struct trace_record) + TRACE_DATA_MAX + 8];
	} buf;			/* aligned copy of the record being decoded */
};

/* @rec to the pipe's sink: a sample is copied (a wrapped one made
 * whole), stamped with the kernel's time when the record has it (the
 * order's key), decoded and handed on; LOST and CPU records become
 * tv_lost and tv_notice. 1: an event was handed on; 0: something else
 * was, or nothing (a record not ours). */
int trace_pipe__record(struct trace_pipe *p, const struct perfbuf_record *rec);

#endif
