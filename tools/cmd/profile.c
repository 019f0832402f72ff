// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf profile: sample stacks on every CPU (or of one process) at HZ
 * with the cpu-clock event, by a BPF program on each overflow (--engine
 * bpf) or from the kernel's sample records (--engine perf); print them
 * folded, as JSON, or as an interactive flame graph.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "common/cli.h"
#include "common/loaderr.h"
#include "common/commands.h"
#include "metrics/metrics.h"
#include "trace/pidwatch.h"
#include "profile/tool.h"

static volatile sig_atomic_t exiting;

static const char usage_text[] =
"Usage: perfbuf profile [OPTIONS]\n"
"\n"
"Sample the stacks of what runs on the CPUs, HZ times a second per CPU\n"
"(the cpu-clock event), and count them.\n"
"\n"
"Options:\n"
"  -F, --frequency HZ   samples per second per CPU (default 99)\n"
"  -p, --pid PID        only this process, all its threads (the ID of a thread\n"
"                       is refused: -p is a process); the run ends when it does\n"
"      --cpu N          only CPU N\n"
"  -d, --duration SEC   stop after SEC seconds (default: Ctrl-C)\n"
"      --user-only      user stacks only\n"
"      --kernel-only    kernel stacks only\n"
"      --engine bpf     a BPF program on each sample writes the stacks into\n"
"                       the perf buffer (default)\n"
"      --engine perf    the kernel's sample records (PERF_SAMPLE_CALLCHAIN)\n"
"      --folded         comm;root;...;leaf COUNT lines (default): what\n"
"                       flamegraph.pl, inferno and speedscope read\n"
"      --json           JSON Lines: one object per stack, then a summary\n"
"      --svg FILE       an interactive flame graph (click to zoom, Ctrl-F\n"
"                       to search) written to FILE\n"
METRICS_USAGE
"  -v, --verbose        libbpf debug output\n"
"  -h, --help           this help\n"
"\n"
"Kernel frames end in _[k]. A user address in a file without a symbol\n"
"there prints as FILE+0xOFFSET, one in no file as its address in hex. The\n"
"idle task is not sampled. Lost samples and throttling are reported on\n"
"stderr with the totals.\n"
"\n"
"Examples:\n"
"  perfbuf profile -d 10 > out.folded\n"
"  perfbuf profile -F 999 -p 1234 --svg flame.svg\n"
"  perfbuf profile --engine perf --kernel-only -d 5\n";

enum { OPT_CPU = 256, OPT_USER, OPT_KERNEL, OPT_ENGINE, OPT_FOLDED, OPT_JSON,
       OPT_SVG, OPT_METRICS };

static const struct option long_opts[] = {
	{ "frequency", required_argument, NULL, 'F' },
	{ "pid", required_argument, NULL, 'p' },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "duration", required_argument, NULL, 'd' },
	{ "user-only", no_argument, NULL, OPT_USER },
	{ "kernel-only", no_argument, NULL, OPT_KERNEL },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{},
};

static int bad(const char *what, const char *arg, const char *hint)
{
	cli_say("perfbuf profile", "%s '%s'%s%s\n", what, arg,
		hint ? "; " : "", hint ? hint : "");
	return -EINVAL;
}

static long max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	long v = 0;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* One option's value into @o; 0, or -EINVAL having said why. */
static int set_opt(struct prof_opts *o, int c, const char *arg, bool *outputs)
{
	long v, rate = max_sample_rate();
	unsigned long long ns;

	switch (c) {
	case 'F':
		if (cli_parse_long(arg, 1, 1000000, &v))
			return bad("bad frequency", arg, "give samples per second, e.g. -F 99");
		if (rate > 0 && v > rate) {
			cli_say("perfbuf profile", "-F %ld is above kernel.perf_event_max_sample_rate (%ld); use a lower rate or raise the sysctl\n",
				v, rate);
			return -EINVAL;
		}
		o->hz = (unsigned int)v;
		return 0;
	case 'p':
		if (cli_parse_long(arg, 1, 0x3fffffff, &v))
			return bad("bad PID", arg, NULL);
		if (kill((pid_t)v, 0) && errno == ESRCH)
			return bad("no process with PID", arg, NULL);
		if (pidwatch_check_leader("perfbuf profile", (pid_t)v))
			return -EINVAL;
		o->pid = (pid_t)v;
		return 0;
	case OPT_CPU:
		if (cli_parse_long(arg, 0, 4095, &v))
			return bad("bad CPU", arg, NULL);
		o->cpu = (int)v;
		return 0;
	case 'd':
		if (!cli_parse_duration("perfbuf profile", "-d", arg, CLI_DURATION_MIN,
					CLI_DURATION_MAX, &ns))
			return -EINVAL;
		o->duration = (double)ns / NS_PER_S;
		return 0;
	case OPT_USER:
		o->kernel = false;
		break;
	case OPT_KERNEL:
		o->user = false;
		break;
	case OPT_ENGINE:
		if (!strcmp(arg, "bpf"))
			o->engine = PROF_ENGINE_BPF;
		else if (!strcmp(arg, "perf"))
			o->engine = PROF_ENGINE_PERF;
		else
			return bad("unknown engine", arg, "use --engine bpf or --engine perf");
		return 0;
	case OPT_FOLDED:
	case OPT_JSON:
		o->output = c == OPT_JSON ? PROF_JSON : PROF_FOLDED;
		outputs[0] = true;
		return 0;
	case OPT_SVG:
		o->svg_path = arg;
		return 0;
	case OPT_METRICS:
		o->metrics = arg;
		return metrics_check_addr("perfbuf profile", arg);
	case 'v':
		o->verbose = true;
		return 0;
	}
	if (!o->user && !o->kernel) {
		cli_say("perfbuf profile", "--user-only and --kernel-only exclude each other\n");
		return -EINVAL;
	}
	return 0;
}

