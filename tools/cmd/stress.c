// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf stress: the command, its options and their checks (stress.h
 * says what it does). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/commands.h"
#include "emit.skel.h"
#include "stress/stress.h"

#define MAX_DELAY_US 10000000	/* 10 s */

enum { OPT_CONSUMER_DELAY = 256, OPT_ORDERED };	/* long-only options */

/* The --help text (it names the limits). */
static const char *usage(void)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf),
"Usage: perfbuf stress [OPTIONS]\n"
"\n"
"Load the perf buffer from BPF and check that every record is accounted\n"
"for. A producer thread pinned to each CPU runs a BPF program (with\n"
"BPF_PROG_TEST_RUN) that writes BATCH records of SIZE bytes per run, each\n"
"with a per-CPU sequence number; this thread reads them. At the end, per\n"
"CPU: offered == received + lost, lost == the BPF-side -ENOSPC count, and\n"
"every sequence gap is explained by a LOST record. Exit status 1 if not.\n"
"\n"
"Options:\n"
"  -s, --size BYTES     record payload size, %zu..%d (default 64)\n"
"  -b, --batch N        records per BPF program run, 1..%d (default 16)\n"
"  -r, --rate N         records/s per CPU, suffixes k and M, e.g. 10k/s\n"
"  -m, --max            as fast as possible (default)\n"
"  -d, --duration S     seconds to run, fractions allowed (default 3)\n"
"  -c, --cpus LIST      producer CPUs, e.g. 0 or 0-1,3 (default: online CPUs)\n"
"  -p, --pages N        ring data pages per CPU, power of two (default 64)\n"
"  -l, --latency MS     bound on the wait of records below the watermark\n"
"                       (default 10)\n"
"      --consumer-delay USEC\n"
"                       a slow consumer: sleep USEC after each poll round,\n"
"                       0..%d (default 0); the rings overflow meanwhile\n"
"      --ordered        one stream in time order across CPUs; check the order\n"
"                       (no record older than the one before unless flagged\n"
"                       late) and count late records\n"
"  -j, --json           print one JSON object instead of the table\n"
"  -h, --help           this text\n"
"\n"
"Examples:\n"
"  perfbuf stress                           # every CPU, flat out, 3 s\n"
"  perfbuf stress --rate 1k --duration 1    # gentle: expect zero loss\n"
"  perfbuf stress --pages 1 --cpus 0        # overload a 4 KiB ring\n"
"  perfbuf stress --rate 100k --consumer-delay 20000   # a slow consumer\n"
"  perfbuf stress --size 1024 --json | python3 -m json.tool\n",
		sizeof(struct emit_rec), EMIT_MAX_SIZE, EMIT_MAX_BATCH,
		MAX_DELAY_US);
	return buf;
}

/* "1000", "1000/s", "2.5k", "1M/s": records/s, or -1. */
static double parse_rate(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || isinf(v))
		return -1;
	if (*end == 'k' || *end == 'K')
		v *= 1e3, end++;
	else if (*end == 'm' || *end == 'M')
		v *= 1e6, end++;
	if (!strcmp(end, "/s"))
		end += 2;
	return *end ? -1 : v;
}

/* "0-2,4" against the online CPUs: the count, or -1 after one message. */
static int parse_cpu_list(const char *s, int *cpus)
{
	int n;

	n = perfbuf_cpus__parse(s, cpus, MAX_CPUS);
	if (n <= 0) {
		cli_say("perfbuf stress", "--cpus wants a CPU list like 0 or 0-1,3, not '%s'\n", s);
		return -1;
	}
	if (n > MAX_CPUS) {
		cli_say("perfbuf stress", "--cpus lists more than %d CPUs\n", MAX_CPUS);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < i; j++)
			if (cpus[j] == cpus[i]) {
				cli_say("perfbuf stress", "--cpus lists CPU %d twice\n", cpus[i]);
				return -1;
			}
		if (!cli_cpu_online(cpus[i])) {
			cli_say("perfbuf stress", "CPU %d in --cpus is not online\n", cpus[i]);
			return -1;
		}
	}
	return n;
}
/* A number option checked against [lo, hi]; false after a message. */
static bool opt_range(long long *v, const char *arg, long long lo, long long hi,
		      const char *what)
{
	long n;

	if (!cli_parse_long(arg, lo, hi, &n)) {
		*v = n;
		return true;
	}
	cli_say("perfbuf stress", "%s, not '%s'\n", what, arg);
	return false;
}

