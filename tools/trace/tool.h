/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfbuf trace` internals, one concern per file:
 *   cmd.c      options, the event loop, `perfbuf list`
 *   probe.c    probe syntax, tracefs, feature probes, attach/detach
 *   format.c   tracefs format files: parse, and decode records
 *   output.c   the output buffer, text and JSON writers
 */
#ifndef PERFBUF_TRACE_TOOL_H
#define PERFBUF_TRACE_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "trace.h"

#define PROG "perfbuf trace"

enum probe_kind {
	PK_TRACEPOINT,
	PK_RAWTP,
	PK_KPROBE,
	PK_KRETPROBE,
	PK_FENTRY,
	PK_FEXIT,
	PK_UPROBE,
	PK_URETPROBE,
};

enum field_kind {
	FK_INT,		/* signed or unsigned, 1/2/4/8 bytes */
	FK_CHARS,	/* char name[N]: a NUL-terminated string */
	FK_STR,		/* read by BPF into a string slot */
	FK_BYTES,	/* __data_loc array of non-chars: hex bytes */
	FK_LOC_ARRAY,	/* __data_loc integer array (u64[] ...): read as FK_BYTES */
	FK_PTR,		/* any pointer: hex */
	FK_ARRAY,	/* integer array */
	FK_RAW,		/* anything else: hex bytes */
};

struct tp_field {
	char *name;
	char *json_key;		/* "name": escaped once (out_prepare) */
	enum field_kind kind;
	unsigned short off, size, elem;	/* elem: array element size */
	bool is_signed;
	bool hidden;		/* __syscall_nr: JSON only */
	int slot;		/* FK_STR/FK_BYTES: string slot, else -1 */
	bool user_ptr;		/* FK_STR read from a user pointer */
};

struct trace_probe {
	enum probe_kind kind;
	char *spec;		/* canonical, e.g. tracepoint:sched:sched_switch */
	char *json_head;	/* ,"probe":"spec","args":{ (out_prepare) */
	char *label;		/* short name for the text output */
	char *target;		/* tracepoint CAT:NAME, function, raw tp name */
	char *path;		/* uprobe binary */
	unsigned long offset;	/* uprobe +OFFSET */
	int nargs;		/* raw tracepoints */
	struct tp_field *fields;
	int nfields;
	struct trace_probe_cfg cfg;
	struct bpf_link *link;
	struct trace *obj;	/* per-probe object (tp_btf, raw_tp, fentry) */
	bool from_glob;		/* failing to attach it is a warning */
};

struct probe_set {
	struct trace_probe *v;
	int n, cap;
};

/* probe.c */
struct trace_filter {
	__u32 pid;		/* 0: any */
	int cpu;		/* -1: any */
	const char *comm;	/* NULL: any */
};
extern struct trace_filter trace_filter;
extern char tracefs_dir[64];
struct trace *trace_obj_open(void);
int tracefs_ensure(const char *prog);
int probes_parse(struct probe_set *set, const char *spec);
/* A new probe of @kind at the end of @set (zeroed); NULL (said) when full
 * or out of memory. */
struct trace_probe *probe_new(struct probe_set *set, enum probe_kind kind);
/* @between runs after each globbed tracepoint's attach (consume what is
 * already arriving); false stops attaching, what is attached stays so */
int probes_attach(struct probe_set *set, struct trace *skel,
		  bool (*between)(void *ctx), void *ctx);
void probes_detach(struct probe_set *set);
void probes_free(struct probe_set *set);
bool kprobes_supported(void);

/* format.c */
int tp_format_load(struct trace_probe *p);
/* The fields of format file @f into @p (p->target set: syscalls differ) */
int tp_format_parse(struct trace_probe *p, FILE *f);
void tp_fields_free(struct trace_probe *p);

/* output.c */
struct out_opts {
	int fd;
	bool json;
	int max_cols;		/* text lines are cut to this width */
	__u64 start_ns;		/* text TIME(s) is relative to this */
};
int out_init(const struct out_opts *o);
void out_free(void);
int out_flush(void);		/* 0, or -EPIPE (reader gone), -errno */
bool out_broken(void);
__u64 out_events_written(void);	/* whole event lines written */
void out_header(void);
/* Escape the probes' and fields' JSON names once, before any event. */
int out_prepare(struct probe_set *set);
/* @late: older than an event printed before it (JSON "late":true, a '*'
 * after the time in text) */
void out_event(const struct trace_probe *p, const struct trace_record *r,
	       size_t sz, int cpu, bool late);
/* @time_ns 0: unknown (not printed) */
void out_lost(int cpu, __u64 count, __u64 time_ns);
/* A CPU came online or went offline (JSON: a "cpu" object; text: stderr). */
void out_cpu(int cpu, bool online, __u64 time_ns);
/* JSON: to the output, unless @to_stderr; text: to stderr. 0 or -errno */
int out_summary(__u64 received, __u64 lost, const __u64 *per_cpu_recv,
		const __u64 *per_cpu_lost, const int *cpus, size_t n,
		bool to_stderr);
void out_json_str(const char *s, size_t n);	/* for decoders */
void out_text_str(const char *s, size_t n);
void out_mem(const void *p, size_t n);
void out_u64(__u64 v);
void out_s64(__s64 v);
void out_hex(__u64 v);
bool out_is_json(void);

/* Decoders: format.c, called by out_event() */
void tp_decode(const struct trace_probe *p, const struct trace_record *r,
	       size_t sz, bool json);

#endif
