// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf-bench: the same BPF producer against perfbuf and libbpf's
 * consumers, side by side in one run.
 *
 * Producer: bpf/emit.bpf.c, program emit (perf buffer) or emit_rb (BPF
 * ringbuf), run with BPF_PROG_TEST_RUN by a thread pinned to CPU0, BATCH
 * 64-byte records per run, each carrying its bpf_ktime_get_ns() emit time.
 * Consumer: a thread pinned to CPU1. Peers:
 *   perfbuf default         1024 pages, watermark 1/4 ring, latency 10 ms
 *   perfbuf wakeup/record   wakeup_events = 1
 *   libbpf perf_buffer      perf_buffer__new() defaults (wake per record)
 *   libbpf raw, watermark   perf_buffer__new_raw(), the same 1 MiB watermark
 *   libbpf ring_buffer      a BPF ringbuf of the same total size
 * Measured: delivered records/s, loss, consumer CPU ns per record
 * (CLOCK_THREAD_CPUTIME_ID), emit->receive latency at 1 k/s and flat out;
 * a sweep of offered rates (plotted with gnuplot); the time to drain a full
 * ring; and `perfbuf trace` against bpftrace on a syscall storm.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "perfbuf.h"
#include "emit.h"
#include "emit.skel.h"
#include "producer.h"
#include "commands.h"

#define PAGE_SZ 4096
#define REC_SIZE 64
#define REC_BYTES 80
#define FLAT_OUT_X 30.0		/* where the plot puts flat-out points (M/s) */		/* perf record: 8 header + 4 size + 64, 8-aligned */

enum peer { PB_DEFAULT, PB_WAKE1, LB_DEFAULT, LB_RAW, LB_RINGBUF, N_PEERS };

static const char *peer_name[N_PEERS] = {
	"perfbuf default",
	"perfbuf wakeup_events=1",
	"libbpf perf_buffer default",
	"libbpf perf_buffer_raw, same watermark",
	"libbpf ring_buffer",
};

static const char *peer_key[N_PEERS] = {
	"perfbuf", "perfbuf_wake1", "libbpf_pb", "libbpf_raw", "libbpf_rb",
};

static struct {
	size_t pages;
	double secs;
	int prod_cpu, cons_cpu;
	int batch;
	const char *out;
	bool quick;
	bool no_sweep;
	bool no_trace;
	const char *only;	/* one part: "drain" or "trace" */
	char self[PATH_MAX];
} env = {
	.pages = 1024,
	.secs = 3,
	.prod_cpu = 0,
	.cons_cpu = 1,
	.batch = 256,
	.out = "build/bench",
};

struct consumer {
	enum peer peer;
	struct perfbuf *pb;
	struct perf_buffer *lpb;
	struct ring_buffer *rb;
	int stop;
	__u64 received;
	__u64 lost_seen;	/* as reported to the consumer */
	__u64 lat_mask;		/* take the latency of seq & mask == 0 */
	__u64 seq_sum;		/* keeps the record read from being elided */
	struct lat_hist lat;
	__u64 cpu_ns;
	int err;
	pthread_t thread;
};

struct result {
	double secs;
	__u64 offered, received, enospc, failed;
	double cpu_ns_per_rec;
	__u64 p50, p99;
	int err;
};

/* The work every peer does per record: count it, read its header, and
 * now and then its latency. */
static inline void seen(struct consumer *c, const void *data)
{
	__u64 hdr[2];	/* seq, time_ns: raw payloads are 4-byte aligned */

	memcpy(hdr, data, sizeof(hdr));
	c->received++;
	c->seq_sum += hdr[0];
	if (!(hdr[0] & c->lat_mask))
		lat_add(&c->lat, mono_ns() - hdr[1]);
}

static int pb_cb(void *ctx, const struct perfbuf_record *rec)
{
	struct consumer *c = ctx;
	struct emit_rec r;

	if (rec->kind == PERFBUF_REC_LOST) {
		c->lost_seen += rec->lost;
		return 0;
	}
	if (rec->data_sz >= 16) {
		seen(c, rec->data);
	} else {
		perfbuf_record_copy(rec, &r, sizeof(r));
		seen(c, &r);
	}
	return 0;
}

static void lb_sample(void *ctx, int cpu, void *data, __u32 size)
{
	(void)cpu; (void)size;
	seen(ctx, data);
}

static void lb_lost(void *ctx, int cpu, __u64 cnt)
{
	(void)cpu;
	((struct consumer *)ctx)->lost_seen += cnt;
}

static enum bpf_perf_event_ret lb_raw_event(void *ctx, int cpu,
					    struct perf_event_header *eh)
{
	struct consumer *c = ctx;

	(void)cpu;
	if (eh->type == PERF_RECORD_SAMPLE)
		seen(c, (char *)eh + 12);	/* header, u32 size, data */
	else if (eh->type == PERF_RECORD_LOST)
		c->lost_seen += ((__u64 *)(eh + 1))[1];	/* id, lost */
	return LIBBPF_PERF_EVENT_CONT;
}

static int rb_sample(void *ctx, void *data, size_t size)
{
	(void)size;
	seen(ctx, data);
	return 0;
}

static int consume_all(struct consumer *c)
{
	switch (c->peer) {
	case PB_DEFAULT:
	case PB_WAKE1:
		return perfbuf__drain(c->pb);
	case LB_DEFAULT:
	case LB_RAW:
		return perf_buffer__consume(c->lpb);
	default:
		return ring_buffer__consume(c->rb);
	}
}

