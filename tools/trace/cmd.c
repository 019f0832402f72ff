// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf trace: bpftrace-style probes, one generic BPF program per probe
 * kind (bpf/trace.bpf.c); every record through the pipeline (decode.h):
 * decoded into values, handed to a sink, text or JSON Lines. Here: the
 * options, setup, the poll loop, the drain and the summary.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>

#include "perfbuf.h"
#include "common/cli.h"
#include "common/commands.h"
#include "decode.h"
#include "metrics/metrics.h"
#include "nats/pub.h"
#include "nats/sink_nats.h"
#include "record/record.h"
#include "sym/sym.h"
#include "trace.skel.h"

const char *trace_prog = "perfbuf trace";

static volatile sig_atomic_t exiting, snapshot_wanted;

/* counted: one while detaching leaves the rest to the kernel */
static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		snapshot_wanted = 1;
	else
		exiting++;
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
"      --filter EXPR    only events for which EXPR holds, decided in the kernel;\n"
"                       repeatable (all must hold); PROBE:EXPR for one probe\n"
"  -d, --duration SEC   stop after SEC seconds\n"
"  -n, --count N        stop after N events\n"
"  -o, --output FILE    write events to FILE instead of stdout\n"
"      --json           JSON Lines: event, lost and summary objects\n"
"      --width N        cut text lines to N columns (not in a file)\n"
"      --time CLOCK     what times are, in text and JSON: rel (since the start,\n"
"                       the default), mono (CLOCK_MONOTONIC) or wall (the date)\n"
"      --pages N        ring pages per CPU, a power of two (default 256)\n"
"      --latency MS     longest an event waits in a ring (default 10)\n"
"      --stats          a line on stderr every second: events/s, lost/s, ring fill\n"
METRICS_USAGE
"      --unordered      print each CPU's events as they come, not in time order\n"
"      --string-size N  bytes kept of each string, buffer or argv argument\n"
"                       (1..4096, default 255); a cut one is marked\n"
"      --buffers[=escaped|hex]\n"
"                       print the bytes of syscall buffers the call reads\n"
"                       (write's), bounded by their length argument\n"
"      --kstack         each event's kernel stack, named (/proc/kallsyms)\n"
"      --ustack         each event's user stack, named (the process's ELF\n"
"                       symbols; frame pointers needed to walk it)\n"
"  -v, --verbose        libbpf debug output\n"
"  -h, --help           this help\n"
NATS_TRACE_USAGE
"\n"
"Events carry time, CPU, PID, TID, command, the probe and its arguments:\n"
"every field of a tracepoint (syscall paths and names read as strings,\n"
"execve's argv as a list, buffers as addresses unless --buffers),\n"
"arg0..arg5 of kprobes/fentry/uprobes, ret of the return probes.\n"
"Events print in time order across CPUs (the kernel's CLOCK_MONOTONIC\n"
"time of each record); one whose writer was interrupted may come after a\n"
"newer one: it is marked late (a '*' after the time, \"late\":true in JSON).\n"
"CPUs coming online are traced; one going offline is drained first.\n"
"Stacks print leaf first, a frame per line after the event (a tab first),\n"
"or as \"kstack\" and \"ustack\" arrays in JSON; kernel frames end in _[k].\n"
"Text lines carry every field (--width cuts them). In JSON strings a byte\n"
"that is not valid UTF-8 appears as \\u00XX (XX: the byte).\n"
"\n"
"Filters: a field compared with a constant, combined with && || ! ( ):\n"
"  == != < <= > >= on integers; == != on strings, \"text*\" for a prefix.\n"
"  Names: the probe's fields (args.NAME too), arg0..arg5, ret, and\n"
"  pid tid comm cpu (the task's and CPU's, even where a field has the name).\n"
"\n"
"Examples:\n"
"  perfbuf trace tracepoint:sched:sched_process_exec\n"
"  perfbuf trace --filter 'filename == \"/etc/*\"' tracepoint:syscalls:sys_enter_openat\n"
"  perfbuf trace -d 5 --json 'tracepoint:syscalls:sys_enter_open*'\n"
"  perfbuf trace --comm bash tracepoint:syscalls:sys_enter_openat\n"
"  perfbuf trace uprobe:/bin/bash:readline uretprobe:/bin/bash:readline\n"
"  perfbuf trace -n 10 -o exits.txt tracepoint:sched:sched_process_exit\n"
"  perfbuf trace --kstack --ustack -n 5 tracepoint:syscalls:sys_enter_openat\n"
"  perfbuf list 'syscalls:*open*'\n";

