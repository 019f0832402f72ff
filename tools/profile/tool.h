/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perfbuf profile: the parts of the tool. Two engines fill one table of
 * stacks; user frames are resolved to (file, offset) when they arrive,
 * with the process's mappings of that moment, and named at the end.
 */
#ifndef PERFBUF_PROFILE_TOOL_H
#define PERFBUF_PROFILE_TOOL_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>

#include "perfbuf.h"

enum prof_engine { PROF_ENGINE_BPF, PROF_ENGINE_PERF };
enum prof_output { PROF_FOLDED, PROF_JSON, PROF_SVG };

struct prof_opts {
	unsigned int hz;		/* -F */
	pid_t pid;			/* -p, 0: every process */
	int cpu;			/* --cpu, -1: every CPU */
	double duration;		/* -d, 0: until Ctrl-C */
	bool user, kernel;		/* which stacks */
	enum prof_engine engine;
	enum prof_output output;
	const char *svg_path;
	const char *out_path;		/* -o */
	bool verbose;
};

/* ---- mappings: pid -> [start, end) -> (file, offset) (maps.c) ---- */

#define PROF_NO_FILE 0xffffffffu	/* no mapping: the frame stays hex */
#define PROF_KERNEL_FILE 0xfffffffeu	/* a kernel address */

struct prof_maps;

struct prof_maps *maps_new(void);
void maps_free(struct prof_maps *m);
/* an MMAP/MMAP2 record: the mapping of @pid from now on */
void maps_add(struct prof_maps *m, pid_t pid, __u64 start, __u64 len,
	      __u64 pgoff, const char *path);
/* an exec (COMM with PERF_RECORD_MISC_COMM_EXEC): the old mappings go */
void maps_exec(struct prof_maps *m, pid_t pid);
/* @addr of @pid as (file id, file offset); reads /proc/PID/maps the first
 * time a pid is seen, and again (at most every 100 ms) when the address is
 * in none of the mappings known; the file's symbols are read the first
 * time it is seen here. false: unknown (the file is PROF_NO_FILE). */
bool maps_resolve(struct prof_maps *m, pid_t pid, __u64 addr, __u32 *file,
		  __u64 *off);
/* the path of file @id, NULL if none */
const char *maps_file_path(const struct prof_maps *m, __u32 id);
/* the symbols of file @id (read when first sampled), NULL if none */
const struct prof_elf *maps_file_elf(const struct prof_maps *m, __u32 id);

/* ---- symbols (ksyms.c, elfsyms.c) ---- */

struct prof_ksyms;
/* /proc/kallsyms; NULL with errno when it cannot be read */
struct prof_ksyms *ksyms_load(void);
void ksyms_free(struct prof_ksyms *k);
/* the function containing @addr, or NULL */
const char *ksyms_name(const struct prof_ksyms *k, __u64 addr);

struct prof_elf;
/* the function symbols (.symtab, else .dynsym) of an ELF file, or NULL */
struct prof_elf *elfsyms_load(const char *path);
void elfsyms_free(struct prof_elf *e);
/* the function at file offset @off, or NULL */
const char *elfsyms_name(const struct prof_elf *e, __u64 off);

/* ---- stacks (stacks.c) ---- */

struct prof_frame {
	__u32 file;		/* PROF_KERNEL_FILE, PROF_NO_FILE or a file id */
	__u64 off;		/* file offset (user frames) */
	__u64 addr;		/* the address as sampled */
};

struct prof_stack {
	__u32 pid, tid;
	char comm[16];
	__u32 nframes;		/* root first, leaf last */
	__u64 count;
	struct prof_frame frames[];
};

struct prof_stacks;

struct prof_stacks *stacks_new(void);
void stacks_free(struct prof_stacks *s);
/* add one sample: @frames root first */
int stacks_add(struct prof_stacks *s, __u32 pid, __u32 tid, const char *comm,
	       const struct prof_frame *frames, __u32 n);
size_t stacks_cnt(const struct prof_stacks *s);
struct prof_stack *stacks_get(const struct prof_stacks *s, size_t i);
__u64 stacks_samples(const struct prof_stacks *s);

/* ---- naming the frames (symbolize.c) ---- */

struct prof_names;
struct prof_names *names_new(struct prof_maps *maps);
void names_free(struct prof_names *n);
/* the frame's name: function, "_[k]" suffixed in the kernel; FILE+0xOFF
 * in a file without a symbol there; the address in hex if in no file.
 * Valid until names_free(). */
const char *names_frame(struct prof_names *n, const struct prof_frame *f);

/* ---- the run (cmd.c, engines) ---- */

struct prof_counts {
	__u64 samples;		/* stacks received */
	__u64 lost;		/* records lost in the rings */
	__u64 throttled;	/* THROTTLE records: the kernel lowered the rate */
	__u64 stack_errors;	/* stacks the kernel could not take */
	__u64 bad;		/* records that did not parse */
};

struct prof_comms;

struct prof_run {
	const struct prof_opts *o;
	struct prof_stacks *stacks;
	struct prof_maps *maps;
	struct prof_comms *comms;
	struct prof_counts counts;
};

/* comm of @tid: from COMM records, else /proc/.../comm at first sight
 * (maps.c) */
struct prof_comms *comms_new(void);
void comms_free(struct prof_comms *c);
void comms_set(struct prof_comms *c, __u32 tid, const char *comm);
const char *comms_get(struct prof_comms *c, __u32 pid, __u32 tid);

/* side-band records (MMAP, MMAP2, COMM) of either engine's rings into the
 * run's mappings and command names */
void prof_side_band(struct prof_run *run, const struct perfbuf_sample *s);

/* one sample's stacks, leaf first as the kernel gives them (either may be
 * empty), into the table; 0 or -ENOMEM */
#define PROF_MAX_FRAMES 127
int prof_add_stack(struct prof_run *run, __u32 pid, __u32 tid,
		   const char *comm, const __u64 *kips, __u32 nk,
		   const __u64 *uips, __u32 nu);

/* the sampling event both engines open: cpu-clock at -F HZ */
void prof_event_opts(const struct prof_opts *o, struct perfbuf_event_opts *ev);

/* An engine: start (events on, records flowing), poll (read what came),
 * stop (events off, everything drained). Each returns 0 or -errno,
 * having said why on stderr. */
struct prof_engine_ops {
	int (*start)(struct prof_run *run, void **state);
	int (*poll)(struct prof_run *run, void *state, int timeout_ms);
	int (*stop)(struct prof_run *run, void *state);
};
extern const struct prof_engine_ops prof_engine_bpf, prof_engine_perf;

/* ---- outputs (output.c, flamegraph.c) ---- */

int out_folded(FILE *f, struct prof_run *run, struct prof_names *n);
int out_json(FILE *f, struct prof_run *run, struct prof_names *n,
	     double seconds);
int out_svg(FILE *f, struct prof_run *run, struct prof_names *n,
	    const char *title);

#endif
