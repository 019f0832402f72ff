// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf run OBJECT.bpf.o: load one's own BPF object (libperfbuf's
 * perfbuf/object.h), find each map's record type (perfbuf/type.h), read
 * its PERF_EVENT_ARRAY maps through the collector and its RINGBUF maps
 * through libbpf's ring_buffer, and hand the typed records to trace's
 * sinks. perfbuf attach: the same for a map someone else loaded.
 * The end is trace's: stop reading, drain, summary, detach.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common/cli.h"
#include "common/commands.h"
#include "common/rings.h"
#include "metrics/metrics.h"
#include "nats/sink_nats.h"
#include "output/sink.h"
#include "trace/tool.h"		/* tracefs_ensure() */
#include "run/run.h"
#include "run/run_capture.h"

static volatile sig_atomic_t exiting;
static const char *prog_name = "perfbuf run";

struct run;
struct map_ctx {
	struct run *run;
	int idx;
};

struct run {
	struct run_opts o;
	struct perfbuf_object *obj;	/* run */
	int map_fd;			/* attach: the map opened */
	struct run_map maps[RUN_MAX_MAPS];
	struct map_ctx ctx[RUN_MAX_MAPS];
	struct perfbuf *pb[RUN_MAX_MAPS];	/* perf event arrays */
	struct run_slots *slots[RUN_MAX_MAPS];	/* are our rings still theirs */
	bool replaced;			/* another reader took our rings */
	struct ring_buffer *rb;		/* every RINGBUF map */
	int nmaps;
	int epfd;
	struct run_decoder *dec;
	struct trace_sink *sink;
	struct run_capture *cap;	/* --record: no sink */
	int fd;				/* the output: 1, or @out's */
	struct out_file out;		/* -o FILE (not --record's) */
	bool started;			/* attached, or reading a map: the
					 * output replaces the old file even
					 * if the run fails later */
	struct metrics metrics;		/* --metrics */
	struct perfbuf_ledger *ledger;	/* the programs' perfbuf_output() counts */
	struct ledger_view base;	/* attach: the counts before we read */
	struct ledger_view view;	/* the counts at the end (the summary's) */
	__u64 to_write;			/* events handed to the sink */
	bool stop;
	unsigned char buf[65536 + 8];	/* a wrapped record made whole */
};