struct trace_opts {
	const char *output;	/* NULL: stdout */
	long duration, count;	/* 0: no limit */
	long pages, latency;	/* latency 0: the library's default */
	long width;		/* --width: text lines cut (0: never) */
	enum trace_time time;	/* --time */
	bool json, stats, verbose, unordered;
	bool record;		/* perfbuf record: a capture file */
	long flight_pages;	/* record --flight-recorder: pages per CPU */
	long realtime;		/* record --realtime: the reader's SCHED_FIFO
				 * priority, 0: none */
	struct nats_opts nats;	/* --nats: events to JetStream */
	const char *metrics;	/* --metrics [ADDR:]PORT */
	const char *filters[16];	/* --filter, checked in setup() */
	int nfilters;
};

struct run {
	struct trace_opts o;
	struct capture_out cap;	/* record */
	struct probe_set set;
	struct trace *skel;
	struct perfbuf *pb;
	struct trace_decoder *dec;
	struct trace_sink *sink;
	struct sym_maps *maps;	/* --kstack/--ustack: naming the frames */
	struct sym_names *names;
	int fd;			/* the output */
	struct metrics metrics;	/* --metrics */
	size_t max_rec;		/* the largest record the probes write */
	__u64 received, printed;
	__u64 to_write;		/* events meant for the output (not past -n) */
	bool stop;
	struct trace_pipe pipe;	/* the record being decoded: last, it is big */
};

static bool broken(const struct run *run)
{
	return run->o.record ? capture_out_error(&run->cap) != 0
			     : run->sink->err != 0;
}