static int poll_once(struct consumer *c)
{
	switch (c->peer) {
	case PB_DEFAULT:
	case PB_WAKE1:
		return perfbuf__poll(c->pb, 100);
	case LB_DEFAULT:
	case LB_RAW:
		return perf_buffer__poll(c->lpb, 100);
	default:
		return ring_buffer__poll(c->rb, 100);
	}
}

static void *consumer_main(void *arg)
{
	struct consumer *c = arg;
	__u64 t0;
	int err;

	pin_self(env.cons_cpu);
	t0 = thread_cpu_ns();
	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		err = poll_once(c);
		if (err < 0 && err != -EINTR) {
			c->err = err;
			break;
		}
	}
	err = consume_all(c);
	if (err < 0 && !c->err)
		c->err = err;
	c->cpu_ns = thread_cpu_ns() - t0;
	return NULL;
}

static int perf_attr_wm(struct perf_event_attr *attr, __u32 watermark)
{
	PERFBUF_OPTS(perfbuf_event_opts, eo, .kind = PERFBUF_EV_SOFTWARE,
		     .config = PERF_COUNT_SW_BPF_OUTPUT, .sample_period = 1,
		     .sample_type = PERF_SAMPLE_RAW,
		     .wakeup_watermark = watermark);

	return perfbuf_event_attr(attr, &eo);
}

/* Set up @c's consumer on @map_fd; the BPF program is already loaded. */
static int consumer_open(struct consumer *c, int map_fd, size_t pages)
{
	size_t data_size = pages * PAGE_SZ;
	struct perf_event_attr attr;
	int err;

	switch (c->peer) {
	case PB_DEFAULT: {
		PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = pages);

		c->pb = perfbuf__new(map_fd, pb_cb, c, &o);
		return c->pb ? 0 : -errno;
	}
	case PB_WAKE1: {
		PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = pages,
			     .wakeup_events = 1);

		c->pb = perfbuf__new(map_fd, pb_cb, c, &o);
		return c->pb ? 0 : -errno;
	}
	case LB_DEFAULT:
		c->lpb = perf_buffer__new(map_fd, pages, lb_sample, lb_lost, c, NULL);
		return c->lpb ? 0 : -errno;
	case LB_RAW:
		/* perfbuf's default watermark: a quarter of the ring */
		err = perf_attr_wm(&attr, (__u32)(data_size / 4));
		if (err)
			return err;
		c->lpb = perf_buffer__new_raw(map_fd, pages, &attr, lb_raw_event, c, NULL);
		return c->lpb ? 0 : -errno;
	default:
		c->rb = ring_buffer__new(map_fd, rb_sample, c, NULL);
		return c->rb ? 0 : -errno;
	}
}

static void consumer_close(struct consumer *c)
{
	perfbuf__free(c->pb);
	perf_buffer__free(c->lpb);
	ring_buffer__free(c->rb);
	c->pb = NULL;
	c->lpb = NULL;
	c->rb = NULL;
}

static int online_cpu_cnt(void)
{
	int cpus[1024], n = perfbuf_online_cpus(cpus, 1024);

	return n > 0 ? n : 1;
}

