// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf trace: bpftrace-style probes, one generic BPF program per probe
 * kind (bpf/trace.bpf.c), every record decoded and printed as text or
 * JSON Lines. perfbuf list: the tracepoints (and kprobe-able functions).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "perfbuf.h"
#include "commands.h"
#include "tool.h"
#include "trace.skel.h"

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

static int print_all(enum libbpf_print_level level, const char *fmt,
		     va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

static const char usage_text[] =
"Usage: perfbuf trace [OPTIONS] PROBE...\n"
"\n"
"Print every event of the probes, one line each (or JSON Lines).\n"
"\n"
"Probes (bpftrace syntax):\n"
"  tracepoint:CATEGORY:NAME     globs allowed: tracepoint:syscalls:sys_enter_open*\n"
"  rawtracepoint:NAME           tp_btf when BTF has it, raw_tp otherwise\n"
"  kprobe:FUNC  kretprobe:FUNC  fentry:FUNC  fexit:FUNC\n"
"                               fentry falls back to kprobe and back\n"
"  uprobe:PATH:SYMBOL[+OFFSET]  uretprobe:PATH:SYMBOL\n"
"\n"
"Options:\n"
"  -p, --pid PID        only this process\n"
"      --comm NAME      only tasks with this command name\n"
"      --cpu N          only events on CPU N\n"
"  -d, --duration SEC   stop after SEC seconds\n"
"  -n, --count N        stop after N events\n"
"  -o, --output FILE    write events to FILE instead of stdout\n"
"      --json           JSON Lines: event, lost and summary objects\n"
"      --pages N        ring pages per CPU, a power of two (default 256)\n"
"      --latency MS     longest an event waits in a ring (default 10)\n"
"      --stats          a line on stderr every second: events/s, lost/s, ring fill\n"
"      --unordered      print each CPU's events as they come, not in time order\n"
"  -v, --verbose        libbpf debug output\n"
"  -h, --help           this help\n"
"\n"
"Events carry time, CPU, PID, TID, command, the probe and its arguments:\n"
"every field of a tracepoint (syscall string arguments read as strings),\n"
"arg0..arg5 of kprobes/fentry/uprobes, ret of the return probes.\n"
"Events print in time order across CPUs (the kernel's CLOCK_MONOTONIC\n"
"time of each record); one whose writer was interrupted may come after a\n"
"newer one: it is marked late (a '*' after the time, \"late\":true in JSON).\n"
"CPUs coming online are traced; one going offline is drained first.\n"
"Text lines are cut at 100 columns; --json has every byte. In JSON\n"
"strings a byte that is not valid UTF-8 appears as \\u00XX (XX: the byte).\n"
"\n"
"Examples:\n"
"  perfbuf trace tracepoint:sched:sched_process_exec\n"
"  perfbuf trace -d 5 --json 'tracepoint:syscalls:sys_enter_open*'\n"
"  perfbuf trace --comm bash tracepoint:syscalls:sys_enter_openat\n"
"  perfbuf trace uprobe:/bin/bash:readline uretprobe:/bin/bash:readline\n"
"  perfbuf trace -n 10 -o exits.txt tracepoint:sched:sched_process_exit\n"
"  perfbuf list 'syscalls:*open*'\n";

struct run {
	struct probe_set *set;
	struct perfbuf *pb;
	__u64 received, printed, max_events;
	__u64 to_write;		/* events meant for the output (not past -n) */
	bool stop;
	union {
		struct trace_record r;
		unsigned char bytes[sizeof(struct trace_record) + TRACE_DATA_MAX + 8];
	} buf;			/* aligned copy of the record being decoded */
};

static int on_record(void *ctx, const struct perfbuf_record *rec)
{
	struct run *run = ctx;
	size_t sz;

	if (rec->kind == PERFBUF_REC_LOST) {
		if (!out_broken())
			out_lost(rec->cpu, rec->lost, rec->time_ns);
		return 0;
	}
	if (rec->kind == PERFBUF_REC_CPU_ONLINE ||
	    rec->kind == PERFBUF_REC_CPU_OFFLINE) {
		if (!out_broken())
			out_cpu(rec->cpu, rec->kind == PERFBUF_REC_CPU_ONLINE,
				rec->time_ns);
		return 0;
	}
	if (rec->kind != PERFBUF_REC_SAMPLE)
		return 0;
	run->received++;
	if (run->stop)
		return 0;
	run->to_write++;
	if (out_broken()) {
		/* the output failed: this one is the last meant for it */
		run->stop = true;
		return PERFBUF_STOP;
	}
	sz = perfbuf_record_copy(rec, run->buf.bytes, sizeof(run->buf.bytes));
	if (sz < sizeof(run->buf.r) || run->buf.r.cookie >= (__u64)run->set->n)
		return 0;	/* not ours: never from trace.bpf.c */
	/* ordered: the kernel's time of the record, the order's key */
	if (rec->time_ns)
		run->buf.r.time_ns = rec->time_ns;
	out_event(&run->set->v[run->buf.r.cookie], &run->buf.r, sz, rec->cpu,
		  rec->flags & PERFBUF_RECF_LATE);
	if (run->max_events && ++run->printed >= run->max_events) {
		run->stop = true;
		return PERFBUF_STOP;	/* -n reached */
	}
	return 0;
}

/* Between the (slow) attaches of globbed tracepoints: keep the rings from
 * filling, and stop early on Ctrl-C, -n or a closed stdout. */
static bool consume_some(void *ctx)
{
	struct run *run = ctx;

	perfbuf__consume(run->pb);
	out_flush();
	return !exiting && !run->stop && !out_broken();
}

static bool parse_num(const char *opt, const char *arg, long min, long max,
		      long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	if (errno || *end || end == arg || *out < min || *out > max) {
		fprintf(stderr, PROG ": %s wants a number from %ld to %ld, not '%s'\n",
			opt, min, max, arg);
		return false;
	}
	return true;
}

struct totals {
	__u64 samples, lost;
	double fill, peak;	/* fullest ring now, highest ever (0..1) */
};

static void totals(struct perfbuf *pb, struct totals *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < perfbuf__ring_cnt(pb); i++) {
		struct perfbuf_cpu_stats st;
		struct perfbuf_ring *ring = perfbuf__ring(pb, i);
		double fill;

		if (perfbuf__stats(pb, i, &st))
			continue;
		t->samples += st.samples;
		t->lost += st.lost > st.lost_kernel ? st.lost : st.lost_kernel;
		fill = ring ? (double)perfbuf_ring__avail(ring) / st.data_size : 0;
		if (fill > t->fill)
			t->fill = fill;
		if ((double)st.high_water / st.data_size > t->peak)
			t->peak = (double)st.high_water / st.data_size;
	}
}