/* libperfbuf's lines with our name ("perfbuf: x" -> "perfbuf run: x") */
static int print_lib(enum perfbuf_print_level level, const char *fmt, va_list ap)
{
	if (level == PERFBUF_DEBUG)
		return 0;
	if (!strncmp(fmt, "perfbuf: ", 9)) {
		cli_vsay(prog_name, fmt + 9, ap);
		return 0;
	}
	return vfprintf(stderr, fmt, ap);
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

/* An event to the sink, within -n; true to go on */
static bool deliver(struct run *run, const struct tv_event *e)
{
	if (run->stop || !e)
		return !run->stop;
	if (run->sink->err) {
		run->stop = true;
		return false;
	}
	trace_sink__event(run->sink, e);
	run->to_write++;
	if (run->o.count && run->to_write >= (__u64)run->o.count)
		run->stop = true;
	return !run->stop;
}

/* --record: the record's bytes into the capture, within -n */
static bool capture(struct run *run, int idx, int cpu, __u64 time_ns, __u32 flags,
		    const void *data, size_t sz)
{
	int err;

	run->maps[idx].received++;
	err = run_capture__record(run->cap, idx, cpu, time_ns, flags, data, sz);
	if (err) {
		cli_say(run->o.prog, "--record: %s\n", err == -E2BIG ?
			"a record larger than a capture's frame (256 KiB); the capture ends before it" :
			strerror(-err));
		run->stop = true;
		return false;
	}
	run->to_write++;
	if (run->o.count && run->to_write >= (__u64)run->o.count)
		run->stop = true;
	return !run->stop;
}

static int on_perf(void *ctx, const struct perfbuf_record *rec)
{
	struct map_ctx *c = ctx;
	struct run *run = c->run;
	size_t sz;

	switch (rec->kind) {
	case PERFBUF_REC_SAMPLE:
		if (run->stop) {	/* past -n: counted, not decoded */
			run->maps[c->idx].received++;
			return PERFBUF_STOP;
		}
		sz = perfbuf_record__copy(rec, run->buf, sizeof(run->buf));
		if (run->cap)
			return capture(run, c->idx, rec->cpu, rec->time_ns, rec->flags,
				       run->buf, sz)
			       ? PERFBUF_CONTINUE : PERFBUF_STOP;
		return deliver(run, run_decoder__decode(run->dec, c->idx, run->buf, sz,
							rec->cpu, rec->time_ns,
							rec->flags & PERFBUF_RECF_LATE))
		       ? PERFBUF_CONTINUE : PERFBUF_STOP;
	case PERFBUF_REC_LOST: {
		struct tv_lost l = { .time_ns = rec->time_ns, .cpu = rec->cpu,
				     .count = rec->lost };

		if (run->cap)
			run_capture__lost(run->cap, rec->cpu, rec->time_ns, rec->lost);
		else
			trace_sink__lost(run->sink, &l);
		return 0;
	}
	case PERFBUF_REC_CPU_ONLINE:
	case PERFBUF_REC_CPU_OFFLINE: {
		struct tv_notice n = { .time_ns = rec->time_ns, .cpu = rec->cpu,
			.kind = rec->kind == PERFBUF_REC_CPU_ONLINE ? TV_CPU_ONLINE
								    : TV_CPU_OFFLINE };

		if (rec->kind == PERFBUF_REC_CPU_ONLINE)
			run_slots__online(run->slots[c->idx], rec->cpu, perfbuf_now_ns());
		if (!run->cap)
			trace_sink__notice(run->sink, &n);
		return 0;
	}
	default:
		return 0;
	}
}

/* A ringbuf record: no CPU, no kernel time (now instead); decoded where
 * it is (a ring buffer's record is contiguous, and may be far past a perf
 * record's 64 KiB); a non-zero return ends ring_buffer__consume() */
static int on_ringbuf(void *ctx, void *data, size_t size)
{
	struct map_ctx *c = ctx;
	struct run *run = c->run;

	if (run->stop) {
		run->maps[c->idx].received++;
		return 1;
	}
	if (run->cap)
		return capture(run, c->idx, -1, perfbuf_now_ns(), 0, data, size) ? 0 : 1;
	return deliver(run, run_decoder__decode(run->dec, c->idx, data, size, -1,
						perfbuf_now_ns(), false)) ? 0 : 1;
}

/* A map to read: the collector or the ring buffer, in our epoll */
static int open_reader(struct run *run, int i)
{
	struct run_map *m = &run->maps[i];
	struct epoll_event ev = { .events = EPOLLIN };
	PERFBUF_OPTS(perfbuf_opts, po, .page_cnt = run->o.pages,
		     .latency_ms = run->o.latency, .ordered = !run->o.unordered,
		     .timestamps = true);
	int err;

	run->ctx[i] = (struct map_ctx){ .run = run, .idx = i };
	if (m->ringbuf) {
		if (run->rb)
			err = ring_buffer__add(run->rb, m->fd, on_ringbuf, &run->ctx[i]);
		else
			err = (run->rb = ring_buffer__new(m->fd, on_ringbuf, &run->ctx[i], NULL))
			      ? 0 : -errno;
		if (err) {
			cli_say(run->o.prog, "reading ring buffer map '%s' failed: %s\n",
				m->name, cli_strerror(err));
			return err;
		}
		ev.data.u32 = RUN_MAX_MAPS;	/* once for all: EEXIST after */
		epoll_ctl(run->epfd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(run->rb), &ev);
		return 0;
	}
	run->pb[i] = cli_perfbuf_new(run->o.prog, m->fd, on_perf, &run->ctx[i], &po, "--buffer-size");
	if (!run->pb[i])
		return -errno;
	ev.data.u32 = i;
	return epoll_ctl(run->epfd, EPOLL_CTL_ADD, perfbuf__epoll_fd(run->pb[i]), &ev)
	       ? -errno : 0;
}

/* Map @name (@fd) of @type to read, its record type found: the object's
 * file (run), the kernel's BTF (attach), a header; else hex (said) */
static int add_map(struct run *run, const char *name, int fd, bool ringbuf)
{
	struct run_map *m = &run->maps[run->nmaps];
	const char *type = run_type_for(&run->o, name);

	if (run->nmaps == RUN_MAX_MAPS) {
		cli_say(run->o.prog, "more than %d maps to read; only the first are read\n",
			RUN_MAX_MAPS);
		return 0;
	}
	*m = (struct run_map){ .name = strdup(name), .fd = fd, .ringbuf = ringbuf };
	if (!m->name)
		return -ENOMEM;
	run->nmaps++;
	/* --header is for the maps --type names; the others' types are found
	 * as without it. Nothing given: none found is no error (the library
	 * says so at debug level only), hex is said below */
	if (run->o.header && type)
		m->type = run_header_type(run->o.prog, run->o.header, type, &run->o.incs);
	else if (run->obj)
		m->type = perfbuf_object__type(run->obj, name, type);
	else
		m->type = perfbuf_type__from_map_fd(fd, type);
	if (!m->type && (type || (errno != ENOENT && errno != EPERM)))
		return -errno ?: -ENOENT;	/* said */
	if (!m->type && errno == EPERM)	/* attach: the kernel's BTF by id */
		cli_say(run->o.prog, "map %s: its programs' BTF cannot be read without CAP_SYS_ADMIN; its records print as hex (run it as root, or give --header FILE.h --type TYPE)\n",
			name);
	else if (!m->type)
		cli_say(run->o.prog, "map %s: no record type found; its records print as hex (give --type)\n",
			name);
	if (ringbuf)
		cli_say(run->o.prog, "map %s is a ring buffer: its losses are counted only where the program counts them\n",
			name);
	return run_map_columns(m);
}

/* --type MAP:NAME: MAP is one of the object's maps read (of its first @n) */
static int check_type_maps(struct run *run, int n)
{
	const char *names[RUN_MAX_MAPS];
	int k = 0;

	for (int i = 0; i < n && k < RUN_MAX_MAPS; i++) {
		int type = perfbuf_object__map_type(run->obj, i);

		if (type == BPF_MAP_TYPE_PERF_EVENT_ARRAY || type == BPF_MAP_TYPE_RINGBUF)
			names[k++] = perfbuf_object__map_name(run->obj, i);
	}
	return run_check_type_maps(&run->o, names, k);
}

/* run: the object opened, --set, loaded, its maps found */
static int open_object(struct run *run)
{
	int err, n;

	run->obj = perfbuf_object__open(run->o.object);
	if (!run->obj)
		return -errno;
	for (int i = 0; i < run->o.nsets; i++) {
		err = perfbuf_object__set(run->obj, run->o.sets[i]);
		if (err)
			return err;
	}
	err = run_choose_programs(&run->o, perfbuf_object__bpf(run->obj));
	if (err)
		return err;
	n = perfbuf_object__map_cnt(run->obj);
	for (int i = 0; i < n; i++) {
		int type = perfbuf_object__map_type(run->obj, i);

		if (type == BPF_MAP_TYPE_PERF_EVENT_ARRAY || type == BPF_MAP_TYPE_RINGBUF)
			break;
		if (i == n - 1)
			n = -1;
	}
	if (n <= 0) {
		cli_say(run->o.prog, "'%s' has no BPF_MAP_TYPE_PERF_EVENT_ARRAY or BPF_MAP_TYPE_RINGBUF map to read\n",
			run->o.object);
		return -ENOENT;
	}
	err = check_type_maps(run, n) ?: perfbuf_object__load(run->obj) ?:
	      run_ledger_open(run->o.prog, run->obj, &run->ledger);
	for (int i = 0; !err && i < n; i++) {
		int type = perfbuf_object__map_type(run->obj, i);
		const char *name = perfbuf_object__map_name(run->obj, i);

		if (type == BPF_MAP_TYPE_PERF_EVENT_ARRAY || type == BPF_MAP_TYPE_RINGBUF)
			err = add_map(run, name, perfbuf_object__map_fd(run->obj, name),
				      type == BPF_MAP_TYPE_RINGBUF);
	}
	return err;
}

/* attach: the map, by id, pinned path or name (find_map.c) */
static int open_map(struct run *run)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	const char *name;
	int fd = run_find_map(&run->o), err;

	if (fd < 0)
		return fd;
	run->map_fd = fd;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_PERF_EVENT_ARRAY && info.type != BPF_MAP_TYPE_RINGBUF) {
		cli_say(run->o.prog, "map %s (id %u) is neither a PERF_EVENT_ARRAY nor a RINGBUF\n",
			info.name, info.id);
		return -EINVAL;
	}
	/* a ring buffer has one queue: two readers split its records */
	if (info.type == BPF_MAP_TYPE_RINGBUF && !run->o.force) {
		cli_say(run->o.prog, "map %s (id %u) is a ring buffer: beside its own reader each record goes to one of the two, and both see gaps; give --force to read it anyway\n",
			info.name, info.id);
		return -EBUSY;
	}
	name = info.name;
	err = run_check_type_maps(&run->o, &name, 1) ?:
	      add_map(run, info.name, fd, info.type == BPF_MAP_TYPE_RINGBUF);
	if (err)	/* a bad --type ends the run before the map is taken */
		return err;
	/* its programs' ledger, from now on (the counts before are theirs) */
	run->ledger = run_ledger_of_map(fd);
	if (run->ledger && run_ledger_view(run->o.prog, run->ledger, NULL, &run->base)) {
		perfbuf_ledger__free(run->ledger);
		run->ledger = NULL;
	}
	if (info.type == BPF_MAP_TYPE_PERF_EVENT_ARRAY)
		cli_say(run->o.prog, "map %s (id %u): its rings are replaced by ours; its previous reader gets nothing more until it sets them again\n",
			info.name, info.id);
	else
		cli_say(run->o.prog, "map %s (id %u) is a ring buffer read beside its own reader (--force): each record goes to one of the two\n",
			info.name, info.id);
	return 0;
}