static void sleep_ns(__u64 ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * One measurement: @peer consuming what the producer offers at @rate
 * records/s (0: flat out) for @secs, @batch records per program run.
 */
static int run_point(enum peer peer, double rate, double secs, int batch,
		     __u64 lat_mask, struct result *out)
{
	struct consumer *c = calloc(1, sizeof(*c));
	struct emit *eskel = NULL;
	struct producer p = {};
	struct emit_stats es;
	int map_fd, prog_fd, stats_fd, err;
	__u64 t0;

	memset(out, 0, sizeof(*out));
	if (!c)
		return -ENOMEM;
	c->peer = peer;
	c->lat_mask = lat_mask;
	if (peer == LB_RINGBUF) {
		/* the perf buffers' total: pages per CPU times CPUs */
		eskel = emit_open_load(true, (__u32)(env.pages * PAGE_SZ *
						     online_cpu_cnt()));
		if (!eskel) {
			err = -errno;
			goto out;
		}
		map_fd = bpf_map__fd(eskel->maps.rb);
		prog_fd = bpf_program__fd(eskel->progs.emit_rb);
		stats_fd = bpf_map__fd(eskel->maps.stats);
	} else {
		eskel = emit_open_load(false, 0);
		if (!eskel) {
			err = -errno;
			goto out;
		}
		map_fd = bpf_map__fd(eskel->maps.events);
		prog_fd = bpf_program__fd(eskel->progs.emit);
		stats_fd = bpf_map__fd(eskel->maps.stats);
	}
	err = consumer_open(c, map_fd, env.pages);
	if (err)
		goto out;
	err = -pthread_create(&c->thread, NULL, consumer_main, c);
	if (err)
		goto out;
	p = (struct producer){
		.prog_fd = prog_fd, .cpu = env.prod_cpu, .size = REC_SIZE,
		.batch = (__u64)batch, .rate = rate, .stop = &c->stop,
	};
	/* the consumer thread watches c->stop too: stop the producer first */
	{
		static int pstop;

		__atomic_store_n(&pstop, 0, __ATOMIC_RELEASE);
		p.stop = &pstop;
		t0 = mono_ns();
		err = producer_start(&p);
		if (!err) {
			sleep_ns((__u64)(secs * 1e9));
			__atomic_store_n(&pstop, 1, __ATOMIC_RELEASE);
			err = producer_join(&p);
		}
		out->secs = (double)(mono_ns() - t0) / 1e9;
	}
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	if (c->pb)
		perfbuf__wake(c->pb);
	pthread_join(c->thread, NULL);
	if (!err)
		err = c->err;
	if (!err)
		err = emit_stats_read(stats_fd, env.prod_cpu, &es);
	if (err)
		goto out;
	out->offered = es.attempts;
	out->received = c->received;
	out->enospc = es.enospc;
	out->failed = es.e2big + es.enoent + es.eopnotsupp + es.other;
	out->cpu_ns_per_rec = c->received ? (double)c->cpu_ns / c->received : 0;
	out->p50 = lat_quantile(&c->lat, 0.50);
	out->p99 = lat_quantile(&c->lat, 0.99);
out:
	out->err = err;
	consumer_close(c);
	emit__destroy(eskel);
	free(c);
	return err;
}

static double mps(__u64 n, double secs)
{
	return secs > 0 ? n / secs / 1e6 : 0;
}

static double loss_pct(const struct result *r)
{
	return r->offered ? 100.0 * (double)(r->offered - r->received) / r->offered : 0;
}

static const char *fmt_lat(char *buf, size_t n, __u64 ns)
{
	if (ns >= 1000000000ULL)
		snprintf(buf, n, "%.2f s", ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, n, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, n, "%.1f us", ns / 1e3);
	return buf;
}

/* Both to stdout and to the markdown file. */
static FILE *md;

static void __attribute__((format(printf, 1, 2))) emit_md(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (md) {
		va_start(ap, fmt);
		vfprintf(md, fmt, ap);
		va_end(ap);
	}
	fflush(stdout);
}

static void ratio_line(const char *what, double a, double b, double target,
		       bool lower_is_better)
{
	double r = b > 0 ? a / b : 0;
	bool met = lower_is_better ? r <= target : r >= target;

	emit_md("| %s | %.2fx | %s %.2fx | %s |\n", what, r,
		lower_is_better ? "<=" : ">=", target, met ? "met" : "**missed**");
}

/* ---- drain of a full ring ------------------------------------------- */

struct drain_ctx {
	__u64 n, seq_sum;
};

static int drain_pb_cb(void *ctx, const struct perfbuf_record *rec)
{
	struct drain_ctx *d = ctx;
	__u64 seq;

	if (rec->kind == PERFBUF_REC_SAMPLE) {
		if (rec->data_sz >= sizeof(seq))
			memcpy(&seq, rec->data, sizeof(seq));
		else
			perfbuf_record_copy(rec, &seq, sizeof(seq));
		d->seq_sum += seq;
		d->n++;
	}
	return 0;
}

/* perf_buffer__new_raw()'s callback: the read loop and per-record dispatch
 * are libbpf's perf_buffer__consume() path either way, and the raw event
 * lets the fill use a watermark instead of one wake-up per record. */
static enum bpf_perf_event_ret drain_lb_cb(void *ctx, int cpu,
					   struct perf_event_header *eh)
{
	struct drain_ctx *d = ctx;
	__u64 seq;

	(void)cpu;
	if (eh->type == PERF_RECORD_SAMPLE) {
		memcpy(&seq, (char *)eh + 12, sizeof(seq));
		d->seq_sum += seq;
		d->n++;
	}
	return LIBBPF_PERF_EVENT_CONT;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Fill the ring of the producer CPU to the brim without a loss. */
static int fill_ring(int prog_fd, size_t data_size)
{
	__u64 n = (data_size - 8) / REC_BYTES;
	int err = 0;

	while (n && !err) {
		__u64 k = n < EMIT_MAX_BATCH ? n : EMIT_MAX_BATCH;

		err = emit_once(prog_fd, env.prod_cpu, k, REC_SIZE);
		n -= k;
	}
	return err;
}

#define DRAIN_ROUNDS 15

static __u64 median(__u64 *v)
{
	qsort(v, DRAIN_ROUNDS, sizeof(v[0]), cmp_u64);
	return v[DRAIN_ROUNDS / 2];
}

/* Rewind a ring's data_tail so the same bytes are read again: nothing is
 * written meanwhile, so the kernel does not notice. */
static void rewind_tail(void *base, __u64 tail)
{
	struct perf_event_mmap_page *hdr = base;

	__atomic_store_n(&hdr->data_tail, tail, __ATOMIC_RELEASE);
}

static __u64 ring_tail(void *base)
{
	return __atomic_load_n(&((struct perf_event_mmap_page *)base)->data_tail,
			       __ATOMIC_ACQUIRE);
}

enum { D_FOLD, D_ITER, D_COLLECTOR, D_LIBBPF, D_N };

/* The callback-free drain: the same body as drain_pb_cb(), inlined. */
static int drain_iter(struct perfbuf_ring *ring, struct drain_ctx *d)
{
	struct perfbuf_iter it = perfbuf_ring__begin(ring);
	struct perfbuf_record rec;

	while (perfbuf_iter__next(&it, &rec))
		drain_pb_cb(d, &rec);
	return perfbuf_ring__end(ring, it);
}

/*
 * The same kernel ring, filled the same way before each timed drain, read
 * in turn by perfbuf's fold (perfbuf_ring over libbpf's own mmap) and by
 * perf_buffer__consume(); then perfbuf__consume() on its own collector.
 * "fresh": each drain follows a fill by the producer CPU (cache lines come
 * from the other core); "replay": data_tail rewound, the same bytes again.
 */
static int bench_drain(void)
{
	static const char *what[D_N] = {
		"perfbuf fold (perfbuf_ring__fold)",
		"perfbuf iterator (perfbuf_iter__next)",
		"perfbuf__consume (collector)",
		"libbpf perf_buffer__consume",
	};
	size_t data_size = env.pages * PAGE_SZ, map_sz;
	__u64 fresh[D_N][DRAIN_ROUNDS], replay[D_N][DRAIN_ROUNDS], mf[D_N], mr[D_N];
	__u64 want = (data_size - 8) / REC_BYTES, tail0, t;
	struct perf_buffer *lpb = NULL;
	struct perfbuf_ring *ring = NULL;
	struct perfbuf *pb = NULL;
	struct drain_ctx d = {};
	struct perf_event_attr attr;
	struct emit *skel;
	int prog_fd, err, idx = -1;
	bool exact = true;
	void *base;

	pin_self(env.cons_cpu);
	skel = emit_open_load(false, 0);
	if (!skel)
		return -errno;
	prog_fd = bpf_program__fd(skel->progs.emit);
	/* no wake-ups while filling: the consumer is idle anyway */
	err = perf_attr_wm(&attr, (__u32)(data_size / 2));
	if (err)
		goto out;
	lpb = perf_buffer__new_raw(bpf_map__fd(skel->maps.events), env.pages, &attr,
				   drain_lb_cb, &d, NULL);
	if (!lpb) {
		err = -errno;
		goto out;
	}
	/* libbpf's buffers are in possible-CPU order, offline ones skipped */
	{
		int cpus[1024], n = perfbuf_online_cpus(cpus, 1024);

		for (int i = 0; i < n; i++)
			if (cpus[i] == env.prod_cpu)
				idx = i;
	}
	err = idx < 0 ? -ENODEV : perf_buffer__buffer(lpb, idx, &base, &map_sz);
	if (err)
		goto out;
	ring = perfbuf_ring__new_mem(base, PAGE_SZ, env.pages);
	if (!ring) {
		err = -errno;
		goto out;
	}
	perfbuf_ring__set_cpu(ring, env.prod_cpu);

#define TIMED(slot, call) do {						\
		d.n = 0;						\
		t = mono_ns();						\
		err = (call);						\
		(slot) = mono_ns() - t;					\
		exact &= d.n == want;					\
		err = err < 0 ? err : 0;				\
	} while (0)

	for (int i = 0; i < DRAIN_ROUNDS && !err; i++) {
		err = fill_ring(prog_fd, data_size);
		if (!err)
			TIMED(fresh[D_FOLD][i], perfbuf_ring__fold(ring, drain_pb_cb, &d));
		if (!err)
			err = fill_ring(prog_fd, data_size);
		if (!err)
			TIMED(fresh[D_ITER][i], drain_iter(ring, &d));
		if (!err)
			err = fill_ring(prog_fd, data_size);
		if (!err)
			TIMED(fresh[D_LIBBPF][i], perf_buffer__consume(lpb));
	}
	if (!err)
		err = fill_ring(prog_fd, data_size);
	tail0 = ring_tail(base);
	for (int i = 0; i < DRAIN_ROUNDS && !err; i++) {
		rewind_tail(base, tail0);
		TIMED(replay[D_FOLD][i], perfbuf_ring__fold(ring, drain_pb_cb, &d));
		rewind_tail(base, tail0);
		TIMED(replay[D_ITER][i], drain_iter(ring, &d));
		rewind_tail(base, tail0);
		if (!err)
			TIMED(replay[D_LIBBPF][i], perf_buffer__consume(lpb));
	}
	if (err)
		goto out;
	perfbuf_ring__free(ring);
	ring = NULL;
	perf_buffer__free(lpb);
	lpb = NULL;
	{
		/* the collector: its own rings, every CPU drained */
		PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = env.pages);

		pb = perfbuf__new(bpf_map__fd(skel->maps.events), drain_pb_cb, &d, &o);
	}
	if (!pb) {
		err = -errno;
		goto out;
	}
	for (size_t i = 0; i < perfbuf__ring_cnt(pb); i++)
		if (perfbuf__ring_cpu(pb, i) == env.prod_cpu)
			base = perfbuf_ring__base(perfbuf__ring(pb, i));
	for (int i = 0; i < DRAIN_ROUNDS && !err; i++) {
		err = fill_ring(prog_fd, data_size);
		if (!err)
			TIMED(fresh[D_COLLECTOR][i], perfbuf__consume(pb));
	}
	if (!err)
		err = fill_ring(prog_fd, data_size);
	tail0 = ring_tail(base);
	for (int i = 0; i < DRAIN_ROUNDS && !err; i++) {
		rewind_tail(base, tail0);
		TIMED(replay[D_COLLECTOR][i], perfbuf__consume(pb));
	}
#undef TIMED
	if (err)
		goto out;
	for (int k = 0; k < D_N; k++) {
		mf[k] = median(fresh[k]);
		mr[k] = median(replay[k]);
	}
	emit_md("\n### Drain of a full ring\n\n"
		"%llu records of %d B in a %zu KiB ring, filled with the consumer idle; "
		"median of %d drains on CPU%d. fresh: each drain follows a fill from "
		"CPU%d; replay: data_tail rewound, the same bytes read again (warm).%s\n\n",
		(unsigned long long)want, REC_SIZE, data_size / 1024, DRAIN_ROUNDS,
		env.cons_cpu, env.prod_cpu,
		exact ? "" : " **A drain missed records.**");
	emit_md("| drain | fresh | ns/record | replay | ns/record |\n"
		"|---|---:|---:|---:|---:|\n");
	for (int k = 0; k < D_N; k++)
		emit_md("| %s | %.3f ms | %.1f | %.3f ms | %.1f |\n", what[k],
			mf[k] / 1e6, (double)mf[k] / want, mr[k] / 1e6,
			(double)mr[k] / want);
	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	ratio_line("fold / perf_buffer__consume, fresh", (double)mf[D_FOLD],
		   (double)mf[D_LIBBPF], 0.8, true);
	ratio_line("fold / perf_buffer__consume, replay", (double)mr[D_FOLD],
		   (double)mr[D_LIBBPF], 0.8, true);
	ratio_line("iterator / perf_buffer__consume, fresh", (double)mf[D_ITER],
		   (double)mf[D_LIBBPF], 0.8, true);
	ratio_line("iterator / perf_buffer__consume, replay", (double)mr[D_ITER],
		   (double)mr[D_LIBBPF], 0.8, true);
	ratio_line("perfbuf__consume / perf_buffer__consume, fresh",
		   (double)mf[D_COLLECTOR], (double)mf[D_LIBBPF], 0.8, true);
out:
	if (err)
		fprintf(stderr, "perfbuf-bench: drain test: %s\n", strerror(-err));
	perfbuf__free(pb);
	perfbuf_ring__free(ring);
	perf_buffer__free(lpb);
	emit__destroy(skel);
	return err;
}

