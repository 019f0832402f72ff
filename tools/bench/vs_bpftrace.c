// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench parts "trace" and "filter": `perfbuf trace` against
 * bpftrace on the syscall storm, printing every event and with a filter
 * that passes one in 1000. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bench.h"

/* A row per tracer that ran (@n of them, med[0] untraced): its rate
 * against the untraced; perfbuf's and bpftrace's (T_PERFBUF, T_BPFTRACE)
 * with the events delivered of the calls / @per that made one. */
static void storm_table(const char *const *row, int n, const struct trace_run *med,
			unsigned int per)
{
	emit_md("| traced by | syscalls/s | vs untraced | events delivered | lost |\n"
		"|---|---:|---:|---:|---:|\n");
	for (int t = 0; t < n; t++) {
		const struct trace_run *r = &med[t];

		if (!r->rate)
			continue;
		if (t == T_PERFBUF || t == T_BPFTRACE)
			emit_md("| %s | %.3f M | %.2fx | %llu of %llu | %llu |\n", row[t],
				r->rate / 1e6, r->rate / med[0].rate,
				(unsigned long long)r->events,
				(unsigned long long)(r->calls / per),
				(unsigned long long)r->lost);
		else
			emit_md("| %s | %.3f M | %.2fx | | |\n", row[t], r->rate / 1e6,
				r->rate / med[0].rate);
	}
}

/* A part's rounds: row 0 untraced, T_PERFBUF perfbuf trace, T_BPFTRACE
 * (and more) bpftrace, @n of them by @once, interleaved; each row the
 * median round. */
struct storm_part {
	const char *title;	/* the section */
	const char *storm, *tracers;	/* stdout: "STORM, N rounds of S s:
					 * TRACERS..." */
	void (*once)(int t, const char *tool, double secs, struct trace_run *r);
	int n, reps;
	const char *pb_skip;	/* the note when perfbuf's row, bpftrace's */
	const char *bt_skip;	/* did not run (%s: the logs' folder) */
};

/* The part's section, rounds and notes, the medians in @med: false
 * (said) without the perfbuf tool. */
static bool storm_part_run(const struct storm_part *p, double secs,
			   struct trace_run *med)
{
	char tool[PATH_MAX];

	if (!tool_section(p->title, tool, sizeof(tool)))
		return false;
	printf("\n%s, %d rounds of %.0f s: %s...\n", p->storm, p->reps, secs,
	       p->tracers);
	storm_rounds(p->once, p->n, tool, secs, p->reps, med);
	if (!med[T_PERFBUF].rate)
		emit_md(p->pb_skip, env.out);
	if (!med[T_BPFTRACE].rate)
		emit_md(p->bt_skip, env.out);
	return true;
}

/* Beyond the table's rows, for the pairs: perfbuf trace with its thread
 * kept on the consumer's CPU, off the storm's; perfbuf trace --aggregate
 * 'count() by comm' and bpftrace's @[comm] = count(), a map each */
#define T_PERFBUF_APART T_N
#define T_PERFBUF_AGG (T_N + 1)
#define T_BPFTRACE_MAP (T_N + 2)

#define FLOOR_PAIRS 9
#define FLOOR_PAIRS_QUICK 5
#define FLOOR_WANTED 0.9

static void trace_once(int t, const char *tool, double secs, struct trace_run *r)
{
	char log[PATH_MAX], prog[128], cpu[16];
	char *pb_argv[] = { "taskset", "-c", cpu, (char *)tool, "trace", "--json", "-o",
			    "/dev/null", "--stats", "tracepoint:" STORM_TP, NULL };
	char *agg_argv[] = { (char *)tool, "trace", "--aggregate", "count() by comm", "-o",
			     "/dev/null", "--stats", "tracepoint:" STORM_TP, NULL };
	char *bt_argv[] = { "bpftrace", "-e", prog, NULL };
	bool pb = t == T_PERFBUF || t == T_PERFBUF_APART || t == T_PERFBUF_AGG;

	snprintf(cpu, sizeof(cpu), "%d", env.cons_cpu);
	snprintf(log, sizeof(log), "%s/%s.log", env.out, pb ? "trace" : "bpftrace");
	if (t == T_BPFTRACE)
		snprintf(prog, sizeof(prog), "tracepoint:%s { printf(\"%%d %%d %%s\\n\", pid, args->pid, comm); }",
			 STORM_TP);
	else if (t == T_BPFTRACE_MAP)
		snprintf(prog, sizeof(prog), "tracepoint:%s { @[comm] = count(); }", STORM_TP);
	else
		snprintf(prog, sizeof(prog), "tracepoint:%s { @n = count(); }", STORM_TP);
	storm_traced(t == T_NONE ? NULL : t == T_PERFBUF_AGG ? agg_argv :
		     pb ? pb_argv + (t == T_PERFBUF ? 3 : 0) : bt_argv,
		     log, pb, secs, false, r);
}

