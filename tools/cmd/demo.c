// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf demo: every exec() on the machine for a few seconds, then the
 * per-CPU statistics. Runs /bin/true once a second so there is always
 * something to see. */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>

#include "perfbuf.h"
#include "common/cli.h"
#include "common/loaderr.h"
#include "common/commands.h"
#include "demo.h"
#include "demo.skel.h"
#include "common/clock.h"
#include "trace/tracefs.h"

static volatile sig_atomic_t exiting;

struct demo_run {
	__u64 events;
	struct trace_clock clock;	/* --time, as perfbuf trace has it */
};

static int on_record(void *ctx, const struct perfbuf_record *rec)
{
	struct demo_event e = {};
	struct demo_run *run = ctx;
	char tm[40];

	if (rec->kind == PERFBUF_REC_LOST) {
		fprintf(stderr, "lost %llu events on CPU #%d\n",
			(unsigned long long)rec->lost, rec->cpu);
		return 0;
	}
	perfbuf_record__copy(rec, &e, sizeof(e));
	e.comm[sizeof(e.comm) - 1] = e.filename[sizeof(e.filename) - 1] = '\0';
	/* bpf_ktime_get_ns(): CLOCK_MONOTONIC, the records' clock */
	trace_clock_text(&run->clock, e.time_ns, tm, sizeof(tm));
	printf("%-14s %-3d %-7d %-7d %-16s %s\n", tm, rec->cpu, e.pid, e.ppid,
	       e.comm, e.filename);
	run->events++;
	return 0;
}

static void spawn_true(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static const char usage_text[] =
"Usage: perfbuf demo [-d SECONDS] [--time rel|mono|wall]\n\n"
"Trace every exec() on this machine for SECONDS (default 5),\n"
"running /bin/true once a second, then print per-CPU\n"
"statistics. Needs root.\n\n"
"Options:\n"
"  -d, --duration SECONDS  how long to trace (default 5)\n"
"      --time CLOCK        TIME: rel (since the start, the default),\n"
"                          mono (CLOCK_MONOTONIC) or wall (the date)\n"
"  -h, --help              this help\n";

struct demo_opts {
	unsigned long long duration_ns;
	enum trace_time tmode;
};

static bool demo_option(int opt, char *arg, void *ctx)
{
	struct demo_opts *o = ctx;

	if (opt == 'd')
		return cli_parse_duration("perfbuf demo", "-d", arg, CLI_DURATION_MIN,
					  CLI_DURATION_MAX, &o->duration_ns);
	if (opt == 'T')
		return trace_time_option("perfbuf demo", arg, &o->tmode);
	return true;
}

/* The options: -1 to exit 1 (said), 1 to exit 0 (--help), 0 to run. */
static int demo_options(int argc, char **argv, struct demo_opts *o)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "time", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct cli_opts c = { .cmd = "demo", .shortopts = ":d:h",
			      .longopts = longopts, .usage = usage_text,
			      .set = demo_option, .no_operands = true };

	return cli_options(&c, argc, argv, o);
}

/* Poll until the end or a signal, a /bin/true every second; 0 or -errno. */
static int demo_loop(struct perfbuf *pb, unsigned long long duration_ns)
{
	/* nanoseconds: time(NULL) + 1 could end a -d 1 run in a millisecond */
	__u64 now = perfbuf_now_ns(), end = now + duration_ns;
	__u64 next_spawn = now;
	int err;

	for (; !exiting && now < end; now = perfbuf_now_ns()) {
		if (now >= next_spawn) {
			spawn_true();
			next_spawn = now + 1000000000ULL;
		}
		err = perfbuf__poll(pb, 100);
		if (err == -EINTR)
			continue;
		if (err < 0) {
			cli_say("perfbuf demo", "poll: %s\n", strerror(-err));
			return err;
		}
		err = cli_flush_stdout("perfbuf demo");
		if (err)
			return err;
	}
	return 0;
}

static void demo_stats(FILE *f, struct perfbuf *pb, const struct demo_run *run)
{
	fprintf(f, "\n%llu events\n%-4s %10s %12s %8s %8s %8s %10s\n",
	       (unsigned long long)run->events, "CPU", "SAMPLES", "BYTES", "LOST",
	       "WAKEUPS", "DRAINS", "HIGHWATER");
	for (size_t i = 0; i < perfbuf__ring_cnt(pb); i++) {
		struct perfbuf_cpu_stats st = { .sz = sizeof(st) };

		perfbuf__stats(pb, i, &st);
		fprintf(f, "%-4d %10llu %12llu %8llu %8llu %8llu %10llu\n", st.cpu,
		       (unsigned long long)st.samples, (unsigned long long)st.bytes,
		       (unsigned long long)st.lost, (unsigned long long)st.wakeups,
		       (unsigned long long)st.polls,
		       (unsigned long long)st.high_water);
	}
}

int cmd_demo(int argc, char **argv)
{
	struct perfbuf *pb = NULL;
	struct demo *skel = NULL;
	struct demo_run run = {};
	struct demo_opts o = { .duration_ns = 5 * NS_PER_S, .tmode = TRACE_TIME_REL };
	char dur[32];
	int err = demo_options(argc, argv, &o);

	if (err)
		return err < 0 ? 1 : 0;
	if (cli_need_stdout("perfbuf demo") ||
	    cli_need_privileges("perfbuf demo", CLI_BPF | CLI_TRACEFS) ||
	    cli_need_fds("perfbuf demo", 0) || tracefs_ensure("perfbuf demo"))
		return 1;
	loaderr_capture(false);
	skel = demo__open_and_load();
	if (!skel) {
		loaderr_say("perfbuf demo", "the BPF program", -errno);
		return 1;
	}
	err = demo__attach(skel);
	if (err) {
		cli_say("perfbuf demo", "attaching to sched:sched_process_exec failed: %s%s\n",
			cli_strerror(err), cli_hint(err));
		goto cleanup;
	}
	pb = cli_perfbuf_new("perfbuf demo", bpf_map__fd(skel->maps.events),
			     on_record, &run, NULL, NULL);
	if (!pb) {
		err = -errno;
		goto cleanup;
	}
	cli_stop_on_signals(&exiting, true);
	signal(SIGPIPE, SIG_IGN);	/* a closed stdout is EPIPE: stop */
	printf("Tracing exec() for %s (running /bin/true every second)... Ctrl-C to stop.\n",
	       units_duration_str(o.duration_ns, dur, sizeof(dur)));
	trace_clock_init(&run.clock, o.tmode);
	printf("%-14s %-3s %-7s %-7s %-16s %s\n", trace_clock_header(&run.clock),
	       "CPU", "PID", "PPID", "COMM", "FILENAME");
	err = demo_loop(pb, o.duration_ns);
	if (!err || err == -EPIPE) {
		err = perfbuf__drain(pb);
		if (err < 0)
			cli_say("perfbuf demo", "draining the perf buffer failed: %s\n",
				strerror(-err));
		else
			err = cli_flush_stdout("perfbuf demo");
	}
	if (!err) {
		demo_stats(stdout, pb, &run);
		err = cli_flush_stdout("perfbuf demo");
	}
	if (err == -EPIPE) {
		/* the reader stopped early: no error; the statistics where
		 * they can still be read */
		err = 0;
		demo_stats(stderr, pb, &run);
	}
cleanup:
	perfbuf__free(pb);
	demo__destroy(skel);
	return err ? 1 : 0;
}
