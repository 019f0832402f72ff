// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench: the syscall storm and the tracers run on it (spawned,
 * stopped, their logs counted), shared by the trace, filter and record
 * parts. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "bench.h"
#include "output/file.h"

/* The perfbuf tool next to perfbuf-bench, in @tool; false if not found. */
bool perfbuf_tool(char *tool, size_t sz)
{
	if (!*env.self || strlen(env.self) > sz - 16)
		return false;
	snprintf(tool, sz, "%s", env.self);
	snprintf(strrchr(tool, '/') + 1, 16, "perfbuf");
	return access(tool, X_OK) == 0;
}

bool tool_section(const char *title, char *tool, size_t sz)
{
	emit_section(title);
	if (perfbuf_tool(tool, sz))
		return true;
	emit_md("skipped: cannot find the perfbuf tool next to perfbuf-bench\n");
	return false;
}
struct storm {
	double secs;
	__u64 calls;
	bool cycle;		/* getpgid(FILTER_PID + 0..999), not (0) */
};

/* The traced thread: getpgid() as fast as it goes, on the producer CPU. */
static void *storm_main(void *arg)
{
	struct storm *s = arg;
	__u64 end;

	pin_self(env.prod_cpu);
	end = perfbuf_now_ns() + (__u64)(s->secs * 1e9);
	while (perfbuf_now_ns() < end) {
		for (int i = 0; i < 1000; i++)
			syscall(SYS_getpgid, s->cycle ? FILTER_PID + i : 0);
		s->calls += 1000;
	}
	return NULL;
}

double run_storm(double secs, bool cycle, __u64 *calls)
{
	struct storm s = { .secs = secs, .cycle = cycle };
	pthread_t t;
	__u64 t0 = perfbuf_now_ns();

	if (pthread_create(&t, NULL, storm_main, &s))
		return 0;
	pthread_join(t, NULL);
	*calls = s.calls;
	return s.calls / ((perfbuf_now_ns() - t0) / 1e9);
}

/* Start @argv with stdout and stderr into @log; wait until the log says
 * @ready ("ttach": bpftrace's "Attaching 1 probe", trace's "Attached"), or
 * 2 s when @ready is NULL (perf record says nothing). */
