// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf demo: every exec() on the machine for a few seconds, then the
 * per-CPU statistics. Runs /bin/true once a second so there is always
 * something to see. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>

#include "perfbuf.h"
#include "common/cli.h"
#include "common/commands.h"
#include "demo.h"
#include "demo.skel.h"
#include "common/clock.h"
#include "trace/tool.h"

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

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

int cmd_demo(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "time", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct perfbuf *pb = NULL;
	struct demo *skel = NULL;
	struct demo_run run = {};
	enum trace_time tmode = TRACE_TIME_REL;
	long duration = 5;
	time_t end, next_spawn = 0;
	char *endp;
	int opt, err = 0;

	opterr = 0;	/* one line of our own instead of getopt's */
	while ((opt = getopt_long(argc, argv, ":d:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			errno = 0;
			duration = strtol(optarg, &endp, 10);
			if (errno || *endp || duration <= 0) {
				fprintf(stderr, "perfbuf demo: -d wants a positive number of seconds, not '%s'\n",
					optarg);
				return 1;
			}
			break;
		case 'T':
			if (trace_time_parse(optarg, &tmode)) {
				fprintf(stderr, "perfbuf demo: --time wants rel, mono or wall, not '%s'\n",
					optarg);
				return 1;
			}
			break;
		case 'h':
			printf("Usage: perfbuf demo [-d SECONDS] [--time rel|mono|wall]\n\n"
			       "Trace every exec() on this machine for SECONDS (default 5),\n"
			       "running /bin/true once a second, then print per-CPU\n"
			       "statistics. Needs root.\n\n"
			       "Options:\n"
			       "  -d, --duration SECONDS  how long to trace (default 5)\n"
			       "      --time CLOCK        TIME: rel (since the start, the default),\n"
			       "                          mono (CLOCK_MONOTONIC) or wall (the date)\n"
			       "  -h, --help              this help\n");
			return 0;
		default:
			return cli_bad_option("demo", opt, argv);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "perfbuf demo: unexpected argument '%s'; run 'perfbuf demo --help'\n",
			argv[optind]);
		return 1;
	}
	if (cli_need_stdout("perfbuf demo") ||
	    cli_need_privileges("perfbuf demo", CLI_BPF | CLI_TRACEFS) ||
	    cli_need_fds("perfbuf demo", 0) || tracefs_ensure("perfbuf demo"))
		return 1;
	libbpf_set_print(NULL);
	skel = demo__open_and_load();
	if (!skel) {
		fprintf(stderr, "perfbuf demo: loading the BPF program failed: %s%s\n",
			cli_strerror(errno), cli_hint(errno));
		return 1;
	}
	err = demo__attach(skel);
	if (err) {
		fprintf(stderr, "perfbuf demo: attaching to sched:sched_process_exec failed: %s%s\n",
			cli_strerror(err), cli_hint(err));
		goto cleanup;
	}
	pb = cli_perfbuf_new("perfbuf demo", bpf_map__fd(skel->maps.events),
			     on_record, &run, NULL);
	if (!pb) {
		err = -errno;
		goto cleanup;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("Tracing exec() for %ld s (running /bin/true every second)... Ctrl-C to stop.\n",
	       duration);
	trace_clock_init(&run.clock, tmode);
	printf("%-14s %-3s %-7s %-7s %-16s %s\n", trace_clock_header(&run.clock),
	       "CPU", "PID", "PPID", "COMM", "FILENAME");
	end = time(NULL) + duration;
	while (!exiting && time(NULL) < end) {
		if (time(NULL) >= next_spawn) {
			spawn_true();
			next_spawn = time(NULL) + 1;
		}
		err = perfbuf__poll(pb, 100);
		if (err == -EINTR) {
			err = 0;
			continue;
		}
		if (err < 0) {
			fprintf(stderr, "perfbuf demo: poll: %s\n", strerror(-err));
			goto cleanup;
		}
		fflush(stdout);
	}
	err = perfbuf__drain(pb);
	if (err < 0)
		goto cleanup;
	err = 0;
	printf("\n%llu events\n%-4s %10s %12s %8s %8s %8s %10s\n",
	       (unsigned long long)run.events, "CPU", "SAMPLES", "BYTES", "LOST",
	       "WAKEUPS", "DRAINS", "HIGHWATER");
	for (size_t i = 0; i < perfbuf__ring_cnt(pb); i++) {
		struct perfbuf_cpu_stats st = { .sz = sizeof(st) };

		perfbuf__stats(pb, i, &st);
		printf("%-4d %10llu %12llu %8llu %8llu %8llu %10llu\n", st.cpu,
		       (unsigned long long)st.samples, (unsigned long long)st.bytes,
		       (unsigned long long)st.lost, (unsigned long long)st.wakeups,
		       (unsigned long long)st.polls,
		       (unsigned long long)st.high_water);
	}
cleanup:
	perfbuf__free(pb);
	demo__destroy(skel);
	return err ? 1 : 0;
}