/* ---- `perfbuf trace` against bpftrace -------------------------------- */

#define STORM_TP "syscalls:sys_enter_getpgid"

struct storm {
	double secs;
	__u64 calls;
};

/* The traced thread: getpgid() as fast as it goes, on the producer CPU. */
static void *storm_main(void *arg)
{
	struct storm *s = arg;
	__u64 end;

	pin_self(env.prod_cpu);
	end = mono_ns() + (__u64)(s->secs * 1e9);
	while (mono_ns() < end) {
		for (int i = 0; i < 1000; i++)
			syscall(SYS_getpgid, 0);
		s->calls += 1000;
	}
	return NULL;
}

static double run_storm(double secs, __u64 *calls)
{
	struct storm s = { .secs = secs };
	pthread_t t;
	__u64 t0 = mono_ns();

	if (pthread_create(&t, NULL, storm_main, &s))
		return 0;
	pthread_join(t, NULL);
	*calls = s.calls;
	return s.calls / ((mono_ns() - t0) / 1e9);
}

/* Start @argv with stdout and stderr into @log; wait until it says it
 * attached ("Attached 1 probe" / "Attaching 1 probe"). */
static pid_t spawn_tracer(char *const argv[], const char *log)
{
	pid_t pid = fork();
	char buf[4096];

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = cli_open_output(log);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	for (int i = 0; i < 300; i++) {	/* bpftrace compiles first: ~1-3 s */
		FILE *f = fopen(log, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		int status;

		if (f)
			fclose(f);
		buf[n] = '\0';
		if (strstr(buf, "ttach")) {
			sleep_ns(500000000);	/* attach completes after the line */
			return pid;
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			return -1;
		sleep_ns(50000000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

static int stop_tracer(pid_t pid)
{
	int status = 0;

	sleep_ns(1500000000);	/* let it drain and print its last stats */
	kill(pid, SIGINT);
	for (int i = 0; i < 100; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		sleep_ns(100000000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return status;
}

/* Sum of "stats: N events/s, M lost/s" lines of perfbuf trace --stats. */
static void sum_stats(const char *log, __u64 *events, __u64 *lost)
{
	FILE *f = fopen(log, "r");
	char line[512];
	unsigned long long e, l;

	*events = *lost = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "stats: %llu events/s, %llu lost/s", &e, &l) == 2) {
			*events += e;
			*lost += l;
		}
	fclose(f);
}

/* Lines of bpftrace's printf: they start with the pid. */
static __u64 count_events(const char *path)
{
	FILE *f = fopen(path, "r");
	bool bol = true;
	__u64 n = 0;
	int c;

	if (!f)
		return 0;
	while ((c = getc_unlocked(f)) != EOF) {
		n += bol && c >= '0' && c <= '9';
		bol = c == '\n';
	}
	fclose(f);
	return n;
}

/* bpftrace's "Lost N events" lines. */
static __u64 bpftrace_lost(const char *log)
{
	FILE *f = fopen(log, "r");
	char line[512];
	unsigned long long n, sum = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Lost %llu events", &n) == 1)
			sum += n;
	fclose(f);
	return sum;
}

enum tracer { T_NONE, T_PERFBUF, T_BPFTRACE, T_FLOOR, T_N };

struct trace_run {
	double rate;		/* traced thread's syscalls/s; 0: not run */
	__u64 calls, events, lost;
	int status;		/* the tracer's exit status */
};

/* One storm of @secs under tracer @t. */
static void trace_once(enum tracer t, const char *tool, double secs,
		       struct trace_run *r)
{
	char log[PATH_MAX], prog[128];
	char *pb_argv[] = { (char *)tool, "trace", "--json", "-o", "/dev/null",
			    "--stats", "tracepoint:" STORM_TP, NULL };
	char *bt_argv[] = { "bpftrace", "-e", prog, NULL };
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (t == T_NONE) {
		r->rate = run_storm(secs, &r->calls);
		return;
	}
	snprintf(log, sizeof(log), "%s/%s.log", env.out,
		 t == T_PERFBUF ? "trace" : "bpftrace");
	if (t == T_BPFTRACE)
		snprintf(prog, sizeof(prog), "tracepoint:%s { printf(\"%%d %%d %%s\\n\", pid, args->pid, comm); }",
			 STORM_TP);
	else
		snprintf(prog, sizeof(prog), "tracepoint:%s { @n = count(); }", STORM_TP);
	/* bpftrace's output, "Attaching 1 probe..." and "Lost N events" all
	 * go to the log */
	pid = spawn_tracer(t == T_PERFBUF ? pb_argv : bt_argv, log);
	if (pid < 0) {
		r->status = -1;
		return;
	}
	r->rate = run_storm(secs, &r->calls);
	r->status = stop_tracer(pid);
	if (t == T_PERFBUF) {
		sum_stats(log, &r->events, &r->lost);
		if (!WIFEXITED(r->status) || WEXITSTATUS(r->status))
			r->rate = 0;
	} else if (t == T_BPFTRACE) {
		r->events = count_events(log);
		r->lost = bpftrace_lost(log);
	}
}

static int cmp_rate(const void *a, const void *b)
{
	const struct trace_run *x = a, *y = b;

	return x->rate < y->rate ? -1 : x->rate > y->rate;
}

/*
 * The end-user view: a thread calling getpgid() flat out, untraced, traced
 * by `perfbuf trace --json -o /dev/null`, and by bpftrace printf() on the
 * same tracepoint; bpftrace count() (no output) is the floor that the
 * tracepoint and a BPF program cost by themselves. Rounds are interleaved
 * and each row is the median round.
 */
static int bench_trace(const char *self, double secs)
{
	static const char *row[T_N] = {
		"nothing",
		"`perfbuf trace --json -o /dev/null`",
		"`bpftrace -e '... { printf(...) }'`",
		"`bpftrace -e '... { @n = count(); }'` (no output: the floor)",
	};
	struct trace_run runs[T_N][3], med[T_N];
	int reps = env.quick ? 1 : 3;
	char tool[PATH_MAX];

	emit_md("\n### perfbuf trace vs bpftrace\n\n");
	if (!*self || strlen(self) > sizeof(tool) - 16) {
		emit_md("skipped: cannot find the perfbuf tool next to perfbuf-bench\n");
		return 0;
	}
	snprintf(tool, sizeof(tool), "%s", self);
	snprintf(strrchr(tool, '/') + 1, 16, "perfbuf");
	printf("\nsyscall storm, %d rounds of %.0f s: untraced, perfbuf trace, bpftrace printf, bpftrace count...\n",
	       reps, secs);
	for (int i = 0; i < reps; i++)
		for (int t = 0; t < T_N; t++)
			trace_once(t, tool, secs, &runs[t][i]);
	for (int t = 0; t < T_N; t++) {
		qsort(runs[t], reps, sizeof(runs[t][0]), cmp_rate);
		med[t] = runs[t][reps / 2];
	}
	if (!med[T_PERFBUF].rate)
		emit_md("perfbuf trace row skipped: `perfbuf trace` did not start, attach or "
			"exit cleanly (see %s/trace.log)\n\n", env.out);
	if (!med[T_BPFTRACE].rate)
		emit_md("bpftrace rows skipped: bpftrace is missing or did not attach "
			"(scripts/setup.sh --bench installs it; see %s/bpftrace.log)\n\n", env.out);
	emit_md("getpgid() in a loop on CPU%d, %.0f s per run, median of %d interleaved "
		"rounds; the tracers run where the scheduler puts them.\n\n",
		env.prod_cpu, secs, reps);
	emit_md("| traced by | syscalls/s | vs untraced | events delivered | lost |\n"
		"|---|---:|---:|---:|---:|\n");
	for (int t = 0; t < T_N; t++) {
		struct trace_run *r = &med[t];

		if (!r->rate)
			continue;
		if (t == T_PERFBUF || t == T_BPFTRACE)
			emit_md("| %s | %.3f M | %.2fx | %llu of %llu | %llu |\n", row[t],
				r->rate / 1e6, r->rate / med[T_NONE].rate,
				(unsigned long long)r->events, (unsigned long long)r->calls,
				(unsigned long long)r->lost);
		else
			emit_md("| %s | %.3f M | %.2fx | | |\n", row[t], r->rate / 1e6,
				r->rate / med[T_NONE].rate);
	}
	if (med[T_PERFBUF].rate && med[T_BPFTRACE].rate) {
		emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
		ratio_line("traced thread: perfbuf trace / bpftrace printf",
			   med[T_PERFBUF].rate, med[T_BPFTRACE].rate, 15, false);
		if (med[T_FLOOR].rate)
			emit_md("| ceiling for any tracer here: count() floor / bpftrace printf | %.2fx | | |\n",
				med[T_FLOOR].rate / med[T_BPFTRACE].rate);
	}
	return 0;
}

/* ---- main ------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
"Usage: perfbuf-bench [OPTIONS]\n"
"\n"
"Run the same BPF producer (64-byte records, producer thread on CPU0,\n"
"consumer thread on CPU1) against perfbuf and libbpf's perf_buffer and\n"
"ring_buffer; print a markdown table and plot delivered vs offered rate.\n"
"Needs root and 2 online CPUs. Takes about 4 minutes (--quick: 1).\n"
"\n"
"Options:\n"
"  -d, --duration S   seconds per point (default 3; sweep points 2)\n"
"  -p, --pages N      ring pages per CPU (default 1024)\n"
"  -b, --batch N      records per program run when flat out (default 256)\n"
"  -o, --out DIR      where bench.md, bench.dat and bench.png go\n"
"                     (default build/bench)\n"
"  -q, --quick        fewer and shorter points\n"
"      --no-sweep     skip the offered-rate sweep and the plot\n"
"      --no-trace     skip the perfbuf trace vs bpftrace comparison\n"
"      --only PART    only the drain test (drain) or the tracer\n"
"                     comparison (trace)\n"
"  -h, --help         this text\n"
"\n"
"Examples:\n"
"  make bench                          # setup, build, run, into build/bench\n"
"  build/perfbuf-bench --quick --no-trace\n");
}

/* failed runs first, then by delivered rate */
static int cmp_delivered(const void *a, const void *b)
{
	const struct result *x = a, *y = b;
	double dx = x->err ? -1 : mps(x->received, x->secs);
	double dy = y->err ? -1 : mps(y->received, y->secs);

	return dx < dy ? -1 : dx > dy;
}

static int parse_pos(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int batch_for(double rate)
{
	/* ~50 k program runs/s at most when paced */
	long b = (long)(rate / 50000);

	return b < 1 ? 1 : b > env.batch ? env.batch : (int)b;
}

static void gnuplot(const char *dir)
{
	char cmd[PATH_MAX * 2 + 64];
	FILE *gp;

	snprintf(cmd, sizeof(cmd), "%s/bench.gp", dir);
	gp = cli_fopen_output(cmd);
	if (!gp)
		return;
	fprintf(gp,
		"set terminal png size 900,600 noenhanced\n"
		"set output '%s/bench.png'\n"
		"set title 'perf buffer consumers: 64-byte records, producer CPU%d, consumer CPU%d, %zu pages'\n"
		"set xlabel 'offered: records/s asked of the producer (M/s)'\n"
		"set ylabel 'delivered (M records/s)'\n"
		"set logscale xy\n"
		"set xrange [0.03:%g]\n"
		"set xtics add ('flat out' %g)\n"
		"set key top left\n"
		"set grid\n"
		"plot ", dir, env.prod_cpu, env.cons_cpu, env.pages, FLAT_OUT_X * 1.5,
		FLAT_OUT_X);
	for (int p = 0; p < N_PEERS; p++)
		fprintf(gp, "'%s/bench.dat' index %d using 3:2 with linespoints title '%s', ",
			dir, p, peer_name[p]);
	fprintf(gp, "x with lines dashtype 2 lc rgb 'gray' title 'delivered = offered'\n");
	fclose(gp);
	snprintf(cmd, sizeof(cmd), "gnuplot '%s/bench.gp' 2>&1", dir);
	if (system(cmd) == 0)
		printf("\nplot: %s/bench.png\n", dir);
	else
		printf("\nno plot: gnuplot failed or is missing (scripts/setup.sh --bench installs gnuplot-nox)\n");
}

int main(int argc, char **argv)
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
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	static const double rates_full[] = { 0.05, 0.1, 0.2, 0.5, 1, 2, 4, 8, 12 };
	static const double rates_quick[] = { 0.1, 1, 4 };
	struct result sat[N_PEERS], low[N_PEERS], rounds[N_PEERS][3];
	int cpus[1024], n_on, opt;
	bool has_prod = false, has_cons = false;
	char path[PATH_MAX], b1[32], b2[32], b3[32], b4[32];
	FILE *dat = NULL;
	int reps;
	long v;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":d:p:b:o:qh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (parse_pos(optarg, 1, 600, &v)) {
				fprintf(stderr, "perfbuf-bench: --duration wants 1..600 seconds, not '%s'\n", optarg);
				return 1;
			}
			env.secs = (double)v;
			break;
		case 'p':
			if (parse_pos(optarg, 1, 1 << 16, &v) || (v & (v - 1))) {
				fprintf(stderr, "perfbuf-bench: --pages wants a power of two, not '%s'\n", optarg);
				return 1;
			}
			env.pages = (size_t)v;
			break;
		case 'b':
			if (parse_pos(optarg, 1, EMIT_MAX_BATCH, &v)) {
				fprintf(stderr, "perfbuf-bench: --batch wants 1..%d, not '%s'\n",
					EMIT_MAX_BATCH, optarg);
				return 1;
			}
			env.batch = (int)v;
			break;
		case 'o':
			env.out = optarg;
			break;
		case 'q':
			env.quick = true;
			break;
		case 'S':
			env.no_sweep = true;
			break;
		case 'T':
			env.no_trace = true;
			break;
		case 'O':
			if (strcmp(optarg, "drain") && strcmp(optarg, "trace")) {
				fprintf(stderr, "perfbuf-bench: --only wants drain or trace, not '%s'\n", optarg);
				return 1;
			}
			env.only = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "perfbuf-bench: %s needs a value; run 'perfbuf-bench --help'\n",
				argv[optind - 1]);
			return 1;
		default:
			fprintf(stderr, "perfbuf-bench: unknown option '%s'; run 'perfbuf-bench --help'\n",
				argv[optind - 1]);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "perfbuf-bench: unexpected argument '%s'\n", argv[optind]);
		return 1;
	}
	if (cli_need_privileges("perfbuf-bench", CLI_BPF) ||
	    cli_need_fds("perfbuf-bench", 0))
		return 1;
	n_on = perfbuf_online_cpus(cpus, 1024);
	for (int i = 0; i < n_on; i++) {
		has_prod |= cpus[i] == env.prod_cpu;
		has_cons |= cpus[i] == env.cons_cpu;
	}
	if (!has_prod || !has_cons) {
		fprintf(stderr, "perfbuf-bench: needs CPUs %d and %d online\n",
			env.prod_cpu, env.cons_cpu);
		return 1;
	}
	if (env.quick)
		env.secs = env.secs > 1 ? 1 : env.secs;
	reps = env.quick ? 1 : 3;
	if (!realpath("/proc/self/exe", env.self))
		env.self[0] = '\0';
	mkdir(env.out, 0755);
	snprintf(path, sizeof(path), "%s/bench.md", env.out);
	md = cli_fopen_output(path);
	if (!md) {
		fprintf(stderr, "perfbuf-bench: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	libbpf_set_print(NULL);
	signal(SIGPIPE, SIG_IGN);

	if (env.only) {
		if (!strcmp(env.only, "drain"))
			bench_drain();
		else
			bench_trace(env.self, env.quick ? 2 : 3);
		fclose(md);
		return 0;
	}
	/* The producer is the bottleneck of the watermark peers and moves
	 * with whatever else runs: interleave rounds, keep each peer's median. */
	printf("flat out, %d rounds of %.0f s per peer...\n", reps, env.secs);
	for (int i = 0; i < reps; i++)
		for (int p = 0; p < N_PEERS; p++)
			if (run_point(p, 0, env.secs, env.batch, 15, &rounds[p][i]))
				fprintf(stderr, "perfbuf-bench: %s: %s\n", peer_name[p],
					strerror(-rounds[p][i].err));
	for (int p = 0; p < N_PEERS; p++) {
		qsort(rounds[p], reps, sizeof(rounds[p][0]), cmp_delivered);
		sat[p] = rounds[p][reps / 2];
	}
	printf("1 k records/s, %.0f s per peer...\n", env.quick ? 1.0 : 2.0);
	for (int p = 0; p < N_PEERS; p++) {
		if (run_point(p, 1000, env.quick ? 1 : 2, 1, 0, &low[p]))
			fprintf(stderr, "perfbuf-bench: %s: %s\n", peer_name[p], strerror(-low[p].err));
	}

	emit_md("\n### Throughput and latency\n\n"
		"%d-byte records, producer on CPU%d (%d records per BPF_PROG_TEST_RUN), "
		"consumer on CPU%d, %zu pages per CPU (ringbuf: the same total), "
		"flat out: median of %d interleaved %.0f s runs; latency = consumer clock - bpf_ktime_get_ns() at emit "
		"(1 in 16 records flat out, every record at 1 k/s).\n\n",
		REC_SIZE, env.prod_cpu, env.batch, env.cons_cpu, env.pages, reps, env.secs);
	emit_md("| consumer | delivered M/s | offered M/s | loss %% | consumer ns/record | "
		"latency p50 / p99 at 1 k/s | latency p50 / p99 flat out |\n"
		"|---|---:|---:|---:|---:|---:|---:|\n");
	for (int p = 0; p < N_PEERS; p++) {
		struct result *r = &sat[p], *l = &low[p];

		if (r->err) {
			emit_md("| %s | failed: %s | | | | | |\n", peer_name[p], strerror(-r->err));
			continue;
		}
		emit_md("| %s | %.2f | %.2f | %.3f | %.1f | %s / %s%s | %s / %s |\n",
			peer_name[p], mps(r->received, r->secs), mps(r->offered, r->secs),
			loss_pct(r), r->cpu_ns_per_rec,
			fmt_lat(b1, sizeof(b1), l->p50), fmt_lat(b2, sizeof(b2), l->p99),
			l->err ? " (failed)" : "",
			fmt_lat(b3, sizeof(b3), r->p50), fmt_lat(b4, sizeof(b4), r->p99));
	}
	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	{
		double d = mps(sat[PB_DEFAULT].received, sat[PB_DEFAULT].secs);

		ratio_line("perfbuf default / libbpf perf_buffer default", d,
			   mps(sat[LB_DEFAULT].received, sat[LB_DEFAULT].secs), 60, false);
		ratio_line("perfbuf default / libbpf raw, same watermark", d,
			   mps(sat[LB_RAW].received, sat[LB_RAW].secs), 1.0, false);
		ratio_line("perfbuf default / libbpf ring_buffer", d,
			   mps(sat[LB_RINGBUF].received, sat[LB_RINGBUF].secs), 3, false);
		emit_md("| perfbuf default: records lost at %zu pages | %llu | 0 | %s |\n",
			env.pages,
			(unsigned long long)(sat[PB_DEFAULT].offered - sat[PB_DEFAULT].received),
			sat[PB_DEFAULT].offered == sat[PB_DEFAULT].received ? "met" : "**missed**");
		emit_md("| perfbuf default: p99 latency at 1 k/s | %s | <= 10 ms (latency_ms) | %s |\n",
			fmt_lat(b1, sizeof(b1), low[PB_DEFAULT].p99),
			low[PB_DEFAULT].p99 <= 10000000 ? "met" : "**missed**");
	}

	if (!env.no_sweep) {
		const double *rates = env.quick ? rates_quick : rates_full;
		int n_rates = env.quick ? 3 : (int)(sizeof(rates_full) / sizeof(rates_full[0]));
		double secs = env.quick ? 1 : 2;

		snprintf(path, sizeof(path), "%s/bench.dat", env.out);
		dat = cli_fopen_output(path);
		printf("\nsweep: %d offered rates x %d peers, %.0f s each...\n",
		       n_rates, N_PEERS, secs);
		for (int p = 0; p < N_PEERS && dat; p++) {
			fprintf(dat, "# %s: offered_mps delivered_mps asked_mps loss_pct\n",
				peer_key[p]);
			for (int i = 0; i <= n_rates; i++) {
				struct result r;
				double rate = i < n_rates ? rates[i] * 1e6 : 0;

				if (i == n_rates)
					r = sat[p];	/* flat out: already measured */
				else if (run_point(p, rate, secs, batch_for(rate), 15, &r))
					continue;
				if (r.err)
					continue;
				/* flat out is plotted at x = FLAT_OUT_X */
				fprintf(dat, "%.4f %.4f %.4f %.3f\n", mps(r.offered, r.secs),
					mps(r.received, r.secs),
					rate > 0 ? rate / 1e6 : FLAT_OUT_X, loss_pct(&r));
			}
			fprintf(dat, "\n\n");
		}
		if (dat) {
			fclose(dat);
			gnuplot(env.out);
		}
	}

	bench_drain();
	if (!env.no_trace)
		bench_trace(env.self, env.quick ? 2 : 3);
	fclose(md);
	printf("\ntable: %s/bench.md\n", env.out);
	return 0;
}