/* --aggregate: the maps' sink; losses are the LOST records it gets (a
 * program's own records are not told apart by map) */
static struct trace_sink *agg_sink(struct run *run, const struct trace_clock *clock)
{
	struct agg_sink_opts ao = {
		.prog = run->o.prog, .fd = run->fd, .json = run->o.json, .clock = *clock,
		.specs = run->o.aggs, .nspecs = run->o.naggs,
		.max_keys = (size_t)run->o.agg_keys, .interval_ms = run->o.interval * 1000,
		.own_records = true,
	};

	return trace_sink_agg_new(&ao);
}

/* The decoder and the sink (text columns, JSON Lines, NATS or the maps of
 * --aggregate), or the capture */
static int open_sink(struct run *run)
{
	int err;

	if (run->o.record) {
		err = run_capture__check(run->o.prog, run->maps, run->nmaps);
		if (err)
			return err;
		run->cap = run_capture__open(run->o.prog, run->o.output, run->maps, run->nmaps, &err);
		return run->cap ? 0 : out_file_cannot_write(run->o.prog, run->o.output, err);
	}
	struct trace_sink_opts so = { .fd = run->fd,
				      .max_cols = out_file_is_regular(run->fd) ? 0 : run->o.width };

	trace_clock_init(&so.clock, run->o.time);
	run->o.nats.clock = so.clock;
	run->o.nats.latency_ms = run->o.latency ?: NATS_DEFAULT_LATENCY_MS;
	run->dec = run_decoder__new(run->o.prog, run->maps, run->nmaps);
	run->sink = run->o.nats.nurls ? trace_sink_nats_new(&run->o.nats) :
		    run->o.naggs ? agg_sink(run, &so.clock) :
		    run->o.json ? trace_sink_json_new(&so) : trace_sink_text_new(&so);
	if (!run->dec || !run->sink) {
		cli_say(run->o.prog, "out of memory\n");
		return -ENOMEM;
	}
	/* the NATS sink says itself what went wrong (no server, a bad
	 * stream), the maps' a name no map's records have (-EINVAL) */
	err = trace_sink__begin(run->sink, run_decoder__schema(run->dec));
	if (err && !run->o.nats.nurls && err != -EINVAL)
		cli_say(run->o.prog, "out of memory\n");
	return err;
}