static int on_record(void *ctx, const struct perfbuf_record *rec)
{
	struct run *run = ctx;

	if (run->o.record) {
		run->received += rec->kind == PERFBUF_REC_SAMPLE;
		capture_out_record(&run->cap, rec);
		return 0;
	}
	if (rec->kind != PERFBUF_REC_SAMPLE) {
		if (!broken(run))
			trace_pipe__record(&run->pipe, rec);
		return 0;
	}
	run->received++;
	if (run->stop)
		return 0;
	run->to_write++;
	if (broken(run)) {
		/* the output failed: this one is the last meant for it */
		run->stop = true;
		return PERFBUF_STOP;
	}
	if (trace_pipe__record(&run->pipe, rec) && run->o.count &&
	    ++run->printed >= (__u64)run->o.count) {
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
	if (run->sink)
		trace_sink__flush(run->sink);
	return !exiting && !run->stop && !broken(run);
}

static bool parse_num(const char *opt, const char *arg, long min, long max,
		      long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	if (errno || *end || end == arg || *out < min || *out > max) {
		fprintf(stderr, "%s: %s wants a number from %ld to %ld, not '%s'\n", PROG,
			opt, min, max, arg);
		return false;
	}
	return true;
}

enum { OPT_COMM = 256, OPT_CPU, OPT_JSON, OPT_PAGES, OPT_LATENCY, OPT_STATS,
       OPT_UNORDERED, OPT_FLIGHT, OPT_STRING_SIZE, OPT_BUFFERS, OPT_WIDTH,
       OPT_KSTACK, OPT_USTACK, OPT_TIME, OPT_FILTER, OPT_METRICS,
       OPT_REALTIME };

/* The filters: -p, --comm, --cpu (checked in BPF). */
static bool filter_option(int opt, const char *arg)
{
	int cpu_cnt;
	long v;

	switch (opt) {
	case 'p':
		if (!parse_num("-p", arg, 1, 0x7fffffff, &v))
			return false;
		if (kill(v, 0) && errno == ESRCH) {
			fprintf(stderr, "%s: -p %ld: no such process\n", PROG, v);
			return false;
		}
		trace_filter.pid = v;
		return true;
	case OPT_COMM:
		if (!*arg || strlen(arg) >= TRACE_COMM_LEN) {
			fprintf(stderr, "%s: --comm wants a command name of 1 to %d characters, not '%s'\n", PROG,
				TRACE_COMM_LEN - 1, arg);
			return false;
		}
		trace_filter.comm = arg;
		return true;
	default:	/* OPT_CPU */
		cpu_cnt = libbpf_num_possible_cpus();
		if (!parse_num("--cpu", arg, 0, cpu_cnt > 0 ? cpu_cnt - 1 : 0, &v))
			return false;
		trace_filter.cpu = v;
		return true;
	}
}

/* How events print: --width, --time (report's, for record). */
static bool output_option(int opt, const char *arg, struct trace_opts *o)
{
	if (o->record) {
		fprintf(stderr, "%s: %s is an option of perfbuf report\n", PROG,
			opt == OPT_TIME ? "--time" : "--width");
		return false;
	}
	if (opt == OPT_WIDTH)
		return parse_num("--width", arg, 40, 100000, &o->width);
	if (trace_time_parse(arg, &o->time)) {
		fprintf(stderr, "%s: --time wants rel, mono or wall, not '%s'\n", PROG, arg);
		return false;
	}
	return true;
}

/* What BPF reads of syscall arguments: --string-size, --buffers. */
static bool read_option(int opt, const char *arg)
{
	long v;

	if (opt == OPT_STRING_SIZE) {
		if (!parse_num("--string-size", arg, 1, TRACE_STR_SIZE_MAX, &v))
			return false;
		trace_read.str_size = v;
	} else if (!arg || !strcmp(arg, "escaped")) {
		trace_read.buffers = BUFFERS_ESCAPED;
	} else if (!strcmp(arg, "hex")) {
		trace_read.buffers = BUFFERS_HEX;
	} else {
		fprintf(stderr, "%s: --buffers wants escaped or hex, not '%s'\n", PROG, arg);
		return false;
	}
	return true;
}

/* One option of getopt_long() into @o; false after a message. */
static bool set_option(int opt, char *arg, struct trace_opts *o)
{
	switch (opt) {
	case 'p':
	case OPT_COMM:
	case OPT_CPU:
		return filter_option(opt, arg);
	case 'd':
		return parse_num("-d", arg, 1, 100000000, &o->duration);
	case 'n':
		return parse_num("-n", arg, 1, 0x7fffffffffffffffL, &o->count);
	case 'o':
		o->output = arg;
		return true;
	case OPT_FILTER:
		if (o->nfilters == (int)(sizeof(o->filters) / sizeof(o->filters[0]))) {
			fprintf(stderr, "%s: more than %d --filter options; join them with &&\n", PROG,
				o->nfilters);
			return false;
		}
		o->filters[o->nfilters++] = arg;
		return true;
	case OPT_PAGES:
		if (!parse_num("--pages", arg, 1, 1 << 20, &o->pages))
			return false;
		if (perfbuf_ring__check_page_cnt((size_t)o->pages)) {
			fprintf(stderr, "%s: --pages wants a power of two (1, 2, 4, ... 1048576), not %ld\n", PROG,
				o->pages);
			return false;
		}
		return true;
	case OPT_LATENCY:
		return parse_num("--latency", arg, 1, 60000, &o->latency);
	case OPT_REALTIME:
		if (!o->record) {
			fprintf(stderr, "%s: --realtime is an option of perfbuf record\n", PROG);
			return false;
		}
		return parse_num("--realtime", arg, 0, 99, &o->realtime);
	case OPT_WIDTH:
	case OPT_TIME:
		return output_option(opt, arg, o);
	case OPT_STRING_SIZE:
	case OPT_BUFFERS:
		return read_option(opt, arg);
	case OPT_JSON:
	case OPT_UNORDERED:
		if (o->record) {
			fprintf(stderr, "%s: %s is an option of perfbuf report\n", PROG,
				opt == OPT_JSON ? "--json" : "--unordered");
			return false;
		}
		o->json |= opt == OPT_JSON;
		o->unordered |= opt == OPT_UNORDERED;
		return true;
	case OPT_FLIGHT:
		if (!o->record) {
			fprintf(stderr, "%s: --flight-recorder is an option of perfbuf record\n",
				PROG);
			return false;
		}
		return record_parse_size(arg, &o->flight_pages);
	case OPT_STATS:
		o->stats = o->nats.stats = true;
		return true;
	case OPT_METRICS:
		o->metrics = arg;
		return !metrics_check_addr(PROG, arg);
	case OPT_KSTACK:
	case OPT_USTACK:
		if (o->record) {
			fprintf(stderr, "%s: %s is an option of perfbuf trace\n", PROG,
				opt == OPT_KSTACK ? "--kstack" : "--ustack");
			return false;
		}
		trace_filter.kstack |= opt == OPT_KSTACK;
		trace_filter.ustack |= opt == OPT_USTACK;
		return true;
	case 'v':
		o->verbose = true;
		return true;
	default:	/* NATS_OPT_* */
		if (o->record) {
			fprintf(stderr, "%s: the NATS options are options of perfbuf trace\n",
				PROG);
			return false;
		}
		return nats_opts_set(&o->nats, opt, arg);
	}
}

/* The options into @o: -1 to exit 1 (said why), 1 to exit 0 (--help),
 * 0 to trace the probes from argv[optind]. */
static int parse_options(int argc, char **argv, struct trace_opts *o)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "duration", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "pages", required_argument, NULL, OPT_PAGES },
		{ "latency", required_argument, NULL, OPT_LATENCY },
		{ "realtime", required_argument, NULL, OPT_REALTIME },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "metrics", required_argument, NULL, OPT_METRICS },
		{ "unordered", no_argument, NULL, OPT_UNORDERED },
		{ "flight-recorder", required_argument, NULL, OPT_FLIGHT },
		{ "string-size", required_argument, NULL, OPT_STRING_SIZE },
		{ "buffers", optional_argument, NULL, OPT_BUFFERS },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "kstack", no_argument, NULL, OPT_KSTACK },
		{ "ustack", no_argument, NULL, OPT_USTACK },
		NATS_TRACE_LONGOPTS,
		{ "time", required_argument, NULL, OPT_TIME },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int opt;

	*o = (struct trace_opts){ .pages = 256, .record = o->record,
				  .realtime = o->record ? RECORD_DEFAULT_RTPRIO : 0 };
	nats_opts_init(&o->nats, PROG);
	trace_filter = (struct trace_filter){ .cpu = -1 };
	trace_read = (struct trace_read_opts){ .str_size = TRACE_STR_SIZE };
	optind = 1;
	opterr = 0;	/* one line of our own instead of getopt's */
	while ((opt = getopt_long(argc, argv, ":p:d:n:o:vh", longopts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(o->record ? record_usage : usage_text, stdout);
			return 1;
		}
		if (opt == '?' || opt == ':')
			return cli_bad_option(o->record ? "record" : "trace", opt,
					      argv) ? -1 : 1;
		if (!set_option(opt, optarg, o))
			return -1;
	}
	if (o->record && !o->output)
		o->output = RECORD_DEFAULT_OUTPUT;
	if (!nats_opts_check(&o->nats))
		return -1;
	if (o->nats.nurls && o->output) {
		fprintf(stderr, "%s: with --nats events go to NATS, not to -o %s: give one of them\n",
			PROG, o->output);
		return -1;
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: no probe given; e.g. %s tracepoint:sched:sched_process_exec (see --help)\n",
			PROG, PROG);
		return -1;
	}
	return 0;
}

