// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench part "run": `perfbuf run --json` of a BPF object of one's
 * own (tests/bpf/run_storm.bpf.o: the storm's getpgid() calls as typed
 * records) against `perfbuf trace --json` of the same tracepoint, on the
 * same storm: the traced thread's rate, events delivered, each tool's CPU
 * time; then the same storm's captures decoded offline by `perfbuf report
 * --json`: the decode rates of the two decoders alone. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "bench.h"

enum { RN_TRACE, RN_RUN, RN_N };

struct run_once {
	struct trace_run t;
	double cpu_s;		/* the tool's user + system seconds */
};

/* One run of tool @k on the storm (@secs 0: none, the start-up's and the
 * end's CPU time alone) */
static void run_once(int k, const char *tool, const char *obj, const char *out,
		     double secs, struct run_once *r)
{
	char pid_s[16], set[48], log[PATH_MAX + 32];
	char *tr_argv[] = { (char *)tool, "trace", "--json", "-p", pid_s, "--pages", "1024",
			    "-o", (char *)out, "tracepoint:" STORM_TP, NULL };
	char *run_argv[] = { (char *)tool, "run", "--json", "--set", set, "--pages", "1024",
			     "-o", (char *)out, (char *)obj, NULL };
	pid_t pid;
	int status;

	memset(r, 0, sizeof(*r));
	snprintf(pid_s, sizeof(pid_s), "%d", (int)getpid());
	snprintf(set, sizeof(set), "target_pid=%d", (int)getpid());
	snprintf(log, sizeof(log), "%s/%s.log", env.out, k == RN_RUN ? "run-json" : "trace-json-run");
	pid = spawn_tracer(k == RN_RUN ? run_argv : tr_argv, log, "Attached");
	if (pid < 0)
		return;
	r->t.rate = secs ? run_storm(secs, false, &r->t.calls) : 1;
	status = stop_tracer_timed(pid, &r->cpu_s);
	if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    json_summary_counts(out, &r->t))
		r->t.rate = 0;
	unlink(out);
}

/* ---- the same storm's captures decoded offline ------------------------ */

/* "perfbuf record: N events, ..." or "perfbuf run: N events, ..." in @log */
static __u64 cap_events(const char *log)
{
	FILE *f = fopen(log, "r");
	unsigned long long n = 0, v;
	char line[PATH_MAX + 128];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "perfbuf record: %llu events", &v) == 1 ||
		    sscanf(line, "perfbuf run: %llu events", &v) == 1)
			n = v;
	if (f)
		fclose(f);
	return n;
}

/* A capture of the storm by tool @k into @cap: its events (0: failed) */
static __u64 record_storm(int k, const char *tool, const char *obj, const char *cap,
			  double secs)
{
	char pid_s[16], set[48], log[PATH_MAX + 32];
	char *rec_argv[] = { (char *)tool, "record", "-p", pid_s, "--pages", "1024",
			     "-o", (char *)cap, "tracepoint:" STORM_TP, NULL };
	char *run_argv[] = { (char *)tool, "run", "--record", "--set", set, "--pages", "1024",
			     "-o", (char *)cap, (char *)obj, NULL };
	__u64 calls;
	double cpu;
	pid_t pid;
	int status;

	snprintf(pid_s, sizeof(pid_s), "%d", (int)getpid());
	snprintf(set, sizeof(set), "target_pid=%d", (int)getpid());
	snprintf(log, sizeof(log), "%s/%s.log", env.out, k == RN_RUN ? "run-record" : "record-run");
	pid = spawn_tracer(k == RN_RUN ? run_argv : rec_argv, log, "Attached");
	if (pid < 0)
		return 0;
	run_storm(secs, false, &calls);
	status = stop_tracer_timed(pid, &cpu);
	return status >= 0 && WIFEXITED(status) && !WEXITSTATUS(status) ? cap_events(log) : 0;
}

/* perfbuf report --json @cap > /dev/null: its CPU seconds (0: failed) */
static double report_cpu(const char *tool, const char *cap)
{
	char *argv[] = { (char *)tool, "report", "--json", (char *)cap, NULL };
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 0;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 0;
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The storm recorded by `perfbuf record` and `perfbuf run --record`, each
 * capture decoded by `perfbuf report --json` into /dev/null: the decoding
 * and JSON alone, no BPF, no start-up to speak of */
static void bench_run_offline(const char *tool, const char *obj, double secs, int reps)
{
	static const char *name[RN_N] = {
		"`perfbuf report --json` of a `perfbuf record` capture (trace's decoder)",
		"`perfbuf report --json` of a `perfbuf run --record` capture (typed)",
	};
	double cpu[RN_N][MAX_REPS], med[RN_N], rate[RN_N];
	char cap[RN_N][64];
	__u64 events[RN_N];

	for (int k = 0; k < RN_N; k++) {
		snprintf(cap[k], sizeof(cap[k]), "/dev/shm/perfbuf-bench-run%d.cap", k);
		events[k] = record_storm(k, tool, obj, cap[k], secs);
	}
	for (int i = 0; i < reps; i++)
		for (int k = 0; k < RN_N; k++)
			cpu[k][i] = events[k] ? report_cpu(tool, cap[k]) : 0;
	emit_md("\nThe same storm recorded by each, the capture then decoded by `perfbuf report "
		"--json` into /dev/null (median of %d): the decoder and the JSON sink alone.\n\n"
		"| decoded | events | CPU s | decode rate | ns/event |\n|---|---:|---:|---:|---:|\n",
		reps);
	for (int k = 0; k < RN_N; k++) {
		qsort(cpu[k], (size_t)reps, sizeof(double), cmp_double);
		med[k] = cpu[k][reps / 2];
		rate[k] = med[k] > 0 ? events[k] / med[k] : 0;
		if (!rate[k])
			emit_md("| %s | failed (see %s/*.log) | | | |\n", name[k], env.out);
		else
			emit_md("| %s | %llu | %.3f | %.2f M/s | %.0f |\n", name[k],
				(unsigned long long)events[k], med[k], rate[k] / 1e6, 1e9 / rate[k]);
		unlink(cap[k]);
	}
	if (rate[RN_RUN] && rate[RN_TRACE]) {
		emit_md("\n| ratio | | | |\n|---|---:|---:|---|\n");
		info_line("offline decode rate: run's / trace's", rate[RN_RUN], rate[RN_TRACE]);
	}
}

