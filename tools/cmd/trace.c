// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf trace and perfbuf record: the trace engine (trace/session.h)
 * assembled with an output (see trace.h). trace: bpftrace-style probes,
 * every record through the pipeline (trace/decode.h): decoded into
 * values, handed to a sink, text, JSON Lines or NATS. record: the rings'
 * bytes into a capture file, or overwrite rings as a flight recorder.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "perfbuf.h"
#include "common/cli.h"
#include "common/commands.h"
#include "metrics/metrics.h"
#include "nats/sink_nats.h"
#include "record/record.h"
#include "sym/sym.h"
#include "trace/child.h"
#include "trace/decode.h"
#include "trace/session.h"
#include "trace.h"

static volatile sig_atomic_t exiting, snapshot_wanted;

static void on_snapshot(int sig)
{
	(void)sig;
	snapshot_wanted = 1;
}

struct run {
	struct trace_opts o;
	struct trace_session s;	/* the engine */
	struct capture_out cap;	/* record */
	struct trace_decoder *dec;
	struct trace_sink *sink;
	struct trace_sink *events;	/* --events: printed beside the maps */
	struct sym_maps *maps;	/* --kstack/--ustack: naming the frames */
	struct sym_names *names;
	int fd;			/* the output: 1, or @out's */
	struct out_file out;	/* -o FILE (not record's) */
	struct metrics metrics;	/* --metrics */
	struct perfbuf_ledger *mledger;	/* --metrics: the server thread's */
	__u64 next_pub;		/* --metrics: when to publish the counts */
	__u64 received, printed;
	__u64 to_write;		/* events meant for the output (not past -n) */
	bool stop;
	bool count_reached;	/* -n: the events after it are discarded */
	bool started;		/* attached: the output is the run's (published) */
	struct trace_child child;	/* -c CMD */
	struct trace_pipe pipe;	/* the record being decoded: last, it is big */
};

static bool broken(const struct run *run)
{
	return run->o.record ? capture_out_error(&run->cap) != 0
			     : run->sink->err != 0 || (run->events && run->events->err);
}

/* Every sink's bytes out, the events before the maps: 0 or the first
 * error */
static int flush_sinks(struct run *run)
{
	int err = run->events ? trace_sink__flush(run->events) : 0;

	return trace_sink__flush(run->sink) ?: err;
}

/* Events written whole: the events sink's, when the maps have one */
static __u64 written(const struct run *run)
{
	return (run->events ?: run->sink)->written;
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
	if (run->count_reached)
		return 0;
	run->to_write++;	/* after an output failed too: not written */
	if (broken(run)) {
		/* the output failed: this one is the last meant for it */
		run->stop = true;
		return PERFBUF_STOP;
	}
	if (trace_pipe__record(&run->pipe, rec) && run->o.count &&
	    ++run->printed >= (__u64)run->o.count) {
		run->stop = run->count_reached = true;
		return PERFBUF_STOP;	/* -n reached */
	}
	return 0;
}

/* Between the (slow) attaches of globbed tracepoints: keep the rings from
 * filling, and stop early on Ctrl-C, -n or a closed stdout. */
static bool consume_some(void *ctx)
{
	struct run *run = ctx;

	perfbuf__consume(run->s.pb);
	if (run->sink)
		flush_sinks(run);
	return !exiting && !run->stop && !broken(run);
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
	if (!run->o.filter.kstack && !run->o.filter.ustack)
		return 0;
	run->maps = maps_new();
	run->names = run->maps ? names_new(run->maps) : NULL;
	if (!run->names)
		return -ENOMEM;
	trace_decoder__set_stacks(run->dec, run->o.filter.kstack,
				  run->o.filter.ustack, frame_name, run);
	return 0;
}

/* --aggregate: the events lost so far, exact: of probe @probe, what the
 * programs' ledger counts for it as not delivered (ring full, no ring,
 * failed); of every probe (-1), the rings' count */
static int lost_so_far(void *ctx, int probe, __u64 *count)
{
	struct perfbuf_ledger_kind k = { .sz = sizeof(k) };
	struct run *run = ctx;
	struct trace_totals t;

	if (probe < 0) {
		trace_totals(run->s.pb, &t);
		*count = t.lost;
		return 0;
	}
	if (!run->s.ledger || perfbuf_ledger__read(run->s.ledger, NULL) < 0 ||
	    perfbuf_ledger__kind(run->s.ledger, (size_t)probe, &k))
		return -ENOENT;
	*count = k.lost + k.no_reader + k.failed;
	return 0;
}