/* --metrics: every perf map's collector (a ring buffer has no CPUs),
 * the output; no BPF-side counts (the program is the user's) */
static void metrics_sources(struct run *run)
{
	struct metrics *m = &run->metrics;

	if (!m->srv)
		return;
	for (int i = 0; i < run->nmaps && m->npb < METRICS_MAX_PB; i++)
		if (run->pb[i])
			m->pb[m->npb++] = run->pb[i];
	m->sink = run->cap ? "capture" : run->sink->ops->name;
	m->nats = run->o.nats.nurls;
	metrics_ready(m);
}

static int setup(struct run *run)
{
	int err;

	/* run attaches tracepoints through tracefs (tracefs_ensure()) */
	if ((!run->o.output && cli_need_stdout(run->o.prog)) ||
	    cli_need_privileges(run->o.prog, CLI_BPF | (run->o.attach ? 0 : CLI_TRACEFS)))
		return -EPERM;
	if (cli_need_fds(run->o.prog, run->o.metrics ? METRICS_FDS : 0))
		return -EMFILE;
	perfbuf_set_print(print_lib);
	libbpf_set_print(run->o.verbose ? print_libbpf : NULL);
	if (!run->o.attach && tracefs_ensure(run->o.prog))
		return -ENOENT;
	/* before the load: a port in use costs nothing */
	if (run->o.metrics && metrics_start(&run->metrics, run->o.prog, run->o.metrics))
		return -EADDRINUSE;
	if (run->o.output && !run->o.record) {
		err = out_file__open(&run->out, run->o.prog, run->o.output);
		if (err)
			return out_file_cannot_write(run->o.prog, run->o.output, err);
		run->fd = run->out.fd;
	}
	err = run->o.attach ? open_map(run) : open_object(run);
	if (err)
		return err;
	run->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (run->epfd < 0)
		return -errno;
	for (int i = 0; i < run->nmaps; i++) {
		err = open_reader(run, i);
		if (err)
			return err;
	}
	for (int i = 0; i < run->nmaps; i++)
		if (run->pb[i])
			run->slots[i] = run_slots__new(run->maps[i].fd, run->pb[i], perfbuf_now_ns());
	err = open_sink(run);
	if (!err)
		metrics_sources(run);
	return err;
}