/* perfbuf trace's CPU of a run without a storm (start-up, load, end):
 * 0 when it did not run */
static double idle_cpu(int t, const char *tool)
{
	struct trace_run r;

	trace_once(t, tool, 0, &r);
	return r.status || !r.cpu_s ? 0 : r.cpu_s;
}

/*
 * The consumer's cost per event: perfbuf trace's CPU time (user + system)
 * on the storm, less that of a run without one, per event delivered;
 * --json into /dev/null (decoded, formatted, written) against --aggregate
 * 'count() by comm' (decoded, counted), median of @n runs each.
 */
static void consumer_cost(const char *tool, double secs, int n)
{
	static const int kind[2] = { T_PERFBUF, T_PERFBUF_AGG };
	static const char *const name[2] = {
		"`perfbuf trace --json -o /dev/null`",
		"`perfbuf trace --aggregate 'count() by comm'`",
	};
	double ns[2][FLOOR_PAIRS], idle[2], med[2];
	int done[2] = {};

	printf("consumer cost per event: --json, --aggregate, %d runs each...\n", n);
	for (int k = 0; k < 2; k++)
		idle[k] = idle_cpu(kind[k], tool);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 2; k++) {
			struct trace_run r;

			trace_once(kind[k], tool, secs, &r);
			if (r.rate && r.events && r.cpu_s > idle[k])
				ns[k][done[k]++] = (r.cpu_s - idle[k]) / r.events * 1e9;
		}
	if (!done[0] || !done[1] || !idle[0] || !idle[1])
		return;
	emit_md("\nThe consumer's CPU per event on the same storm: perfbuf trace's user + "
		"system time less that of a run without events (start-up, load, end), per "
		"event delivered; median of %d runs.\n\n"
		"| consumer | idle CPU s | CPU ns/event |\n|---|---:|---:|\n", n);
	for (int k = 0; k < 2; k++) {
		med[k] = median_double(ns[k], done[k]);
		emit_md("| %s | %.2f | %.0f |\n", name[k], idle[k], med[k]);
	}
	emit_md("\n| ratio | | | |\n|---|---:|---:|---|\n"
		"| consumer CPU per event: --aggregate / --json | %.2fx | | |\n", med[1] / med[0]);
}

/* perfbuf trace --aggregate 'count() by comm' against bpftrace's
 * @[comm] = count() in the kernel: the traced thread, in pairs */
static void agg_pairs(const char *tool, double secs, int n)
{
	struct paired p;

	printf("perfbuf trace --aggregate / bpftrace @[comm] = count(): %d pairs...\n", n);
	if (storm_pairs(trace_once, T_PERFBUF_AGG, T_BPFTRACE_MAP, tool, secs, n, &p))
		return;
	emit_md("| traced thread: perfbuf trace --aggregate 'count() by comm' / bpftrace "
		"`@[comm] = count()` | %.2fx | >= %.2fx | %s | %.3f M / %.3f M | %.2f–%.2fx | %d |\n",
		p.ratio, FLOOR_WANTED, met(p.ratio >= FLOOR_WANTED), p.a / 1e6, p.b / 1e6,
		p.lo, p.hi, p.n);
}

/*
 * What perfbuf trace costs the traced thread beyond any BPF program on the
 * tracepoint: its rate under `perfbuf trace --json -o /dev/null` against
 * bpftrace count(), in pairs of storms in one run (storm_pairs()), the
 * order swapped every pair. The machine's load average goes with it: a
 * busy neighbour slows both sides of a pair, not their ratio, but it
 * widens the range.
 */