pid_t spawn_tracer(char *const argv[], const char *log, const char *ready)
{
	char buf[4096];
	pid_t pid, parent;

	/* a previous run's log saying @ready would start the storm before
	 * this tracer attached */
	unlink(log);
	parent = getpid();
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct out_file out;
		/* removed above: made in place (O_EXCL), read while written */
		int fd = out_file__open(&out, "perfbuf-bench", log) ? -1 : out.fd;

		/* ended with the bench, however it ends (Ctrl-C, a kill) */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	for (int i = 0; i < 300; i++) {	/* bpftrace compiles first: ~1-3 s */
		FILE *f = fopen(log, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		int status;

		if (f)
			fclose(f);
		buf[n] = '\0';
		if (ready ? strstr(buf, ready) != NULL : i == 40) {
			sleep_ns(500000000);	/* attach completes after the line */
			return pid;
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			return -1;
		sleep_ns(50000000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

int stop_tracer(pid_t pid)
{
	return stop_tracer_after(pid, 1500000000);	/* its last stats too */
}

/* SIGINT to @pid after @settle_ns (its drains), SIGKILL 10 s later; its
 * exit status, and its user + system seconds into *@cpu_s (when not
 * NULL; 0 when it had to be killed). */
static int stop_after(pid_t pid, __u64 settle_ns, double *cpu_s)
{
	struct rusage ru;
	int status = 0;

	sleep_ns(settle_ns);
	kill(pid, SIGINT);
	for (int i = 0; i < 100; i++) {
		if (wait4(pid, &status, WNOHANG, &ru) == pid) {
			if (cpu_s)
				*cpu_s = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
					 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
			return status;
		}
		sleep_ns(100000000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (cpu_s)
		*cpu_s = 0;
	return status;
}

int stop_tracer_after(pid_t pid, __u64 settle_ns)
{
	return stop_after(pid, settle_ns, NULL);
}

int stop_tracer_timed(pid_t pid, double *cpu_s)
{
	return stop_after(pid, 1500000000, cpu_s);
}

/* Sum of "stats: N events/s, M lost/s" lines of perfbuf trace --stats. */
static void sum_stats(const char *log, __u64 *events, __u64 *lost)
{
	FILE *f = fopen(log, "r");
	char line[512];
	unsigned long long e, l;

	*events = *lost = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "stats: %llu events/s, %llu lost/s", &e, &l) == 2) {
			*events += e;
			*lost += l;
		}
	fclose(f);
}

/* Lines of bpftrace's printf: they start with the pid. */
static __u64 count_events(const char *path)
{
	FILE *f = fopen(path, "r");
	bool bol = true;
	__u64 n = 0;
	int c;

	if (!f)
		return 0;
	while ((c = getc_unlocked(f)) != EOF) {
		n += bol && c >= '0' && c <= '9';
		bol = c == '\n';
	}
	fclose(f);
	return n;
}

/* bpftrace's "Lost N events" lines. */
static __u64 bpftrace_lost(const char *log)
{
	FILE *f = fopen(log, "r");
	char line[512];
	unsigned long long n, sum = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Lost %llu events", &n) == 1)
			sum += n;
	fclose(f);
	return sum;
}

/* A storm of @secs under the tracer @argv (NULL: untraced), its output
 * into @log; @pb: it is perfbuf trace --stats. */
void storm_traced(char *const argv[], const char *log, bool pb,
		  double secs, bool cycle, struct trace_run *r)
{
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (!argv) {
		r->rate = run_storm(secs, cycle, &r->calls);
		return;
	}
	/* bpftrace's output, "Attaching 1 probe..." and "Lost N events" all
	 * go to the log */
	pid = spawn_tracer(argv, log, "ttach");
	if (pid < 0) {
		r->status = -1;
		return;
	}
	r->rate = run_storm(secs, cycle, &r->calls);
	r->status = stop_tracer_timed(pid, &r->cpu_s);
	if (pb) {
		sum_stats(log, &r->events, &r->lost);
		if (!WIFEXITED(r->status) || WEXITSTATUS(r->status))
			r->rate = 0;
	} else {
		r->events = count_events(log);
		r->lost = bpftrace_lost(log);
	}
}

/* One storm of @secs under tracer @t (enum tracer). */
int cmp_rate(const void *a, const void *b)
{
	const struct trace_run *x = a, *y = b;

	return x->rate < y->rate ? -1 : x->rate > y->rate;
}

/* @reps interleaved rounds of storms under each of @nt tracers (once()
 * runs one); each tracer's median round into med[]. */
void storm_rounds(void (*once)(int t, const char *tool, double secs,
			       struct trace_run *r),
		  int nt, const char *tool, double secs, int reps,
		  struct trace_run *med)
{
	struct trace_run runs[nt][MAX_REPS];

	for (int i = 0; i < reps; i++)
		for (int t = 0; t < nt; t++)
			once(t, tool, secs, &runs[t][i]);
	for (int t = 0; t < nt; t++) {
		qsort(runs[t], reps, sizeof(runs[t][0]), cmp_rate);
		med[t] = runs[t][reps / 2];
	}
}

int storm_pairs(void (*once)(int t, const char *tool, double secs,
			     struct trace_run *r),
		int a, int b, const char *tool, double secs, int n,
		struct paired *p)
{
	double ratio[n], ra[n], rb[n];
	int done = 0;

	for (int i = 0; i < n; i++) {
		struct trace_run x, y;

		if (i & 1) {
			once(b, tool, secs, &y);
			once(a, tool, secs, &x);
		} else {
			once(a, tool, secs, &x);
			once(b, tool, secs, &y);
		}
		if (!x.rate || !y.rate)
			continue;
		ra[done] = x.rate;
		rb[done] = y.rate;
		ratio[done] = x.rate / y.rate;
		printf("  %.3f / %.3f M syscalls/s: %.2fx\n", x.rate / 1e6, y.rate / 1e6,
		       ratio[done]);
		done++;
	}
	if (!done)
		return -EIO;
	paired_ratios(ratio, done, p);
	p->a = median_double(ra, done);
	p->b = median_double(rb, done);
	return 0;
}

/* The received and lost of the summary line that ends @path (trace --json,
 * run --json: {"type":"summary","received":N,...,"lost":N,...}) into @t. */
int json_summary_counts(const char *path, struct trace_run *t)
{
	char buf[8192], *p, *e, *l;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t end = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	ssize_t n = end < 0 ? -1 :
		pread(fd, buf, sizeof(buf) - 1,
		      end > (off_t)sizeof(buf) - 1 ? end - (off_t)sizeof(buf) + 1 : 0);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	p = strstr(buf, "{\"type\":\"summary\",");
	e = p ? strstr(p, "\"received\":") : NULL;
	l = p ? strstr(p, "\"lost\":") : NULL;	/* the total's, before per_cpu */
	if (!e || !l)
		return -EBADMSG;
	t->events = strtoull(e + 11, NULL, 10);
	t->lost = strtoull(l + 7, NULL, 10);
	return 0;
}