static int summary(struct perfbuf *pb, bool broken)
{
	size_t n = perfbuf__ring_cnt(pb);
	__u64 recv[n ? n : 1], lost[n ? n : 1], r = 0, l = 0;
	int cpus[n ? n : 1];

	for (size_t i = 0; i < n; i++) {
		struct perfbuf_cpu_stats st = {};

		perfbuf__stats(pb, i, &st);
		cpus[i] = st.cpu;
		recv[i] = st.samples;
		lost[i] = st.lost;
		r += recv[i];
		l += lost[i];
	}
	return out_summary(r, l, recv, lost, cpus, n, broken);
}

int cmd_trace(int argc, char **argv)
{
	enum { OPT_COMM = 256, OPT_CPU, OPT_JSON, OPT_PAGES, OPT_LATENCY,
	       OPT_STATS, OPT_UNORDERED };
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "duration", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "pages", required_argument, NULL, OPT_PAGES },
		{ "latency", required_argument, NULL, OPT_LATENCY },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "unordered", no_argument, NULL, OPT_UNORDERED },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	static struct run run;
	struct probe_set set = {};
	struct perfbuf *pb = NULL;
	struct trace *skel = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	const char *output = NULL;
	long duration = 0, count = 0, pages = 256, latency = 0, v;
	bool json = false, stats = false, verbose = false, out_ready = false;
	bool unordered = false;
	__u64 deadline = 0, next_stats;
	struct totals prev_tot = {};
	int opt, err = 0, fd = 1, cpu_cnt, attached = 0, wr, out_wr;

	memset(&run, 0, sizeof(run));
	trace_filter = (struct trace_filter){ .cpu = -1 };
	optind = 1;
	opterr = 0;	/* one line of our own instead of getopt's */
	while ((opt = getopt_long(argc, argv, ":p:d:n:o:vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (!parse_num("-p", optarg, 1, 0x7fffffff, &v))
				return 1;
			if (kill(v, 0) && errno == ESRCH) {
				fprintf(stderr, PROG ": -p %ld: no such process\n", v);
				return 1;
			}
			trace_filter.pid = v;
			break;
		case OPT_COMM:
			if (!*optarg || strlen(optarg) >= TRACE_COMM_LEN) {
				fprintf(stderr, PROG ": --comm wants a command name of 1 to %d characters, not '%s'\n",
					TRACE_COMM_LEN - 1, optarg);
				return 1;
			}
			trace_filter.comm = optarg;
			break;
		case OPT_CPU:
			cpu_cnt = libbpf_num_possible_cpus();
			if (!parse_num("--cpu", optarg, 0, cpu_cnt > 0 ? cpu_cnt - 1 : 0, &v))
				return 1;
			trace_filter.cpu = v;
			break;
		case 'd':
			if (!parse_num("-d", optarg, 1, 100000000, &duration))
				return 1;
			break;
		case 'n':
			if (!parse_num("-n", optarg, 1, 0x7fffffffffffffffL, &count))
				return 1;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_PAGES:
			if (!parse_num("--pages", optarg, 1, 1 << 20, &pages))
				return 1;
			if (perfbuf_page_cnt_check((size_t)pages)) {
				fprintf(stderr, PROG ": --pages wants a power of two (1, 2, 4, ... 256), not %ld\n",
					pages);
				return 1;
			}
			break;
		case OPT_LATENCY:
			if (!parse_num("--latency", optarg, 1, 60000, &latency))
				return 1;
			break;
		case OPT_STATS:
			stats = true;
			break;
		case OPT_UNORDERED:
			unordered = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return cli_bad_option("trace", opt, argv);
		}
	}
	if (optind >= argc) {
		fprintf(stderr, PROG ": no probe given; e.g. perfbuf trace tracepoint:sched:sched_process_exec (see --help)\n");
		return 1;
	}
	if (cli_need_privileges("perfbuf trace", CLI_BPF | CLI_TRACEFS))
		return 1;
	libbpf_set_print(verbose ? print_all : NULL);
	if (tracefs_ensure(PROG))
		return 1;
	for (int i = optind; i < argc; i++)
		if (probes_parse(&set, argv[i])) {
			err = -EINVAL;
			goto cleanup;
		}
	/* per probe: a link and a perf event, or a program, link and BTF */
	if (cli_need_fds(PROG, 3 * set.n)) {
		err = -EMFILE;
		goto cleanup;
	}

	/* before the load: a bad path costs nothing */
	if (output) {
		fd = cli_open_output(output);
		if (fd < 0) {
			err = fd;
			fprintf(stderr, PROG ": cannot write '%s': %s\n", output,
				cli_output_error(err));
			goto cleanup;
		}
	}

	skel = trace_obj_open();
	if (!skel) {
		err = -errno;
		fprintf(stderr, PROG ": opening the BPF object failed: %s%s\n", strerror(errno),
			cli_hint(errno));
		goto cleanup;
	}
	/* these are loaded per probe, with their target (probe.c) */
	bpf_program__set_autoload(skel->progs.trace_tp_btf, false);
	bpf_program__set_autoload(skel->progs.trace_raw_tp, false);
	bpf_program__set_autoload(skel->progs.trace_fentry, false);
	bpf_program__set_autoload(skel->progs.trace_fexit, false);
	err = trace__load(skel);
	if (err) {
		fprintf(stderr, PROG ": loading the BPF programs failed: %s%s\n",
			strerror(-err), *cli_hint(err) ? cli_hint(err) :
			"; run with -v for the verifier log");
		goto cleanup;
	}

	run.set = &set;
	run.max_events = count;
	{
		PERFBUF_OPTS(perfbuf_opts, po, .page_cnt = pages, .latency_ms = latency,
			     .ordered = !unordered,
			     .max_record_size = sizeof(struct trace_record) + TRACE_DATA_MAX);

		pb = cli_perfbuf_new(PROG, bpf_map__fd(skel->maps.events),
				     on_record, &run, &po);
	}
	if (!pb) {
		err = -errno;
		goto cleanup;
	}
	{
		struct out_opts oo = { .fd = fd, .json = json, .max_cols = 99,
				       .start_ns = perfbuf_now_ns() };

		err = out_init(&oo) ?: out_prepare(&set);
		if (err) {
			fprintf(stderr, PROG ": out of memory\n");
			goto cleanup;
		}
		out_ready = true;
	}
	out_header();
	/* before the first attach: Ctrl-C or a closed stdout while attaching
	 * must still detach, drain and print the summary */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed stdout is EPIPE: stop */
	/* attaching hundreds of tracepoints takes a while: read meanwhile */
	run.pb = pb;
	err = probes_attach(&set, skel, consume_some, &run);
	if (err)
		goto cleanup;	/* the message is printed; nothing stays attached */

	for (int i = 0; i < set.n; i++)
		attached += set.v[i].link != NULL;
	fprintf(stderr, "Attached %d probe%s. Hit Ctrl-C to end.\n", attached,
		attached == 1 ? "" : "s");
	if (duration)
		deadline = perfbuf_now_ns() + duration * 1000000000ULL;
	next_stats = perfbuf_now_ns() + 1000000000ULL;
	while (!exiting && !run.stop) {
		__u64 t;

		err = perfbuf__poll(pb, 100);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, PROG ": reading the perf buffer failed: %s\n",
				strerror(-err));
			goto cleanup;
		}
		err = 0;
		if (out_flush())
			break;
		t = perfbuf_now_ns();
		if (deadline && t >= deadline)
			break;
		if (stats && t >= next_stats) {
			struct totals tot;

			totals(pb, &tot);
			fprintf(stderr, "stats: %llu events/s, %llu lost/s, ring fill %.0f%% (peak %.0f%%)\n",
				(unsigned long long)(tot.samples - prev_tot.samples),
				(unsigned long long)(tot.lost - prev_tot.lost),
				tot.fill * 100, tot.peak * 100);
			prev_tot = tot;
			next_stats += 1000000000ULL;
			if (next_stats < t)
				next_stats = t + 1000000000ULL;
		}
	}
	/* stop producing, then take what is left and the final losses */
	probes_detach(&set);
	perfbuf__quiesce(pb);	/* programs still running write before the drain */
	err = perfbuf__drain(pb);
	if (err < 0 && err != -EINTR)
		fprintf(stderr, PROG ": draining the perf buffer failed: %s\n",
			strerror(-err));
	err = 0;
	/* a closed reader (EPIPE) is a normal end; anything else, such as
	 * a full disk, is an error with the count of events lost to it */
	wr = out_flush();
	if (wr && wr != -EPIPE) {
		__u64 lost = run.to_write - out_events_written();

		fprintf(stderr, PROG ": writing %s failed: %s; %llu event%s not written\n",
			output ? output : "stdout", strerror(-wr),
			(unsigned long long)lost, lost == 1 ? "" : "s");
		err = -EIO;
	}
	out_wr = summary(pb, wr != 0);
	if (json && !wr && out_wr && out_wr != -EPIPE) {
		fprintf(stderr, PROG ": writing the summary to %s failed: %s\n",
			output ? output : "stdout", strerror(-out_wr));
		err = -EIO;
	}
