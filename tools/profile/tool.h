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
#include "sym/sym.h"
#include "output/file.h"

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
	const char *metrics;		/* --metrics [ADDR:]PORT */
};

/* ---- stacks (stacks.c) ---- */

struct prof_stack {
	__u32 pid, tid;
	char comm[16];
	__u32 nframes;		/* root first, leaf last */
	__u64 count;
	struct sym_frame frames[];
};

struct prof_stacks;

struct prof_stacks *stacks_new(void);
void stacks_free(struct prof_stacks *s);
/* add one sample: @frames root first */
int stacks_add(struct prof_stacks *s, __u32 pid, __u32 tid, const char *comm,
	       const struct sym_frame *frames, __u32 n);
size_t stacks_cnt(const struct prof_stacks *s);
struct prof_stack *stacks_get(const struct prof_stacks *s, size_t i);
__u64 stacks_samples(const struct prof_stacks *s);

/* ---- the run (cmd/profile.c, engines) ---- */

struct prof_counts {
	__u64 samples;		/* stacks received */
	__u64 lost;		/* records lost in the rings */
	__u64 throttled;	/* THROTTLE records: the kernel lowered the rate */
	__u64 stack_errors;	/* stacks the kernel could not take */
	__u64 bad;		/* records that did not parse */
};

struct out_file;

struct prof_run {
	const struct prof_opts *o;
	struct prof_stacks *stacks;
	struct sym_maps *maps;
	struct sym_comms *comms;
	struct prof_counts counts;
	struct metrics *metrics;	/* --metrics, or NULL */
	struct out_file *svg;		/* --svg's file, opened before sampling */
	bool start_said;	/* the engine said why it could not start */
};

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

/* ---- outputs (folded.c, flamegraph.c) ---- */

int out_folded(FILE *f, struct prof_run *run, struct sym_names *n);
/* JSON Lines to @fd; 0 or a negative errno (-EPIPE: the reader left) */
int out_json(int fd, struct prof_run *run, struct sym_names *n, double seconds);
int out_svg(FILE *f, struct prof_run *run, struct sym_names *n,
	    const char *title);

#endif
