// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench part "profile": `perfbuf profile` against perf record and
 * bpftrace (the profiled workload's slowdown), and the time to name 10 k
 * stacks. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "bench.h"
#include "common/ksyms.h"
#include "profile/tool.h"

enum profiler { PR_NONE, PR_PB_BPF, PR_PB_PERF, PR_PERF, PR_BPFTRACE, PR_N };

struct prof_bench_run {
	double rate;		/* the workload's rounds per second of its own
				 * CPU time; 0: not run */
	double wall_rate;	/* its rounds per second of wall time */
	double cpu_s;		/* the profiler's CPU seconds while sampling */
	__u64 samples;		/* as the profiler reports them */
};

/* The profiled workload: a call chain 12 deep, then arithmetic and a
 * getppid() per round, on the producer CPU. */
static volatile __u64 prof_sink;

static __attribute__((noinline)) void prof_work(int depth)
{
	if (depth) {
		prof_work(depth - 1);
		prof_sink++;	/* not a tail call: the frames stay */
		return;
	}
	for (int i = 0; i < 2000; i++)
		prof_sink += (__u64)i * i;
	prof_sink += (__u64)syscall(SYS_getppid);
}

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Rounds per second of the workload's own CPU time (what a profiler's
 * interrupts and cache misses take from it; other jobs on the machine
 * take wall time, not this), and per second of wall time. */
static void run_workload(double secs, struct prof_bench_run *r)
{
	__u64 t0 = perfbuf_now_ns(), end = t0 + (__u64)(secs * 1e9), n = 0;
	double c0 = thread_cpu_s();

	while (perfbuf_now_ns() < end) {
		for (int i = 0; i < 100; i++)
			prof_work(12);
		n += 100;
	}
	r->rate = n / (thread_cpu_s() - c0);
	r->wall_rate = n / ((perfbuf_now_ns() - t0) / 1e9);
}

/* CPU time of every thread of @pid so far, in seconds (schedstat: ns) */
static double proc_cpu_s(pid_t pid)
{
	char path[64], spath[384];
	unsigned long long ns, sum = 0;
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(spath, sizeof(spath), "%s/%s/schedstat", path, d->d_name);
		f = fopen(spath, "r");
		if (f && fscanf(f, "%llu", &ns) == 1)
			sum += ns;
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return (double)sum / 1e9;
}

/* The samples the profiler's log reports (perfbuf profile's summary,
 * perf record's "(N samples)", bpftrace's map: the sum of its counts). */
static __u64 log_samples(enum profiler p, const char *log)
{
	char line[8192];
	__u64 n = 0, v;
	FILE *f = fopen(log, "r");
	const char *at;

	while (f && fgets(line, sizeof(line), f)) {
		if (p == PR_BPFTRACE && (at = strstr(line, "]: ")) &&
		    sscanf(at + 3, "%llu", (unsigned long long *)&v) == 1)
			n += v;
		else if (p == PR_PERF && (at = strstr(line, " samples) ]"))) {
			while (at > line && at[-1] != '(')
				at--;
			n = strtoull(at, NULL, 10);
		}
		else if ((p == PR_PB_BPF || p == PR_PB_PERF) &&
			 sscanf(line, "perfbuf profile: %llu samples in",
				(unsigned long long *)&v) == 1)
			n = v;
	}
	if (f)
		fclose(f);
	return n;
}

static void profile_once(enum profiler p, const char *tool, int hz, double secs,
			 struct prof_bench_run *r)
{
	char log[PATH_MAX], hzs[16], prog[96], data[PATH_MAX];
	char *pb_argv[] = { (char *)tool, "profile", "-F", hzs, "--engine",
			    p == PR_PB_BPF ? "bpf" : "perf", NULL };
	char *perf_argv[] = { "perf", "record", "-a", "-g", "-F", hzs, "-o", data,
			      NULL };
	char *bt_argv[] = { "bpftrace", "-e", prog, NULL };
	char *const *argv = p == PR_PERF ? perf_argv : p == PR_BPFTRACE ? bt_argv :
			    pb_argv;
	double cpu0;
	int status;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (p == PR_NONE) {
		run_workload(secs, r);
		return;
	}
	snprintf(hzs, sizeof(hzs), "%d", hz);
	snprintf(prog, sizeof(prog), "profile:hz:%d { @[kstack, ustack] = count(); }", hz);
	snprintf(data, sizeof(data), "%s/perf.data", env.out);
	snprintf(log, sizeof(log), "%s/profile-%s.log", env.out,
		 p == PR_PERF ? "perf" : p == PR_BPFTRACE ? "bpftrace" : "perfbuf");
	pid = spawn_tracer(argv, log, p == PR_PERF ? NULL :
			   p == PR_BPFTRACE ? "ttach" : "sampling");
	if (pid < 0)
		return;
	cpu0 = proc_cpu_s(pid);
	run_workload(secs, r);
	r->cpu_s = proc_cpu_s(pid) - cpu0;
	status = stop_tracer(pid);
	r->samples = log_samples(p, log);
	/* a run counts when the profiler reported its samples (perfbuf must
	 * also exit 0: SIGINT is its normal end) */
	if (!r->samples || ((p == PR_PB_BPF || p == PR_PB_PERF) && status))
		r->rate = 0;
	unlink(data);
}

