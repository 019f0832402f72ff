// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf report FILE: a capture decoded into exactly what `perfbuf trace`
 * would have printed: the probes rebuilt from the file (no tracefs), its
 * records merged by time, through the same decoder and sinks.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/commands.h"
#include "common/rings.h"
#include "record/ledger_io.h"
#include "record/meta.h"
#include "record/perf_data.h"
#include "record/probes_io.h"
#include "record/stream.h"
#include "output/agg.h"
#include "trace/decode.h"
#include "run/run_capture.h"

#define RPROG "perfbuf report"

static const char usage_text[] =
"Usage: perfbuf report [OPTIONS] FILE\n"
"\n"
"Print the events of a capture (perfbuf record) as perfbuf trace would have:\n"
"in time order across CPUs, text or JSON Lines. Needs neither root, tracefs\n"
"nor the machine that recorded it.\n"
"\n"
"Options:\n"
"      --json        JSON Lines: event, lost and summary objects\n"
"      --unordered   each CPU's events in the order they were written\n"
"      --time CLOCK  what times are: rel (since the recording started, the\n"
"                    default), mono (CLOCK_MONOTONIC) or wall (the date)\n"
"      --width N     cut text lines to N columns (not in a file)\n"
"      --info        what the capture says about itself, not its events\n"
"      --perf-data OUT  write the events to OUT as perf.data (perf script -i OUT)\n"
"      --aggregate EXPR  count the events into maps instead of printing them,\n"
"                    as perfbuf trace --aggregate (repeatable)\n"
"      --aggregate-keys N  keys kept per map (default 10000)\n"
"  -h, --help        this help\n"
"\n"
"A capture cut short (a crash, a full disk) or damaged prints everything\n"
"before the damage, then one line saying where, and exits 1.\n"
"\n"
"Examples:\n"
"  perfbuf report exec.cap\n"
"  perfbuf report --json exec.cap | jq .args.filename\n"
"  perfbuf report --aggregate 'count() by comm' exec.cap\n"
"  perfbuf report --perf-data exec.data exec.cap && perf script -i exec.data\n";

struct report {
	bool json, unordered, info;
	enum trace_time time;	/* --time */
	long width;		/* --width */
	const char *path;
	const char *perf_out;	/* --perf-data */
	struct perf_data *pd;
	struct cap_reader *r;
	struct cap_meta meta;
	struct probe_set set;
	struct cap_stream *s;
	struct trace_decoder *dec;
	struct trace_sink *sink;
	struct agg_spec aggs[AGG_MAX_MAPS];	/* --aggregate */
	int naggs;
	long agg_keys;		/* --aggregate-keys */
	const struct ledger_view *ledger;	/* while the summary is made */
	__u64 events;
	struct trace_pipe pipe;	/* last: big */
};

enum { OPT_JSON = 256, OPT_UNORDERED, OPT_INFO, OPT_TIME, OPT_WIDTH,
       OPT_PERF_DATA, OPT_AGGREGATE, OPT_AGG_KEYS };

/* --time, --width (as perfbuf trace has them) */
static bool output_option(int opt, const char *arg, struct report *rp)
{
	if (opt == OPT_TIME)
		return trace_time_option(RPROG, arg, &rp->time);
	return cli_parse_num(RPROG, "--width", arg, 40, 100000, &rp->width);
}

static bool report_option(int opt, char *arg, void *ctx)
{
	struct report *rp = ctx;

	if (opt == OPT_TIME || opt == OPT_WIDTH)
		return output_option(opt, arg, rp);
	if (opt == OPT_AGGREGATE)
		return !agg_specs_add(RPROG, rp->aggs, &rp->naggs, arg);
	if (opt == OPT_AGG_KEYS)
		return cli_parse_num(RPROG, "--aggregate-keys", arg, 1, 100000000, &rp->agg_keys);
	if (opt == OPT_PERF_DATA)
		rp->perf_out = arg;
	rp->json |= opt == OPT_JSON;
	rp->unordered |= opt == OPT_UNORDERED;
	rp->info |= opt == OPT_INFO;
	return true;
}