struct prof_args {
	struct prof_opts *o;
	bool stdout_output[1];	/* --folded or --json: the output on stdout */
};

static bool profile_option(int c, char *arg, void *ctx)
{
	struct prof_args *a = ctx;

	return !set_opt(a->o, c, arg, a->stdout_output);
}

/* 0: run; 1: exit 0 (--help); -EINVAL: exit 1 (said why) */
static int parse_args(int argc, char **argv, struct prof_opts *o)
{
	struct cli_opts c = { .cmd = "profile", .shortopts = ":F:p:d:vh",
			      .longopts = long_opts, .usage = usage_text,
			      .set = profile_option, .no_operands = true };
	struct prof_args a = { .o = o };
	bool *stdout_output = a.stdout_output;
	int err;

	*o = (struct prof_opts){ .hz = 99, .cpu = -1, .user = true, .kernel = true };
	err = cli_options(&c, argc, argv, &a);
	if (err)
		return err < 0 ? -EINVAL : 1;
	/* --svg alone: the flame graph only; with --folded or --json, both */
	o->output = o->svg_path && !stdout_output[0] ? PROF_SVG : o->output;
	if (o->cpu >= 0 && !cli_cpu_online(o->cpu)) {
		cli_say("perfbuf profile", "CPU %d is not online; see /sys/devices/system/cpu/online\n",
			o->cpu);
		return -EINVAL;
	}
	return 0;
}

/* Sampling has started: say what is sampled (tests wait for the line). */
static void announce(const struct prof_opts *o)
{
	char who[32] = "every process", cpu[32] = "every CPU";

	if (o->pid)
		snprintf(who, sizeof(who), "PID %d", o->pid);
	if (o->cpu >= 0)
		snprintf(cpu, sizeof(cpu), "CPU %d", o->cpu);
	cli_say("perfbuf profile", "sampling %s on %s at %u Hz, %s stacks (engine %s); %s\n",
		who, cpu, o->hz, o->user && o->kernel ? "user and kernel" :
		o->user ? "user" : "kernel", o->engine == PROF_ENGINE_BPF ? "bpf" : "perf",
		o->duration ? "until -d ends" : "Ctrl-C to end");
}

/* --metrics: the counts so far, for the next scrape */
static void publish(struct prof_run *run)
{
	struct metrics_counts c = { .profile_samples = run->counts.samples,
				    .profile_lost = run->counts.lost };

	if (run->metrics)
		metrics_publish(run->metrics, &c);
}

/* Sample until Ctrl-C, -d, or the process (-p) ends. 0; or a negative
 * errno said: before the sampling started (*@seconds 0), or while it ran
 * (*@seconds > 0: what was sampled is there) */
static int sample(struct prof_run *run, const struct prof_engine_ops *eng,
		  double *seconds)
{
	__u64 start = perfbuf_now_ns(), end = run->o->duration ?
		start + (__u64)(run->o->duration * 1e9) : UINT64_MAX;
	struct pidwatch pw;
	void *state = NULL;
	int err, stop_err;

	/* its pidfd is looked at each poll (<= 100 ms): kill(pid, 0) saw a
	 * zombie as alive, and the run went on until its parent reaped it */
	pidwatch_open(&pw, run->o->pid, NULL);
	err = eng->start(run, &state);
	if (err) {
		/* one line: the engine's, when it said why */
		if (!run->start_said)
			cli_say("perfbuf profile", "could not start sampling: %s%s\n",
				strerror(-err), cli_hint(err));
		pidwatch_close(&pw);
		return err;
	}
	announce(run->o);
	while (!exiting && perfbuf_now_ns() < end && !pidwatch_gone(&pw)) {
		__u64 left = (end - perfbuf_now_ns()) / 1000000;

		err = eng->poll(run, state, left < 100 ? (int)left : 100);
		if (err && err != -EINTR) {
			/* what was sampled so far is still summed up and written */
			cli_say("perfbuf profile", "reading the samples failed: %s%s; stopped there\n",
				strerror(-err), cli_hint(err));
			break;
		}
		err = 0;
		publish(run);
	}
	*seconds = (double)(perfbuf_now_ns() - start) / 1e9;
	if (pidwatch_gone(&pw))
		cli_say("perfbuf profile", "process %d ended\n", run->o->pid);
	pidwatch_close(&pw);
	/* the last samples are read at the stop: a failure there said too */
	stop_err = eng->stop(run, state);
	if (stop_err && !err)
		cli_say("perfbuf profile", "reading the samples failed: %s%s; stopped there\n",
			strerror(-stop_err), cli_hint(stop_err));
	err = err ?: stop_err;
	publish(run);	/* a scrape now shows the summary's counts */
	return err;
}