static int cmp_prof_rate(const void *a, const void *b)
{
	const struct prof_bench_run *x = a, *y = b;

	return x->rate < y->rate ? -1 : x->rate > y->rate;
}

static const char *const prof_row[PR_N] = {
	"nothing", "`perfbuf profile` (engine bpf)", "`perfbuf profile --engine perf`",
	"`perf record -a -g`", "bpftrace `profile:hz:N { @[kstack, ustack] = count(); }`",
};

static void profile_rows(struct prof_bench_run med[2][PR_N], const int *hz,
			 double secs)
{
	emit_md("| profiler | Hz | workload rounds per CPU-s | vs unprofiled | rounds/s (wall) | profiler CPU | samples |\n"
		"|---|---:|---:|---:|---:|---:|---:|\n");
	for (int h = 0; h < 2; h++)
		for (int p = PR_NONE; p < PR_N; p++) {
			const struct prof_bench_run *r = &med[h][p];

			if (!r->rate)
				continue;
			if (p == PR_NONE) {
				emit_md("| %s | | %.0f | 1.000x | %.0f | | |\n",
					prof_row[p], r->rate, r->wall_rate);
				continue;
			}
			emit_md("| %s | %d | %.0f | %.3fx | %.0f | %.2f%% | %llu |\n",
				prof_row[p], hz[h], r->rate, r->rate / med[h][PR_NONE].rate,
				r->wall_rate, 100 * r->cpu_s / secs,
				(unsigned long long)r->samples);
		}
}

static void profile_targets(struct prof_bench_run med[2][PR_N], const int *hz)
{
	char what[160];

	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	for (int h = 0; h < 2; h++) {
		const struct prof_bench_run *m = med[h];

		if (m[PR_PB_BPF].rate && m[PR_PERF].rate) {
			snprintf(what, sizeof(what), "workload at %d Hz: under perfbuf (bpf) / under perf record", hz[h]);
			ratio_line(what, m[PR_PB_BPF].rate, m[PR_PERF].rate, 0.98, false);
		}
		if (m[PR_PB_BPF].rate && m[PR_BPFTRACE].rate) {
			snprintf(what, sizeof(what), "workload at %d Hz: under perfbuf (bpf) / under bpftrace", hz[h]);
			ratio_line(what, m[PR_PB_BPF].rate, m[PR_BPFTRACE].rate, 0.98, false);
		}
		if (m[PR_PB_PERF].rate && m[PR_PERF].rate) {
			snprintf(what, sizeof(what), "workload at %d Hz: under perfbuf (perf) / under perf record", hz[h]);
			info_line(what, m[PR_PB_PERF].rate, m[PR_PERF].rate);
		}
		if (m[PR_PB_BPF].cpu_s && m[PR_PERF].cpu_s) {
			snprintf(what, sizeof(what), "profiler CPU at %d Hz: perfbuf (bpf) / perf record", hz[h]);
			info_line(what, m[PR_PB_BPF].cpu_s, m[PR_PERF].cpu_s);
		}
		if (m[PR_PB_BPF].cpu_s && m[PR_BPFTRACE].cpu_s) {
			snprintf(what, sizeof(what), "profiler CPU at %d Hz: perfbuf (bpf) / bpftrace", hz[h]);
			info_line(what, m[PR_PB_BPF].cpu_s, m[PR_BPFTRACE].cpu_s);
		}
	}
}

/*
 * The profiled workload's slowdown: a call chain 12 deep doing arithmetic
 * and a getppid() per round on CPU0, unprofiled, then profiled system-wide
 * at 99 and at 999 Hz by perfbuf profile (both engines, folded output to
 * /dev/null), perf record -a -g (to a file, unsymbolized) and bpftrace
 * (stacks counted in the kernel); the profilers run where the scheduler
 * puts them. Rounds are interleaved; each row is the median round.
 */
static int profile_table(double secs)
{
	static const int hz[2] = { 99, 999 };
	struct prof_bench_run runs[2][PR_N][3], med[2][PR_N];
	int reps = env.quick ? 1 : 3;
	char tool[PATH_MAX];

	if (!tool_section("perfbuf profile vs perf record and bpftrace", tool, sizeof(tool)))
		return 0;
	printf("\nprofiled workload, %d rounds of %.0f s: unprofiled, perfbuf profile (bpf, perf), perf record, bpftrace at 99 and 999 Hz...\n",
	       reps, secs);
	for (int i = 0; i < reps; i++)
		for (int h = 0; h < 2; h++)
			for (int p = 0; p < PR_N; p++) {
				pin_self(env.prod_cpu);
				profile_once(p, tool, hz[h], secs, &runs[h][p][i]);
			}
	for (int h = 0; h < 2; h++)
		for (int p = 0; p < PR_N; p++) {
			qsort(runs[h][p], reps, sizeof(runs[h][p][0]), cmp_prof_rate);
			med[h][p] = runs[h][p][reps / 2];
		}
	emit_md("A call chain 12 deep (arithmetic and a getppid() per round) on CPU%d, "
		"%.0f s per run, median of %d interleaved rounds (each Hz has its own "
		"unprofiled row); every profiler samples every CPU and runs where the "
		"scheduler puts it. The slowdown is in rounds per second of the "
		"workload's own CPU time (CLOCK_THREAD_CPUTIME_ID): what the sampling "
		"interrupts and the cache misses take from it, not what other jobs on "
		"the machine do; wall rounds/s for reference. Profiler CPU: all its "
		"threads' CPU time while the workload ran, in %% of one CPU "
		"(schedstat; perf record writes unsymbolized stacks to a file; perfbuf "
		"names them at the end, not counted here). Samples: over the profiler's "
		"whole run (start-up and the 1.5 s before it is stopped included). "
		"Missing rows: the profiler did not start (logs in "
		"%s/profile-*.log).\n\n",
		env.prod_cpu, secs, reps, env.out);
	profile_rows(med, hz, secs);
	profile_targets(med, hz);
	return 0;
}