/* The BPF object, loaded: the programs attached per probe, with their
 * own target, are loaded later (probe.c). */
static int load_bpf(struct run *run)
{
	struct trace *skel;
	int err;

	run->skel = skel = trace_obj_open();
	if (!skel) {
		err = -errno;
		fprintf(stderr, "%s: opening the BPF object failed: %s%s\n", PROG, cli_strerror(errno),
			cli_hint(errno));
		return err;
	}
	bpf_program__set_autoload(skel->progs.trace_tp_btf, false);
	bpf_program__set_autoload(skel->progs.trace_raw_tp, false);
	bpf_program__set_autoload(skel->progs.trace_fentry, false);
	bpf_program__set_autoload(skel->progs.trace_fexit, false);
	bpf_program__set_autoload(skel->progs.trace_sys_enter_btf, false);
	bpf_program__set_autoload(skel->progs.trace_sys_exit_btf, false);
	bpf_program__set_autoload(skel->progs.trace_sys_enter, false);
	bpf_program__set_autoload(skel->progs.trace_sys_exit, false);
	err = trace__load(skel);
	if (err)
		fprintf(stderr, "%s: loading the BPF programs failed: %s%s\n", PROG,
			cli_strerror(err), *cli_hint(err) ? cli_hint(err) :
			"; run with -v for the verifier log");
	return err;
}

/* --kstack/--ustack: a frame's name (tools/sym), for the decoder */
static const char *frame_name(void *ctx, bool kernel, __u32 pid, __u64 addr)
{
	struct run *run = ctx;
	struct sym_frame f = { .file = SYM_KERNEL_FILE, .addr = addr };

	if (!kernel)
		f = maps_frame(run->maps, (pid_t)pid, addr);
	return names_frame(run->names, &f);
}