static void summary(const struct prof_run *run, double seconds)
{
	const struct prof_counts *c = &run->counts;

	cli_say("perfbuf profile", "%llu samples in %.1f s at %u Hz, %zu distinct stacks; lost %llu, throttled %llu\n",
		(unsigned long long)c->samples, seconds, run->o->hz,
		stacks_cnt(run->stacks), (unsigned long long)c->lost,
		(unsigned long long)c->throttled);
	if (c->lost)
		cli_say("perfbuf profile", "%llu samples lost: the rings filled up (a slow reader)\n",
			(unsigned long long)c->lost);
	if (c->throttled)
		cli_say("perfbuf profile", "the kernel throttled sampling %llu times (kernel.perf_cpu_time_max_percent): fewer samples than -F asks\n",
			(unsigned long long)c->throttled);
	if (c->stack_errors)
		cli_say("perfbuf profile", "%llu stacks could not be taken (bpf_get_stack failed)\n",
			(unsigned long long)c->stack_errors);
	if (c->bad)
		cli_say("perfbuf profile", "%llu records did not parse (skipped)\n",
			(unsigned long long)c->bad);
}

static int write_outputs(struct prof_run *run, double seconds)
{
	struct sym_names *names = names_new(run->maps);
	int err = names ? 0 : -ENOMEM;
	FILE *f;

	if (!err && run->o->output == PROF_FOLDED) {
		int ferr;

		err = out_folded(stdout, run, names);
		/* stdio's error, said unless EPIPE: not said again below */
		ferr = cli_flush_stdout("perfbuf profile");
		if (ferr && ferr != -EPIPE) {
			names_free(names);
			return ferr;
		}
		err = ferr ?: err;
	} else if (!err && run->o->output == PROF_JSON) {
		err = out_json(STDOUT_FILENO, run, names, seconds);
	}
	/* a reader that stopped reading (| head) had what it wanted */
	if (err == -EPIPE)
		err = 0;
	else if (err)
		cli_say("perfbuf profile", "writing the output: %s\n",
			strerror(-err));
	if (!err && run->svg) {
		f = out_file__stream(run->svg);
		err = f ? out_svg(f, run, names, "perfbuf profile") : -errno;
		/* a graph not written whole leaves the old one; the
		 * commit says its own failure */
		if (err) {
			out_file__discard(run->svg);
			out_file_cannot_write("perfbuf profile", run->o->svg_path, err);
		} else {
			err = out_file__commit(run->svg, false);
		}
	}
	names_free(names);
	return err;
}

int cmd_profile(int argc, char **argv)
{
	struct prof_opts o;
	struct prof_run run = { .o = &o };
	struct metrics metrics = { .profile = true };
	struct out_file svg = {};
	double seconds = 0;
	int err;

	err = parse_args(argc, argv, &o);
	if (err)
		return err > 0 ? 0 : 1;
	/* (--svg alone writes no stdout) */
	if ((o.output != PROF_SVG && cli_need_stdout("perfbuf profile")) ||
	    cli_need_privileges("perfbuf profile",
				o.engine == PROF_ENGINE_BPF ? CLI_BPF : 0) ||
	    cli_need_fds("perfbuf profile", 4 + (o.metrics ? METRICS_FDS : 0)))
		return 1;
	/* a graph that cannot be written is said before the sampling, not
	 * after it */
	if (o.svg_path && (err = out_file__open(&svg, "perfbuf profile", o.svg_path))) {
		out_file_cannot_write("perfbuf profile", o.svg_path, err);
		return 1;
	}
	run.svg = o.svg_path ? &svg : NULL;
	if (o.metrics) {
		if (metrics_start(&metrics, "perfbuf profile", o.metrics)) {
			out_file__discard(&svg);
			return 1;
		}
		metrics_ready(&metrics);
		run.metrics = &metrics;
	}
	loaderr_capture(o.verbose);
	cli_stop_on_signals(&exiting, true);
	signal(SIGPIPE, SIG_IGN);
	run.stacks = stacks_new();
	run.maps = maps_new();
	run.comms = comms_new();
	err = run.stacks && run.maps && run.comms ? 0 : -ENOMEM;
	if (err)
		cli_say("perfbuf profile", "out of memory%s\n", cli_hint(err));
	else
		err = sample(&run, o.engine == PROF_ENGINE_BPF ? &prof_engine_bpf :
			     &prof_engine_perf, &seconds);
	if (!err || seconds > 0) {	/* a run cut short: what it sampled */
		summary(&run, seconds);
		err = write_outputs(&run, seconds) ?: err;
	}
	out_file__discard(&svg);	/* not written (committed: a no-op) */
	metrics_stop(&metrics);
	stacks_free(run.stacks);
	maps_free(run.maps);
	comms_free(run.comms);
	return err ? 1 : 0;
}
