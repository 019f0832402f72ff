// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf-bench part "record_load": the events `perfbuf record` loses on
 * the storm (storm.c) with and without competing CPU load, against
 * `perfbuf trace --json -o FILE` on the same storm. The load is the
 * bench's own: busy loops pinned to the online CPUs other than the
 * storm's, started for the
 * loaded rounds and killed after them (and, by PR_SET_PDEATHSIG, with the
 * bench on any other exit). record reads at SCHED_FIFO 1 by default
 * (--realtime, tools/record/realtime.c); `--realtime 0` is the normal
 * scheduler it had before, which lost events under load (issue 22).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "bench.h"

#define LOAD_PAGES "1024"
#define LOAD_PER_CPU 4		/* busy loops on each CPU but the storm's */
#define MAX_HOGS 64

enum { LT_REC, LT_REC_NORT, LT_JSON, LT_N };	/* the tools */
enum { LC_IDLE, LC_BUSY, LC_N };		/* the load */

static const char *const lt_name[LT_N] = {
	"`record` (SCHED_FIFO 1, the default)",
	"`record --realtime 0` (normal scheduler)",
	"`trace --json -o FILE`",
};

struct load_row {
	struct trace_run run[MAX_REPS];
	__u64 events, lost;	/* all rounds */
	double worst;		/* the largest loss of a round, % */
	int failed;		/* rounds that failed */
};

struct load_bench {
	char tool[PATH_MAX];
	char dir[PATH_MAX];	/* where the outputs go: tmpfs if there is one */
	double secs;
	int reps, hogs;
	double load_min[LC_N], load_max[LC_N];	/* 1-min load average seen */
	struct load_row row[LC_N][LT_N];
};

/* /proc/loadavg's first field, -1 if unreadable. */
static double loadavg(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double l = -1;

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

/* A busy loop on @cpu that dies with the bench (its parent). */
static pid_t hog_start(int cpu, pid_t parent)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)	/* the bench went before prctl() */
		_exit(0);
	pin_self(cpu);
	for (volatile unsigned long n = 0;; n++)
		;
}