cleanup:
	if (out_ready)
		out_free();
	probes_free(&set);
	perfbuf__free(pb);
	trace__destroy(skel);
	if (fd > 2)
		close(fd);
	return err ? 1 : 0;
}

/* Does @glob start with kprobe:, kretprobe:, fentry:, fexit: or an alias? */
static bool names_function(const char *glob)
{
	static const char *const kinds[] = { "kprobe", "kretprobe", "fentry",
		"fexit", "k", "kr", "f", "fr" };
	size_t n = strcspn(glob, ":");

	for (size_t i = 0; glob[n] && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strlen(kinds[i]) == n && !strncmp(glob, kinds[i], n))
			return true;
	return false;
}

/* perfbuf list [GLOB]: the tracepoints, and kprobe-able functions where
 * the kernel has kprobes. GLOB matches "tracepoint:CAT:NAME" or
 * "CAT:NAME"; without wildcards it matches anywhere in the name. */
int cmd_list(int argc, char **argv)
{
	char path[256], line[512], pat[512], full[600];
	const char *glob = NULL;
	long found = 0;
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("Usage: perfbuf list [GLOB]\n\n"
			       "List the probes perfbuf trace can use: tracepoints, and kernel\n"
			       "functions for kprobe: where the kernel has kprobes.\n\n"
			       "Examples:\n  perfbuf list\n  perfbuf list 'syscalls:sys_enter_open*'\n"
			       "  perfbuf list sched_process\n");
			return 0;
		}
		if (glob || argv[i][0] == '-') {
			fprintf(stderr, "perfbuf list: want at most one GLOB, not '%s'; see --help\n",
				argv[i]);
			return 1;
		}
		glob = argv[i];
	}
	if (!glob)
		glob = "*";
	if (strlen(glob) > 500) {
		fprintf(stderr, "perfbuf list: GLOB is too long\n");
		return 1;
	}
	snprintf(pat, sizeof(pat), strpbrk(glob, "*?[") ? "%s" : "*%s*", glob);
	if (cli_need_privileges("perfbuf list", CLI_TRACEFS))
		return 1;
	if (tracefs_ensure("perfbuf list"))
		return 1;
	signal(SIGPIPE, SIG_IGN);
	snprintf(path, sizeof(path), "%s/available_events", tracefs_dir);
	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "perfbuf list: cannot read %s: %s\n", path, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		snprintf(full, sizeof(full), "tracepoint:%s", line);
		if (fnmatch(pat, line, 0) && fnmatch(pat, full, 0))
			continue;
		found++;
		if (puts(full) == EOF)
			break;	/* reader gone */
	}
	fclose(f);
	if (kprobes_supported()) {
		snprintf(path, sizeof(path), "%s/available_filter_functions", tracefs_dir);
		f = fopen(path, "re");
		while (f && fgets(line, sizeof(line), f)) {
			line[strcspn(line, " \n")] = '\0';
			snprintf(full, sizeof(full), "kprobe:%s", line);
			if (fnmatch(pat, line, 0) && fnmatch(pat, full, 0))
				continue;
			found++;
			if (puts(full) == EOF)
				break;
		}
		if (f)
			fclose(f);
	} else if (names_function(glob)) {
		fprintf(stderr, "perfbuf list: this kernel has no kprobes (CONFIG_KPROBES is off): no kernel functions to list; trace tracepoints instead\n");
		if (!found)
			return 1;
	}
	if (fflush(stdout) == EOF && errno != EPIPE) {
		fprintf(stderr, "perfbuf list: writing the list failed: %s\n", strerror(errno));
		return 1;
	}
	if (!found) {
		fprintf(stderr, "perfbuf list: nothing matches '%s'\n", glob);
		return 1;
	}
	return 0;
}