static int cmp_run_once(const void *a, const void *b)
{
	return cmp_rate(&((const struct run_once *)a)->t, &((const struct run_once *)b)->t);
}

int bench_run(void)
{
	static const char *name[RN_N] = { "`perfbuf trace --json`", "`perfbuf run --json`" };
	struct run_once runs[RN_N][MAX_REPS], med[RN_N], idle[RN_N];
	int reps = env.quick ? 1 : MAX_REPS;
	double secs = env.quick ? 2 : 3;
	char tool[PATH_MAX], obj[PATH_MAX + 32], out[64];

	emit_md("\n### perfbuf run --json vs perfbuf trace --json\n\n");
	snprintf(obj, sizeof(obj), "%s", env.self);
	snprintf(strrchr(obj, '/') + 1, 40, "tests/bpf/run_storm.bpf.o");
	if (!perfbuf_tool(tool, sizeof(tool)) || access(obj, R_OK)) {
		emit_md("skipped: cannot find the perfbuf tool or %s next to perfbuf-bench\n", obj);
		return 0;
	}
	snprintf(out, sizeof(out), "/dev/shm/perfbuf-bench-run.json");
	printf("\nrun: syscall storm, %d rounds of %.0f s: trace --json and run --json...\n",
	       reps, secs);
	for (int k = 0; k < RN_N; k++)
		run_once(k, tool, obj, out, 0, &idle[k]);
	for (int i = 0; i < reps; i++)
		for (int k = 0; k < RN_N; k++) {
			run_once(k, tool, obj, out, secs, &runs[k][i]);
			printf("  round %d, %s: %.3f M syscalls/s, %llu of %llu events, %llu lost, %.2f CPU s\n",
			       i + 1, name[k], runs[k][i].t.rate / 1e6,
			       (unsigned long long)runs[k][i].t.events,
			       (unsigned long long)runs[k][i].t.calls,
			       (unsigned long long)runs[k][i].t.lost, runs[k][i].cpu_s);
		}
	for (int k = 0; k < RN_N; k++) {
		qsort(runs[k], (size_t)reps, sizeof(runs[k][0]), cmp_run_once);
		med[k] = runs[k][reps / 2];
	}
	emit_md("getpgid() in a loop on CPU%d, %.0f s per run, median of %d interleaved rounds; "
		"both tools at `--pages 1024`, JSON Lines into a file on /dev/shm; `run`: "
		"`tests/bpf/run_storm.bpf.c` (pid, tid, the argument and comm, as trace "
		"prints them). Tool CPU: user + system seconds of the whole run; idle: a run "
		"of the same tool without events (start-up, BPF load, end), which varies by "
		"a few tenths of a second here between runs, so the decoders are compared "
		"offline below.\n\n", env.prod_cpu, secs, reps);
	emit_md("| tool | syscalls/s | events delivered | lost | tool CPU s | idle CPU s | "
		"CPU ns/event, all of it |\n|---|---:|---:|---:|---:|---:|---:|\n");
	for (int k = 0; k < RN_N; k++) {
		const struct run_once *r = &med[k];

		if (!r->t.rate || !idle[k].t.rate) {
			emit_md("| %s | failed (see %s/*.log) | | | | | | |\n", name[k], env.out);
			continue;
		}
		emit_md("| %s | %.3f M | %llu of %llu | %llu | %.2f | %.2f | %.0f |\n",
			name[k], r->t.rate / 1e6, (unsigned long long)r->t.events,
			(unsigned long long)r->t.calls, (unsigned long long)r->t.lost, r->cpu_s,
			idle[k].cpu_s, r->t.events ? r->cpu_s * 1e9 / r->t.events : 0);
	}
	if (med[RN_RUN].t.rate && med[RN_TRACE].t.rate && idle[RN_RUN].t.rate &&
	    idle[RN_TRACE].t.rate) {
		emit_md("\n| ratio | | | |\n|---|---:|---:|---|\n");
		info_line("traced thread: run / trace", med[RN_RUN].t.rate, med[RN_TRACE].t.rate);
	}
	bench_run_offline(tool, obj, secs, reps);
	return 0;
}