static int open_stacks(struct run *run)
{
	if (!trace_filter.kstack && !trace_filter.ustack)
		return 0;
	run->maps = maps_new();
	run->names = run->maps ? names_new(run->maps) : NULL;
	if (!run->names)
		return -ENOMEM;
	trace_decoder__set_stacks(run->dec, trace_filter.kstack,
				  trace_filter.ustack, frame_name, run);
	return 0;
}

/* The decoder and the sink (text, or JSON Lines) the events go to. */
static int open_sink(struct run *run)
{
	struct trace_sink_opts so = { .fd = run->fd,
				      .max_cols = cli_is_file(run->fd) ? 0 : run->o.width };
	int err = -ENOMEM;

	trace_clock_init(&so.clock, run->o.time);
	run->o.nats.clock = so.clock;
	run->o.nats.latency_ms = run->o.latency ?: NATS_DEFAULT_LATENCY_MS;
	run->dec = trace_decoder__new(&run->set);
	run->sink = run->o.nats.nurls ? trace_sink_nats_new(&run->o.nats) :
		    run->o.json ? trace_sink_json_new(&so) : trace_sink_text_new(&so);
	if (run->dec && run->sink && !open_stacks(run))
		err = trace_sink__begin(run->sink, trace_decoder__schema(run->dec));
	if (err) {
		/* the NATS sink says what went wrong itself */
		if (!run->dec || !run->sink || !run->o.nats.nurls)
			fprintf(stderr, "%s: out of memory\n", PROG);
		return err;
	}
	run->pipe.dec = run->dec;
	run->pipe.sink = run->sink;
	return 0;
}

/* record: the rings' bytes to the capture as they are */
static void on_span(void *ctx, int cpu, const struct iovec *iov, int cnt)
{
	struct run *run = ctx;

	capture_out_span(&run->cap, cpu, iov, cnt);
}

/* The collector: in time order for trace; for record, bytes to the
 * capture, or overwrite rings as a flight recorder (times on both: the
 * report orders by them). */
static struct perfbuf *open_rings(struct run *run)
{
	bool flight = run->o.flight_pages;
	PERFBUF_OPTS(perfbuf_opts, po,
		     .page_cnt = flight ? run->o.flight_pages : run->o.pages,
		     .latency_ms = run->o.latency,
		     .ordered = !run->o.unordered && !run->o.record,
		     .timestamps = run->o.record,
		     .overwrite = flight,
		     .span_fn = run->o.record && !flight ? on_span : NULL,
		     .max_record_size = run->max_rec);

	return cli_perfbuf_new(PROG, bpf_map__fd(run->skel->maps.events),
			       on_record, run, &po);
}

/* The fewest pages (a power of two) whose ring holds records of @max_rec
 * bytes and a LOST record, as perfbuf__new() counts them. */
static size_t pages_needed(size_t max_rec)
{
	size_t page = sysconf(_SC_PAGESIZE), n = 1;
	size_t rec = perfbuf_record__sample_size(max_rec, PERF_SAMPLE_RAW | PERF_SAMPLE_TIME);

	while (n * page - 8 < rec + 32)
		n *= 2;
	return n;
}

/* --pages against the probes' largest record: said before anything loads */
static int check_pages(struct run *run)
{
	long pages = run->o.flight_pages ?: run->o.pages;
	size_t need;

	run->max_rec = probes_record_max(&run->set);
	need = pages_needed(run->max_rec);
	if ((size_t)pages >= need)
		return 0;
	if (run->o.flight_pages)
		fprintf(stderr, "%s: --flight-recorder of %ld pages per CPU is too small for these probes' largest record (%zu bytes); give %zu pages (%zu KiB) or more\n",
			PROG, pages, run->max_rec, need, need * sysconf(_SC_PAGESIZE) / 1024);
	else
		fprintf(stderr, "%s: --pages %ld is too small for these probes' largest record (%zu bytes); use --pages %zu or more\n",
			PROG, pages, run->max_rec, need);
	return -EINVAL;
}

struct totals {
	__u64 samples, lost;
	double fill, peak;	/* fullest ring now, highest ever (0..1) */
};

/* --metrics: the BPF side's failed writes, from the server's thread */
static int bpf_errors(void *ctx, int ncpu, __u64 (*out)[METRICS_REASONS])
{
	_Static_assert((int)METRICS_NO_SPACE == (int)TRACE_OUT_NO_SPACE &&
		       (int)METRICS_NO_RING == (int)TRACE_OUT_NO_RING &&
		       (int)METRICS_OTHER == (int)TRACE_OUT_OTHER &&
		       (int)METRICS_REASONS == (int)TRACE_OUT_REASONS, "one order of reasons");
	return trace_output_errors(ctx, ncpu, out);
}