/* --aggregate: the maps' sink */
static struct trace_sink *agg_sink(struct run *run, const struct trace_clock *clock)
{
	struct agg_sink_opts ao = {
		.prog = run->o.prog, .fd = run->fd, .json = run->o.json, .clock = *clock,
		.specs = run->o.aggs, .nspecs = run->o.naggs,
		.max_keys = (size_t)run->o.agg_keys, .interval_ms = run->o.interval * 1000,
		.lost = lost_so_far, .ctx = run,
	};

	return trace_sink_agg_new(&ao);
}

/* The decoder and the sink (text, JSON Lines, NATS or the maps of
 * --aggregate) the events go to. */
static int open_sink(struct run *run)
{
	struct trace_sink_opts so = { .fd = run->fd,
				      .max_cols = out_file_is_regular(run->fd) ? 0 : run->o.width };
	int err = -ENOMEM;

	trace_clock_init(&so.clock, run->o.time);
	run->o.nats.clock = so.clock;
	run->o.nats.latency_ms = run->o.latency ?: NATS_DEFAULT_LATENCY_MS;
	run->dec = trace_decoder__new(&run->s.set);
	run->sink = run->o.nats.nurls ? trace_sink_nats_new(&run->o.nats) :
		    run->o.naggs ? agg_sink(run, &so.clock) :
		    run->o.json ? trace_sink_json_new(&so) : trace_sink_text_new(&so);
	if (run->dec && run->sink && !open_stacks(run))
		err = trace_sink__begin(run->sink, trace_decoder__schema(run->dec));
	if (!err && run->o.events) {
		so.no_kstack = run->o.maps_kstack;
		so.no_ustack = run->o.maps_ustack;
		run->events = run->o.json ? trace_sink_json_new(&so) : trace_sink_text_new(&so);
		err = run->events ? trace_sink__begin(run->events, trace_decoder__schema(run->dec))
				  : -ENOMEM;
		run->pipe.also = run->events;
	}
	if (err) {
		/* the NATS and aggregate sinks say what went wrong themselves */
		if (err == -ENOMEM && (!run->dec || !run->sink || !run->o.nats.nurls))
			cli_say(run->o.prog, "out of memory\n");
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
 * capture, or overwrite rings as a flight recorder. Every record carries
 * the kernel's time stamp, taken as it is written: trace.bpf.c reads no
 * clock of its own, and the report orders by it. */
static int open_rings(struct run *run)
{
	bool flight = run->o.flight_pages;
	PERFBUF_OPTS(perfbuf_opts, po,
		     .page_cnt = flight ? run->o.flight_pages : run->o.pages,
		     .ordered = !run->o.unordered && !run->o.record,
		     .timestamps = true,
		     .overwrite = flight,
		     .span_fn = run->o.record && !flight ? on_span : NULL);

	return trace_session__open_rings(&run->s, &po, on_record, run);
}

/* --pages against the probes' largest record: said before anything loads */
static int check_pages(struct run *run)
{
	long pages = run->o.flight_pages ?: run->o.pages;
	size_t max_rec = run->s.max_rec, need = trace_pages_needed(max_rec);

	if ((size_t)pages >= need)
		return 0;
	if (!run->o.flight_pages && !run->o.sized) {
		/* the default budget makes room for the largest record */
		run->o.pages = (long)need;
		run->s.o.pages = (long)need;
		return 0;
	}
	if (run->o.flight_pages)
		cli_say(run->o.prog, "--flight-recorder of %ld pages per CPU is too small for these probes' largest record (%zu bytes); give %zu pages (%zu KiB) or more\n",
			pages, max_rec, need, need * sysconf(_SC_PAGESIZE) / 1024);
	else if (run->o.buffer_size)
		cli_say(run->o.prog, "--buffer-size %lluK gives rings of %ld KiB, too small for these probes' largest record (%zu bytes); give %lluK or more\n",
			run->o.buffer_size >> 10, pages * sysconf(_SC_PAGESIZE) / 1024, max_rec,
			(unsigned long long)need * (unsigned long long)sysconf(_SC_PAGESIZE) *
			(unsigned long long)perfbuf_cpus__possible(NULL, 0) >> 10);
	else
		cli_say(run->o.prog, "--pages %ld is too small for these probes' largest record (%zu bytes); use --pages %zu or more\n",
			pages, max_rec, need);
	return -EINVAL;
}

/* --metrics: the BPF side's failed writes, from the server's thread */
static int bpf_errors(void *ctx, int ncpu, __u64 (*out)[METRICS_REASONS])
{
	struct run *run = ctx;

	_Static_assert((int)METRICS_NO_SPACE == (int)LEDGER_FULL &&
		       (int)METRICS_NO_RING == (int)LEDGER_NO_READER &&
		       (int)METRICS_OTHER == (int)LEDGER_FAILED &&
		       (int)METRICS_REASONS == (int)LEDGER_REASONS, "one order of reasons");
	return ledger_cpu_reasons(run->mledger, ncpu, out);
}

/* --metrics: each probe's offered and lost, from the server's thread */
static int probe_counts(void *ctx, struct metrics_kind **out, size_t *n)
{
	struct run *run = ctx;
	struct ledger_view v;
	int err = ledger_view_read(&v, run->mledger, NULL, run->o.prog,
				   run->s.set.n, probe_spec_of, &run->s.set);

	if (err)
		return err;
	*out = calloc(v.nkinds ? v.nkinds : 1, sizeof(**out));
	for (size_t k = 0; *out && k < v.nkinds; k++) {
		(*out)[k] = (struct metrics_kind){ .name = (char *)v.kinds[k].name,
			.offered = v.kinds[k].offered, .lost = v.kinds[k].lost };
		v.kinds[k].name = NULL;	/* the caller's now */
	}
	*n = *out ? v.nkinds : 0;
	ledger_view_free(&v);
	return *out ? 0 : -ENOMEM;
}

/* --metrics: what there is to show, now that it exists; the ledger a
 * reader of the server's thread's own */
static void metrics_sources(struct run *run)
{
	struct metrics *m = &run->metrics;

	if (!m->srv)
		return;
	m->pb[m->npb++] = run->s.pb;
	run->mledger = perfbuf_ledger__new(trace_session__ledger_fd(&run->s), NULL);
	if (run->mledger) {
		m->bpf = bpf_errors;
		m->bpf_ctx = run;
		m->kinds = probe_counts;
		m->kinds_ctx = run;
		m->kind_label = "probe";
	} else {
		cli_say(run->o.prog, "--metrics: the BPF programs' ledger: %s; no per-probe series\n",
			strerror(errno));
	}
	m->sink = run->o.record ? "capture" : run->sink->ops->name;
	m->nats = run->o.nats.nurls;
	metrics_ready(m);
}

/* --metrics: the loop's counters, for the next scrape */
static void publish(struct run *run)
{
	struct metrics_counts c = {};
	struct trace_totals t;

	if (!run->metrics.srv)
		return;
	if (run->o.record) {
		/* every record the rings gave is in the capture */
		trace_totals(run->s.pb, &t);
		c.written = t.samples;
		c.sink_errors = capture_out_error(&run->cap) != 0;
	} else {
		trace_sink_metrics(run->sink, &c);
	}
	metrics_publish(&run->metrics, &c);
}

/* Before the load (a port in use costs nothing): --metrics served. */
static int start_metrics(struct run *run)
{
	return run->o.metrics ? metrics_start(&run->metrics, run->o.prog, run->o.metrics) : 0;
}

/* Before the load (a bad path costs nothing): the capture, or -o FILE. */
static int open_output(struct run *run)
{
	int err;

	if (run->o.record) {
		err = capture_out_open(&run->cap, run->o.prog, run->o.output);
		if (err)
			return out_file_cannot_write(run->o.prog, run->o.output, err);
	} else if (run->o.output) {
		err = out_file__open(&run->out, run->o.prog, run->o.output);
		if (err)
			return out_file_cannot_write(run->o.prog, run->o.output, err);
		run->fd = run->out.fd;
	}
	return 0;
}

/* Everything up to the first attach: probes, output, BPF, rings, sink. */
static int setup(struct run *run, int nprobes, char **probes)
{
	struct trace_session *s = &run->s;
	int err;

	err = trace_session__add_filters(s);
	if (err)
		return err;
	if (!run->o.output && cli_need_stdout(run->o.prog))
		return -EPERM;
	err = trace_session__prepare(s, nprobes, probes) ?: check_pages(run) ?:
	      trace_session__need_fds(s, run->o.metrics ? METRICS_FDS : 0) ?:
	      open_output(run) ?: start_metrics(run) ?:
	      trace_session__load(s) ?: open_rings(run);
	if (err)
		return err;
	if (run->o.record) {
		char opts[64];

		trace_read_format(&s->set.read, opts, sizeof(opts));
		err = record_begin(&run->cap, s->pb, &s->set,
				   run->o.flight_pages ?: run->o.pages,
				   run->o.flight_pages, opts);
	} else {
		err = open_sink(run);
	}
	if (!err)
		metrics_sources(run);
	return err;
}

/* Every probe attached: the run started, and its output is the file
 * (a kill leaves what it wrote there). A flight recorder's file is
 * replaced by its first snapshot. 0, or -errno said (F cannot be
 * written: the run ends before it reads). */
static int start_output(struct run *run)
{
	int err = run->o.flight_pages ? 0 :
		  run->o.record ? capture_out_publish(&run->cap, false) :
		  out_file__publish(&run->out, false);

	run->started = !err;
	return err;
}

/* A flight recorder's snapshot into the capture. */
static void snapshot(struct run *run)
{
	int err;

	capture_out_snapshot_begin(&run->cap);
	err = perfbuf__snapshot(run->s.pb);
	capture_out_snapshot_end(&run->cap);
	if (err < 0)
		cli_say(run->o.prog, "a snapshot failed: %s\n", strerror(-err));
	/* the file holds it now (the first one replaces the old file) */
	capture_out_publish(&run->cap, true);
}

/* After a poll: is the output gone, or -n reached (record: counted in
 * whole ring spans)? Flushes, takes a snapshot asked for, publishes the
 * counts for --metrics 10 times a second. */
static bool output_done(void *ctx)
{
	struct run *run = ctx;
	__u64 now = perfbuf_now_ns();
	struct trace_totals t;

	if (now >= run->next_pub) {
		publish(run);
		run->next_pub = now + 100000000ULL;
	}
	if (!run->o.record)
		return flush_sinks(run) != 0;
	if (snapshot_wanted) {
		snapshot_wanted = 0;
		snapshot(run);
	}
	if (broken(run))
		return true;
	if (!run->o.count)
		return false;
	trace_totals(run->s.pb, &t);
	return t.samples >= (__u64)run->o.count;
}

/* The closing summary: the engine's per-CPU counts, and ours. A failed
 * output (@werr) printed what reached it; the rest meant for it is not
 * written, and said why; discarded is past -n only. */
static int summary(struct run *run, int werr, const char *name)
{
	size_t n = perfbuf__ring_cnt(run->s.pb);
	struct tv_cpu_summary cpus[n ? n : 1];
	__u64 printed = werr && written(run) < run->to_write ?
			written(run) : run->to_write;
	char why[256];
	struct tv_summary sum = { .printed = printed,
				  .discarded = run->received - run->to_write,
				  .unwritten = run->to_write - printed,
				  .unwritten_why = werr ? why : NULL,
				  .output_failed = werr != 0 };

	out_file_write_failure(werr, name, why, sizeof(why));

	trace_session__summary(&run->s, &sum, cpus);
	return trace_sink__summary(run->sink, &sum);
}

/* record: the probes' ledger at the end (s->view, until the session is
 * freed), checked against the rings but for a flight recorder's, whose
 * reader sees only the newest; NULL when it cannot be read (said) */
static const struct ledger_view *record_ledger(struct run *run)
{
	struct trace_session *s = &run->s;

	ledger_view_free(&s->view);
	if (ledger_view_read(&s->view, s->ledger, run->o.flight_pages ? NULL : s->pb,
			     s->prog, s->set.n, probe_spec_of, &s->set))
		return NULL;
	return &s->view;
}

/* With the programs stopped: what is left in the rings, and the summary
 * (or the capture's end). 0 or -EIO. */
static int write_end(struct run *run, const char *name)
{
	int err, wr, sum_wr;

	if (run->o.flight_pages) {
		snapshot(run);
		return record_finish(&run->cap, run->s.pb, run->s.skel, record_ledger(run),
				     name);
	}
	err = perfbuf__drain(run->s.pb);
	if (run->o.record)
		return record_finish(&run->cap, run->s.pb, run->s.skel, record_ledger(run),
				     name);
	if (err < 0 && err != -EINTR)
		cli_say(run->o.prog, "draining the perf buffer failed: %s\n", strerror(-err));
	err = 0;
	/* a closed reader (EPIPE) is a normal end; anything else, such as
	 * a full disk, is an error with the count of events lost to it */
	wr = flush_sinks(run);
	if (wr && wr != -EPIPE) {
		__u64 lost = run->to_write - written(run);

		cli_say(run->o.prog, "writing %s failed: %s; %llu event%s not written\n", name, strerror(-wr), (unsigned long long)lost,
			lost == 1 ? "" : "s");
		err = -EIO;
	}
	sum_wr = summary(run, wr, name);
	/* JSON's summary, --aggregate's maps: in the output */
	if ((run->o.json || run->o.naggs) && !wr && sum_wr && sum_wr != -EPIPE) {
		cli_say(run->o.prog, "writing the summary to %s failed: %s\n", name, strerror(-sum_wr));
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
	int err, cerr;

	trace_session__stop(&run->s);
	err = write_end(run, name);
	cerr = out_file__commit(&run->out, false);	/* says its failure */
	if (cerr && !err)
		err = -EIO;
	publish(run);	/* the last scrape shows the summary's counts */
	trace_session__detach(&run->s, &exiting);
	return err;
}

static void cleanup(struct run *run)
{
	metrics_stop(&run->metrics);	/* it reads the rings and the maps */
	perfbuf_ledger__free(run->mledger);
	run->mledger = NULL;
	/* a run that never started (not every probe attached) leaves no
	 * capture and the old file as it was; one that failed after the
	 * start keeps what it wrote */
	if (run->started) {
		capture_out_close(&run->cap, "");
		out_file__commit(&run->out, false);
	} else {
		capture_out_discard(&run->cap);
		out_file__discard(&run->out);
	}
	trace_sink__end(run->events);
	trace_sink__end(run->sink);
	trace_decoder__free(run->dec);
	names_free(run->names);
	maps_free(run->maps);
	trace_session__free(&run->s);
	nats_opts_free(&run->o.nats);
	trace_opts_free(&run->o);
}

static int run_main(int argc, char **argv, const char *prog, bool record)
{
	static struct run run;	/* big: the record copy */
	struct sigaction sa = { .sa_handler = on_snapshot };
	struct trace_loop loop = { .exiting = &exiting, .stop = &run.stop,
				   .done = output_done, .ctx = &run };
	struct trace_session_opts so;
	int err;

	memset(&run, 0, sizeof(run));
	run.fd = 1;
	run.o.prog = prog;
	run.o.record = record;
	/* before the load (a second or more): a signal meanwhile, even to a
	 * background job (started with SIGINT ignored), ends the run after
	 * it, with the summary; one while attaching still detaches */
	cli_stop_on_signals(&exiting, false);
	signal(SIGPIPE, SIG_IGN);	/* a closed stdout is EPIPE: stop */
	err = trace_parse_options(argc, argv, &run.o);
	if (err) {
		trace_opts_free(&run.o);
		return err < 0 ? 1 : 0;
	}
	if (run.o.flight_pages)
		sigaction(SIGUSR1, &sa, NULL);
	/* -c: forked now, its PID the programs' -p filter, run after the attach */
	if (run.o.cmd && child_start(&run.child, prog, run.o.cmd)) {
		child_end(&run.child, prog, true);
		return 1;
	}
	run.o.filter.pid = run.o.cmd ? (__u32)run.child.pid : run.o.filter.pid;
	so = (struct trace_session_opts){
		.pages = run.o.pages, .latency = run.o.latency,
		.duration_ns = run.o.duration_ns, .stats = run.o.stats,
		.verbose = run.o.verbose, .filters = run.o.filters,
		.nfilters = run.o.nfilters, .members = run.o.members,
		.nmembers = run.o.nmembers, .filter = run.o.filter, .read = run.o.read,
	};
	trace_session__init(&run.s, prog, &so);
	err = setup(&run, argc - optind, argv + optind);
	if (err)
		goto out;
	/* after a signal: no attach, the end as usual (the summary) */
	if (!exiting)
		err = trace_session__attach(&run.s, consume_some, &run);
	/* the output first: one that cannot be written ends the run
	 * before the command starts */
	err = err ?: start_output(&run);
	if (!err && !exiting)
		child_release(&run.child);
	if (!err && run.o.realtime)	/* after the attach: long work, not real-time */
		record_realtime(prog, (int)run.o.realtime);
	err = err ?: trace_session__loop(&run.s, &loop);
	record_realtime_end((int)run.o.realtime);
	err = err ?: finish(&run);
out:
	cleanup(&run);
	child_end(&run.child, prog, true);
	return err ? 1 : 0;
}

int cmd_trace(int argc, char **argv)
{
	return run_main(argc, argv, "perfbuf trace", false);
}

int cmd_record(int argc, char **argv)
{
	return run_main(argc, argv, "perfbuf record", true);
}
