/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Probes (probe.c): the probe syntax, the fields a probe's records carry,
 * the BPF object's instances, attach and detach; the -p/--comm/--cpu
 * filter the programs apply.
 */
#ifndef PERFBUF_TRACE_PROBE_H
#define PERFBUF_TRACE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <linux/types.h>

#include "trace.h"
#include "trace_filter.h"
#include "format.h"
#include "output/values.h"	/* struct tv_name, TV_HINT_* */

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
	FK_BOOL,	/* a C bool (BTF) */
	FK_CHARS,	/* char name[N]: a NUL-terminated string */
	FK_STR,		/* read by BPF into a string slot */
	FK_BYTES,	/* __data_loc array of non-chars: hex bytes */
	FK_LOC_ARRAY,	/* __data_loc integer array (u64[] ...): read as FK_BYTES */
	FK_PTR,		/* any pointer: hex */
	FK_BUF,		/* user buffer read by BPF (--buffers) into a slot */
	FK_ARGV,	/* execve's argv, read by BPF into a slot */
	FK_ARRAY,	/* integer array */
	FK_RAW,		/* anything else: hex bytes */
	FK_DURATION,	/* duration_ns of a paired return probe: u64, 0
			 * unknown (latency.c) */
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
	unsigned short fault;	/* a struct member's: its byte in the record
				 * saying it could not be read (0: none) */
};

struct trace_probe {
	enum probe_kind kind;
	char *spec;		/* canonical, e.g. tracepoint:sched:sched_switch */
	const char *arg;	/* the command line's probe it came from */
	char *label;		/* short name for the text output */
	char *target;		/* tracepoint CAT:NAME, function, raw tp name */
	char *path;		/* uprobe binary */
	unsigned long offset;	/* uprobe, kprobe +OFFSET */
	/* a uprobe's function's file offset when found here (probe.c's
	 * uprobe_check()); 0: libbpf finds it by name */
	unsigned long func_off;
	int nargs;		/* raw tracepoints (-1: unknown until attached) */
	struct tp_field *fields;
	int nfields;
	struct trace_probe_cfg cfg;
	struct bpf_link *link;
	struct trace *obj;	/* per-probe object (tp_btf, raw_tp, fentry) */
	bool from_glob;		/* failing to attach it is a warning */
	const struct trace_read_opts *read;	/* its set's (NULL: defaults) */
	const char *prog;	/* its set's: what its messages start with */
	int sys_nr;		/* syscalls:sys_enter/exit_NAME: its number, else -1 */
	bool sys_exit;
	bool on_syscall;	/* attached through the raw tracepoint sys_enter/exit */
	bool multi;		/* attached through its set's multi_link */
	/* fields typed from BTF or DWARF (args_btf.c, args_dwarf.c):
	 * decoded and filtered by them as a tracepoint's, not as arg0..arg5 */
	bool typed;
};

/* What every probe's program checks (-p, --comm, --cpu) and what its
 * records carry (--kstack, --ustack) */
struct trace_filter {
	__u32 pid;		/* 0: any */
	int cpu;		/* -1: any */
	const char *comm;	/* NULL: any */
	bool kstack, ustack;	/* and what records carry: the stacks */
};

struct probe_set {
	struct trace_probe *v;
	int n, cap;
	const char *prog;	/* "perfbuf trace": what messages start with */
	struct trace_filter filter;	/* set before the probes are parsed */
	struct trace_read_opts read;	/* likewise */
	struct bpf_link *sys_link[2];	/* raw tracepoints sys_enter, sys_exit */
	struct trace *sys_obj[2];	/* their programs' instances */
	struct bpf_link *multi_link[2];	/* kprobe, kretprobe globs (kfunc.c) */
	int *umulti_fd;			/* uprobe_multi links (umulti.c) */
	int numulti;
	struct trace *umulti_obj[2];	/* their programs: uprobe, uretprobe */
};

/* The program a probe of kind tracepoint, kprobe, kretprobe, uprobe or
 * uretprobe attaches with (attach.c): the shared one, or without attach
 * cookies an instance of its own; NULL (said) when that load failed. */
struct bpf_program *probe_prog(struct trace_probe *p, struct trace *skel, __u64 i);
/* The attach cookie of probe @i: @i, or 0 where the kernel has none */
__u64 probe_cookie(__u64 i);
/* The BPF object with @set's filter in its constants, not loaded. */
struct bpf_program;
struct trace *trace_obj_open(const struct probe_set *set);
/* An instance of the object in *@obj with the program @pick gives alone,
 * loaded, sharing @main_obj's maps: its target @target (NULL: its
 * section's, or at attach time), its constants @cookie and @nargs. 0 or
 * -errno; *@obj to destroy. */