/* --metrics: what there is to show, now that it exists */
static void metrics_sources(struct run *run)
{
	struct metrics *m = &run->metrics;

	if (!m->srv)
		return;
	m->pb[m->npb++] = run->pb;
	m->bpf = bpf_errors;
	m->bpf_ctx = run->skel;
	m->sink = run->o.record ? "capture" : run->sink->ops->name;
	m->nats = run->o.nats.nurls;
	metrics_ready(m);
}

static void totals(struct perfbuf *pb, struct totals *t);

/* --nats: the publisher's counts, in events (not batches) */
static void nats_counts(struct trace_sink *sink, struct metrics_counts *m)
{
	struct nats_pub_counts c;

	trace_sink_nats_counts(sink, &c);
	m->nats_published = c.published.events;
	m->nats_acknowledged = c.acknowledged.events;
	m->nats_buffer_full = c.buffer_full.events;
	m->nats_rejected = c.rejected.events;
	m->nats_unacked = c.unacked.events;
}

/* --metrics: the loop's counters, for the next scrape */
static void publish(struct run *run)
{
	struct metrics_counts c = {};
	struct totals t;

	if (!run->metrics.srv)
		return;
	if (run->o.record) {
		/* every record the rings gave is in the capture */
		totals(run->pb, &t);
		c.written = t.samples;
		c.sink_errors = capture_out_error(&run->cap) != 0;
	} else {
		c.written = run->sink->written;
		c.sink_errors = run->sink->err != 0;
		if (run->o.nats.nurls)
			nats_counts(run->sink, &c);
	}
	metrics_publish(&run->metrics, &c);
}

/* Everything up to the first attach: probes, output, BPF, rings, sink. */
static int setup(struct run *run, int nprobes, char **probes)
{
	int err;

	/* the filters' syntax first: a typo costs nothing */
	for (int i = 0; i < run->o.nfilters; i++)
		if (filter_add(run->o.filters[i]))
			return -EINVAL;
	if ((!run->o.output && cli_need_stdout(PROG)) ||
	    cli_need_privileges(PROG, CLI_BPF | CLI_TRACEFS))
		return -EPERM;
	libbpf_set_print(run->o.verbose ? print_all : NULL);
	if (tracefs_ensure(PROG))
		return -ENOENT;
	for (int i = 0; i < nprobes; i++)
		if (probes_parse(&run->set, probes[i]))
			return -EINVAL;
	probes_warn_cost(&run->set);
	err = check_pages(run);
	if (err)
		return err;
	/* per probe: a link and a perf event, or a program, link and BTF */
	if (cli_need_fds(PROG, 3 * run->set.n + (run->o.metrics ? METRICS_FDS : 0)))
		return -EMFILE;
	/* before the load: a bad path costs nothing */
	if (run->o.record) {
		err = capture_out_open(&run->cap, run->o.output);
		if (err) {
			fprintf(stderr, "%s: cannot write '%s': %s\n", PROG, run->o.output,
				cli_output_error(err));
			return err;
		}
	} else if (run->o.output) {
		run->fd = cli_open_output(run->o.output);
		if (run->fd < 0) {
			err = run->fd;
			fprintf(stderr, "%s: cannot write '%s': %s\n", PROG, run->o.output,
				cli_output_error(err));
			return err;
		}
	}
	/* before the load too: a port in use costs nothing */
	if (run->o.metrics) {
		err = metrics_start(&run->metrics, PROG, run->o.metrics);
		if (err)
			return err;
	}
	err = load_bpf(run) ?:
	      filters_load(&run->set, bpf_map__fd(run->skel->maps.filter_of),
			   bpf_map__fd(run->skel->maps.filters));
	if (err)
		return err;
	run->pb = open_rings(run);
	if (!run->pb)
		return -errno;
	if (run->o.record) {
		char opts[64];

		trace_read_format(opts, sizeof(opts));
		err = record_begin(&run->cap, run->pb, &run->set,
				   run->o.flight_pages ?: run->o.pages,
				   run->o.flight_pages, opts);
	} else {
		err = open_sink(run);
	}
	if (!err)
		metrics_sources(run);
	return err;
}