static void hogs_stop(pid_t *pids, int n)
{
	for (int i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (int i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
}

/* LOAD_PER_CPU busy loops on each online CPU but the storm's into @pids:
 * the reader's CPUs crowded, the traced program's left at its own pace
 * (the one of record's runs that lost under other jobs). How many
 * started: all, or 0 after killing those that did. */
static int hogs_start(pid_t *pids)
{
	int cpus[MAX_HOGS], ncpu = perfbuf_cpus__online(cpus, MAX_HOGS), n = 0;

	for (int c = 0; c < ncpu; c++)
		for (int i = 0; cpus[c] != env.prod_cpu && i < LOAD_PER_CPU &&
				n < MAX_HOGS; i++) {
			pids[n] = hog_start(cpus[c], getpid());
			if (pids[n] < 0) {
				hogs_stop(pids, n);
				return 0;
			}
			n++;
		}
	return n;
}

/* One storm under tool @t, its counts into @r (rate 0: failed). */
static void load_once(const struct load_bench *b, int t, const char *log,
		      struct trace_run *r)
{
	char out[PATH_MAX + 32], pid_s[16];
	char *rec_argv[] = { (char *)b->tool, "record", "-p", pid_s, "--pages", LOAD_PAGES,
			     "-o", out, "--realtime", t == LT_REC ? "1" : "0",
			     "tracepoint:" STORM_TP, NULL };
	char *tr_argv[] = { (char *)b->tool, "trace", "--json", "-p", pid_s, "--pages",
			    LOAD_PAGES, "-o", out, "tracepoint:" STORM_TP, NULL };
	pid_t pid;

	memset(r, 0, sizeof(*r));
	snprintf(pid_s, sizeof(pid_s), "%d", (int)getpid());
	snprintf(out, sizeof(out), "%s/perfbuf-bench-load.%s", b->dir,
		 t == LT_JSON ? "json" : "cap");
	pid = spawn_tracer(t == LT_JSON ? tr_argv : rec_argv, log, "Attached");
	if (pid < 0)
		return;
	r->rate = run_storm(b->secs, false, &r->calls);
	r->status = stop_tracer_after(pid, 300000000);	/* 30 latencies */
	if (!WIFEXITED(r->status) || WEXITSTATUS(r->status) ||
	    (t == LT_JSON ? json_summary_counts(out, r) : record_summary_counts(log, r)))
		r->rate = 0;
	unlink(out);
}

/* Round @i under load @c: each tool once, the busy loops around them. */
static void load_round(struct load_bench *b, int c, int i)
{
	pid_t hogs[MAX_HOGS];
	int n = 0;

	if (c == LC_BUSY && !(n = hogs_start(hogs))) {
		for (int t = 0; t < LT_N; t++)
			b->row[c][t].failed++;
		return;
	}
	b->hogs = n ? n : b->hogs;
	for (int t = 0; t < LT_N; t++) {
		struct load_row *row = &b->row[c][t];
		struct trace_run *r = &row->run[i];
		double l = loadavg(), pct;
		char log[PATH_MAX + 32];

		if (!i && !t)
			b->load_min[c] = b->load_max[c] = l;
		b->load_min[c] = l < b->load_min[c] ? l : b->load_min[c];
		b->load_max[c] = l > b->load_max[c] ? l : b->load_max[c];
		snprintf(log, sizeof(log), "%s/load-%s-%d.log", env.out,
			 c == LC_BUSY ? "busy" : "idle", t);
		load_once(b, t, log, r);
		if (!r->rate) {
			row->failed++;
			continue;
		}
		row->events += r->events;
		row->lost += r->lost;
		pct = r->events + r->lost ? 100.0 * r->lost / (r->events + r->lost) : 0;
		row->worst = pct > row->worst ? pct : row->worst;
	}
	if (n)
		hogs_stop(hogs, n);
}

/* The median round's syscalls/s of @row. */
static double median_rate(const struct load_row *row, int reps)
{
	double r[MAX_REPS];

	for (int i = 0; i < reps; i++)
		r[i] = row->run[i].rate;
	return median_double(r, reps);
}

static void load_report(const struct load_bench *b)
{
	static const char *const lc_name[LC_N] = { "none added", "busy loops" };

	emit_md("getpgid() in a loop on CPU%d (nice 0), %.0f s per run, %d interleaved "
		"rounds; the tools at `-p` (the storm's process) `--pages " LOAD_PAGES "` "
		"writing to %s, where the scheduler puts them. Load: none added, or "
		"%d busy loops (nice 0) pinned to each online CPU but the storm's (%d in "
		"all), started by the bench. Events and lost: all rounds; "
		"lost %%: of events + lost; worst: the largest of a round; syscalls/s: the "
		"median round's. 1-min load average while each load's rows ran: "
		"%.1f-%.1f none added, %.1f-%.1f busy loops (the machine is not idle "
		"when the first is far above 0).\n\n",
		env.prod_cpu, b->secs, b->reps, b->dir, LOAD_PER_CPU,
		b->hogs, b->load_min[LC_IDLE],
		b->load_max[LC_IDLE], b->load_min[LC_BUSY], b->load_max[LC_BUSY]);
	emit_md("| load | reader | syscalls/s | events | lost | lost %% | worst round |\n"
		"|---|---|---:|---:|---:|---:|---:|\n");
	for (int c = 0; c < LC_N; c++)
		for (int t = 0; t < LT_N; t++) {
			const struct load_row *row = &b->row[c][t];

			if (row->failed) {
				emit_md("| %s | %s | failed %d of %d rounds (see %s/load-*.log) | | | | |\n",
					lc_name[c], lt_name[t], row->failed, b->reps, env.out);
				continue;
			}
			emit_md("| %s | %s | %.3f M | %llu | %llu | %.2f | %.2f |\n",
				lc_name[c], lt_name[t], median_rate(row, b->reps) / 1e6,
				(unsigned long long)row->events,
				(unsigned long long)row->lost,
				row->events + row->lost ?
				100.0 * row->lost / (row->events + row->lost) : 0,
				row->worst);
		}
	emit_md("\n| target | lost | wanted | |\n|---|---:|---:|---|\n");
	for (int c = 0; c < LC_N; c++) {
		const struct load_row *row = &b->row[c][LT_REC];

		if (!row->failed)
			emit_md("| `record` at " LOAD_PAGES " pages, load %s: events lost, "
				"all rounds | %llu | 0 | %s |\n", lc_name[c],
				(unsigned long long)row->lost, met(!row->lost));
	}
}

/* Where the outputs go: tmpfs (the disk's speed is the record part's
 * concern), else the disk, else env.out. */
static void load_dir(struct load_bench *b)
{
	struct rec_fs fs;

	rec_fs_find(&fs);
	snprintf(b->dir, sizeof(b->dir), "%s", *fs.dir[FS_TMPFS] ? fs.dir[FS_TMPFS] :
		 *fs.dir[FS_DISK] ? fs.dir[FS_DISK] : env.out);
}

/*
 * record's loss on the storm with no load added and with busy loops on
 * every CPU: record at its default SCHED_FIFO 1 and at the normal
 * scheduler, and trace --json -o FILE; rounds interleaved, the loads
 * alternating within each.
 */
int bench_record_load(void)
{
	static struct load_bench b;

	memset(&b, 0, sizeof(b));
	b.secs = env.quick ? 1 : 2;
	b.reps = env.quick ? 1 : MAX_REPS;
	if (!perfbuf_tool(b.tool, sizeof(b.tool))) {
		emit_section("perfbuf record under load");
		emit_md("skipped: cannot find the perfbuf tool next to perfbuf-bench\n");
		return 0;
	}
	load_dir(&b);
	printf("\nrecord under load: syscall storm, %d rounds of %.0f s: record, record --realtime 0 and trace --json, without and with busy loops...\n",
	       b.reps, b.secs);
	for (int i = 0; i < b.reps; i++)
		for (int c = 0; c < LC_N; c++)
			load_round(&b, c, i);
	emit_section("perfbuf record under load");
	load_report(&b);
	return 0;
}