/* --aggregate: named; what a capture cannot answer refused now */
static int check_aggregates(struct report *rp)
{
	if (!rp->naggs && rp->agg_keys) {
		cli_say(RPROG, "--aggregate-keys is about the maps of --aggregate: give --aggregate EXPR\n");
		return -1;
	}
	if (rp->naggs && rp->info) {
		cli_say(RPROG, "--info prints what the capture says about itself, not maps: drop --aggregate\n");
		return -1;
	}
	for (int i = 0; i < rp->naggs; i++)
		if (agg_spec_has_key(&rp->aggs[i], AGG_B_KSTACK) ||
		    agg_spec_has_key(&rp->aggs[i], AGG_B_USTACK)) {
			cli_say(RPROG, "--aggregate '%s': a capture holds no stacks (perfbuf record takes none); maps by stack are perfbuf trace's\n",
				rp->aggs[i].text);
			return -1;
		}
	return agg_specs_name(RPROG, rp->aggs, rp->naggs) ? -1 : 0;
}

static int parse_options(int argc, char **argv, struct report *rp)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "unordered", no_argument, NULL, OPT_UNORDERED },
		{ "info", no_argument, NULL, OPT_INFO },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "perf-data", required_argument, NULL, OPT_PERF_DATA },
		{ "aggregate", required_argument, NULL, OPT_AGGREGATE },
		{ "aggregate-keys", required_argument, NULL, OPT_AGG_KEYS },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct cli_opts c = { .cmd = "report", .shortopts = ":h",
			      .longopts = longopts, .usage = usage_text,
			      .set = report_option };
	int err = cli_options(&c, argc, argv, rp);

	if (err)
		return err;
	if (optind != argc - 1) {
		cli_say(RPROG, "%s; e.g. perfbuf report exec.cap (see --help)\n",
			optind >= argc ? "no capture file given" : "one capture file at a time");
		return -1;
	}
	rp->path = argv[optind];
	if (rp->perf_out && (rp->json || rp->unordered || rp->info || rp->naggs)) {
		cli_say(RPROG, "--perf-data writes perf.data in time order; drop %s\n",
			rp->json ? "--json" : rp->unordered ? "--unordered" :
			rp->info ? "--info" : "--aggregate");
		return -1;
	}
	return check_aggregates(rp);
}

/* --aggregate: the events of probe @probe the recording did not get, as
 * its ledger counted them (ring full, no ring, failed); -ENOENT for a
 * capture without one, or for all probes (the sink takes the summary's) */
static int ledger_lost(void *ctx, int probe, __u64 *count)
{
	const struct report *rp = ctx;
	const struct tv_kind_summary *k;

	if (!rp->ledger || probe < 0 || (size_t)probe >= rp->ledger->nkinds)
		return -ENOENT;
	k = &rp->ledger->kinds[probe];
	*count = k->lost + k->no_reader + k->failed;
	return 0;
}

/* --aggregate: the maps' sink, printed at the end */
static struct trace_sink *agg_sink(struct report *rp, const struct trace_clock *clock)
{
	struct agg_sink_opts ao = {
		.prog = RPROG, .fd = 1, .json = rp->json, .clock = *clock,
		.specs = rp->aggs, .nspecs = rp->naggs, .max_keys = (size_t)rp->agg_keys,
		.lost = ledger_lost, .ctx = rp,
	};

	return trace_sink_agg_new(&ao);
}

