/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perfbuf-bench: the same BPF producer against perfbuf and libbpf's
 * consumers, side by side in one run.
 *
 * Producer: bpf/emit.bpf.c, program emit (perf buffer) or emit_rb (BPF
 * ringbuf), run with BPF_PROG_TEST_RUN by a thread pinned to CPU0, BATCH
 * 64-byte records per run, each carrying its bpf_ktime_get_ns() emit time.
 * Consumer: a thread pinned to CPU1. Peers (peers.c):
 *   perfbuf default         1024 pages, watermark 1/4 ring, latency 10 ms
 *   perfbuf wakeup/record   wakeup_events = 1
 *   perfbuf timestamps      timestamps: PERF_SAMPLE_TIME in every record
 *   perfbuf ordered         ordered: one stream in time order
 *   libbpf perf_buffer      perf_buffer__new() defaults (wake per record)
 *   libbpf raw, watermark   perf_buffer__new_raw(), the same 1 MiB watermark
 *   libbpf ring_buffer      a BPF ringbuf of the same total size
 *   perfbuf / libbpf raw, the same callback: perfbuf default and libbpf raw
 *                           with a callback that only counts records by kind
 *
 * The run is a list of parts (main.c's bench_parts[]), one file each:
 *   throughput.c   delivered records/s, loss, consumer CPU ns per record,
 *                  emit->receive latency at 1 k/s and flat out; the
 *                  offered-rate sweep (plotted with gnuplot)
 *   ordered.c      perfbuf default against ordered, producers on both CPUs
 *   drain.c        the time to drain a full ring
 *   vs_bpftrace.c  `perfbuf trace` against bpftrace on a syscall storm
 *                  (storm.c), every event printed / a filter passing 1 in 1000
 *   profile.c      `perfbuf profile` against perf record and bpftrace, and
 *                  the time to name 10 k stacks
 *   record.c       `perfbuf record` against `trace --json` on the storm, a
 *                  full ring drained to a file (file_drain.c), report's rate
 *   record_load.c  `perfbuf record`'s loss on the storm with and without
 *                  busy loops on every CPU, against `trace --json -o FILE`
 *   python.c       the Python package's numpy batches against bcc's Python
 *                  reader and a C consumer
 *   run.c          `perfbuf run --json` of a typed object against `trace
 *                  --json` on the storm: decode rates
 *   nats.c         `trace --nats` (batches, and an event a message) against
 *                  `trace --json -o FILE` on the storm, a local nats-server
 *   cpus.c         start-up and an idle consumer's CPU, perfbuf against
 *                  libbpf's perf_buffer (run in guests of many vCPUs)
 *   ledger.c       perfbuf_output() against bpf_perf_event_output() per
 *                  write, in the kernel (BPF_PROG_TEST_RUN)
 * A new part: a file with `int bench_NAME(void)` that prints its tables with
 * emit_md() (table.c), declared below, and a line in bench_parts[].
 */
#ifndef PERFBUF_BENCH_H
#define PERFBUF_BENCH_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include <bpf/libbpf.h>

#include "perfbuf.h"
#include "emit.h"
#include "common/producer.h"
#include "common/cli.h"

#define PAGE_SZ 4096
#define REC_SIZE 64
#define REC_BYTES 80		/* perf record: 8 header + 4 size + 64, 8-aligned */
#define FLAT_OUT_X 30.0		/* where the plot puts flat-out points (M/s) */
#define LATENCY_NS 10000000ULL	/* perfbuf's default latency_ms, 10 ms */
#define MAX_REPS 3
#define STR_(x) #x
#define STR(x) STR_(x)

/* ---- the options (main.c) --------------------------------------------- */

enum peer {
	PB_DEFAULT, PB_WAKE1, PB_TS, PB_ORDERED,
	LB_DEFAULT, LB_RAW, LB_RINGBUF,
	PB_KIND, LB_KIND,	/* the same callback: counts records by kind */
	LB_FLOOR,		/* libbpf's rings read by an inline loop */
	PB_ITER,		/* libbpf's rings read by perfbuf's iterator */
	N_PEERS
};

struct bench_env {
	size_t pages;
	double secs;
	int prod_cpu, cons_cpu;
	int batch;
	const char *out;
	bool quick;
	bool no_sweep;
	bool no_trace;
	const char *only;	/* --only: one part's name */
	const char *baseline;	/* --baseline: another build's perfbuf */
	bool peer_on[N_PEERS];	/* --peers: the throughput table's rows */
	char self[PATH_MAX];
};
extern struct bench_env env;

/* ---- the parts: each prints its tables; 0 or a negative errno ---------- */

int bench_throughput(void);	/* throughput.c, with the sweep */
int bench_ordered(void);	/* ordered.c */
int bench_drain(void);		/* drain.c */
int bench_trace(void);		/* vs_bpftrace.c */
int bench_filter(void);		/* vs_bpftrace.c */
int bench_profile(void);	/* profile.c, with bench_symbolize() */
int bench_record(void);		/* record.c */
int bench_record_load(void);	/* record_load.c */
int bench_python(void);		/* python.c: the Python package vs bcc and C */
int bench_run(void);		/* run.c */
int bench_nats(void);		/* nats.c */
int bench_cpus(void);		/* cpus.c: start-up and idle cost per CPU count */
int bench_ledger(void);		/* ledger.c: perfbuf_output()'s cost per write */

/* ---- peers.c: one measurement ----------------------------------------- */

extern const char *const peer_name[N_PEERS];
extern const char *const peer_key[N_PEERS];
extern const bool peer_swept[N_PEERS];

/* One measurement's set-up. */
struct point {
	enum peer peer;
	double rate;		/* records/s per producer; 0: flat out */
	double secs;
	int batch;		/* records per program run */
	__u64 lat_mask;
	int n_prod;		/* producers on env.prod_cpu, then env.cons_cpu */
	int cons_cpu;		/* -1: where the scheduler puts the consumer */
	bool check_order;
};

struct result {
	double secs;
	__u64 offered, received, enospc, failed;
	double cpu_ns_per_rec;
	__u64 p50, p99;
	__u64 late, disorder;
	int err;
};

int run_point(const struct point *pt, struct result *out);
/* PB_KIND and LB_KIND: no latency taken, flat out only. */
bool kind_peer(enum peer p);
/* A bpf-output event's attr waking at @watermark bytes. */
int perf_attr_wm(struct perf_event_attr *attr, __u32 watermark);
void sleep_ns(__u64 ns);

/* ---- table.c: the tables, on stdout and in bench.md -------------------- */

extern FILE *md;
void __attribute__((format(printf, 1, 2))) emit_md(const char *fmt, ...);
/* The CPU model (with family and model numbers), CPUs, VM or not, kernel. */
const char *bench_host(void);
/* "### @title", then the host the table comes from. */
void emit_section(const char *title);
void ratio_line(const char *what, double a, double b, double target,
		bool lower_is_better);
void ratio_aim_line(const char *what, double a, double b, double need,
		    double aim);
void info_line(const char *what, double a, double b);
const char *met(bool ok);
const char *fmt_lat(char *buf, size_t n, __u64 ns);
double mps(__u64 n, double secs);
double rate_of(const struct result *r);
double loss_pct(const struct result *r);
double delivered_share(const struct result *r);
struct result median_result(struct result *r, int n);
/* The median of @v[@n] (sorted in place); of an even count, the mean of the
 * middle two. */
double median_double(double *v, int n);

/* Two peers measured in pairs of rounds, A then B, then B then A: a
 * round is at the mercy of the seconds it ran in (other jobs, the host
 * moving the vCPUs), a pair much less so. */
struct paired {
	int n;			/* pairs */
	double ratio, lo, hi;	/* the pairs' A / B: median, smallest, largest */
	double a, b;		/* each peer's median value (ns/record, rate) */
	double mps;		/* the producer's median offered M/s */
};

/* The median of the @n pairs' @ratio (sorted in place) and their range
 * into @p (n, ratio, lo, hi). */
void paired_ratios(double *ratio, int n, struct paired *p);

/* ---- drain.c: a full ring, drained in turn by several readers ---------- */

struct drain_ctx {
	__u64 n, seq_sum;
	FILE *out;		/* lb_fwrite_cb() writes there */
};

#define DRAIN_ROUNDS 15

/* D_LINES: no records, one load per 64-byte line of the ring: the floor */
enum { D_FOLD, D_ITER, D_COLLECTOR, D_LIBBPF, D_LINES, D_N };

struct drain_bench {
	struct emit *skel;
	int prog_fd;
	size_t data_size;
	__u64 want;		/* records in a full ring */
	struct perf_buffer *lpb;
	perf_buffer_event_fn lb_fn;	/* lpb's callback; NULL: drain_lb_cb */
	struct perfbuf_ring *ring;	/* over lpb's ring of the producer CPU */
	struct perfbuf *pb;
	void *base;		/* the header page of libbpf's ring */
	void *coll_map;		/* the collector's ring mapped again */
	int lb_fd, coll_fd;	/* the producer CPU's event: libbpf's, the
				 * collector's (the map slot is swapped) */
	struct drain_ctx d;
	bool exact;		/* every drain saw every record */
	__u64 fresh[D_N][DRAIN_ROUNDS], replay[D_N][DRAIN_ROUNDS];
};

int fill_ring(int prog_fd, size_t data_size);
__u64 fastest(const __u64 *t);	/* of DRAIN_ROUNDS values */
int drain_open_libbpf(struct drain_bench *b);

/* ---- storm.c: a syscall storm under a tracer --------------------------- */

#define STORM_TP "syscalls:sys_enter_getpgid"

/* The filter storm's argument that passes, once in 1000 calls: above
 * pid_max (at most 2^22), so getpgid() fails at once */
#define FILTER_PID 5000000

enum tracer { T_NONE, T_PERFBUF, T_BPFTRACE, T_FLOOR, T_N };

struct trace_run {
	double rate;		/* traced thread's syscalls/s; 0: not run */
	__u64 calls, events, lost;
	int status;		/* the tracer's exit status */
	double cpu_s;		/* the tracer's user + system seconds */
};

bool perfbuf_tool(char *tool, size_t sz);
/* Section @title and perfbuf_tool(); false when the tool is missing (the
 * section says it is skipped). */
bool tool_section(const char *title, char *tool, size_t sz);
double run_storm(double secs, bool cycle, __u64 *calls);
pid_t spawn_tracer(char *const argv[], const char *log, const char *ready);
int stop_tracer(pid_t pid);
int stop_tracer_after(pid_t pid, __u64 settle_ns);
/* stop_tracer(), with the tracer's user + system seconds (wait4) */
int stop_tracer_timed(pid_t pid, double *cpu_s);
void storm_traced(char *const argv[], const char *log, bool pb,
		  double secs, bool cycle, struct trace_run *r);
int cmp_rate(const void *a, const void *b);
int json_summary_counts(const char *path, struct trace_run *t);
void storm_rounds(void (*once)(int t, const char *tool, double secs,
			       struct trace_run *r),
		  int nt, const char *tool, double secs, int reps,
		  struct trace_run *med);
/* @n pairs of storms under tracers @a and @b (once() runs one), the order
 * swapped every pair; p->ratio the median of the pairs' rate a / rate b,
 * p->a and p->b each tracer's median rate. -EIO when no pair ran. */
int storm_pairs(void (*once)(int t, const char *tool, double secs,
			     struct trace_run *r),
		int a, int b, const char *tool, double secs, int n,
		struct paired *p);

/* ---- record.c and file_drain.c ----------------------------------------- */

/* Where the outputs of the record part go: [FS_TMPFS] /dev/shm when it is
 * a tmpfs, [FS_DISK] env.out when it is on a block device; dir is "" for
 * one that is not usable. what: "ext4 on /dev/vda". */
enum { FS_TMPFS, FS_DISK, FS_N };

struct rec_fs {
	char dir[FS_N][PATH_MAX];
	char what[FS_N][PATH_MAX + 320];
};

extern const char *const fs_name[FS_N];
void rec_fs_find(struct rec_fs *fs);
/* events and lost of record's closing line in its stderr @log */
int record_summary_counts(const char *log, struct trace_run *t);
int bench_file_drain(const struct rec_fs *fs);

#endif