/* Every reader once, without waiting */
static int consume(struct run *run)
{
	for (int i = 0; i < run->nmaps && !run->stop; i++) {
		int err = run->pb[i] ? perfbuf__poll(run->pb[i], 0) : 0;

		if (err < 0 && err != -EINTR)
			return err;
	}
	if (run->rb && !run->stop)
		ring_buffer__consume(run->rb);
	return 0;
}

/* --metrics: the loop's counters, for the next scrape */
static void publish(struct run *run)
{
	struct metrics_counts c = {};

	if (!run->metrics.srv)
		return;
	if (run->cap) {
		c.written = run_capture__records(run->cap);
		c.sink_errors = run_capture__flush(run->cap) != 0;
	} else {
		trace_sink_metrics(run->sink, &c);
	}
	metrics_publish(&run->metrics, &c);
}

/* Each perf map's slots: still our rings? When another reader took
 * them, nothing more reaches us: said, with since when, and the run ends */
static void check_slots(struct run *run)
{
	for (int i = 0; i < run->nmaps && !run->replaced; i++) {
		struct run_slots_taken t;
		char since[64] = "";
		int k;

		k = run_slots__check(run->slots[i], run->pb[i], perfbuf_now_ns(), &t);
		if (!k)
			continue;
		if (t.since_ns)
			snprintf(since, sizeof(since), " %.1f s ago", t.since_ns / 1e9);
		cli_say(run->o.prog, "map %s: our ring%s of CPU%s %s %s no longer in the map, %s by another reader (bpftool map event_pipe, perfbuf attach)%s; what the programs wrote on %s since went to that reader, not to this run, which ends\n",
			run->maps[i].name, k == 1 ? "" : "s", k == 1 ? "" : "s",
			t.list, k == 1 ? "is" : "are", t.since_ns ? "replaced" : "emptied",
			since, k == 1 ? "it" : "them");
		run->replaced = true;
	}
}