static void totals(struct perfbuf *pb, struct totals *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < perfbuf__ring_cnt(pb); i++) {
		struct perfbuf_cpu_stats st = { .sz = sizeof(st) };
		double fill;

		if (perfbuf__stats(pb, i, &st))
			continue;
		t->samples += st.samples;
		t->lost += st.lost > st.lost_kernel ? st.lost : st.lost_kernel;
		fill = st.data_size ? (double)st.avail / st.data_size : 0;
		if (fill > t->fill)
			t->fill = fill;
		if ((double)st.high_water / st.data_size > t->peak)
			t->peak = (double)st.high_water / st.data_size;
	}
}

/* --stats: the last second's rates and the ring fill, on stderr */
static void print_stats(struct perfbuf *pb, struct totals *prev)
{
	struct totals tot;

	totals(pb, &tot);
	fprintf(stderr, "stats: %llu events/s, %llu lost/s, ring fill %.0f%% (peak %.0f%%)\n",
		(unsigned long long)(tot.samples - prev->samples),
		(unsigned long long)(tot.lost - prev->lost),
		tot.fill * 100, tot.peak * 100);
	*prev = tot;
}

/* A flight recorder's snapshot into the capture. */
static void snapshot(struct run *run)
{
	int err;

	capture_out_snapshot_begin(&run->cap);
	err = perfbuf__snapshot(run->pb);
	capture_out_snapshot_end(&run->cap);
	if (err < 0)
		fprintf(stderr, "%s: a snapshot failed: %s\n", PROG, strerror(-err));
}

/* After a poll: is the output gone, or -n reached (record: counted in
 * whole ring spans)? Flushes, takes a snapshot asked for. */
static bool output_done(struct run *run)
{
	struct totals t;

	if (!run->o.record)
		return trace_sink__flush(run->sink) != 0;
	if (snapshot_wanted) {
		snapshot_wanted = 0;
		snapshot(run);
	}
	if (broken(run))
		return true;
	if (!run->o.count)
		return false;
	totals(run->pb, &t);
	return t.samples >= (__u64)run->o.count;
}

/* Poll until Ctrl-C, -d, -n or a failed output. 0 or -errno (said). */
static int trace_loop(struct run *run)
{
	__u64 now = perfbuf_now_ns(), next_stats = now + 1000000000ULL;
	__u64 deadline = run->o.duration ? now + run->o.duration * 1000000000ULL : 0;
	__u64 next_pub = now;
	struct totals prev = {};
	int err;

	while (!exiting && !run->stop) {
		err = perfbuf__poll(run->pb, 100);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "%s: reading the perf buffer failed: %s\n", PROG,
				strerror(-err));
			return err;
		}
		if (output_done(run))
			break;
		now = perfbuf_now_ns();
		if (deadline && now >= deadline)
			break;
		if (now >= next_pub) {
			publish(run);
			next_pub = now + 100000000ULL;	/* 10 a second */
		}
		if (run->o.stats && now >= next_stats) {
			print_stats(run->pb, &prev);
			next_stats += 1000000000ULL;
			if (next_stats < now)
				next_stats = now + 1000000000ULL;
		}
	}
	return 0;
}

/* The closing summary, from the collector's per-CPU counts. A failed
 * output printed what reached it; the rest is discarded. */
static int summary(struct run *run, bool output_failed)
{
	size_t n = perfbuf__ring_cnt(run->pb);
	struct tv_cpu_summary cpus[n ? n : 1];
	__u64 printed = output_failed && run->sink->written < run->to_write ?
			run->sink->written : run->to_write;
	struct tv_summary sum = { .ncpus = n, .cpus = cpus,
				  .printed = printed,
				  .discarded = run->received - printed,
				  .output_failed = output_failed };

	for (size_t i = 0; i < n; i++) {
		struct perfbuf_cpu_stats st = { .sz = sizeof(st) };

		perfbuf__stats(run->pb, i, &st);
		cpus[i] = (struct tv_cpu_summary){ .cpu = st.cpu,
			.received = st.samples,
			.lost = st.lost + trace_undelivered(run->skel, st.cpu) };
		sum.received += st.samples;
		sum.lost += cpus[i].lost;
	}
	return trace_sink__summary(run->sink, &sum);
}

/* With the programs stopped: what is left in the rings, and the summary
 * (or the capture's end). 0 or -EIO. */
