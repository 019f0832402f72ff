/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfbuf trace` internals, one concern per file:
 *   cmd.c        options, the event loop
 *   list.c       `perfbuf list`
 *   probe.c      probe syntax, tracefs, feature probes, attach/detach
 *   format.c     tracefs format files: the fields of a tracepoint
 *   printfmt.c   their print fmt line: addresses, names of values
 *   decode.c     a record to typed values (values.h), with the probes
 *   pipe.c       a collector's record (sample, lost, CPU) to a sink
 *   sink.h       what a sink is; sink_text.c, sink_json.c: two of them
 *   output.c     the output buffer the text and JSON sinks write into
 *   elf.c        uprobe targets: ELF function symbols
 *   filter.c     --filter: parse, compile for each probe, load
 *   syscalls.c   syscall numbers (sys_enter_NAME through raw sys_enter)
 *   stop.c       the end: stop the flow, then detach many probes
 */
#ifndef PERFBUF_TRACE_TOOL_H
#define PERFBUF_TRACE_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <linux/types.h>

#include "trace.h"
#include "trace_filter.h"
#include "values.h"	/* struct tv_name, TV_HINT_* */

/* "perfbuf trace" or "perfbuf record": what messages start with */
extern const char *trace_prog;
#define PROG trace_prog

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
	FK_BUF,		/* user buffer read by BPF (--buffers) into a slot */
	FK_ARGV,	/* execve's argv, read by BPF into a slot */
	FK_ARRAY,	/* integer array */
	FK_RAW,		/* anything else: hex bytes */
};

enum ptr_kind {
	PTR_OTHER,
	PTR_CHARS,		/* char * */
	PTR_CONST_CHARS,	/* const char * */
	PTR_ARGV,		/* const char *const * */
};

struct tp_field {
	char *name;
	enum field_kind kind;
	unsigned short off, size, elem;	/* elem: array element size */
	bool is_signed;
	bool hidden;		/* __syscall_nr: JSON only */
	int slot;		/* FK_STR/FK_BYTES: string slot, else -1 */
	bool user_ptr;		/* FK_STR read from a user pointer */
	enum ptr_kind ptr;	/* FK_PTR: what it points to */
	/* from the print fmt line (printfmt.c): TV_HINT_IPV4/IPV6/SOCKADDR,
	 * or _SYMBOLIC/_FLAGS with the names of its values */
	unsigned char hint;
	struct tv_name *names;
	int nnames;
};

struct trace_probe {
	enum probe_kind kind;
	char *spec;		/* canonical, e.g. tracepoint:sched:sched_switch */
	const char *arg;	/* the command line's probe it came from */
	char *label;		/* short name for the text output */
	char *target;		/* tracepoint CAT:NAME, function, raw tp name */
	char *path;		/* uprobe binary */
	unsigned long offset;	/* uprobe +OFFSET */
	int nargs;		/* raw tracepoints (-1: unknown until attached) */
	struct tp_field *fields;
	int nfields;
	struct trace_probe_cfg cfg;
	struct bpf_link *link;
	struct trace *obj;	/* per-probe object (tp_btf, raw_tp, fentry) */
	bool from_glob;		/* failing to attach it is a warning */
	int sys_nr;		/* syscalls:sys_enter/exit_NAME: its number, else -1 */
	bool sys_exit;
	bool on_syscall;	/* attached through the raw tracepoint sys_enter/exit */
};

struct probe_set {
	struct trace_probe *v;
	int n, cap;
	struct bpf_link *sys_link[2];	/* raw tracepoints sys_enter, sys_exit */
	struct trace *sys_obj[2];	/* their programs' instances */
};

/* probe.c */
/* tracefs where libbpf wants it (mounted if it is
 * nowhere; trace and demo attach through it); 0 or -errno, said. */
int tracefs_ensure(const char *prog);

struct trace_filter {
	__u32 pid;		/* 0: any */
	int cpu;		/* -1: any */
	const char *comm;	/* NULL: any */
	bool kstack, ustack;	/* and what records carry: the stacks */
};
extern struct trace_filter trace_filter;
extern char tracefs_dir[64];	/* format.c; tracefs_ensure() may change it */
struct trace *trace_obj_open(void);
/* Records of @cpu the BPF programs could not write for a reason the kernel
 * does not count (no ring in the CPU's slot yet, a dead event): lost too. */
__u64 trace_undelivered(struct trace *skel, int cpu);
/* Every failed write of CPUs 0..@ncpu-1, by reason (a full ring too):
 * 0 or -errno */
int trace_output_errors(struct trace *skel, int ncpu,
			__u64 (*out)[TRACE_OUT_REASONS]);
int probes_parse(struct probe_set *set, const char *spec);
/* A new probe of @kind at the end of @set (zeroed); NULL (said) when full
 * or out of memory. */
struct trace_probe *probe_new(struct probe_set *set, enum probe_kind kind);
/* @between runs after each globbed tracepoint's attach (consume what is
 * already arriving); false stops attaching, what is attached stays so */
int probes_attach(struct probe_set *set, struct trace *skel,
		  bool (*between)(void *ctx), void *ctx);
/* Detach all, many at once; a change of *@signals meanwhile (may be NULL)
 * leaves the rest to the kernel (returns 1): what is left here is quick. */
int probes_detach(struct probe_set *set, volatile sig_atomic_t *signals);
/* The largest record the probes' BPF programs write (with --string-size) */
size_t probes_record_max(const struct probe_set *set);
void probes_free(struct probe_set *set);
int probes_attached(const struct probe_set *set);
/* Tracepoints attached as perf events: ~40 ms each to detach. */
int probes_slow(const struct probe_set *set);
bool kprobes_supported(void);

/* elf.c: the size of function @name in ELF file @path: 0, -ENOEXEC
 * (not ELF), -ENOENT (no such function symbol), -errno */
int elf_func_size(const char *path, const char *name, __u64 *size);

/* printfmt.c: address and value-name hints of @p's fields from the
 * format file's "print fmt:" @line */
void tp_printfmt_parse(struct trace_probe *p, const char *line);

/* stop.c */
struct trace;
void probes_warn_cost(const struct probe_set *set);
/* Stop every program writing (the stop map) and wait for those mid-record:
 * a drain after it sees every record there will be. 0 or -errno */
int trace_stop(struct trace *skel);
/* Destroy @links from several threads (@slow: perf-event tracepoints, for
 * the estimate); see probes_detach() for @signals. */
int links_destroy(struct bpf_link **links, int n, int slow,
		  volatile sig_atomic_t *signals);

/* syscalls.c */
/* The number of syscall NAME ("openat", "newstat"), or -1. */
int syscall_nr(const char *name);

/* filter.c */
/* One --filter [PROBE:]EXPR, checked for syntax: 0 or -errno (printed) */
int filter_add(const char *arg);
/* Compile for each probe of @set into the BPF maps filter_of and filters */
int filters_load(const struct probe_set *set, int filter_of_fd, int filters_fd);
void filters_free(void);

/* format.c */
enum trace_buffers { BUFFERS_NONE, BUFFERS_ESCAPED, BUFFERS_HEX };
struct trace_read_opts {
	unsigned int str_size;		/* --string-size */
	enum trace_buffers buffers;	/* --buffers */
};
extern struct trace_read_opts trace_read;
/* trace_read as "buffers=hex string_size=255" (a capture's META options:
 * the slots of its records depend on it), and back: 0 or -EINVAL */
void trace_read_format(char *buf, size_t sz);
int trace_read_parse(const char *opts);
int tp_format_load(struct trace_probe *p);
/* The fields of format file @f into @p (p->target set: syscalls differ) */
int tp_format_parse(struct trace_probe *p, FILE *f);
void tp_fields_free(struct trace_probe *p);

#endif