/* Until Ctrl-C, -d, -n or a failed output */
static int run_loop(struct run *run)
{
	__u64 deadline = run->o.duration_ns ?
			 perfbuf_now_ns() + run->o.duration_ns : 0;
	int wait_ms = run->o.latency ? run->o.latency : 10;
	__u64 next_pub = 0, next_check = perfbuf_now_ns() + 1000000000ULL;

	while (!exiting && !run->stop) {
		struct epoll_event evs[RUN_MAX_MAPS + 1];
		int err;

		if (epoll_wait(run->epfd, evs, RUN_MAX_MAPS + 1, wait_ms) < 0 && errno != EINTR)
			return -errno;
		err = consume(run);
		if (err) {
			cli_say(run->o.prog, "reading the records failed: %s\n", strerror(-err));
			return err;
		}
		if (run->cap ? run_capture__flush(run->cap) != 0 : trace_sink__flush(run->sink) != 0)
			break;
		if (deadline && perfbuf_now_ns() >= deadline)
			break;
		if (perfbuf_now_ns() >= next_pub) {
			publish(run);
			next_pub = perfbuf_now_ns() + 100000000ULL;	/* 10 a second */
		}
		if (perfbuf_now_ns() >= next_check) {
			check_slots(run);
			next_check = perfbuf_now_ns() + 1000000000ULL;	/* once a second */
			if (run->replaced)
				break;
		}
	}
	return 0;
}

/* attach: the counts since the start, kind by kind (matched by name) */
static void ledger_since(struct ledger_view *v, const struct ledger_view *base)
{
	v->no_reader = v->failed = 0;
	for (size_t i = 0; i < v->nkinds; i++) {
		struct tv_kind_summary *k = &v->kinds[i];

		for (size_t j = 0; j < base->nkinds; j++)
			if (!strcmp(base->kinds[j].name, k->name)) {
				k->offered -= base->kinds[j].offered;
				k->received -= base->kinds[j].received;
				k->lost -= base->kinds[j].lost;
				k->no_reader -= base->kinds[j].no_reader;
				k->failed -= base->kinds[j].failed;
				break;
			}
		v->no_reader += k->no_reader;
		v->failed += k->failed;
	}
}

/* The programs' ledger at the end, or NULL (none kept, or unreadable:
 * said). Checked against the collector when it is the one map the
 * programs write to, the run loaded them (attach's began before us) and
 * drained the rings (past -n, records are left in them). */
static const struct ledger_view *read_ledger(struct run *run)
{
	const struct perfbuf *pb = NULL;
	int perf = 0;

	if (!run->ledger)
		return NULL;
	for (int i = 0; i < run->nmaps; i++)
		if (run->pb[i] && !perf++)
			pb = run->pb[i];
	ledger_view_free(&run->view);
	if (run_ledger_view(run->o.prog, run->ledger, perf == 1 && run->obj && !run->stop ? pb : NULL,
			    &run->view))
		return NULL;
	if (run->o.attach)
		ledger_since(&run->view, &run->base);
	return &run->view;
}

/* The summary: per CPU from the collectors (every perf map's counts on
 * a CPU added up); ring buffers in the totals only (no CPU) */
