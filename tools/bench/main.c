// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench: its options, the table of parts (bench.h says what each
 * part measures) and the run. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>

#include "bench.h"
#include "common/say.h"
#include "output/file.h"

struct bench_env env = {
	.pages = 1024,
	.secs = 3,
	.prod_cpu = 0,
	.cons_cpu = 1,
	.batch = 256,
	.out = "build/bench",
	.peer_on = { true, true, true, true, true, true, true, true, true, true, true },
};

/* The parts, in the order a whole run takes them. */
static const struct bench_part {
	const char *name;	/* --only NAME */
	int (*run)(void);
	bool tracer;		/* skipped by --no-trace (not by --only) */
} bench_parts[] = {
	{ "throughput", bench_throughput },
	{ "ordered", bench_ordered },
	{ "drain", bench_drain },
	{ "trace", bench_trace, true },
	{ "filter", bench_filter, true },
	{ "profile", bench_profile },
	{ "record", bench_record },
	{ "record_load", bench_record_load },
	{ "python", bench_python },
	{ "run", bench_run },
	{ "nats", bench_nats },
	{ "cpus", bench_cpus },
	{ "ledger", bench_ledger },
};
#define N_PARTS (sizeof(bench_parts) / sizeof(bench_parts[0]))

static const char usage_text[] =
"Usage: perfbuf-bench [OPTIONS]\n"
"\n"
"Run the same BPF producer (64-byte records, producer thread on CPU0,\n"
"consumer thread on CPU1) against perfbuf and libbpf's perf_buffer and\n"
"ring_buffer; print a markdown table and plot delivered vs offered rate.\n"
"Then perfbuf default against ordered with producers on CPU0 and CPU1,\n"
"the drain of a full ring, perfbuf trace against bpftrace (every event,\n"
"and a filter passing 1 in 1000), perfbuf profile against perf record\n"
"and bpftrace (a profiled workload's slowdown) with the time to name 10 k\n"
"stacks, and perfbuf record against perfbuf trace --json (to tmpfs and\n"
"disk), a full ring drained to a file against libbpf with fwrite(),\n"
"perfbuf report's rate, perfbuf record's loss with and without busy\n"
"loops on every CPU against trace --json -o FILE, and perfbuf trace\n"
"--nats (batches of several sizes, an event a message) against\n"
"trace --json -o FILE.\n"
"Needs root and 2 online CPUs. Takes about 14 minutes (--quick: 4).\n"
"\n"
"Options:\n"
"  -d, --duration S   seconds per point (default 3; sweep points 2)\n"
"  -p, --pages N      ring pages per CPU (default 1024)\n"
"  -b, --batch N      records per program run when flat out (default 256)\n"
"  -o, --out DIR      where bench.md, bench.dat and bench.png go\n"
"                     (default build/bench)\n"
"  -q, --quick        fewer and shorter points\n"
"      --no-sweep     skip the offered-rate sweep and the plot\n"
"      --no-trace     skip the perfbuf trace vs bpftrace comparisons\n"
"      --only PART    only one part: throughput (the first table, no\n"
"                     sweep), ordered, drain, trace, filter, profile,\n"
"                     record, record_load, python, run, nats, cpus or\n"
"                     ledger\n"
"      --peers LIST   the throughput table's consumers, comma-separated:\n"
"                     perfbuf, perfbuf_wake1, perfbuf_ts, perfbuf_ordered,\n"
"                     libbpf_pb, libbpf_raw, libbpf_rb, perfbuf_kind,\n"
"                     libbpf_kind, floor, perfbuf_iter (default: all)\n"
"      --baseline PERFBUF\n"
"                     trace: pairs of storms, this build's perfbuf trace\n"
"                     against PERFBUF's (another build: a change's cost)\n"
"  -h, --help         this text\n"
"\n"
"Examples:\n"
"  make bench                          # setup, build, run, into build/bench\n"
"  build/perfbuf-bench --quick --no-trace\n"
"  build/perfbuf-bench --only throughput --peers perfbuf,libbpf_raw -d 10\n";