/* Random addresses in the kernel's text: in functions of a table of
 * /proc/kallsyms of its own (common/ksyms.c), so that the timed part
 * still reads the process's table itself */
static int kernel_addrs(__u64 *v, size_t n)
{
	struct sym_ksyms *k = ksyms_load();
	size_t nk = k && !ksyms_hidden(k) ? ksyms_cnt(k) : 0;

	for (size_t i = 0; nk && i < n; i++)
		v[i] = ksyms_nth_addr(k, (size_t)rand() % nk) + (__u64)(rand() % 16);
	if (k)
		ksyms_free(k);
	return nk ? 0 : -1;
}

/* Random addresses in this process's executable mappings */
static int user_addrs(__u64 *v, size_t n)
{
	unsigned long long lo, hi;
	__u64 ranges[64][2];
	size_t nr = 0;
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && nr < 64 && fgets(line, sizeof(line), f))
		if (strchr(line, '/') &&
		    sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) == 3 && strchr(perms, 'x'))
			ranges[nr][0] = lo, ranges[nr++][1] = hi;
	if (f)
		fclose(f);
	for (size_t i = 0; nr && i < n; i++) {
		size_t r = (size_t)rand() % nr;

		v[i] = ranges[r][0] + (__u64)rand() % (ranges[r][1] - ranges[r][0]);
	}
	return nr ? 0 : -1;
}

/*
 * Naming 10 k distinct stacks (16 user frames in this process's
 * libraries, 8 kernel frames, all at random: few frames shared, the
 * worst case): the user frames resolved to (file, offset) with the
 * process's mappings, as samples are (the files' symbols read then), then
 * every frame named and the stacks folded, as at the end of a profile.
 */
static int bench_symbolize(void)
{
	enum { N = 10000, NU = 16, NK = 8 };
	static __u64 uaddr[N * NU], kaddr[N * NK];
	struct prof_opts o = { .user = true, .kernel = true };
	struct prof_run run = { .o = &o };
	struct sym_names *names = NULL;
	__u64 t0, t1, t2;
	FILE *null = fopen("/dev/null", "w");
	int err = -1;

	emit_section("perfbuf profile: naming 10 k stacks");
	run.stacks = stacks_new();
	run.maps = maps_new();
	run.comms = comms_new();
	srand(1);
	if (!null || !run.stacks || !run.maps || !run.comms ||
	    user_addrs(uaddr, N * NU) || kernel_addrs(kaddr, N * NK)) {
		emit_md("skipped: no addresses to name (/proc/self/maps, /proc/kallsyms)\n");
		goto out;
	}
	t0 = perfbuf_now_ns();
	for (int i = 0; i < N; i++)
		prof_add_stack(&run, (__u32)getpid(), (__u32)getpid(), "bench",
			       kaddr + i * NK, NK, uaddr + i * NU, NU);
	t1 = perfbuf_now_ns();
	names = names_new(run.maps);
	err = names ? out_folded(null, &run, names) : -ENOMEM;
	t2 = perfbuf_now_ns();
	emit_md("%zu distinct stacks of %d user and %d kernel frames, at random addresses "
		"(few shared frames: the worst case).\n\n"
		"| step | time | per stack |\n|---|---:|---:|\n"
		"| resolve user frames to (file, offset), read the files' symbols | %.1f ms | %.2f us |\n"
		"| name every frame (kallsyms read), fold, sort, print | %.1f ms | %.2f us |\n",
		stacks_cnt(run.stacks), NU, NK, (t1 - t0) / 1e6, (t1 - t0) / 1e3 / N,
		(t2 - t1) / 1e6, (t2 - t1) / 1e3 / N);
out:
	names_free(names);
	stacks_free(run.stacks);
	maps_free(run.maps);
	comms_free(run.comms);
	if (null)
		fclose(null);
	return err;
}

/* ---- perfbuf record: capture at ring speed ---------------------------- */

/* The part: the profilers' table, then the naming of 10 k stacks. */
int bench_profile(void)
{
	int err = profile_table(env.quick ? 1 : 3);

	return bench_symbolize() ?: err;
}