static int summary(struct run *run, bool output_failed)
{
	struct tv_summary sum = { .printed = run->to_write,
				  .output_failed = output_failed };
	struct tv_cpu_summary *cpus;
	size_t slots = 0;
	int err;

	for (int i = 0; i < run->nmaps; i++)
		slots += run->pb[i] ? perfbuf__ring_cnt(run->pb[i]) : 0;
	/* a row per CPU: at most one per ring slot, however many */
	cpus = calloc(slots ? slots : 1, sizeof(*cpus));
	if (!cpus)
		return -ENOMEM;
	for (int i = 0; i < run->nmaps; i++) {
		sum.received += run->maps[i].received;
		for (size_t r = 0; run->pb[i] && r < perfbuf__ring_cnt(run->pb[i]); r++) {
			struct perfbuf_cpu_stats st = { .sz = sizeof(st) };
			size_t k = 0;

			perfbuf__stats(run->pb[i], r, &st);
			while (k < sum.ncpus && cpus[k].cpu != st.cpu)
				k++;
			if (k == sum.ncpus)
				cpus[sum.ncpus++] = (struct tv_cpu_summary){ .cpu = st.cpu };
			cpus[k].received += st.samples;
			cpus[k].lost += st.lost_total;
			sum.lost += st.lost_total;
		}
		rings_mapped(run->pb[i], &sum.ring_bytes, &sum.rings);
	}
	for (int i = 0; i < run->nmaps; i++)
		sum.undecoded += run->maps[i].wrong_size;
	sum.cpus = cpus;
	sum.discarded = sum.received - sum.printed - sum.undecoded;
	if (read_ledger(run))
		ledger_view_summary(&run->view, &sum, "kind");
	err = trace_sink__summary(run->sink, &sum);
	free(cpus);
	return err;
}

/* --record's end: the END frame ("events=N lost=M"), the file closed */
static int finish_capture(struct run *run)
{
	char end[128];
	__u64 lost = 0;
	int err;

	for (int i = 0; i < run->nmaps; i++)
		for (size_t r = 0; run->pb[i] && r < perfbuf__ring_cnt(run->pb[i]); r++) {
			struct perfbuf_cpu_stats st = { .sz = sizeof(st) };

			if (!perfbuf__stats(run->pb[i], r, &st))
				lost += st.lost_total;
		}
	snprintf(end, sizeof(end), "events=%llu\nlost=%llu\n",
		 (unsigned long long)run_capture__records(run->cap), (unsigned long long)lost);
	if (read_ledger(run))
		run_capture__ledger(run->cap, &run->view);
	err = run_capture__close(run->cap, end);
	run->cap = NULL;
	if (err)
		cli_say(run->o.prog, "writing %s failed: %s\n", run->o.output,
			strerror(-err));
	else
		cli_say(run->o.prog, "%llu events, %llu lost, into %s (perfbuf report %s)\n",
			(unsigned long long)run->to_write,
			(unsigned long long)lost, run->o.output, run->o.output);
	return err ? -EIO : 0;
}

/* Stop reading, drain what is left, the summary and the counts of
 * wrong-size records; then (cleanup) detach. 0 or -EIO. */
