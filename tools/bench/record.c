// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench part "record": `perfbuf record` against `perfbuf trace
 * --json` on the syscall storm, the drain of a full ring to a file
 * (file_drain.c) and `perfbuf report`'s decode rate. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "bench.h"
#include "output/file.h"

#define REC_PAGES "1024"

const char *const fs_name[FS_N] = { "tmpfs", "disk" };

/* The type and source of the filesystem holding @dir, from
 * /proc/self/mountinfo (its device number matched); false if not found. */
static bool fs_of(const char *dir, char *type, char *src)
{
	char line[4096], *sep;
	unsigned int maj, min;
	bool found = false;
	struct stat st;
	FILE *f;

	if (stat(dir, &st) || !(f = fopen("/proc/self/mountinfo", "r")))
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (sep && sscanf(line, "%*d %*d %u:%u", &maj, &min) == 2 &&
		    makedev(maj, min) == st.st_dev)
			found = sscanf(sep + 3, "%63s %255s", type, src) == 2;
	}
	fclose(f);
	return found;
}

void rec_fs_find(struct rec_fs *fs)
{
	char type[64], src[256];

	memset(fs, 0, sizeof(*fs));
	if (fs_of("/dev/shm", type, src) && !strcmp(type, "tmpfs")) {
		snprintf(fs->dir[FS_TMPFS], PATH_MAX, "/dev/shm");
		snprintf(fs->what[FS_TMPFS], sizeof(fs->what[0]), "tmpfs at /dev/shm");
	}
	if (fs_of(env.out, type, src) && !strncmp(src, "/dev/", 5)) {
		snprintf(fs->dir[FS_DISK], PATH_MAX, "%s", env.out);
		snprintf(fs->what[FS_DISK], sizeof(fs->what[0]), "%s, %s on %s",
			 env.out, type, src);
	}
}

enum { RR_NONE, RR_REC_TMPFS, RR_REC_DISK, RR_TRACE_TMPFS, RR_TRACE_DISK, RR_N };

static bool rr_record(int k)
{
	return k == RR_REC_TMPFS || k == RR_REC_DISK;
}

static int rr_fs(int k)
{
	return k == RR_REC_DISK || k == RR_TRACE_DISK ? FS_DISK : FS_TMPFS;
}

struct rec_run {
	struct trace_run t;
	__u64 bytes;		/* the output file's size */
};

/* record's closing line on stderr:
 * "perfbuf record: N events, B bytes of records in FILE, L lost" */
int record_summary_counts(const char *log, struct trace_run *t)
{
	FILE *f = fopen(log, "r");
	unsigned long long e, b, l;
	char line[PATH_MAX + 128];
	int err = -ENOENT;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "perfbuf record: %llu events, %llu bytes of records in %*s %llu lost",
			   &e, &b, &l) == 3) {
			t->events = e;
			t->lost = l;
			err = 0;
		}
	if (f)
		fclose(f);
	return err;
}

/*
 * One storm under row @k: `perfbuf record` or `perfbuf trace --json`
 * writing to a file on tmpfs or disk, 1024 pages. The output is deleted,
 * or renamed to @keep (the capture the report part decodes).
 */
static void rec_once(int k, const char *tool, const struct rec_fs *fs,
		     double secs, const char *keep, struct rec_run *r)
{
	char out[PATH_MAX], log[PATH_MAX + 32], pid_s[16];
	char *rec_argv[] = { (char *)tool, "record", "-p", pid_s, "--pages", REC_PAGES,
			     "-o", out, "tracepoint:" STORM_TP, NULL };
	char *tr_argv[] = { (char *)tool, "trace", "--json", "-p", pid_s, "--pages",
			    REC_PAGES, "-o", out, "tracepoint:" STORM_TP, NULL };
	struct stat st;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (k == RR_NONE) {
		r->t.rate = run_storm(secs, false, &r->t.calls);
		return;
	}
	/* -p: only the storm, not getpgid() calls of other jobs */
	snprintf(pid_s, sizeof(pid_s), "%d", (int)getpid());
	snprintf(out, sizeof(out), "%s/perfbuf-bench-out.%s", fs->dir[rr_fs(k)],
		 rr_record(k) ? "cap" : "json");
	snprintf(log, sizeof(log), "%s/%s-%s.log", env.out,
		 rr_record(k) ? "record" : "trace-json", fs_name[rr_fs(k)]);
	pid = spawn_tracer(rr_record(k) ? rec_argv : tr_argv, log, "Attached");
	if (pid < 0)
		return;
	r->t.rate = run_storm(secs, false, &r->t.calls);
	r->t.status = stop_tracer(pid);
	if (!stat(out, &st))
		r->bytes = (__u64)st.st_size;
	if (!WIFEXITED(r->t.status) || WEXITSTATUS(r->t.status) ||
	    (rr_record(k) ? record_summary_counts(log, &r->t) : json_summary_counts(out, &r->t)))
		r->t.rate = 0;
	if (!keep || rename(out, keep))
		unlink(out);
}

static int cmp_rec_run(const void *a, const void *b)
{
	return cmp_rate(&((const struct rec_run *)a)->t, &((const struct rec_run *)b)->t);
}

static const char *rec_row_name[RR_N] = {
	"nothing",
	"`perfbuf record -o` tmpfs",
	"`perfbuf record -o` disk",
	"`perfbuf trace --json -o` tmpfs",
	"`perfbuf trace --json -o` disk",
};

/* @lost_all: each row's losses summed over its rounds */
static void rec_storm_report(const struct rec_run *med, const __u64 *lost_all,
			     const struct rec_fs *fs, double secs, int reps)
{
	emit_md("getpgid() in a loop on CPU%d, %.0f s per run, median of %d interleaved "
		"rounds; the tools at `-p` (the storm's process) `--pages %s`, where the "
		"scheduler puts them; "
		"tmpfs: %s; disk: %s.\n\n", env.prod_cpu, secs, reps, REC_PAGES,
		*fs->dir[FS_TMPFS] ? fs->what[FS_TMPFS] : "none",
		*fs->dir[FS_DISK] ? fs->what[FS_DISK] : "none");
	emit_md("| traced by | syscalls/s | vs untraced | events delivered | lost | "
		"lost, all rounds | file | bytes/event |\n"
		"|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int k = 0; k < RR_N; k++) {
		const struct rec_run *r = &med[k];

		if (k == RR_NONE) {
			emit_md("| %s | %.3f M | 1.00x | | | | | |\n", rec_row_name[k],
				r->t.rate / 1e6);
		} else if (!*fs->dir[rr_fs(k)]) {
			continue;
		} else if (!r->t.rate) {
			emit_md("| %s | failed (see %s/*.log) | | | | | | |\n",
				rec_row_name[k], env.out);
		} else {
			emit_md("| %s | %.3f M | %.2fx | %llu of %llu | %llu | %llu | %.0f MB | %.0f |\n",
				rec_row_name[k], r->t.rate / 1e6,
				r->t.rate / med[RR_NONE].t.rate,
				(unsigned long long)r->t.events,
				(unsigned long long)r->t.calls,
				(unsigned long long)r->t.lost,
				(unsigned long long)lost_all[k], r->bytes / 1e6,
				r->t.events ? (double)r->bytes / r->t.events : 0);
		}
	}
	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	for (int i = FS_TMPFS; i < FS_N; i++) {
		const struct rec_run *rec = &med[RR_REC_TMPFS + i];
		const struct rec_run *tr = &med[RR_TRACE_TMPFS + i];
		char what[128];

		if (!*fs->dir[i] || !rec->t.rate)
			continue;
		emit_md("| perfbuf record, %s: events lost at %s pages, all rounds | %llu | 0 | %s |\n",
			fs_name[i], REC_PAGES,
			(unsigned long long)lost_all[RR_REC_TMPFS + i],
			met(!lost_all[RR_REC_TMPFS + i]));
		if (!tr->t.rate)
			continue;
		snprintf(what, sizeof(what), "traced thread: record / trace --json, %s",
			 fs_name[i]);
		ratio_line(what, rec->t.rate, tr->t.rate, 1.0, false);
		snprintf(what, sizeof(what), "events delivered: record / trace --json, %s",
			 fs_name[i]);
		info_line(what, (double)rec->t.events, (double)tr->t.events);
	}
}

/*
 * The storm of the trace part (getpgid() flat out on CPU0) recorded by
 * `perfbuf record` and traced by `perfbuf trace --json`, each writing to
 * a file on tmpfs and on disk; rounds interleaved, each row's median
 * round kept. The last capture on tmpfs (disk without one) is left at
 * @cap for the report part; its events in *@cap_events.
 */
static void bench_record_storm(const char *tool, const struct rec_fs *fs,
			       double secs, const char *cap, __u64 *cap_events)
{
	struct rec_run runs[RR_N][MAX_REPS], med[RR_N];
	__u64 lost_all[RR_N] = {};
	int reps = env.quick ? 1 : MAX_REPS;
	int keep = *fs->dir[FS_TMPFS] ? RR_REC_TMPFS : RR_REC_DISK;

	printf("\nrecord: syscall storm, %d rounds of %.0f s: untraced, record and trace --json to tmpfs and disk...\n",
	       reps, secs);
	*cap_events = 0;
	for (int i = 0; i < reps; i++)
		for (int k = 0; k < RR_N; k++) {
			memset(&runs[k][i], 0, sizeof(runs[k][i]));
			if (k != RR_NONE && !*fs->dir[rr_fs(k)])
				continue;
			rec_once(k, tool, fs, secs, k == keep ? cap : NULL, &runs[k][i]);
			lost_all[k] += runs[k][i].t.lost;
			if (k == keep)
				*cap_events = runs[k][i].t.rate ? runs[k][i].t.events : 0;
		}
	for (int k = 0; k < RR_N; k++) {
		qsort(runs[k], (size_t)reps, sizeof(runs[k][0]), cmp_rec_run);
		med[k] = runs[k][reps / 2];
	}
	emit_section("perfbuf record vs perfbuf trace --json");
	rec_storm_report(med, lost_all, fs, secs, reps);
}

/* ---- drain of a full ring to a file ----------------------------------- */
/* ---- perfbuf report: decode rate -------------------------------------- */

/* Run @argv with stdout to /dev/null, stderr to report.log: its wall
 * seconds (0: it failed), CPU seconds (user + system) in *@cpu_s. */
static double run_timed(char *const argv[], double *cpu_s)
{
	char log[PATH_MAX + 16];
	__u64 t0 = perfbuf_now_ns();
	struct rusage ru;
	int status;
	pid_t pid;

	snprintf(log, sizeof(log), "%s/report.log", env.out);
	unlink(log);	/* made anew in place by the child, which execs */
	pid = fork();
	if (pid < 0)
		return 0;
	if (pid == 0) {
		struct out_file o;
		int out = open("/dev/null", O_WRONLY), err = out_file__open(&o, "perfbuf-bench", log) ?: o.fd;

		if (out < 0 || err < 0)
			_exit(127);
		dup2(out, 1);
		dup2(err, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 0;
	*cpu_s = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	return (perfbuf_now_ns() - t0) / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

enum { RP_TEXT, RP_JSON, RP_PERF_DATA, RP_PERF_SCRIPT, RP_N };

/*
 * The storm's capture (@events events) decoded to /dev/null: `perfbuf
 * report` as text and JSON Lines, `perfbuf report --perf-data` (into a
 * perf.data next to it), and `perf script` of that file (perf's own
 * decoding of the same tracepoint, libtraceevent); @reps interleaved runs
 * of each, perf script once (it is the slow one); median wall times.
 */
static void bench_report(const char *tool, const char *cap, __u64 events,
			 int reps)
{
	static const char *name[RP_N] = {
		"`perfbuf report` (text)", "`perfbuf report --json`",
		"`perfbuf report --perf-data` (writes perf.data)",
		"`perf script` of that perf.data (text)",
	};
	char data[PATH_MAX + 48];
	char *argv[RP_N][6] = {
		{ (char *)tool, "report", (char *)cap, NULL },
		{ (char *)tool, "report", "--json", (char *)cap, NULL },
		{ (char *)tool, "report", "--perf-data", data, (char *)cap, NULL },
		{ "perf", "script", "-i", data, NULL },
	};
	double wall[RP_N][MAX_REPS] = {}, cpu[RP_N][MAX_REPS] = {}, m[RP_N], c[RP_N];
	int n[RP_N];
	struct stat st;

	snprintf(data, sizeof(data), "%s.data", cap);
	printf("\nreport: decoding the capture, %d rounds...\n", reps);
	for (int i = 0; i < reps; i++)
		for (int j = 0; j < RP_N; j++)
			if (j != RP_PERF_SCRIPT || !i)
				wall[j][i] = run_timed(argv[j], &cpu[j][i]);
	for (int j = 0; j < RP_N; j++) {
		n[j] = j == RP_PERF_SCRIPT ? 1 : reps;
		qsort(wall[j], (size_t)n[j], sizeof(double), cmp_double);
		qsort(cpu[j], (size_t)n[j], sizeof(double), cmp_double);
		m[j] = wall[j][n[j] / 2];
		c[j] = cpu[j][n[j] / 2];
	}
	emit_section("perfbuf report decode rate");
	if (stat(cap, &st)) {
		emit_md("skipped: no capture from the record part\n");
		return;
	}
	emit_md("The record part's capture of the storm (%llu events of "
		"`syscalls:sys_enter_getpgid`, %.0f MB, one CPU's ring), decoded to /dev/null; "
		"median of %d interleaved runs (perf script: one); CPU: user + system.\n\n"
		"| decoded by | wall | events/s | CPU | ns/event (CPU) |\n"
		"|---|---:|---:|---:|---:|\n",
		(unsigned long long)events, st.st_size / 1e6, reps);
	for (int j = 0; j < RP_N; j++) {
		if (!m[j]) {
			emit_md("| %s | failed (see %s/report.log) | | | |\n", name[j], env.out);
			continue;
		}
		emit_md("| %s | %.2f s | %.2f M | %.2f s | %.0f |\n", name[j], m[j],
			events / m[j] / 1e6, c[j], c[j] * 1e9 / events);
	}
	unlink(data);
	if (!m[RP_TEXT] || !m[RP_PERF_SCRIPT])
		return;
	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	ratio_line("events/s: perfbuf report (text) / perf script", 1 / m[RP_TEXT],
		   1 / m[RP_PERF_SCRIPT], 1.0, false);
	if (m[RP_JSON])
		info_line("events/s: perfbuf report --json / text", 1 / m[RP_JSON],
			  1 / m[RP_TEXT]);
}

/*
 * perfbuf record's speed: on the trace part's syscall storm against
 * perfbuf trace --json (to tmpfs and disk), the drain of a full ring to
 * a file against libbpf with fwrite(), and perfbuf report's decode rate.
 */
int bench_record(void)
{
	double secs = env.quick ? 2 : 3;
	char tool[PATH_MAX], cap[PATH_MAX + 32];
	struct rec_fs fs;
	__u64 events = 0;

	rec_fs_find(&fs);
	if (!*fs.dir[FS_TMPFS] && !*fs.dir[FS_DISK]) {
		emit_section("perfbuf record");
		emit_md("skipped: neither /dev/shm (tmpfs) nor %s "
			"(a block device) is usable\n", env.out);
		return 0;
	}
	if (perfbuf_tool(tool, sizeof(tool))) {
		snprintf(cap, sizeof(cap), "%s/perfbuf-bench-report.cap",
			 fs.dir[*fs.dir[FS_TMPFS] ? FS_TMPFS : FS_DISK]);
		bench_record_storm(tool, &fs, secs, cap, &events);
	} else {
		emit_section("perfbuf record vs perfbuf trace --json");
		emit_md("skipped: cannot find the perfbuf tool next to perfbuf-bench\n");
	}
	bench_file_drain(&fs);
	if (events)
		bench_report(tool, cap, events, env.quick ? 1 : MAX_REPS);
	unlink(cap);	return 0;
}