/* The file, its META and probes, a decoder and a sink. 0 or -1 (said). */
static int open_capture(struct report *rp)
{
	struct trace_sink_opts so = { .fd = 1 };
	char why[256];
	int err;

	rp->r = cap_reader__open(rp->path, why, sizeof(why));
	err = !rp->r || capture_meta_read(rp->r, &rp->meta, why, sizeof(why));
	/* perfbuf run's: its maps' types in the file (tools/run/report.c) */
	if (!err && !strcmp(rp->meta.mode, "run"))
		return 2;
	/* what BPF read (--buffers): the records' slots depend on it */
	if (!err && trace_read_parse(&rp->set.read, rp->meta.options)) {
		snprintf(why, sizeof(why), "bad decoding options '%.200s'",
			 rp->meta.options);
		err = -EBADMSG;
	}
	rp->set.prog = RPROG;
	if (!err)
		err = capture_probes_read(rp->r, &rp->set, why, sizeof(why));
	if (err) {
		cli_say(RPROG, "%s: %s\n", rp->path, why);
		return -1;
	}
	/* the recording's clocks, as trace_clock_init() took them live */
	so.clock = (struct trace_clock){ .mode = rp->time,
		.start_ns = rp->meta.start_mono_ns,
		.wall_off_ns = (__s64)(rp->meta.start_wall_ns - rp->meta.start_mono_ns) };
	so.max_cols = out_file_is_regular(1) ? 0 : rp->width;	/* never in a file */
	/* before the stream: it reads the format frames */
	if (rp->perf_out && !(rp->pd = perf_data__new(rp->r, &rp->set))) {
		cli_say(RPROG, "out of memory\n");
		return -1;
	}
	rp->s = cap_stream__new(rp->r, rp->meta.sample_type, rp->meta.sample_id_all);
	rp->dec = trace_decoder__new(&rp->set);
	rp->sink = rp->naggs ? agg_sink(rp, &so.clock) :
		   rp->json ? trace_sink_json_new(&so) : trace_sink_text_new(&so);
	if (!rp->s || !rp->dec || !rp->sink) {
		cli_say(RPROG, "out of memory\n");
		return -1;
	}
	err = trace_sink__begin(rp->sink, trace_decoder__schema(rp->dec));
	if (err) {	/* -EINVAL: an --aggregate name no probe has, said */
		if (err != -EINVAL)
			cli_say(RPROG, "%s\n", strerror(-err));
		return -1;
	}
	rp->pipe.dec = rp->dec;
	rp->pipe.sink = rp->sink;
	return 0;
}

/* 0, or 1 when stdout failed (a full disk; a closed reader is fine) */
static int print_info(const struct report *rp)
{
	const struct cap_meta *m = &rp->meta;

	char mapped[32];

	rings_fmt_bytes(m->ring_bytes, mapped, sizeof(mapped));
	printf("capture:  %s\nrecorded: by perfbuf %s on %s (Linux %s, %s)\n"
	       "mode:     %s, %d pages per CPU, CPUs %s\n", rp->path, m->perfbuf,
	       m->host, m->kernel, m->machine, m->mode, m->page_cnt, m->cpus);
	if (m->ring_bytes)
		printf("rings:    %s mapped (and a header page each)\n", mapped);
	printf("clock:    %s, start %llu ns (wall %llu ns)\nprobes:   %d\n", m->clock,
	       (unsigned long long)m->start_mono_ns,
	       (unsigned long long)m->start_wall_ns, rp->set.n);
	for (int i = 0; i < rp->set.n; i++)
		printf("  %s\n", rp->set.v[i].spec);
	return !cli_stdout_ok(RPROG);
}

static int on_record(void *ctx, const struct perfbuf_record *rec)
{
	struct report *rp = ctx;

	rp->events += (__u64)trace_pipe__record(&rp->pipe, rec);
	if ((rp->events & 1023) == 0 && trace_sink__flush(rp->sink))
		return PERFBUF_STOP;
	return PERFBUF_CONTINUE;
}

/* The summary from what the capture held, per CPU. */
static int summary(struct report *rp)
{
	struct tv_summary sum = {};
	struct tv_cpu_summary *cpus = NULL, *more;
	struct perfbuf_ring_stats st = { .sz = sizeof(st) };
	char word[CAP_LEDGER_WORD_MAX];
	struct ledger_view v;
	size_t n = 0;
	int cpu, err;

	while (cap_stream__stats(rp->s, n, &cpu, &st)) {
		more = realloc(cpus, (n + 1) * sizeof(*cpus));
		if (!more)
			break;
		cpus = more;
		cpus[n++] = (struct tv_cpu_summary){ .cpu = cpu,
			.received = st.samples, .lost = st.lost };
		sum.received += st.samples;
		sum.lost += st.lost;
	}
	sum.cpus = cpus;
	sum.ncpus = n;
	sum.printed = sum.received;
	/* the probes' ledger as the recording ended (none: an older capture) */
	if (capture_ledger_read(RPROG, rp->path, rp->r, &v, word) > 0) {
		ledger_view_summary(&v, &sum, word);
		rp->ledger = &v;
	}
	err = trace_sink__summary(rp->sink, &sum);
	rp->ledger = NULL;
	ledger_view_free(&v);
	free(cpus);
	return err;
}