static int finish(struct run *run)
{
	const char *name = run->o.nats.nurls ? "to NATS" :
			   run->o.output ? run->o.output : "stdout";
	int wr, err = 0;

	/* run: the programs stop writing (detached, and those mid-record
	 * waited for), then the drain sees every record they wrote */
	if (run->obj && !perfbuf_object__detach(run->obj))
		for (int i = 0; i < run->nmaps; i++)
			if (run->pb[i]) {
				perfbuf__quiesce(run->pb[i]);
				break;
			}
	for (int i = 0; i < run->nmaps && !run->stop; i++)
		if (run->pb[i])
			perfbuf__drain(run->pb[i]);
	if (run->rb && !run->stop)
		ring_buffer__consume(run->rb);
	publish(run);	/* a scrape now shows the summary's counts */
	if (run->cap)
		return finish_capture(run);
	wr = trace_sink__flush(run->sink);
	if (wr && wr != -EPIPE) {
		cli_say(run->o.prog, "writing %s failed: %s; %llu event%s not written\n",
			name, strerror(-wr),
			(unsigned long long)(run->to_write - run->sink->written),
			run->to_write - run->sink->written == 1 ? "" : "s");
		err = -EIO;
	}
	summary(run, wr != 0);
	wr = out_file__commit(&run->out, false);	/* says its failure */
	if (wr && !err)
		err = -EIO;
	publish(run);
	for (int i = 0; i < run->nmaps; i++)
		if (run->maps[i].wrong_size)
			cli_say(run->o.prog, "map %s: %llu record%s of the wrong size for struct %s (%zu bytes), not decoded\n",
				run->maps[i].name,
				(unsigned long long)run->maps[i].wrong_size,
				run->maps[i].wrong_size == 1 ? "" : "s",
				perfbuf_type__name(run->maps[i].type),
				perfbuf_type__size(run->maps[i].type));
	return err;
}

static void cleanup(struct run *run)
{
	metrics_stop(&run->metrics);	/* it reads the collectors */
	/* a run that failed before it started leaves the file that was
	 * there; one that failed later keeps what it wrote */
	if (run->started) {
		run_capture__close(run->cap, NULL);
		out_file__commit(&run->out, false);
	} else {
		run_capture__discard(run->cap);
		out_file__discard(&run->out);
	}
	trace_sink__end(run->sink);
	run_decoder__free(run->dec);
	for (int i = 0; i < run->nmaps; i++) {
		perfbuf__free(run->pb[i]);
		run_slots__free(run->slots[i]);
		run_map_free(&run->maps[i]);
	}
	ring_buffer__free(run->rb);
	ledger_view_free(&run->base);
	ledger_view_free(&run->view);
	perfbuf_ledger__free(run->ledger);
	perfbuf_object__free(run->obj);	/* detaches */
	if (run->map_fd > 0)
		close(run->map_fd);
	if (run->epfd > 0)
		close(run->epfd);
	nats_opts_free(&run->o.nats);
	for (int i = 0; i < run->o.naggs; i++)
		agg_spec_free(&run->o.aggs[i]);
}

/* run: "Attached N programs." (what the tests wait for) */
static int attach_all(struct run *run)
{
	int n = perfbuf_object__attach(run->obj);

	if (n < 0) {
		cli_say(run->o.prog, "no program of '%s' could be attached (see above)\n",
			run->o.object);
		return n;
	}
	fprintf(stderr, "Attached %d program%s, reading %d map%s. Hit Ctrl-C to end.\n", n,
		n == 1 ? "" : "s", run->nmaps, run->nmaps == 1 ? "" : "s");
	return 0;
}

static int run_main(int argc, char **argv, bool attach)
{
	static struct run run;	/* big: the record copy */
	int err;

	memset(&run, 0, sizeof(run));
	run.fd = 1;
	run.o.prog = prog_name = attach ? "perfbuf attach" : "perfbuf run";
	run.o.attach = attach;
	err = run_parse_options(argc, argv, &run.o);
	if (err)
		return err < 0 ? 1 : 0;
	err = setup(&run);
	if (err)
		goto out;
	cli_stop_on_signals(&exiting, false);
	signal(SIGPIPE, SIG_IGN);
	if (attach)
		fprintf(stderr, "Reading map %s. Hit Ctrl-C to end.\n", run.maps[0].name);
	else
		err = attach_all(&run);
	/* started: the output is the file now (a kill leaves it there) */
	if (!err)
		err = run.cap ? run_capture__publish(run.cap) : out_file__publish(&run.out, false);
	run.started = !err;
	if (!err)
		err = run_loop(&run) ?: finish(&run);
out:
	cleanup(&run);
	return err || run.replaced ? 1 : 0;
}

int cmd_run(int argc, char **argv)
{
	return run_main(argc, argv, false);
}

int cmd_attach(int argc, char **argv)
{
	return run_main(argc, argv, true);
}