static int write_end(struct run *run, const char *name)
{
	int err, wr, sum_wr;

	if (run->o.flight_pages) {
		snapshot(run);
		return record_finish(&run->cap, run->pb, run->skel, name);
	}
	err = perfbuf__drain(run->pb);
	if (run->o.record)
		return record_finish(&run->cap, run->pb, run->skel, name);
	if (err < 0 && err != -EINTR)
		fprintf(stderr, "%s: draining the perf buffer failed: %s\n", PROG,
			strerror(-err));
	err = 0;
	/* a closed reader (EPIPE) is a normal end; anything else, such as
	 * a full disk, is an error with the count of events lost to it */
	wr = trace_sink__flush(run->sink);
	if (wr && wr != -EPIPE) {
		__u64 lost = run->to_write - run->sink->written;

		fprintf(stderr, "%s: writing %s failed: %s; %llu event%s not written\n", PROG,
			name, strerror(-wr), (unsigned long long)lost,
			lost == 1 ? "" : "s");
		err = -EIO;
	}
	sum_wr = summary(run, wr != 0);
	if (run->o.json && !wr && sum_wr && sum_wr != -EPIPE) {
		fprintf(stderr, "%s: writing the summary to %s failed: %s\n", PROG,
			name, strerror(-sum_wr));
		err = -EIO;
	}
	return err;
}

/* Stop the programs, write the end, then detach (slow with many probes:
 * stop.c). 0 or -EIO. */
static int finish(struct run *run)
{
	const char *name = run->o.nats.nurls ? "to NATS" :
			   run->o.output ? run->o.output : "stdout";
	int err = trace_stop(run->skel);

	if (err)
		fprintf(stderr, "%s: stopping the probes failed (%s): events written after the drain are not counted\n", PROG,
			strerror(-err));
	err = write_end(run, name);
	publish(run);	/* the last scrape shows the summary's counts */
	probes_detach(&run->set, &exiting);
	return err;
}

static void cleanup(struct run *run)
{
	metrics_stop(&run->metrics);	/* it reads the rings and the maps */
	/* a run that never attached leaves no capture; one that failed
	 * after the attach keeps what it wrote */
	if (probes_attached(&run->set))
		capture_out_close(&run->cap, "");
	else
		capture_out_discard(&run->cap);
	trace_sink__end(run->sink);
	trace_decoder__free(run->dec);
	names_free(run->names);
	maps_free(run->maps);
	probes_free(&run->set);
	filters_free();
	perfbuf__free(run->pb);
	trace__destroy(run->skel);
	nats_opts_free(&run->o.nats);
	if (run->fd > 2)
		close(run->fd);
}

/* "Attached N probes." on stderr (what the tests wait for) */
static void say_attached(const struct probe_set *set)
{
	int attached = probes_attached(set);

	fprintf(stderr, "Attached %d probe%s. Hit Ctrl-C to end.\n", attached,
		attached == 1 ? "" : "s");
}

static int run_main(int argc, char **argv, bool record)
{
	static struct run run;	/* big: the record copy */
	struct sigaction sa = { .sa_handler = on_signal };
	int err;

	memset(&run, 0, sizeof(run));
	run.fd = 1;
	run.o.record = record;
	/* before the load (a second or more): a signal meanwhile, even to a
	 * background job (started with SIGINT ignored), ends the run after
	 * it, with the summary; one while attaching still detaches */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed stdout is EPIPE: stop */
	err = parse_options(argc, argv, &run.o);
	if (err)
		return err < 0 ? 1 : 0;
	if (run.o.flight_pages)
		sigaction(SIGUSR1, &sa, NULL);
	err = setup(&run, argc - optind, argv + optind);
	if (err)
		goto out;
	/* attaching hundreds of tracepoints takes a while: read meanwhile */
	if (!exiting)
		err = probes_attach(&run.set, run.skel, consume_some, &run);
	if (err)
		goto out;	/* the message is printed; nothing stays attached */
	if (!exiting)
		say_attached(&run.set);
	if (run.o.realtime)	/* after the attach: long work, not real-time */
		record_realtime(PROG, (int)run.o.realtime);
	err = trace_loop(&run);
	record_realtime_end((int)run.o.realtime);
	err = err ?: finish(&run);
out:
	cleanup(&run);
	return err ? 1 : 0;
}

int cmd_trace(int argc, char **argv)
{
	trace_prog = "perfbuf trace";
	return run_main(argc, argv, false);
}

int cmd_record(int argc, char **argv)
{
	trace_prog = "perfbuf record";
	return run_main(argc, argv, true);
}