/* After the events: the capture's damage, or its missing end; 0 or 1.
 * @done: what happened to the events, "printed". */
static int say_damage(struct report *rp, long long n, const char *done)
{
	int ret = 0;

	if (n == -EBADMSG) {
		cli_say(RPROG, "%s: damaged %s; the %llu events before it are %s\n",
			rp->path, cap_reader__error(rp->r),
			(unsigned long long)rp->events, done);
		ret = 1;
	} else if (cap_reader__truncated(rp->r)) {
		cli_say(RPROG, "%s: cut short (no closing frame: the recording did not end cleanly); the %llu events in it are %s\n",
			rp->path, (unsigned long long)rp->events, done);
		ret = 1;
	}
	return ret;
}

/* Fold the capture through the pipe; 0, or 1 after saying what failed. */
static int print_events(struct report *rp)
{
	long long n = cap_stream__fold(rp->s, !rp->unordered, on_record, rp);
	int wr = trace_sink__flush(rp->sink);

	if (wr && wr != -EPIPE) {
		cli_say(RPROG, "writing stdout failed: %s\n", strerror(-wr));
		return 1;
	}
	/* the summary first: the damage is the last line said */
	if (!wr)
		summary(rp);
	return say_damage(rp, n, rp->naggs ? "in the maps above" : "printed");
}

/* --perf-data: the events into a perf.data file; 0, or 1 (said). */
static int write_perf_data(struct report *rp)
{
	struct perf_data_result res;
	char why[PATH_MAX + 64];

	static volatile sig_atomic_t stop;

	/* the default action left the new file half written beside OUT */
	cli_stop_on_signals(&stop, true);
	if (perf_data__write(rp->pd, rp->perf_out, &rp->meta, rp->s, &stop, &res, why,
			     sizeof(why))) {
		cli_say(RPROG, "%s\n", why);
		return 1;
	}
	rp->events = res.samples;
	cli_say(RPROG, "%llu events, %llu lost, into %s (perf script -i %s)\n",
		(unsigned long long)res.samples, (unsigned long long)res.lost,
		rp->perf_out, rp->perf_out);
	if (res.skipped)
		cli_say(RPROG, "%llu records of no probe of the capture left out\n",
			(unsigned long long)res.skipped);
	return say_damage(rp, res.stream_err, "written");
}

/* perfbuf run's capture (tools/run/report.c): its records have no task,
 * so an --aggregate's comm, pid and tid are their fields, as in run */
static int report_run_capture(struct report *rp)
{
	struct run_report_opts o = { .json = rp->json, .time = rp->time, .width = rp->width,
				     .aggs = rp->aggs, .naggs = rp->naggs,
				     .agg_keys = rp->agg_keys };

	for (int i = 0; i < rp->naggs; i++)
		agg_spec_task_as_fields(&rp->aggs[i]);
	return run_report(rp->r, rp->path, &rp->meta, &o);
}

static void cleanup(struct report *rp)
{
	for (int i = 0; i < rp->naggs; i++)
		agg_spec_free(&rp->aggs[i]);
	trace_sink__end(rp->sink);
	trace_decoder__free(rp->dec);
	cap_stream__free(rp->s);
	perf_data__free(rp->pd);
	probes_free(&rp->set);
	cap_reader__close(rp->r);
}

int cmd_report(int argc, char **argv)
{
	static struct report rp;	/* big: the record copy */
	int err;

	memset(&rp, 0, sizeof(rp));
	err = parse_options(argc, argv, &rp);
	if (err)
		return err < 0 ? 1 : 0;
	if (!rp.perf_out && cli_need_stdout(RPROG))
		return 1;
	signal(SIGPIPE, SIG_IGN);	/* a closed stdout is EPIPE: stop */
	err = open_capture(&rp);
	if (err == 2 && !rp.info && !rp.perf_out)
		err = report_run_capture(&rp);
	else if (err == 2)
		err = 1, cli_say(RPROG, "%s is a perfbuf run capture: %s is for trace's\n",
				 rp.path, rp.info ? "--info" : "--perf-data");
	else if (err)
		err = 1;
	else if (rp.info)
		err = print_info(&rp);
	else if (!err && rp.perf_out)
		err = write_perf_data(&rp);
	else if (!err)
		err = print_events(&rp);
	cleanup(&rp);
	return err;
}