/* One option into @o; false after a message. */
static bool stress_option(int opt, char *arg, void *ctx)
{
	struct stress_opts *o = ctx;
	unsigned long long ns;
	char what[96];
	long n;

	switch (opt) {
	case 's':
		snprintf(what, sizeof(what), "--size wants %zu..%d bytes",
			 sizeof(struct emit_rec), EMIT_MAX_SIZE);
		return opt_range(&o->size, arg, sizeof(struct emit_rec),
				 EMIT_MAX_SIZE, what);
	case 'b':
		snprintf(what, sizeof(what), "--batch wants 1..%d records",
			 EMIT_MAX_BATCH);
		return opt_range(&o->batch, arg, 1, EMIT_MAX_BATCH, what);
	case 'r':
		o->rate = parse_rate(arg);
		o->have_rate = true;
		if (o->rate > 0)
			return true;
		cli_say("perfbuf stress", "--rate wants records/s like 1000, 10k or 2M/s, not '%s'\n",
			arg);
		return false;
	case 'm':
		o->have_max = true;
		return true;
	case 'd':
		if (!cli_parse_duration("perfbuf stress", "-d", arg, CLI_DURATION_MIN,
					86400 * NS_PER_S, &ns))
			return false;
		o->duration = (double)ns / NS_PER_S;
		return true;
	case 'c':
		o->n_cpus = parse_cpu_list(arg, o->cpus);
		return o->n_cpus >= 0;
	case 'p':
		if (!cli_parse_long(arg, 1, 1 << 20, &n) &&
		    !perfbuf_ring__check_page_cnt((size_t)n)) {
			o->pages = n;
			return true;
		}
		cli_say("perfbuf stress", "--pages wants a power of two 1..%d, not '%s'\n",
			1 << 20, arg);
		return false;
	case 'l':
		return opt_range(&o->latency, arg, 1, 60000,
				 "--latency wants 1..60000 ms");
	case OPT_CONSUMER_DELAY:
		snprintf(what, sizeof(what), "--consumer-delay wants 0..%d microseconds",
			 MAX_DELAY_US);
		return opt_range(&o->delay_us, arg, 0, MAX_DELAY_US, what);
	case 'j':
		o->json = true;
		return true;
	default:	/* OPT_ORDERED */
		o->ordered = true;
		return true;
	}
}

/* The options, checked together: -1 to exit 1 (said why), 1 to exit 0
 * (--help), 0 to run. */
static int parse_options(int argc, char **argv, struct stress_opts *o)
{
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "batch", required_argument, NULL, 'b' },
		{ "rate", required_argument, NULL, 'r' },
		{ "max", no_argument, NULL, 'm' },
		{ "duration", required_argument, NULL, 'd' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "pages", required_argument, NULL, 'p' },
		{ "latency", required_argument, NULL, 'l' },
		{ "consumer-delay", required_argument, NULL, OPT_CONSUMER_DELAY },
		{ "ordered", no_argument, NULL, OPT_ORDERED },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct cli_opts c = { .cmd = "stress", .shortopts = ":s:b:r:md:c:p:l:jh",
			      .longopts = longopts, .usage = usage(),
			      .set = stress_option, .no_operands = true };
	int err;

	optind = 1;
	err = cli_options(&c, argc, argv, o);
	if (err)
		return err;
	if (o->have_rate && o->have_max) {
		cli_say("perfbuf stress", "--rate and --max are exclusive\n");
		return -1;
	}
	if (cli_need_stdout("perfbuf stress"))
		return 1;
	/* header + u32 size + payload, 8-aligned, must fit data_size - 8 */
	if (((8 + 4 + o->size + 7) & ~7LL) > o->pages * PAGE_SZ - 8) {
		cli_say("perfbuf stress", "records of %lld bytes do not fit a ring of %lld pages; use more --pages\n",
			o->size, o->pages);
		return -1;
	}
	return 0;
}
int cmd_stress(int argc, char **argv)
{
	static struct stress_run run;	/* big: the CPU list */
	int ret = 1, err;

	memset(&run, 0, sizeof(run));
	run.o = (struct stress_opts){ .size = 64, .batch = 16, .pages = 64,
				      .latency = 10, .duration = 3 };
	err = parse_options(argc, argv, &run.o);
	if (err)
		return err < 0 ? 1 : 0;
	if (!stress_setup(&run) && !stress_run(&run) && !stress_results(&run)) {
		if (run.o.json)
			stress_print_json(&run);
		else
			stress_print_table(&run);
		ret = run.all_ok ? 0 : 1;
	}
	perfbuf__free(run.pb);
	emit__destroy(run.skel);
	free(run.st.seen);
	free(run.prod);
	free(run.res);
	return ret;
}