/* --peers: a comma-separated list of peer_key names. */
static int parse_peers(const char *list)
{
	char buf[256], *save = NULL;

	if (strlen(list) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", list);
	memset(env.peer_on, 0, sizeof(env.peer_on));
	for (char *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		int p = 0;

		while (p < N_PEERS && strcmp(k, peer_key[p]))
			p++;
		if (p == N_PEERS)
			return -1;
		env.peer_on[p] = true;
	}
	return 0;
}

/* "--only wants A, B or C": the parts' names, in @buf. */
static const char *part_list(char *buf, size_t sz)
{
	int n = snprintf(buf, sz, "--only wants");

	for (size_t i = 0; i < N_PARTS && n > 0 && (size_t)n < sz; i++)
		n += snprintf(buf + n, sz - (size_t)n, "%s %s",
			      !i ? "" : i + 1 < N_PARTS ? "," : " or",
			      bench_parts[i].name);
	return buf;
}

/* An option with a value; 0, or 1 after saying what is wrong. */
static int parse_value(int opt, const char *arg)
{
	char parts[256];
	unsigned long long ns;
	const char *want;
	long v;

	switch (opt) {
	case 'd':
		if (!cli_parse_duration("perfbuf-bench", "-d", arg, CLI_DURATION_MIN,
					600 * NS_PER_S, &ns))
			return 1;
		env.secs = (double)ns / NS_PER_S;
		return 0;
	case 'p':
		want = "--pages wants a power of two";
		if (cli_parse_long(arg, 1, 1 << 16, &v) || (v & (v - 1)))
			break;
		env.pages = (size_t)v;
		return 0;
	case 'b':
		want = "--batch wants 1.." STR(EMIT_MAX_BATCH);
		if (cli_parse_long(arg, 1, EMIT_MAX_BATCH, &v))
			break;
		env.batch = (int)v;
		return 0;
	case 'P':
		want = "--peers wants a list of perfbuf, perfbuf_wake1, perfbuf_ts, "
		       "perfbuf_ordered, libbpf_pb, libbpf_raw, libbpf_rb, "
		       "perfbuf_kind, libbpf_kind, floor, perfbuf_iter";
		if (parse_peers(arg))
			break;
		return 0;
	case 'B':
		want = "--baseline wants an executable perfbuf";
		if (access(arg, X_OK))
			break;
		env.baseline = arg;
		return 0;
	case 'O':
		want = part_list(parts, sizeof(parts));
		for (size_t i = 0; i < N_PARTS; i++)
			if (!strcmp(arg, bench_parts[i].name))
				env.only = bench_parts[i].name;
		if (!env.only)
			break;
		return 0;
	default:	/* -o */
		env.out = arg;
		return 0;
	}
	cli_say("perfbuf-bench", "%s, not '%s'\n", want, arg);
	return 1;
}

/* One option into env; false after a message. */
static bool bench_option(int opt, char *arg, void *ctx)
{
	(void)ctx;
	switch (opt) {
	case 'q':
		env.quick = true;
		return true;
	case 'S':
		env.no_sweep = true;
		return true;
	case 'T':
		env.no_trace = true;
		return true;
	default:	/* d p b o O P B */
		return !parse_value(opt, arg);
	}
}

/* 0: run; 1: exit 1; 2: exit 0 (help). */
static int parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "pages", required_argument, NULL, 'p' },
		{ "batch", required_argument, NULL, 'b' },
		{ "out", required_argument, NULL, 'o' },
		{ "quick", no_argument, NULL, 'q' },
		{ "no-sweep", no_argument, NULL, 'S' },
		{ "no-trace", no_argument, NULL, 'T' },
		{ "only", required_argument, NULL, 'O' },
		{ "peers", required_argument, NULL, 'P' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct cli_opts c = { .cmd = "perfbuf-bench", .shortopts = ":d:p:b:o:qh",
			      .longopts = longopts, .usage = usage_text,
			      .set = bench_option };
	int err = cli_options(&c, argc, argv, NULL);

	if (err)
		return err < 0 ? 1 : 2;
	if (optind < argc) {
		cli_say("perfbuf-bench", "unexpected argument '%s'\n", argv[optind]);
		return 1;
	}
	return 0;
}

/* Privileges, file descriptors and the two CPUs; 0 or -1 (said). */
static int check_system(void)
{
	if (cli_need_privileges("perfbuf-bench", CLI_BPF) ||
	    cli_need_fds("perfbuf-bench", 0))
		return -1;
	if (!cli_cpu_online(env.prod_cpu) || !cli_cpu_online(env.cons_cpu)) {
		cli_say("perfbuf-bench", "needs CPUs %d and %d online\n",
			env.prod_cpu, env.cons_cpu);
		return -1;
	}
	return 0;
}

/* Every part, or the one of --only; --no-trace skips the tracers'. */
static void run_parts(void)
{
	for (size_t i = 0; i < N_PARTS; i++) {
		const struct bench_part *p = &bench_parts[i];

		if (env.only ? !strcmp(env.only, p->name) : !(p->tracer && env.no_trace))
			p->run();
	}
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	struct out_file md_out;
	int err, ret = parse_args(argc, argv);

	if (ret)
		return ret == 2 ? 0 : 1;
	if (check_system())
		return 1;
	if (env.quick)
		env.secs = env.secs > 1 ? 1 : env.secs;
	if (!realpath("/proc/self/exe", env.self))
		env.self[0] = '\0';
	mkdir(env.out, 0755);
	snprintf(path, sizeof(path), "%s/bench.md", env.out);
	err = out_file__open(&md_out, "perfbuf-bench", path);
	md = err ? NULL : out_file__stream(&md_out);
	if (!md) {
		out_file_cannot_write("perfbuf-bench", path, err ?: -errno);
		out_file__discard(&md_out);
		return 1;
	}
	libbpf_set_print(NULL);
	signal(SIGPIPE, SIG_IGN);
	printf("perfbuf-bench on %s\n", bench_host());
	run_parts();
	out_file__commit(&md_out, false);
	printf("\ntable: %s/bench.md\n", env.out);
	return 0;
}