static void floor_pairs(const char *tool, double secs)
{
	int n = env.quick ? FLOOR_PAIRS_QUICK : FLOOR_PAIRS;
	double load[3] = {};
	struct paired p;

	printf("perfbuf trace / bpftrace count(): %d pairs of %.0f s storms...\n", n, secs);
	if (storm_pairs(trace_once, T_PERFBUF, T_FLOOR, tool, secs, n, &p))
		return;
	if (getloadavg(load, 3) < 0)
		load[0] = load[1] = load[2] = -1;
	emit_md("\nIn pairs of storms: `perfbuf trace` then bpftrace count(), then the other "
		"way round, %.0f s each; the ratio is the median of the pairs' ratios. Load "
		"average after them: %.2f %.2f %.2f.\n\n"
		"| target | ratio | wanted | | syscalls/s (medians) | pairs' range | pairs |\n"
		"|---|---:|---:|---|---:|---:|---:|\n", secs, load[0], load[1], load[2]);
	emit_md("| traced thread: perfbuf trace --json -o /dev/null / bpftrace count() | %.2fx | "
		">= %.2fx | %s | %.3f M / %.3f M | %.2f–%.2fx | %d |\n", p.ratio, FLOOR_WANTED,
		met(p.ratio >= FLOOR_WANTED), p.a / 1e6, p.b / 1e6, p.lo, p.hi, p.n);
	/* how much of the gap is perfbuf's reading thread sharing the storm's
	 * CPU when the scheduler puts it there, not the event */
	printf("the same, perfbuf trace on CPU%d (taskset): %d pairs...\n", env.cons_cpu, n);
	if (storm_pairs(trace_once, T_PERFBUF_APART, T_FLOOR, tool, secs, n, &p))
		return;
	emit_md("| the same, `perfbuf trace` kept on CPU%d (`taskset -c %d`), off the storm's | "
		"%.2fx | | | %.3f M / %.3f M | %.2f–%.2fx | %d |\n", env.cons_cpu, env.cons_cpu,
		p.ratio, p.a / 1e6, p.b / 1e6, p.lo, p.hi, p.n);
	agg_pairs(tool, secs, n);
	consumer_cost(tool, secs, env.quick ? 1 : 3);
}

/* --baseline: perfbuf trace of another build (T_PERFBUF's way) */
#define T_BASELINE (T_N + 1)

static void baseline_once(int t, const char *tool, double secs, struct trace_run *r)
{
	trace_once(T_PERFBUF, t == T_BASELINE ? env.baseline : tool, secs, r);
}

/* --baseline: what this build's `perfbuf trace` costs the traced thread
 * against another build's (a change measured: with and without it), in
 * pairs of storms in one run, as floor_pairs() */
static void baseline_pairs(const char *tool, double secs)
{
	int n = env.quick ? FLOOR_PAIRS_QUICK : FLOOR_PAIRS;
	struct paired p;

	printf("perfbuf trace / the baseline's (%s): %d pairs...\n", env.baseline, n);
	if (storm_pairs(baseline_once, T_PERFBUF, T_BASELINE, tool, secs, n, &p)) {
		emit_md("\nThe baseline's pairs skipped: a `perfbuf trace` did not start, "
			"attach or exit cleanly (see %s/trace.log)\n", env.out);
		return;
	}
	emit_md("\nIn pairs of storms, this build's `perfbuf trace --json -o /dev/null` "
		"and the baseline's (`%s`), the order swapped every pair, %.0f s each.\n\n"
		"| target | ratio | syscalls/s (medians) | pairs' range | pairs |\n"
		"|---|---:|---:|---:|---:|\n"
		"| traced thread: this build / the baseline | %.3fx | %.3f M / %.3f M | "
		"%.3f–%.3fx | %d |\n", env.baseline, secs, p.ratio, p.a / 1e6, p.b / 1e6,
		p.lo, p.hi, p.n);
}

/*
 * The end-user view: a thread calling getpgid() flat out, untraced, traced
 * by `perfbuf trace --json -o /dev/null`, and by bpftrace printf() on the
 * same tracepoint; bpftrace count() (no output) is the floor that the
 * tracepoint and a BPF program cost by themselves. Rounds are interleaved
 * and each row is the median round.
 */