int trace_obj_load_alone(struct trace **obj, struct trace *main_obj,
			 struct bpf_program *(*pick)(struct trace *),
			 const char *target, __u64 cookie, int nargs);
/* Records the BPF programs could not write for a reason the kernel does
 * not count (no ring in the CPU's slot yet, a dead event): lost too. Per
 * possible CPU (*@ncpu of them), the map read once; NULL (none known)
 * when it cannot be. Freed by the caller. */
__u64 *trace_undelivered(struct trace *skel, int *ncpu);
/* @u[@cpu], 0 past it */
static inline __u64 trace_undelivered_of(const __u64 *u, int ncpu, int cpu)
{
	return u && cpu >= 0 && cpu < ncpu ? u[cpu] : 0;
}
/* Probe @i's spec (@set a struct probe_set), or NULL past the last: the
 * name of kind @i in the programs' ledger (the kind is the probe's index) */
const char *probe_spec_of(void *set, size_t i);
int probes_parse(struct probe_set *set, const char *spec);
/* The kind @spec's KIND: names (tracepoint:, its alias t:, ...), or
 * -EINVAL for none */
int probe_kind_of(const char *spec);
/* A parsed probe's fields and names freed (attach.c drops its links). */
void probe_clear(struct trace_probe *p);
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

/* kfunc.c: kprobe:FUNC+OFFSET (cut off @p->target into @p->offset) */
int kfunc_parse_offset(struct trace_probe *p, const char *spec);
int kfunc_attach_offset(struct trace_probe *p, struct trace *skel, __u64 i, bool kprobes);
/* kprobe:GLOB, kretprobe:GLOB: a probe per function ftrace lists */
int kfunc_parse_glob(struct probe_set *set, enum probe_kind kind, const char *kw,
		     const char *spec, const char *pattern);
/* more than one globbed function of @kind: the multi program is loaded */
bool kfunc_wants_multi(const struct probe_set *set, enum probe_kind kind);
/* globbed kprobes in one kprobe.multi link each kind, where the kernel can */
void kfunc_attach_multi(struct probe_set *set, struct trace *skel);
/* uprobes and uretprobes in one uprobe_multi link per binary and kind,
 * where the kernel can (umulti.c); the others are attached one by one */
void uprobe_attach_multi(struct probe_set *set, struct trace *skel);
/* Close those links: fast (one RCU grace period per link) */
void uprobe_detach_multi(struct probe_set *set);
/* What the kernel's BTF and kallsyms say (probe.c), also for attach.c's
 * fallbacks (kprobes and fentry themselves: common/kfeat.h): @func in
 * kallsyms; a raw tracepoint's arguments from BTF (-1: unknown). The BTF
 * read for them is freed by probe_features_free(). */
/* @func's parameters in vmlinux's BTF (0 when not there) */
int kfunc_nargs(const char *func);
bool in_kallsyms(const char *func);
/* @func's address in /proc/kallsyms (read once), or 0 */
__u64 ksym_addr(const char *func);
int rawtp_nargs(const char *name);
void probe_features_free(void);

/* latency.c: each return probe of @set traced with its entry probe
 * (uretprobe and uprobe of a function, kretprobe or fexit and kprobe or
 * fentry, sys_exit_X and sys_enter_X) paired: the return gets the field
 * duration_ns. 0 or -ENOMEM (said). */
int probes_pair_latency(struct probe_set *set);
/* The field duration_ns of return probe @r, a u64 at @off of its
 * records (a capture's probes get theirs back so): 0 or -ENOMEM */
int probe_duration_field(struct trace_probe *r, unsigned int off);
/* Some probe of @set is paired: the programs keep entry times */
bool probes_latency(const struct probe_set *set);

/* members.c: the struct members named by --member (@exprs, each a comma
 * list) and by the filters @fs (p->x) read as fields of each probe with
 * that argument typed from DWARF or BTF. 0 or -errno (said). */
struct trace_filters;
int probes_add_members(struct probe_set *set, const struct trace_filters *fs,
		       const char *const *exprs, int n);
/* Some probe of @set reads struct members: the programs look them up */
bool probes_members(const struct probe_set *set);

/* Warn before attaching many slow (perf-event) tracepoints. */
void probes_warn_cost(const struct probe_set *set);

#endif