int bench_trace(void)
{
	double secs = env.quick ? 2 : 3;
	static const char *row[T_N] = {
		"nothing",
		"`perfbuf trace --json -o /dev/null`",
		"`bpftrace -e '... { printf(...) }'`",
		"`bpftrace -e '... { @n = count(); }'` (no output: the floor)",
	};
	const struct storm_part p = {
		.title = "perfbuf trace vs bpftrace", .storm = "syscall storm",
		.tracers = "untraced, perfbuf trace, bpftrace printf, bpftrace count",
		.once = trace_once, .n = T_N, .reps = env.quick ? 1 : 3,
		.pb_skip = "perfbuf trace row skipped: `perfbuf trace` did not start, attach or "
			   "exit cleanly (see %s/trace.log)\n\n",
		.bt_skip = "bpftrace rows skipped: bpftrace is missing or did not attach "
			   "(scripts/setup.sh --bench installs it; see %s/bpftrace.log)\n\n",
	};
	struct trace_run med[T_N];
	char tool[PATH_MAX];

	if (!storm_part_run(&p, secs, med))
		return 0;
	emit_md("getpgid() in a loop on CPU%d, %.0f s per run, median of %d interleaved "
		"rounds; the tracers run where the scheduler puts them.\n\n",
		env.prod_cpu, secs, p.reps);
	storm_table(row, T_N, med, 1);
	if (med[T_PERFBUF].rate && med[T_BPFTRACE].rate) {
		emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
		ratio_line("traced thread: perfbuf trace / bpftrace printf",
			   med[T_PERFBUF].rate, med[T_BPFTRACE].rate, 15, false);
		if (med[T_FLOOR].rate)
			emit_md("| ceiling for any tracer here: count() floor / bpftrace printf | %.2fx | | |\n",
				med[T_FLOOR].rate / med[T_BPFTRACE].rate);
	}
	if (med[T_PERFBUF].rate && med[T_FLOOR].rate && perfbuf_tool(tool, sizeof(tool)))
		floor_pairs(tool, secs);
	if (env.baseline && med[T_PERFBUF].rate && perfbuf_tool(tool, sizeof(tool)))
		baseline_pairs(tool, secs);
	return 0;
}

/* ---- `perfbuf profile` against perf record and bpftrace ---------------- */

/* ---- a filter in the kernel against bpftrace's /pred/ ----------------- */

enum ftracer { F_NONE = T_NONE, F_PERFBUF = T_PERFBUF, F_BPFTRACE = T_BPFTRACE, F_N };

static void filter_once(int t, const char *tool, double secs,
			struct trace_run *r)
{
	char log[PATH_MAX], prog[192];
	char *pb_argv[] = { (char *)tool, "trace", "--json", "-o", "/dev/null", "--stats",
			    "--filter", "args.pid == " STR(FILTER_PID), "tracepoint:" STORM_TP, NULL };
	char *bt_argv[] = { "bpftrace", "-e", prog, NULL };

	snprintf(log, sizeof(log), "%s/%s.log", env.out,
		 t == F_PERFBUF ? "filter" : "bpftrace-filter");
	snprintf(prog, sizeof(prog), "tracepoint:%s /args->pid == %d/ { printf(\"%%d %%d %%s\\n\", pid, args->pid, comm); }",
		 STORM_TP, FILTER_PID);
	storm_traced(t == F_NONE ? NULL : t == F_PERFBUF ? pb_argv : bt_argv, log,
		     t == F_PERFBUF, secs, true, r);
}

/*
 * The same storm, its argument cycling so that 1 call in 1000 passes the
 * filter: what a filter costs the traced thread when it rejects nearly
 * everything, `perfbuf trace --filter` against bpftrace's predicate.
 */
int bench_filter(void)
{
	double secs = env.quick ? 2 : 3;
	static const char *row[F_N] = {
		"nothing",
		"`perfbuf trace --filter 'args.pid == N'`",
		"`bpftrace -e '... /args->pid == N/ { printf(...) }'`",
	};
	const struct storm_part p = {
		.title = "--filter in the kernel vs bpftrace /pred/", .storm = "filter storm",
		.tracers = "untraced, perfbuf trace --filter, bpftrace /pred/",
		.once = filter_once, .n = F_N, .reps = env.quick ? 1 : MAX_REPS,
		.pb_skip = "perfbuf row skipped: `perfbuf trace --filter` did not start, attach or "
			   "exit cleanly (see %s/filter.log)\n\n",
		.bt_skip = "bpftrace row skipped: bpftrace is missing or did not attach "
			   "(scripts/setup.sh --bench installs it; see %s/bpftrace-filter.log)\n\n",
	};
	struct trace_run med[F_N];

	if (!storm_part_run(&p, secs, med))
		return 0;
	emit_md("getpgid(N + i %% 1000) in a loop on CPU%d (N = %d, above pid_max: the "
		"call fails at once), 1 call in 1000 passes the filter; %.0f s per run, "
		"median of %d interleaved rounds.\n\n", env.prod_cpu, FILTER_PID, secs, p.reps);
	storm_table(row, F_N, med, 1000);
	if (med[F_PERFBUF].rate && med[F_BPFTRACE].rate) {
		emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
		ratio_line("traced thread: perfbuf --filter / bpftrace /pred/",
			   med[F_PERFBUF].rate, med[F_BPFTRACE].rate, 0.9, false);
	}
	return 0;
}
