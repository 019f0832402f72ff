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
 *   perfbuf timestamps      timestamps: PERF_SAMPLE_TIME in every record
 *   perfbuf ordered         ordered: one stream in time order
 *   libbpf perf_buffer      perf_buffer__new() defaults (wake per record)
 *   libbpf raw, watermark   perf_buffer__new_raw(), the same 1 MiB watermark
 *   libbpf ring_buffer      a BPF ringbuf of the same total size
 * Measured: delivered records/s, loss, consumer CPU ns per record
 * (CLOCK_THREAD_CPUTIME_ID), emit->receive latency at 1 k/s and flat out;
 * a sweep of offered rates (plotted with gnuplot); perfbuf default against
 * ordered with producers on both CPUs (cost, latency, order held); the
 * time to drain a full ring; `perfbuf trace` against bpftrace on a
 * syscall storm, printing every event and with a filter that passes one
 * in 1000; `perfbuf profile` against perf record and bpftrace
 * (the profiled workload's slowdown), with the time to name 10 k stacks;
 * and `perfbuf record` against `perfbuf trace --json` on the storm, the
 * drain of a full ring to a file against libbpf with fwrite(), and
 * `perfbuf report`'s decode rate.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <zlib.h>

#include "perfbuf.h"
#include "emit.h"
#include "emit.skel.h"
#include "producer.h"
#include "commands.h"
#include "profile/tool.h"
#include "record/capture.h"

#define PAGE_SZ 4096
#define REC_SIZE 64
#define REC_BYTES 80		/* perf record: 8 header + 4 size + 64, 8-aligned */
#define FLAT_OUT_X 30.0		/* where the plot puts flat-out points (M/s) */
#define LATENCY_NS 10000000ULL	/* perfbuf's default latency_ms, 10 ms */
#define MAX_REPS 3
#define STR_(x) #x
#define STR(x) STR_(x)

enum peer {
	PB_DEFAULT, PB_WAKE1, PB_TS, PB_ORDERED,
	LB_DEFAULT, LB_RAW, LB_RINGBUF, N_PEERS
};

static const char *peer_name[N_PEERS] = {
	"perfbuf default",
	"perfbuf wakeup_events=1",
	"perfbuf timestamps",
	"perfbuf ordered",
	"libbpf perf_buffer default",
	"libbpf perf_buffer_raw, same watermark",
	"libbpf ring_buffer",
};

static const char *peer_key[N_PEERS] = {
	"perfbuf", "perfbuf_wake1", "perfbuf_ts", "perfbuf_ordered",
	"libbpf_pb", "libbpf_raw", "libbpf_rb",
};

/* In the offered-rate sweep and its plot. timestamps and ordered are
 * left out to keep the run short (the sweep takes a minute and a half):
 * the throughput table has their flat-out and 1 k/s rows. */
static const bool peer_swept[N_PEERS] = {
	[PB_DEFAULT] = true, [PB_WAKE1] = true, [LB_DEFAULT] = true,
	[LB_RAW] = true, [LB_RINGBUF] = true,
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
	const char *only;	/* one part: throughput, ordered, drain, trace, profile, record */
	bool peer_on[N_PEERS];	/* --peers: the throughput table's rows */
	char self[PATH_MAX];
} env = {
	.pages = 1024,
	.secs = 3,
	.prod_cpu = 0,
	.cons_cpu = 1,
	.batch = 256,
	.out = "build/bench",
	.peer_on = { true, true, true, true, true, true, true },
};

struct consumer {
	enum peer peer;
	int cpu;		/* pinned there; -1: where the scheduler puts it */
	bool check_order;	/* perfbuf: pb_order_cb() */
	struct perfbuf *pb;
	struct perf_buffer *lpb;
	struct ring_buffer *rb;
	int stop;
	__u64 received;
	__u64 lost_seen;	/* as reported to the consumer */
	__u64 lat_mask;		/* take the latency of seq & mask == 0 */
	__u64 seq_sum;		/* keeps the record read from being elided */
	__u64 last_ns;		/* order check: the newest time seen */
	__u64 late;		/* records flagged PERFBUF_RECF_LATE */
	__u64 disorder;		/* older than one before them, not flagged */
	struct lat_hist lat;
	__u64 cpu_ns;
	int err;
	pthread_t thread;
};

/* One measurement's set-up. */
struct point {
	enum peer peer;
	double rate;		/* records/s per producer; 0: flat out */
	double secs;
	int batch;		/* records per program run */
	__u64 lat_mask;
	int n_prod;		/* producers on env.prod_cpu, then env.cons_cpu */
	int cons_cpu;		/* -1: where the scheduler puts the consumer */
	bool check_order;
};

struct result {
	double secs;
	__u64 offered, received, enospc, failed;
	double cpu_ns_per_rec;
	__u64 p50, p99;
	__u64 late, disorder;
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
		lat_add(&c->lat, perfbuf_now_ns() - hdr[1]);
}

static int pb_cb(void *ctx, const struct perfbuf_record *rec)
{
	struct consumer *c = ctx;
	struct emit_rec r;

	if (rec->kind == PERFBUF_REC_LOST) {
		c->lost_seen += rec->lost;
		return PERFBUF_CONTINUE;
	}
	if (rec->data_sz >= 16) {
		seen(c, rec->data);
	} else {
		perfbuf_record_copy(rec, &r, sizeof(r));
		seen(c, &r);
	}
	return PERFBUF_CONTINUE;
}

/*
 * pb_cb() and the order check of the ordered table: a record older than
 * the newest one delivered before it must carry PERFBUF_RECF_LATE. The
 * time is time_ns, or, for records without one (unordered), the emit time
 * in the payload.
 */
static int pb_order_cb(void *ctx, const struct perfbuf_record *rec)
{
	struct consumer *c = ctx;
	__u64 t = rec->time_ns;
	struct emit_rec r;

	if (!t && rec->kind == PERFBUF_REC_SAMPLE &&
	    perfbuf_record_copy(rec, &r, sizeof(r)) == sizeof(r))
		t = r.time_ns;
	if (rec->flags & PERFBUF_RECF_LATE)
		c->late++;
	else if (t && t < c->last_ns)
		c->disorder++;
	if (t > c->last_ns)
		c->last_ns = t;
	return pb_cb(ctx, rec);
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

static bool is_perfbuf(enum peer p)
{
	return p <= PB_ORDERED;
}

/* Everything left after the producers stopped; < 0 on failure. perfbuf
 * and libbpf count records delivered, ring_buffer__consume() too. */
static int consume_all(struct consumer *c)
{
	if (is_perfbuf(c->peer))
		return perfbuf__drain(c->pb);
	if (c->lpb)
		return perf_buffer__consume(c->lpb);
	return ring_buffer__consume(c->rb);
}

static int poll_once(struct consumer *c)
{
	if (is_perfbuf(c->peer))
		return perfbuf__poll(c->pb, 100);
	if (c->lpb)
		return perf_buffer__poll(c->lpb, 100);
	return ring_buffer__poll(c->rb, 100);
}

static void *consumer_main(void *arg)
{
	struct consumer *c = arg;
	__u64 t0;
	int err;

	if (c->cpu >= 0)
		pin_self(c->cpu);
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
	PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = pages,
		     .wakeup_events = c->peer == PB_WAKE1,
		     .timestamps = c->peer == PB_TS,
		     .ordered = c->peer == PB_ORDERED);
	struct perf_event_attr attr;
	int err;

	if (is_perfbuf(c->peer)) {
		c->pb = perfbuf__new(map_fd, c->check_order ? pb_order_cb : pb_cb,
				     c, &o);
		return c->pb ? 0 : -errno;
	}
	switch (c->peer) {
	case LB_DEFAULT:
		c->lpb = perf_buffer__new(map_fd, pages, lb_sample, lb_lost, c, NULL);
		return c->lpb ? 0 : -errno;
	case LB_RAW:
		/* perfbuf's default watermark: a quarter of the ring */
		err = perf_attr_wm(&attr, (__u32)(pages * PAGE_SZ / 4));
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

/* Stop @c's thread (the producers have stopped): it drains and exits. */
static void consumer_stop(struct consumer *c)
{
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	if (c->pb)
		perfbuf__wake(c->pb);
	pthread_join(c->thread, NULL);
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

/* The CPU of producer @i: env.prod_cpu, then env.cons_cpu. */
static int prod_cpu(int i)
{
	return i ? env.cons_cpu : env.prod_cpu;
}

/* The BPF side of a point: the emit program and the map it writes. */
struct emitter {
	struct emit *skel;
	int map_fd, prog_fd, stats_fd;
};

static int emitter_open(enum peer peer, struct emitter *e)
{
	bool rb = peer == LB_RINGBUF;

	/* the ringbuf gets the perf buffers' total: pages per CPU x CPUs */
	e->skel = emit_open_load(rb, rb ? (__u32)(env.pages * PAGE_SZ *
						  online_cpu_cnt()) : 0);
	if (!e->skel)
		return -errno;
	e->map_fd = bpf_map__fd(rb ? e->skel->maps.rb : e->skel->maps.events);
	e->prog_fd = bpf_program__fd(rb ? e->skel->progs.emit_rb :
				     e->skel->progs.emit);
	e->stats_fd = bpf_map__fd(e->skel->maps.stats);
	return 0;
}

/* Run @pt's producers for pt->secs; how long they ran in *@secs. */
static int run_producers(const struct point *pt, int prog_fd, double *secs)
{
	struct producer p[2] = {};
	int stop = 0, err = 0;
	__u64 t0 = perfbuf_now_ns();

	for (int i = 0; i < pt->n_prod && !err; i++) {
		p[i] = (struct producer){
			.prog_fd = prog_fd, .cpu = prod_cpu(i), .size = REC_SIZE,
			.batch = (__u64)pt->batch, .rate = pt->rate, .stop = &stop,
		};
		err = producer_start(&p[i]);
	}
	if (!err)
		sleep_ns((__u64)(pt->secs * 1e9));
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < pt->n_prod; i++) {
		int e = producer_join(&p[i]);

		err = err ?: e;
	}
	*secs = (double)(perfbuf_now_ns() - t0) / 1e9;
	return err;
}

/* What the producers asked for and what failed, summed over their CPUs. */
static int offered_read(const struct point *pt, int stats_fd,
			struct result *out)
{
	for (int i = 0; i < pt->n_prod; i++) {
		struct emit_stats es;
		int err = emit_stats_read(stats_fd, prod_cpu(i), &es);

		if (err)
			return err;
		out->offered += es.attempts;
		out->enospc += es.enospc;
		out->failed += es.e2big + es.enoent + es.eopnotsupp + es.other;
	}
	return 0;
}

/*
 * One measurement: @pt->peer consuming what the producers offer at
 * pt->rate records/s each (0: flat out) for pt->secs.
 */
static int run_point(const struct point *pt, struct result *out)
{
	struct consumer *c = calloc(1, sizeof(*c));
	struct emitter e = {};
	int err;

	memset(out, 0, sizeof(*out));
	if (!c)
		return out->err = -ENOMEM;
	c->peer = pt->peer;
	c->cpu = pt->cons_cpu;
	c->lat_mask = pt->lat_mask;
	c->check_order = pt->check_order;
	err = emitter_open(pt->peer, &e) ?: consumer_open(c, e.map_fd, env.pages);
	if (!err)
		err = -pthread_create(&c->thread, NULL, consumer_main, c);
	if (!err) {
		/* the producers stop first, then the consumer drains */
		err = run_producers(pt, e.prog_fd, &out->secs);
		consumer_stop(c);
		err = err ?: c->err;
	}
	if (!err)
		err = offered_read(pt, e.stats_fd, out);
	if (!err) {
		out->received = c->received;
		out->cpu_ns_per_rec = c->received ? (double)c->cpu_ns / c->received : 0;
		out->p50 = lat_quantile(&c->lat, 0.50);
		out->p99 = lat_quantile(&c->lat, 0.99);
		out->late = c->late;
		out->disorder = c->disorder;
	}
	out->err = err;
	consumer_close(c);
	emit__destroy(e.skel);
	free(c);
	return err;
}

static double mps(__u64 n, double secs)
{
	return secs > 0 ? n / secs / 1e6 : 0;
}

static double rate_of(const struct result *r)
{
	return mps(r->received, r->secs);
}

static double loss_pct(const struct result *r)
{
	return r->offered ? 100.0 * (double)(r->offered - r->received) / r->offered : 0;
}

/* The share of the offered records delivered: the producer's rate varies
 * from run to run, so rates of two runs compare through it. */
static double delivered_share(const struct result *r)
{
	return r->offered ? (double)r->received / r->offered : 0;
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

/* Lower is better: met at <= @need, and the aim is lower still. */
static void ratio_aim_line(const char *what, double a, double b, double need,
			   double aim)
{
	double r = b > 0 ? a / b : 0;

	emit_md("| %s | %.2fx | <= %.2fx (aim %.2fx) | %s |\n", what, r, need,
		aim, r > need ? "**missed**" : r <= aim ? "met" : "met, aim missed");
}

/* A ratio without a target. */
static void info_line(const char *what, double a, double b)
{
	emit_md("| %s | %.2fx | | |\n", what, b > 0 ? a / b : 0);
}

static const char *met(bool ok)
{
	return ok ? "met" : "**missed**";
}

/* failed runs first, then by delivered rate */
static int cmp_delivered(const void *a, const void *b)
{
	const struct result *x = a, *y = b;
	double dx = x->err ? -1 : rate_of(x);
	double dy = y->err ? -1 : rate_of(y);

	return dx < dy ? -1 : dx > dy;
}

/* The median of @n results by delivered rate (sorts them). */
static struct result median_result(struct result *r, int n)
{
	qsort(r, (size_t)n, sizeof(r[0]), cmp_delivered);
	return r[n / 2];
}

/* ---- throughput and latency ----------------------------------------- */

static struct point flat_point(enum peer p)
{
	return (struct point){
		.peer = p, .secs = env.secs, .batch = env.batch,
		.lat_mask = 15, .n_prod = 1, .cons_cpu = env.cons_cpu,
	};
}

/* 1 k records/s per producer, one record per program run, every latency
 * taken. */
static struct point low_point(enum peer p, double secs)
{
	return (struct point){
		.peer = p, .rate = 1000, .secs = secs, .batch = 1,
		.n_prod = 1, .cons_cpu = env.cons_cpu,
	};
}

static bool have(const struct result *r, enum peer p)
{
	return env.peer_on[p] && !r[p].err;
}

static void throughput_rows(const struct result *sat, const struct result *low)
{
	char b1[32], b2[32], b3[32], b4[32];

	emit_md("| consumer | delivered M/s | offered M/s | loss %% | consumer ns/record | "
		"latency p50 / p99 at 1 k/s | latency p50 / p99 flat out |\n"
		"|---|---:|---:|---:|---:|---:|---:|\n");
	for (int p = 0; p < N_PEERS; p++) {
		const struct result *r = &sat[p], *l = &low[p];

		if (!env.peer_on[p])
			continue;
		if (r->err) {
			emit_md("| %s | failed: %s | | | | | |\n", peer_name[p], strerror(-r->err));
			continue;
		}
		emit_md("| %s | %.2f | %.2f | %.3f | %.1f | %s / %s%s | %s / %s |\n",
			peer_name[p], rate_of(r), mps(r->offered, r->secs),
			loss_pct(r), r->cpu_ns_per_rec,
			fmt_lat(b1, sizeof(b1), l->p50), fmt_lat(b2, sizeof(b2), l->p99),
			l->err ? " (failed)" : "",
			fmt_lat(b3, sizeof(b3), r->p50), fmt_lat(b4, sizeof(b4), r->p99));
	}
}

static void throughput_targets(const struct result *sat, const struct result *low)
{
	const struct result *d = &sat[PB_DEFAULT];
	char b[32];

	if (!have(sat, PB_DEFAULT))
		return;
	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	if (have(sat, LB_DEFAULT))
		ratio_line("perfbuf default / libbpf perf_buffer default", rate_of(d),
			   rate_of(&sat[LB_DEFAULT]), 60, false);
	if (have(sat, LB_RAW)) {
		ratio_line("delivered share of offered: perfbuf default / libbpf raw, same watermark",
			   delivered_share(d), delivered_share(&sat[LB_RAW]), 1.0, false);
		ratio_line("consumer ns/record: perfbuf default / libbpf raw, same watermark",
			   d->cpu_ns_per_rec, sat[LB_RAW].cpu_ns_per_rec, 1.0, true);
	}
	if (have(sat, LB_RINGBUF))
		ratio_line("perfbuf default / libbpf ring_buffer", rate_of(d),
			   rate_of(&sat[LB_RINGBUF]), 3, false);
	emit_md("| perfbuf default: records lost at %zu pages | %llu | 0 | %s |\n",
		env.pages, (unsigned long long)(d->offered - d->received),
		met(d->offered == d->received));
	if (!low[PB_DEFAULT].err)
		emit_md("| perfbuf default: p99 latency at 1 k/s | %s | <= 10 ms (latency_ms) | %s |\n",
			fmt_lat(b, sizeof(b), low[PB_DEFAULT].p99),
			met(low[PB_DEFAULT].p99 <= LATENCY_NS));
	if (have(sat, PB_TS))
		info_line("consumer ns/record: perfbuf timestamps / perfbuf default",
			  sat[PB_TS].cpu_ns_per_rec, d->cpu_ns_per_rec);
	if (have(sat, PB_ORDERED))
		info_line("consumer ns/record: perfbuf ordered / perfbuf default",
			  sat[PB_ORDERED].cpu_ns_per_rec, d->cpu_ns_per_rec);
}

/*
 * Every selected peer flat out, @reps interleaved rounds (the producer is
 * the bottleneck of the watermark peers and moves with whatever else runs:
 * each peer's median round is kept), then at 1 k records/s.
 */
static void bench_throughput(int reps, struct result *sat, struct result *low)
{
	struct result rounds[N_PEERS][MAX_REPS];
	double low_secs = env.quick ? 1 : 2;

	printf("flat out, %d rounds of %.0f s per peer...\n", reps, env.secs);
	for (int i = 0; i < reps; i++)
		for (int p = 0; p < N_PEERS; p++) {
			struct point pt = flat_point(p);

			if (env.peer_on[p] && run_point(&pt, &rounds[p][i]))
				fprintf(stderr, "perfbuf-bench: %s: %s\n", peer_name[p],
					strerror(-rounds[p][i].err));
		}
	for (int p = 0; p < N_PEERS; p++)
		if (env.peer_on[p])
			sat[p] = median_result(rounds[p], reps);
	printf("1 k records/s, %.0f s per peer...\n", low_secs);
	for (int p = 0; p < N_PEERS; p++) {
		struct point pt = low_point(p, low_secs);

		if (env.peer_on[p] && run_point(&pt, &low[p]))
			fprintf(stderr, "perfbuf-bench: %s: %s\n", peer_name[p],
				strerror(-low[p].err));
	}
	emit_md("\n### Throughput and latency\n\n"
		"%d-byte records, producer on CPU%d (%d records per BPF_PROG_TEST_RUN), "
		"consumer on CPU%d, %zu pages per CPU (ringbuf: the same total), "
		"flat out: median of %d interleaved %.0f s runs; latency = consumer clock - bpf_ktime_get_ns() at emit "
		"(1 in 16 records flat out, every record at 1 k/s).\n\n",
		REC_SIZE, env.prod_cpu, env.batch, env.cons_cpu, env.pages, reps, env.secs);
	throughput_rows(sat, low);
	throughput_targets(sat, low);
}

/* ---- offered-rate sweep ---------------------------------------------- */

static int batch_for(double rate)
{
	/* ~50 k program runs/s at most when paced */
	long b = (long)(rate / 50000);

	return b < 1 ? 1 : b > env.batch ? env.batch : (int)b;
}

static bool swept(int p)
{
	return env.peer_on[p] && peer_swept[p];
}

static void gnuplot(const char *dir)
{
	char cmd[PATH_MAX * 2 + 64];
	FILE *gp;
	int idx = 0;

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
		if (swept(p))
			fprintf(gp, "'%s/bench.dat' index %d using 3:2 with linespoints title '%s', ",
				dir, idx++, peer_name[p]);
	fprintf(gp, "x with lines dashtype 2 lc rgb 'gray' title 'delivered = offered'\n");
	fclose(gp);
	snprintf(cmd, sizeof(cmd), "gnuplot '%s/bench.gp' 2>&1", dir);
	if (system(cmd) == 0)
		printf("\nplot: %s/bench.png\n", dir);
	else
		printf("\nno plot: gnuplot failed or is missing (scripts/setup.sh --bench installs gnuplot-nox)\n");
}

/* One data set of bench.dat: peer @p at each offered rate, then flat out
 * (@sat, already measured), plotted at x = FLAT_OUT_X. */
static void sweep_peer(FILE *dat, int p, const double *rates, int n_rates,
		       double secs, const struct result *sat)
{
	fprintf(dat, "# %s: offered_mps delivered_mps asked_mps loss_pct\n",
		peer_key[p]);
	for (int i = 0; i <= n_rates; i++) {
		double rate = i < n_rates ? rates[i] * 1e6 : 0;
		struct point pt = flat_point(p);
		struct result r;

		pt.rate = rate;
		pt.secs = secs;
		pt.batch = batch_for(rate);
		if (i == n_rates)
			r = *sat;
		else if (run_point(&pt, &r))
			continue;
		if (r.err)
			continue;
		fprintf(dat, "%.4f %.4f %.4f %.3f\n", mps(r.offered, r.secs),
			rate_of(&r), rate > 0 ? rate / 1e6 : FLAT_OUT_X, loss_pct(&r));
	}
	fprintf(dat, "\n\n");
}

static void bench_sweep(const struct result *sat)
{
	static const double rates_full[] = { 0.05, 0.1, 0.2, 0.5, 1, 2, 4, 8, 12 };
	static const double rates_quick[] = { 0.1, 1, 4 };
	const double *rates = env.quick ? rates_quick : rates_full;
	int n_rates = env.quick ? 3 : (int)(sizeof(rates_full) / sizeof(rates_full[0]));
	double secs = env.quick ? 1 : 2;
	char path[PATH_MAX];
	int n_peers = 0;
	FILE *dat;

	for (int p = 0; p < N_PEERS; p++)
		n_peers += swept(p);
	snprintf(path, sizeof(path), "%s/bench.dat", env.out);
	dat = cli_fopen_output(path);
	if (!dat || !n_peers) {
		if (dat)
			fclose(dat);
		return;
	}
	printf("\nsweep: %d offered rates x %d peers, %.0f s each...\n",
	       n_rates, n_peers, secs);
	for (int p = 0; p < N_PEERS; p++)
		if (swept(p))
			sweep_peer(dat, p, rates, n_rates, secs, &sat[p]);
	fclose(dat);
	gnuplot(env.out);
}

/* ---- ordered delivery ------------------------------------------------ */

enum { O_DEFAULT, O_ORDERED, O_N };

static const enum peer ord_peer[O_N] = { PB_DEFAULT, PB_ORDERED };

/* Producers on both CPUs, the consumer where the scheduler puts it, every
 * record's order checked. */
static struct point ord_point(int k, double rate, double secs)
{
	return (struct point){
		.peer = ord_peer[k], .rate = rate, .secs = secs,
		.batch = rate ? 1 : env.batch, .lat_mask = rate ? 0 : 15,
		.n_prod = 2, .cons_cpu = -1, .check_order = true,
	};
}

static void ordered_rows(const struct result *sat, const struct result *low,
			 const __u64 *late, const __u64 *disorder)
{
	static const char *name[O_N] = { "perfbuf default (unordered)",
					 "perfbuf ordered" };
	char b1[32], b2[32];

	emit_md("| consumer | delivered M/s | offered M/s | loss %% | consumer ns/record | "
		"latency p50 / p99 at 1 k/s per CPU | late records | "
		"out of order, not flagged late |\n"
		"|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int k = 0; k < O_N; k++) {
		const struct result *r = &sat[k], *l = &low[k];

		if (r->err) {
			emit_md("| %s | failed: %s | | | | | | |\n", name[k], strerror(-r->err));
			continue;
		}
		emit_md("| %s | %.2f | %.2f | %.3f | %.1f | %s / %s%s | %llu | %llu |\n",
			name[k], rate_of(r), mps(r->offered, r->secs), loss_pct(r),
			r->cpu_ns_per_rec,
			fmt_lat(b1, sizeof(b1), l->p50), fmt_lat(b2, sizeof(b2), l->p99),
			l->err ? " (failed)" : "", (unsigned long long)late[k],
			(unsigned long long)disorder[k]);
	}
}

static void ordered_targets(const struct result *sat, const struct result *low,
			    const __u64 *disorder)
{
	char b[32];

	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	if (!low[O_ORDERED].err)
		emit_md("| perfbuf ordered: p99 latency at 1 k/s per CPU | %s | <= 10 ms (latency_ms) | %s |\n",
			fmt_lat(b, sizeof(b), low[O_ORDERED].p99),
			met(low[O_ORDERED].p99 <= LATENCY_NS));
	emit_md("| perfbuf ordered: records out of order, not flagged late | %llu | 0 | %s |\n",
		(unsigned long long)disorder[O_ORDERED], met(!disorder[O_ORDERED]));
	if (!sat[O_DEFAULT].err && !sat[O_ORDERED].err) {
		info_line("consumer ns/record: ordered / unordered",
			  sat[O_ORDERED].cpu_ns_per_rec, sat[O_DEFAULT].cpu_ns_per_rec);
		info_line("delivered flat out: ordered / unordered",
			  rate_of(&sat[O_ORDERED]), rate_of(&sat[O_DEFAULT]));
	}
	if (!low[O_DEFAULT].err && !low[O_ORDERED].err)
		info_line("p99 latency at 1 k/s: ordered / unordered",
			  (double)low[O_ORDERED].p99, (double)low[O_DEFAULT].p99);
}

/*
 * perfbuf default against ordered with a producer on each CPU: flat out
 * (@reps interleaved rounds, the median kept) and at 1 k records/s per
 * CPU. Late and unflagged out-of-order records are summed over every run.
 */
static void bench_ordered(int reps)
{
	struct result rounds[O_N][MAX_REPS], sat[O_N], low[O_N];
	__u64 late[O_N] = {}, disorder[O_N] = {};
	double low_secs = env.quick ? 1 : 2;

	printf("\nordered: producers on CPU%d and CPU%d, %d rounds of %.0f s, then 1 k/s per CPU...\n",
	       env.prod_cpu, env.cons_cpu, reps, env.secs);
	for (int i = 0; i < reps; i++)
		for (int k = 0; k < O_N; k++) {
			struct point pt = ord_point(k, 0, env.secs);

			if (run_point(&pt, &rounds[k][i]))
				fprintf(stderr, "perfbuf-bench: ordered, %s: %s\n",
					peer_name[ord_peer[k]], strerror(-rounds[k][i].err));
			late[k] += rounds[k][i].late;
			disorder[k] += rounds[k][i].disorder;
		}
	for (int k = 0; k < O_N; k++) {
		struct point pt = ord_point(k, 1000, low_secs);

		sat[k] = median_result(rounds[k], reps);
		if (run_point(&pt, &low[k]))
			fprintf(stderr, "perfbuf-bench: ordered, %s: %s\n",
				peer_name[ord_peer[k]], strerror(-low[k].err));
		late[k] += low[k].late;
		disorder[k] += low[k].disorder;
	}
	emit_md("\n### Ordered delivery\n\n"
		"%d-byte records, a producer on CPU%d and one on CPU%d (%d records per run flat out, "
		"1 per run at 1 k/s), the consumer where the scheduler puts it, %zu pages per CPU; "
		"flat out: median of %d interleaved %.0f s runs. Late and out-of-order records: all "
		"runs of the row; out of order = older than a record delivered before it, by time_ns "
		"(ordered) or, without one, the emit time in the payload (unordered).\n\n",
		REC_SIZE, env.prod_cpu, env.cons_cpu, env.batch, env.pages, reps, env.secs);
	ordered_rows(sat, low, late, disorder);
	ordered_targets(sat, low, disorder);
}

/* ---- drain of a full ring ------------------------------------------- */

struct drain_ctx {
	__u64 n, seq_sum;
	FILE *out;		/* lb_fwrite_cb() writes there */
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
	return PERFBUF_CONTINUE;
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

struct drain_bench {
	struct emit *skel;
	int prog_fd;
	size_t data_size;
	__u64 want;		/* records in a full ring */
	struct perf_buffer *lpb;
	perf_buffer_event_fn lb_fn;	/* lpb's callback; NULL: drain_lb_cb */
	struct perfbuf_ring *ring;	/* over lpb's ring of the producer CPU */
	struct perfbuf *pb;
	void *base;		/* the header page of the ring drained */
	struct drain_ctx d;
	bool exact;		/* every drain saw every record */
	__u64 fresh[D_N][DRAIN_ROUNDS], replay[D_N][DRAIN_ROUNDS];
};

/* One timed drain of kind @k into @slot; 0 or a negative errno. */
static int drain_timed(struct drain_bench *b, int k, __u64 *slot)
{
	__u64 t;
	int ret;

	b->d.n = 0;
	t = perfbuf_now_ns();
	switch (k) {
	case D_FOLD:
		ret = perfbuf_ring__fold(b->ring, drain_pb_cb, &b->d);
		break;
	case D_ITER:
		ret = drain_iter(b->ring, &b->d);
		break;
	case D_COLLECTOR:
		ret = perfbuf__consume(b->pb);
		break;
	default:
		ret = perf_buffer__consume(b->lpb);
		break;
	}
	*slot = perfbuf_now_ns() - t;
	b->exact &= b->d.n == b->want;
	return ret < 0 ? ret : 0;
}

/* DRAIN_ROUNDS rounds of the @n drains @kinds in turn, each after a fill
 * (fresh); then one fill, read again and again with data_tail rewound
 * (replay). */
static int drain_rounds(struct drain_bench *b, const int *kinds, int n)
{
	__u64 tail0;
	int err = 0;

	for (int i = 0; i < DRAIN_ROUNDS && !err; i++)
		for (int j = 0; j < n && !err; j++) {
			err = fill_ring(b->prog_fd, b->data_size);
			if (!err)
				err = drain_timed(b, kinds[j], &b->fresh[kinds[j]][i]);
		}
	if (!err)
		err = fill_ring(b->prog_fd, b->data_size);
	tail0 = ring_tail(b->base);
	for (int i = 0; i < DRAIN_ROUNDS && !err; i++)
		for (int j = 0; j < n && !err; j++) {
			rewind_tail(b->base, tail0);
			err = drain_timed(b, kinds[j], &b->replay[kinds[j]][i]);
		}
	return err;
}

/* libbpf's raw perf buffer (a watermark: no wake-ups while filling, the
 * consumer is idle anyway), and a perfbuf ring over its mmap of the
 * producer CPU's ring. */
static int drain_open_libbpf(struct drain_bench *b)
{
	int cpus[1024], n = perfbuf_online_cpus(cpus, 1024), idx = -1, err;
	struct perf_event_attr attr;
	size_t map_sz;

	err = perf_attr_wm(&attr, (__u32)(b->data_size / 2));
	if (err)
		return err;
	b->lpb = perf_buffer__new_raw(bpf_map__fd(b->skel->maps.events), env.pages,
				      &attr, b->lb_fn ?: drain_lb_cb, &b->d, NULL);
	if (!b->lpb)
		return -errno;
	/* libbpf's buffers are in possible-CPU order, offline ones skipped */
	for (int i = 0; i < n; i++)
		if (cpus[i] == env.prod_cpu)
			idx = i;
	err = idx < 0 ? -ENODEV : perf_buffer__buffer(b->lpb, idx, &b->base, &map_sz);
	if (err)
		return err;
	b->ring = perfbuf_ring__new_mem(b->base, PAGE_SZ, env.pages);
	if (!b->ring)
		return -errno;
	perfbuf_ring__set_cpu(b->ring, env.prod_cpu);
	return 0;
}

/* The collector: its own rings, every CPU drained by perfbuf__consume(). */
static int drain_open_collector(struct drain_bench *b)
{
	PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = env.pages);

	b->pb = perfbuf__new(bpf_map__fd(b->skel->maps.events), drain_pb_cb,
			     &b->d, &o);
	if (!b->pb)
		return -errno;
	for (size_t i = 0; i < perfbuf__ring_cnt(b->pb); i++)
		if (perfbuf__ring_cpu(b->pb, i) == env.prod_cpu)
			b->base = perfbuf_ring__base(perfbuf__ring(b->pb, i));
	return 0;
}

static void drain_report(struct drain_bench *b)
{
	static const char *what[D_N] = {
		"perfbuf fold (perfbuf_ring__fold)",
		"perfbuf iterator (perfbuf_iter__next)",
		"perfbuf__consume (collector)",
		"libbpf perf_buffer__consume",
	};
	__u64 mf[D_N], mr[D_N];

	for (int k = 0; k < D_N; k++) {
		mf[k] = median(b->fresh[k]);
		mr[k] = median(b->replay[k]);
	}
	emit_md("\n### Drain of a full ring\n\n"
		"%llu records of %d B in a %zu KiB ring, filled with the consumer idle; "
		"median of %d drains on CPU%d. fresh: each drain follows a fill from "
		"CPU%d; replay: data_tail rewound, the same bytes read again (warm).%s\n\n",
		(unsigned long long)b->want, REC_SIZE, b->data_size / 1024, DRAIN_ROUNDS,
		env.cons_cpu, env.prod_cpu,
		b->exact ? "" : " **A drain missed records.**");
	emit_md("| drain | fresh | ns/record | replay | ns/record |\n"
		"|---|---:|---:|---:|---:|\n");
	for (int k = 0; k < D_N; k++)
		emit_md("| %s | %.3f ms | %.1f | %.3f ms | %.1f |\n", what[k],
			mf[k] / 1e6, (double)mf[k] / b->want, mr[k] / 1e6,
			(double)mr[k] / b->want);
	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	ratio_aim_line("fold / perf_buffer__consume, fresh", (double)mf[D_FOLD],
		       (double)mf[D_LIBBPF], 1.0, 0.8);
	ratio_aim_line("fold / perf_buffer__consume, replay", (double)mr[D_FOLD],
		       (double)mr[D_LIBBPF], 1.0, 0.8);
	ratio_aim_line("iterator / perf_buffer__consume, fresh", (double)mf[D_ITER],
		       (double)mf[D_LIBBPF], 1.0, 0.8);
	ratio_aim_line("iterator / perf_buffer__consume, replay", (double)mr[D_ITER],
		       (double)mr[D_LIBBPF], 1.0, 0.8);
	ratio_aim_line("perfbuf__consume / perf_buffer__consume, fresh",
		       (double)mf[D_COLLECTOR], (double)mf[D_LIBBPF], 1.0, 0.8);
}

/*
 * The same kernel ring, filled the same way before each timed drain, read
 * in turn by perfbuf's fold and iterator (a perfbuf_ring over libbpf's own
 * mmap) and by perf_buffer__consume(); then perfbuf__consume() on its own
 * collector. "fresh": each drain follows a fill by the producer CPU (cache
 * lines come from the other core); "replay": data_tail rewound, the same
 * bytes again.
 */
static int bench_drain(void)
{
	static const int ring_kinds[] = { D_FOLD, D_ITER, D_LIBBPF };
	static const int coll_kinds[] = { D_COLLECTOR };
	struct drain_bench *b = calloc(1, sizeof(*b));
	int err;

	if (!b)
		return -ENOMEM;
	pin_self(env.cons_cpu);
	b->data_size = env.pages * PAGE_SZ;
	b->want = (b->data_size - 8) / REC_BYTES;
	b->exact = true;
	b->skel = emit_open_load(false, 0);
	err = b->skel ? 0 : -errno;
	if (!err) {
		b->prog_fd = bpf_program__fd(b->skel->progs.emit);
		err = drain_open_libbpf(b) ?: drain_rounds(b, ring_kinds, 3);
	}
	perfbuf_ring__free(b->ring);
	perf_buffer__free(b->lpb);
	if (!err)
		err = drain_open_collector(b) ?: drain_rounds(b, coll_kinds, 1);
	if (!err)
		drain_report(b);
	else
		fprintf(stderr, "perfbuf-bench: drain test: %s\n", strerror(-err));
	perfbuf__free(b->pb);
	emit__destroy(b->skel);
	free(b);
	return err;
}

/* The perfbuf tool next to perfbuf-bench, in @tool; false if not found. */
static bool perfbuf_tool(char *tool, size_t sz)
{
	if (!*env.self || strlen(env.self) > sz - 16)
		return false;
	snprintf(tool, sz, "%s", env.self);
	snprintf(strrchr(tool, '/') + 1, 16, "perfbuf");
	return access(tool, X_OK) == 0;
}

/* ---- `perfbuf trace` against bpftrace -------------------------------- */

#define STORM_TP "syscalls:sys_enter_getpgid"

/* The filter storm's argument that passes, once in 1000 calls: above
 * pid_max (at most 2^22), so getpgid() fails at once */
#define FILTER_PID 5000000

struct storm {
	double secs;
	__u64 calls;
	bool cycle;		/* getpgid(FILTER_PID + 0..999), not (0) */
};

/* The traced thread: getpgid() as fast as it goes, on the producer CPU. */
static void *storm_main(void *arg)
{
	struct storm *s = arg;
	__u64 end;

	pin_self(env.prod_cpu);
	end = perfbuf_now_ns() + (__u64)(s->secs * 1e9);
	while (perfbuf_now_ns() < end) {
		for (int i = 0; i < 1000; i++)
			syscall(SYS_getpgid, s->cycle ? FILTER_PID + i : 0);
		s->calls += 1000;
	}
	return NULL;
}

static double run_storm(double secs, bool cycle, __u64 *calls)
{
	struct storm s = { .secs = secs, .cycle = cycle };
	pthread_t t;
	__u64 t0 = perfbuf_now_ns();

	if (pthread_create(&t, NULL, storm_main, &s))
		return 0;
	pthread_join(t, NULL);
	*calls = s.calls;
	return s.calls / ((perfbuf_now_ns() - t0) / 1e9);
}

/* Start @argv with stdout and stderr into @log; wait until the log says
 * @ready ("ttach": bpftrace's "Attaching 1 probe", trace's "Attached"), or
 * 2 s when @ready is NULL (perf record says nothing). */
static pid_t spawn_tracer(char *const argv[], const char *log, const char *ready)
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
		if (ready ? strstr(buf, ready) != NULL : i == 40) {
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

/* A storm of @secs under the tracer @argv (NULL: untraced), its output
 * into @log; @pb: it is perfbuf trace --stats. */
static void storm_traced(char *const argv[], const char *log, bool pb,
			 double secs, bool cycle, struct trace_run *r)
{
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (!argv) {
		r->rate = run_storm(secs, cycle, &r->calls);
		return;
	}
	/* bpftrace's output, "Attaching 1 probe..." and "Lost N events" all
	 * go to the log */
	pid = spawn_tracer(argv, log, "ttach");
	if (pid < 0) {
		r->status = -1;
		return;
	}
	r->rate = run_storm(secs, cycle, &r->calls);
	r->status = stop_tracer(pid);
	if (pb) {
		sum_stats(log, &r->events, &r->lost);
		if (!WIFEXITED(r->status) || WEXITSTATUS(r->status))
			r->rate = 0;
	} else {
		r->events = count_events(log);
		r->lost = bpftrace_lost(log);
	}
}

/* One storm of @secs under tracer @t (enum tracer). */
static void trace_once(int t, const char *tool, double secs, struct trace_run *r)
{
	char log[PATH_MAX], prog[128];
	char *pb_argv[] = { (char *)tool, "trace", "--json", "-o", "/dev/null",
			    "--stats", "tracepoint:" STORM_TP, NULL };
	char *bt_argv[] = { "bpftrace", "-e", prog, NULL };

	snprintf(log, sizeof(log), "%s/%s.log", env.out,
		 t == T_PERFBUF ? "trace" : "bpftrace");
	if (t == T_BPFTRACE)
		snprintf(prog, sizeof(prog), "tracepoint:%s { printf(\"%%d %%d %%s\\n\", pid, args->pid, comm); }",
			 STORM_TP);
	else
		snprintf(prog, sizeof(prog), "tracepoint:%s { @n = count(); }", STORM_TP);
	storm_traced(t == T_NONE ? NULL : t == T_PERFBUF ? pb_argv : bt_argv, log,
		     t == T_PERFBUF, secs, false, r);
}

static int cmp_rate(const void *a, const void *b)
{
	const struct trace_run *x = a, *y = b;

	return x->rate < y->rate ? -1 : x->rate > y->rate;
}

/* @reps interleaved rounds of storms under each of @nt tracers (once()
 * runs one); each tracer's median round into med[]. */
static void storm_rounds(void (*once)(int t, const char *tool, double secs,
				      struct trace_run *r),
			 int nt, const char *tool, double secs, int reps,
			 struct trace_run *med)
{
	struct trace_run runs[nt][MAX_REPS];

	for (int i = 0; i < reps; i++)
		for (int t = 0; t < nt; t++)
			once(t, tool, secs, &runs[t][i]);
	for (int t = 0; t < nt; t++) {
		qsort(runs[t], reps, sizeof(runs[t][0]), cmp_rate);
		med[t] = runs[t][reps / 2];
	}
}

/*
 * The end-user view: a thread calling getpgid() flat out, untraced, traced
 * by `perfbuf trace --json -o /dev/null`, and by bpftrace printf() on the
 * same tracepoint; bpftrace count() (no output) is the floor that the
 * tracepoint and a BPF program cost by themselves. Rounds are interleaved
 * and each row is the median round.
 */
static int bench_trace(double secs)
{
	static const char *row[T_N] = {
		"nothing",
		"`perfbuf trace --json -o /dev/null`",
		"`bpftrace -e '... { printf(...) }'`",
		"`bpftrace -e '... { @n = count(); }'` (no output: the floor)",
	};
	struct trace_run med[T_N];
	int reps = env.quick ? 1 : 3;
	char tool[PATH_MAX];

	emit_md("\n### perfbuf trace vs bpftrace\n\n");
	if (!perfbuf_tool(tool, sizeof(tool))) {
		emit_md("skipped: cannot find the perfbuf tool next to perfbuf-bench\n");
		return 0;
	}
	printf("\nsyscall storm, %d rounds of %.0f s: untraced, perfbuf trace, bpftrace printf, bpftrace count...\n",
	       reps, secs);
	storm_rounds(trace_once, T_N, tool, secs, reps, med);
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

/* ---- `perfbuf profile` against perf record and bpftrace ---------------- */

enum profiler { PR_NONE, PR_PB_BPF, PR_PB_PERF, PR_PERF, PR_BPFTRACE, PR_N };

struct prof_bench_run {
	double rate;		/* the workload's rounds per second of its own
				 * CPU time; 0: not run */
	double wall_rate;	/* its rounds per second of wall time */
	double cpu_s;		/* the profiler's CPU seconds while sampling */
	__u64 samples;		/* as the profiler reports them */
};

/* The profiled workload: a call chain 12 deep, then arithmetic and a
 * getppid() per round, on the producer CPU. */
static volatile __u64 prof_sink;

static __attribute__((noinline)) void prof_work(int depth)
{
	if (depth) {
		prof_work(depth - 1);
		prof_sink++;	/* not a tail call: the frames stay */
		return;
	}
	for (int i = 0; i < 2000; i++)
		prof_sink += (__u64)i * i;
	prof_sink += (__u64)syscall(SYS_getppid);
}

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Rounds per second of the workload's own CPU time (what a profiler's
 * interrupts and cache misses take from it; other jobs on the machine
 * take wall time, not this), and per second of wall time. */
static void run_workload(double secs, struct prof_bench_run *r)
{
	__u64 t0 = perfbuf_now_ns(), end = t0 + (__u64)(secs * 1e9), n = 0;
	double c0 = thread_cpu_s();

	while (perfbuf_now_ns() < end) {
		for (int i = 0; i < 100; i++)
			prof_work(12);
		n += 100;
	}
	r->rate = n / (thread_cpu_s() - c0);
	r->wall_rate = n / ((perfbuf_now_ns() - t0) / 1e9);
}

/* CPU time of every thread of @pid so far, in seconds (schedstat: ns) */
static double proc_cpu_s(pid_t pid)
{
	char path[64], spath[384];
	unsigned long long ns, sum = 0;
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(spath, sizeof(spath), "%s/%s/schedstat", path, d->d_name);
		f = fopen(spath, "r");
		if (f && fscanf(f, "%llu", &ns) == 1)
			sum += ns;
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return (double)sum / 1e9;
}

/* The samples the profiler's log reports (perfbuf profile's summary,
 * perf record's "(N samples)", bpftrace's map: the sum of its counts). */
static __u64 log_samples(enum profiler p, const char *log)
{
	char line[8192];
	__u64 n = 0, v;
	FILE *f = fopen(log, "r");
	const char *at;

	while (f && fgets(line, sizeof(line), f)) {
		if (p == PR_BPFTRACE && (at = strstr(line, "]: ")) &&
		    sscanf(at + 3, "%llu", (unsigned long long *)&v) == 1)
			n += v;
		else if (p == PR_PERF && (at = strstr(line, " samples) ]"))) {
			while (at > line && at[-1] != '(')
				at--;
			n = strtoull(at, NULL, 10);
		}
		else if ((p == PR_PB_BPF || p == PR_PB_PERF) &&
			 sscanf(line, "perfbuf profile: %llu samples in",
				(unsigned long long *)&v) == 1)
			n = v;
	}
	if (f)
		fclose(f);
	return n;
}

static void profile_once(enum profiler p, const char *tool, int hz, double secs,
			 struct prof_bench_run *r)
{
	char log[PATH_MAX], hzs[16], prog[96], data[PATH_MAX];
	char *pb_argv[] = { (char *)tool, "profile", "-F", hzs, "--engine",
			    p == PR_PB_BPF ? "bpf" : "perf", NULL };
	char *perf_argv[] = { "perf", "record", "-a", "-g", "-F", hzs, "-o", data,
			      NULL };
	char *bt_argv[] = { "bpftrace", "-e", prog, NULL };
	char *const *argv = p == PR_PERF ? perf_argv : p == PR_BPFTRACE ? bt_argv :
			    pb_argv;
	double cpu0;
	int status;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (p == PR_NONE) {
		run_workload(secs, r);
		return;
	}
	snprintf(hzs, sizeof(hzs), "%d", hz);
	snprintf(prog, sizeof(prog), "profile:hz:%d { @[kstack, ustack] = count(); }", hz);
	snprintf(data, sizeof(data), "%s/perf.data", env.out);
	snprintf(log, sizeof(log), "%s/profile-%s.log", env.out,
		 p == PR_PERF ? "perf" : p == PR_BPFTRACE ? "bpftrace" : "perfbuf");
	pid = spawn_tracer(argv, log, p == PR_PERF ? NULL :
			   p == PR_BPFTRACE ? "ttach" : "sampling");
	if (pid < 0)
		return;
	cpu0 = proc_cpu_s(pid);
	run_workload(secs, r);
	r->cpu_s = proc_cpu_s(pid) - cpu0;
	status = stop_tracer(pid);
	r->samples = log_samples(p, log);
	/* a run counts when the profiler reported its samples (perfbuf must
	 * also exit 0: SIGINT is its normal end) */
	if (!r->samples || ((p == PR_PB_BPF || p == PR_PB_PERF) && status))
		r->rate = 0;
	unlink(data);
}

static int cmp_prof_rate(const void *a, const void *b)
{
	const struct prof_bench_run *x = a, *y = b;

	return x->rate < y->rate ? -1 : x->rate > y->rate;
}

static const char *const prof_row[PR_N] = {
	"nothing", "`perfbuf profile` (engine bpf)", "`perfbuf profile --engine perf`",
	"`perf record -a -g`", "bpftrace `profile:hz:N { @[kstack, ustack] = count(); }`",
};

static void profile_rows(struct prof_bench_run med[2][PR_N], const int *hz,
			 double secs)
{
	emit_md("| profiler | Hz | workload rounds per CPU-s | vs unprofiled | rounds/s (wall) | profiler CPU | samples |\n"
		"|---|---:|---:|---:|---:|---:|---:|\n");
	for (int h = 0; h < 2; h++)
		for (int p = PR_NONE; p < PR_N; p++) {
			const struct prof_bench_run *r = &med[h][p];

			if (!r->rate)
				continue;
			if (p == PR_NONE) {
				emit_md("| %s | | %.0f | 1.000x | %.0f | | |\n",
					prof_row[p], r->rate, r->wall_rate);
				continue;
			}
			emit_md("| %s | %d | %.0f | %.3fx | %.0f | %.2f%% | %llu |\n",
				prof_row[p], hz[h], r->rate, r->rate / med[h][PR_NONE].rate,
				r->wall_rate, 100 * r->cpu_s / secs,
				(unsigned long long)r->samples);
		}
}

static void profile_targets(struct prof_bench_run med[2][PR_N], const int *hz)
{
	char what[160];

	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	for (int h = 0; h < 2; h++) {
		const struct prof_bench_run *m = med[h];

		if (m[PR_PB_BPF].rate && m[PR_PERF].rate) {
			snprintf(what, sizeof(what), "workload at %d Hz: under perfbuf (bpf) / under perf record", hz[h]);
			ratio_line(what, m[PR_PB_BPF].rate, m[PR_PERF].rate, 0.98, false);
		}
		if (m[PR_PB_BPF].rate && m[PR_BPFTRACE].rate) {
			snprintf(what, sizeof(what), "workload at %d Hz: under perfbuf (bpf) / under bpftrace", hz[h]);
			ratio_line(what, m[PR_PB_BPF].rate, m[PR_BPFTRACE].rate, 0.98, false);
		}
		if (m[PR_PB_PERF].rate && m[PR_PERF].rate) {
			snprintf(what, sizeof(what), "workload at %d Hz: under perfbuf (perf) / under perf record", hz[h]);
			info_line(what, m[PR_PB_PERF].rate, m[PR_PERF].rate);
		}
		if (m[PR_PB_BPF].cpu_s && m[PR_PERF].cpu_s) {
			snprintf(what, sizeof(what), "profiler CPU at %d Hz: perfbuf (bpf) / perf record", hz[h]);
			info_line(what, m[PR_PB_BPF].cpu_s, m[PR_PERF].cpu_s);
		}
		if (m[PR_PB_BPF].cpu_s && m[PR_BPFTRACE].cpu_s) {
			snprintf(what, sizeof(what), "profiler CPU at %d Hz: perfbuf (bpf) / bpftrace", hz[h]);
			info_line(what, m[PR_PB_BPF].cpu_s, m[PR_BPFTRACE].cpu_s);
		}
	}
}

/*
 * The profiled workload's slowdown: a call chain 12 deep doing arithmetic
 * and a getppid() per round on CPU0, unprofiled, then profiled system-wide
 * at 99 and at 999 Hz by perfbuf profile (both engines, folded output to
 * /dev/null), perf record -a -g (to a file, unsymbolized) and bpftrace
 * (stacks counted in the kernel); the profilers run where the scheduler
 * puts them. Rounds are interleaved; each row is the median round.
 */
static int bench_profile(double secs)
{
	static const int hz[2] = { 99, 999 };
	struct prof_bench_run runs[2][PR_N][3], med[2][PR_N];
	int reps = env.quick ? 1 : 3;
	char tool[PATH_MAX];

	emit_md("\n### perfbuf profile vs perf record and bpftrace\n\n");
	if (!perfbuf_tool(tool, sizeof(tool))) {
		emit_md("skipped: cannot find the perfbuf tool next to perfbuf-bench\n");
		return 0;
	}
	printf("\nprofiled workload, %d rounds of %.0f s: unprofiled, perfbuf profile (bpf, perf), perf record, bpftrace at 99 and 999 Hz...\n",
	       reps, secs);
	for (int i = 0; i < reps; i++)
		for (int h = 0; h < 2; h++)
			for (int p = 0; p < PR_N; p++) {
				pin_self(env.prod_cpu);
				profile_once(p, tool, hz[h], secs, &runs[h][p][i]);
			}
	for (int h = 0; h < 2; h++)
		for (int p = 0; p < PR_N; p++) {
			qsort(runs[h][p], reps, sizeof(runs[h][p][0]), cmp_prof_rate);
			med[h][p] = runs[h][p][reps / 2];
		}
	emit_md("A call chain 12 deep (arithmetic and a getppid() per round) on CPU%d, "
		"%.0f s per run, median of %d interleaved rounds (each Hz has its own "
		"unprofiled row); every profiler samples every CPU and runs where the "
		"scheduler puts it. The slowdown is in rounds per second of the "
		"workload's own CPU time (CLOCK_THREAD_CPUTIME_ID): what the sampling "
		"interrupts and the cache misses take from it, not what other jobs on "
		"the machine do; wall rounds/s for reference. Profiler CPU: all its "
		"threads' CPU time while the workload ran, in %% of one CPU "
		"(schedstat; perf record writes unsymbolized stacks to a file; perfbuf "
		"names them at the end, not counted here). Samples: over the profiler's "
		"whole run (start-up and the 1.5 s before it is stopped included). "
		"Missing rows: the profiler did not start (logs in "
		"%s/profile-*.log).\n\n",
		env.prod_cpu, secs, reps, env.out);
	profile_rows(med, hz, secs);
	profile_targets(med, hz);
	return 0;
}

/* Random addresses in this process's executable mappings (@user) or in
 * the kernel's text (from /proc/kallsyms) */
static int symbolize_addrs(bool user, __u64 *v, size_t n)
{
	unsigned long long lo, hi, a;
	__u64 ranges[64][2], *kaddr = NULL;
	size_t nr = 0, nk = 0, cap = 0;
	char line[512], perms[8], type;
	FILE *f = fopen(user ? "/proc/self/maps" : "/proc/kallsyms", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (user && nr < 64 && strchr(line, '/') &&
		    sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) == 3 && strchr(perms, 'x'))
			ranges[nr][0] = lo, ranges[nr++][1] = hi;
		else if (!user && sscanf(line, "%llx %c", &a, &type) == 2 &&
			 (type == 'T' || type == 't') && a) {
			if (nk == cap && !(kaddr = realloc(kaddr, (cap = cap ? cap * 2 : 65536) * 8)))
				break;
			kaddr[nk++] = a;
		}
	}
	if (f)
		fclose(f);
	if (user ? !nr : !nk) {
		free(kaddr);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (user) {
			size_t r = (size_t)rand() % nr;

			v[i] = ranges[r][0] + (__u64)rand() % (ranges[r][1] - ranges[r][0]);
		} else {
			v[i] = kaddr[(size_t)rand() % nk] + (__u64)(rand() % 16);
		}
	}
	free(kaddr);
	return 0;
}

/*
 * Naming 10 k distinct stacks (16 user frames in this process's
 * libraries, 8 kernel frames, all at random: few frames shared, the
 * worst case): the user frames resolved to (file, offset) with the
 * process's mappings, as samples are (the files' symbols read then), then
 * every frame named and the stacks folded, as at the end of a profile.
 */
static int bench_symbolize(void)
{
	enum { N = 10000, NU = 16, NK = 8 };
	static __u64 uaddr[N * NU], kaddr[N * NK];
	struct prof_opts o = { .user = true, .kernel = true };
	struct prof_run run = { .o = &o };
	struct sym_names *names = NULL;
	__u64 t0, t1, t2;
	FILE *null = fopen("/dev/null", "w");
	int err = -1;

	emit_md("\n### perfbuf profile: naming 10 k stacks\n\n");
	run.stacks = stacks_new();
	run.maps = maps_new();
	run.comms = comms_new();
	srand(1);
	if (!null || !run.stacks || !run.maps || !run.comms ||
	    symbolize_addrs(true, uaddr, N * NU) || symbolize_addrs(false, kaddr, N * NK)) {
		emit_md("skipped: no addresses to name (/proc/self/maps, /proc/kallsyms)\n");
		goto out;
	}
	t0 = perfbuf_now_ns();
	for (int i = 0; i < N; i++)
		prof_add_stack(&run, (__u32)getpid(), (__u32)getpid(), "bench",
			       kaddr + i * NK, NK, uaddr + i * NU, NU);
	t1 = perfbuf_now_ns();
	names = names_new(run.maps);
	err = names ? out_folded(null, &run, names) : -ENOMEM;
	t2 = perfbuf_now_ns();
	emit_md("%zu distinct stacks of %d user and %d kernel frames, at random addresses "
		"(few shared frames: the worst case).\n\n"
		"| step | time | per stack |\n|---|---:|---:|\n"
		"| resolve user frames to (file, offset), read the files' symbols | %.1f ms | %.2f us |\n"
		"| name every frame (kallsyms read), fold, sort, print | %.1f ms | %.2f us |\n",
		stacks_cnt(run.stacks), NU, NK, (t1 - t0) / 1e6, (t1 - t0) / 1e3 / N,
		(t2 - t1) / 1e6, (t2 - t1) / 1e3 / N);
out:
	names_free(names);
	stacks_free(run.stacks);
	maps_free(run.maps);
	comms_free(run.comms);
	if (null)
		fclose(null);
	return err;
}

/* ---- perfbuf record: capture at ring speed ---------------------------- */

#define REC_PAGES "1024"

/* Where the outputs of the record part go: [FS_TMPFS] /dev/shm when it is
 * a tmpfs, [FS_DISK] env.out when it is on a block device; dir is "" for
 * one that is not usable. what: "ext4 on /dev/vda". */
enum { FS_TMPFS, FS_DISK, FS_N };

struct rec_fs {
	char dir[FS_N][PATH_MAX];
	char what[FS_N][PATH_MAX + 320];
};

static const char *fs_name[FS_N] = { "tmpfs", "disk" };

/* The type and source of the filesystem holding @dir, from
 * /proc/self/mountinfo (its device number matched); false if not found. */
static bool fs_of(const char *dir, char *type, char *src)
{
	char line[4096], *sep;
	unsigned int maj, min;
	bool found = false;
	struct stat st;
	FILE *f;

	if (stat(dir, &st) || !(f = fopen("/proc/self/mountinfo", "r")))
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (sep && sscanf(line, "%*d %*d %u:%u", &maj, &min) == 2 &&
		    makedev(maj, min) == st.st_dev)
			found = sscanf(sep + 3, "%63s %255s", type, src) == 2;
	}
	fclose(f);
	return found;
}

static void rec_fs_find(struct rec_fs *fs)
{
	char type[64], src[256];

	memset(fs, 0, sizeof(*fs));
	if (fs_of("/dev/shm", type, src) && !strcmp(type, "tmpfs")) {
		snprintf(fs->dir[FS_TMPFS], PATH_MAX, "/dev/shm");
		snprintf(fs->what[FS_TMPFS], sizeof(fs->what[0]), "tmpfs at /dev/shm");
	}
	if (fs_of(env.out, type, src) && !strncmp(src, "/dev/", 5)) {
		snprintf(fs->dir[FS_DISK], PATH_MAX, "%s", env.out);
		snprintf(fs->what[FS_DISK], sizeof(fs->what[0]), "%s, %s on %s",
			 env.out, type, src);
	}
}

enum { RR_NONE, RR_REC_TMPFS, RR_REC_DISK, RR_TRACE_TMPFS, RR_TRACE_DISK, RR_N };

static bool rr_record(int k)
{
	return k == RR_REC_TMPFS || k == RR_REC_DISK;
}

static int rr_fs(int k)
{
	return k == RR_REC_DISK || k == RR_TRACE_DISK ? FS_DISK : FS_TMPFS;
}

struct rec_run {
	struct trace_run t;
	__u64 bytes;		/* the output file's size */
};

/* record's closing line on stderr:
 * "perfbuf record: N events, B bytes of records in FILE, L lost" */
static int record_counts(const char *log, struct rec_run *r)
{
	FILE *f = fopen(log, "r");
	unsigned long long e, b, l;
	char line[PATH_MAX + 128];
	int err = -ENOENT;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "perfbuf record: %llu events, %llu bytes of records in %*s %llu lost",
			   &e, &b, &l) == 3) {
			r->t.events = e;
			r->t.lost = l;
			err = 0;
		}
	if (f)
		fclose(f);
	return err;
}

/* trace --json's last line: {"type":"summary","received":N,...,"lost":N,...} */
static int json_counts(const char *path, struct rec_run *r)
{
	char buf[8192], *p, *e, *l;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t end = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	ssize_t n = end < 0 ? -1 :
		pread(fd, buf, sizeof(buf) - 1,
		      end > (off_t)sizeof(buf) - 1 ? end - (off_t)sizeof(buf) + 1 : 0);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	p = strstr(buf, "{\"type\":\"summary\",");
	e = p ? strstr(p, "\"received\":") : NULL;
	l = p ? strstr(p, "\"lost\":") : NULL;	/* the total's, before per_cpu */
	if (!e || !l)
		return -EBADMSG;
	r->t.events = strtoull(e + 11, NULL, 10);
	r->t.lost = strtoull(l + 7, NULL, 10);
	return 0;
}

/*
 * One storm under row @k: `perfbuf record` or `perfbuf trace --json`
 * writing to a file on tmpfs or disk, 1024 pages. The output is deleted,
 * or renamed to @keep (the capture the report part decodes).
 */
static void rec_once(int k, const char *tool, const struct rec_fs *fs,
		     double secs, const char *keep, struct rec_run *r)
{
	char out[PATH_MAX], log[PATH_MAX + 32], pid_s[16];
	char *rec_argv[] = { (char *)tool, "record", "-p", pid_s, "--pages", REC_PAGES,
			     "-o", out, "tracepoint:" STORM_TP, NULL };
	char *tr_argv[] = { (char *)tool, "trace", "--json", "-p", pid_s, "--pages",
			    REC_PAGES, "-o", out, "tracepoint:" STORM_TP, NULL };
	struct stat st;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (k == RR_NONE) {
		r->t.rate = run_storm(secs, false, &r->t.calls);
		return;
	}
	/* -p: only the storm, not getpgid() calls of other jobs */
	snprintf(pid_s, sizeof(pid_s), "%d", (int)getpid());
	snprintf(out, sizeof(out), "%s/perfbuf-bench-out.%s", fs->dir[rr_fs(k)],
		 rr_record(k) ? "cap" : "json");
	snprintf(log, sizeof(log), "%s/%s-%s.log", env.out,
		 rr_record(k) ? "record" : "trace-json", fs_name[rr_fs(k)]);
	pid = spawn_tracer(rr_record(k) ? rec_argv : tr_argv, log, "Attached");
	if (pid < 0)
		return;
	r->t.rate = run_storm(secs, false, &r->t.calls);
	r->t.status = stop_tracer(pid);
	if (!stat(out, &st))
		r->bytes = (__u64)st.st_size;
	if (!WIFEXITED(r->t.status) || WEXITSTATUS(r->t.status) ||
	    (rr_record(k) ? record_counts(log, r) : json_counts(out, r)))
		r->t.rate = 0;
	if (!keep || rename(out, keep))
		unlink(out);
}

static int cmp_rec_run(const void *a, const void *b)
{
	return cmp_rate(&((const struct rec_run *)a)->t, &((const struct rec_run *)b)->t);
}

static const char *rec_row_name[RR_N] = {
	"nothing",
	"`perfbuf record -o` tmpfs",
	"`perfbuf record -o` disk",
	"`perfbuf trace --json -o` tmpfs",
	"`perfbuf trace --json -o` disk",
};

/* @lost_all: each row's losses summed over its rounds */
static void rec_storm_report(const struct rec_run *med, const __u64 *lost_all,
			     const struct rec_fs *fs, double secs, int reps)
{
	emit_md("getpgid() in a loop on CPU%d, %.0f s per run, median of %d interleaved "
		"rounds; the tools at `-p` (the storm's process) `--pages %s`, where the "
		"scheduler puts them; "
		"tmpfs: %s; disk: %s.\n\n", env.prod_cpu, secs, reps, REC_PAGES,
		*fs->dir[FS_TMPFS] ? fs->what[FS_TMPFS] : "none",
		*fs->dir[FS_DISK] ? fs->what[FS_DISK] : "none");
	emit_md("| traced by | syscalls/s | vs untraced | events delivered | lost | "
		"lost, all rounds | file | bytes/event |\n"
		"|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int k = 0; k < RR_N; k++) {
		const struct rec_run *r = &med[k];

		if (k == RR_NONE) {
			emit_md("| %s | %.3f M | 1.00x | | | | | |\n", rec_row_name[k],
				r->t.rate / 1e6);
		} else if (!*fs->dir[rr_fs(k)]) {
			continue;
		} else if (!r->t.rate) {
			emit_md("| %s | failed (see %s/*.log) | | | | | | |\n",
				rec_row_name[k], env.out);
		} else {
			emit_md("| %s | %.3f M | %.2fx | %llu of %llu | %llu | %llu | %.0f MB | %.0f |\n",
				rec_row_name[k], r->t.rate / 1e6,
				r->t.rate / med[RR_NONE].t.rate,
				(unsigned long long)r->t.events,
				(unsigned long long)r->t.calls,
				(unsigned long long)r->t.lost,
				(unsigned long long)lost_all[k], r->bytes / 1e6,
				r->t.events ? (double)r->bytes / r->t.events : 0);
		}
	}
	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	for (int i = FS_TMPFS; i < FS_N; i++) {
		const struct rec_run *rec = &med[RR_REC_TMPFS + i];
		const struct rec_run *tr = &med[RR_TRACE_TMPFS + i];
		char what[128];

		if (!*fs->dir[i] || !rec->t.rate)
			continue;
		emit_md("| perfbuf record, %s: events lost at %s pages, all rounds | %llu | 0 | %s |\n",
			fs_name[i], REC_PAGES,
			(unsigned long long)lost_all[RR_REC_TMPFS + i],
			met(!lost_all[RR_REC_TMPFS + i]));
		if (!tr->t.rate)
			continue;
		snprintf(what, sizeof(what), "traced thread: record / trace --json, %s",
			 fs_name[i]);
		ratio_line(what, rec->t.rate, tr->t.rate, 1.0, false);
		snprintf(what, sizeof(what), "events delivered: record / trace --json, %s",
			 fs_name[i]);
		info_line(what, (double)rec->t.events, (double)tr->t.events);
	}
}

/*
 * The storm of the trace part (getpgid() flat out on CPU0) recorded by
 * `perfbuf record` and traced by `perfbuf trace --json`, each writing to
 * a file on tmpfs and on disk; rounds interleaved, each row's median
 * round kept. The last capture on tmpfs (disk without one) is left at
 * @cap for the report part; its events in *@cap_events.
 */
static void bench_record_storm(const char *tool, const struct rec_fs *fs,
			       double secs, const char *cap, __u64 *cap_events)
{
	struct rec_run runs[RR_N][MAX_REPS], med[RR_N];
	__u64 lost_all[RR_N] = {};
	int reps = env.quick ? 1 : MAX_REPS;
	int keep = *fs->dir[FS_TMPFS] ? RR_REC_TMPFS : RR_REC_DISK;

	printf("\nrecord: syscall storm, %d rounds of %.0f s: untraced, record and trace --json to tmpfs and disk...\n",
	       reps, secs);
	*cap_events = 0;
	for (int i = 0; i < reps; i++)
		for (int k = 0; k < RR_N; k++) {
			memset(&runs[k][i], 0, sizeof(runs[k][i]));
			if (k != RR_NONE && !*fs->dir[rr_fs(k)])
				continue;
			rec_once(k, tool, fs, secs, k == keep ? cap : NULL, &runs[k][i]);
			lost_all[k] += runs[k][i].t.lost;
			if (k == keep)
				*cap_events = runs[k][i].t.rate ? runs[k][i].t.events : 0;
		}
	for (int k = 0; k < RR_N; k++) {
		qsort(runs[k], (size_t)reps, sizeof(runs[k][0]), cmp_rec_run);
		med[k] = runs[k][reps / 2];
	}
	emit_md("\n### perfbuf record vs perfbuf trace --json\n\n");
	rec_storm_report(med, lost_all, fs, secs, reps);
}

/* ---- drain of a full ring to a file ----------------------------------- */

enum { FD_SPANS, FD_FRAME, FD_FWRITE, FD_N };

struct file_drain {
	struct drain_bench *b;
	const struct rec_fs *fs;
	int fd;			/* FD_SPANS */
	struct cap_writer *w;	/* FD_FRAME */
	FILE *f;		/* FD_FWRITE */
	__u64 bytes;		/* handed to the file by the last drain */
	__u32 crc;
	int err;
	__u64 t[FS_N][FD_N][DRAIN_ROUNDS];
	bool zlib;		/* span_crc(): zlib's crc32(), not cap_crc32() */
	__u64 t_crc[2][DRAIN_ROUNDS];	/* read_spans + cap_crc32() / zlib */
};

static void span_writev(void *ctx, int cpu, const struct iovec *iov, int cnt)
{
	struct file_drain *x = ctx;
	size_t len = 0;
	ssize_t n;

	(void)cpu;
	for (int i = 0; i < cnt; i++)
		len += iov[i].iov_len;
	n = writev(x->fd, iov, cnt);	/* a regular file takes it all */
	if (n != (ssize_t)len && !x->err)
		x->err = n < 0 ? -errno : -EIO;
	x->bytes += len;
}

/* What perfbuf record does with a span: a DATA frame, crc32 + writev */
static void span_frame(void *ctx, int cpu, const struct iovec *iov, int cnt)
{
	struct file_drain *x = ctx;
	int err = cap_writer__frame(x->w, CAP_DATA, (__u32)cpu, iov, cnt);

	if (err && !x->err)
		x->err = err;
	for (int i = 0; i < cnt; i++)
		x->bytes += iov[i].iov_len;
}

/* The frame's checksum alone: perfbuf record's (libdeflate), or zlib's
 * crc32(), the same function */
static void span_crc(void *ctx, int cpu, const struct iovec *iov, int cnt)
{
	struct file_drain *x = ctx;
	__u32 crc = 0;

	(void)cpu;
	for (int i = 0; i < cnt; i++) {
		crc = x->zlib ? (__u32)crc32(crc, iov[i].iov_base, (uInt)iov[i].iov_len) :
			cap_crc32(crc, iov[i].iov_base, iov[i].iov_len);
		x->bytes += iov[i].iov_len;
	}
	x->crc ^= crc;
}

/* libbpf's callback: each record as the ring holds it (the bytes the
 * span writers write), fwrite() to the FILE in the drain_ctx */
static enum bpf_perf_event_ret lb_fwrite_cb(void *ctx, int cpu,
					    struct perf_event_header *eh)
{
	struct drain_ctx *d = ctx;

	(void)cpu;
	fwrite(eh, eh->size, 1, d->out);
	d->n += eh->type == PERF_RECORD_SAMPLE;
	return LIBBPF_PERF_EVENT_CONT;
}

/* An empty output of kind @k on filesystem @fs (not timed). */
static int fd_open(struct file_drain *x, int fs, int k)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/perfbuf-bench-drain.%s", x->fs->dir[fs],
		 k == FD_FRAME ? "cap" : "bin");
	switch (k) {
	case FD_SPANS:
		x->fd = cli_open_output(path);
		return x->fd < 0 ? x->fd : 0;
	case FD_FRAME:
		x->w = cap_writer__open(path);
		return x->w ? 0 : -errno;
	default:
		x->b->d.out = x->f = cli_fopen_output(path);
		return x->f ? 0 : -errno;
	}
}

static int fd_close(struct file_drain *x, int k)
{
	int err = 0;

	if (k == FD_SPANS && close(x->fd))
		err = -errno;
	if (k == FD_FRAME)
		err = cap_writer__close(x->w, false);
	if (k == FD_FWRITE) {
		x->bytes = (__u64)ftell(x->f);
		if (fclose(x->f))
			err = -errno;
	}
	return err;
}

/* One timed drain of the full ring: kind @k into an empty file on @fs,
 * or (fs < 0) read_spans + the checksum only (zlib's when @k). */
static int fd_timed(struct file_drain *x, int fs, int k, __u64 *slot)
{
	struct drain_bench *b = x->b;
	int err = fill_ring(b->prog_fd, b->data_size);
	__u64 t;

	if (!err && fs >= 0)
		err = fd_open(x, fs, k);
	if (err)
		return err;
	x->err = 0;
	x->bytes = 0;
	b->d.n = 0;
	t = perfbuf_now_ns();
	x->zlib = k;
	if (fs < 0)
		err = perfbuf_ring__read_spans(b->ring, span_crc, x);
	else if (k == FD_FWRITE)
		err = perf_buffer__consume(b->lpb) ?: (fflush(x->f) ? -errno : 0);
	else
		err = perfbuf_ring__read_spans(b->ring, k == FD_SPANS ? span_writev :
					       span_frame, x);
	*slot = perfbuf_now_ns() - t;
	err = err < 0 ? err : x->err;
	if (fs >= 0)
		err = fd_close(x, k) ?: err;
	/* every record, in the file: the ring's bytes (a capture: + framing) */
	b->exact &= x->bytes >= b->want * REC_BYTES;
	return err;
}

/* The fastest drain: a drain takes about 2 ms, and a busy machine adds a
 * whole time slice (4 ms) to many of them, which moves a median. */
static __u64 fd_best(const __u64 *t)
{
	__u64 m = t[0];

	for (int i = 1; i < DRAIN_ROUNDS; i++)
		m = t[i] < m ? t[i] : m;
	return m;
}

/* Row @k: tmpfs and disk columns. */
static void fd_row(const struct file_drain *x, const char *what, int k)
{
	const struct drain_bench *b = x->b;
	double bytes = (double)(b->want * REC_BYTES);

	emit_md("| %s |", what);
	for (int fs = 0; fs < FS_N; fs++) {
		__u64 m = fd_best(x->t[fs][k]);

		if (!*x->fs->dir[fs]) {
			emit_md(" | | |");
			continue;
		}
		emit_md(" %.3f ms | %.0f | %.1f |", m / 1e6, bytes / (m / 1e9) / 1e6,
			(double)m / b->want);
	}
	emit_md("\n");
}

static void file_drain_report(const struct file_drain *x)
{
	const struct drain_bench *b = x->b;
	double bytes = (double)(b->want * REC_BYTES);
	__u64 crc = fd_best(x->t_crc[0]), zcrc = fd_best(x->t_crc[1]);

	emit_md("\n### Drain of a full ring to a file\n\n"
		"%llu records of %d B (%d B in the ring: %.1f MiB) in a %zu KiB ring, filled "
		"with the consumer idle, then drained into an empty file; the fastest of %d drains "
		"on CPU%d, each after a fill from CPU%d (other jobs add whole time slices to "
		"some). Timed: the drain and its writes (fflush() for stdio), not open and "
		"close. disk: %s.%s\n\n",
		(unsigned long long)b->want, REC_SIZE, REC_BYTES, bytes / (1 << 20),
		b->data_size / 1024, DRAIN_ROUNDS, env.cons_cpu, env.prod_cpu,
		*x->fs->dir[FS_DISK] ? x->fs->what[FS_DISK] : "none",
		b->exact ? "" : " **A drain missed records.**");
	emit_md("| drain to a file | tmpfs | MB/s | ns/record | disk | MB/s | ns/record |\n"
		"|---|---:|---:|---:|---:|---:|---:|\n");
	fd_row(x, "`perfbuf_ring__read_spans()` + `writev()`", FD_SPANS);
	fd_row(x, "the same as capture frames: + CRC-32 (perfbuf record)", FD_FRAME);
	fd_row(x, "libbpf `perf_buffer__consume()` + `fwrite()` per record", FD_FWRITE);
	emit_md("| `perfbuf_ring__read_spans()` + CRC-32 (libdeflate) alone, no file | %.3f ms | %.0f | %.1f | | | |\n",
		crc / 1e6, bytes / (crc / 1e9) / 1e6, (double)crc / b->want);
	emit_md("| `perfbuf_ring__read_spans()` + zlib `crc32()` alone, no file | %.3f ms | %.0f | %.1f | | | |\n",
		zcrc / 1e6, bytes / (zcrc / 1e9) / 1e6, (double)zcrc / b->want);
	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	for (int fs = 0; fs < FS_N; fs++) {
		char what[128];

		if (!*x->fs->dir[fs])
			continue;
		snprintf(what, sizeof(what), "read_spans + writev / perf_buffer__consume + fwrite, %s",
			 fs_name[fs]);
		ratio_aim_line(what, (double)fd_best(x->t[fs][FD_SPANS]),
			       (double)fd_best(x->t[fs][FD_FWRITE]), 1.0, 0.5);
		snprintf(what, sizeof(what), "capture frame / perf_buffer__consume + fwrite, %s",
			 fs_name[fs]);
		ratio_aim_line(what, (double)fd_best(x->t[fs][FD_FRAME]),
			       (double)fd_best(x->t[fs][FD_FWRITE]), 1.0, 0.5);
	}
	info_line("CRC-32 alone: libdeflate / zlib", (double)crc, (double)zcrc);
	if (*x->fs->dir[FS_TMPFS])
		info_line("CRC-32 alone / capture frames, tmpfs", (double)crc,
			  (double)fd_best(x->t[FS_TMPFS][FD_FRAME]));
}

/*
 * The drain part's full 4 MiB ring (filled by the producer CPU with the
 * consumer idle), drained into a file: perfbuf's spans written as they
 * are (writev, and as perfbuf record frames them: crc32 + writev) against
 * libbpf's perf_buffer__consume() with a callback that fwrite()s each
 * record; on tmpfs and on disk, interleaved.
 */
static int bench_file_drain(const struct rec_fs *fs)
{
	struct drain_bench *b = calloc(1, sizeof(*b));
	struct file_drain *x = calloc(1, sizeof(*x));
	int err = b && x ? 0 : -ENOMEM;

	if (err)
		goto out;
	pin_self(env.cons_cpu);
	*x = (struct file_drain){ .b = b, .fs = fs };
	b->data_size = env.pages * PAGE_SZ;
	b->want = (b->data_size - 8) / REC_BYTES;
	b->exact = true;
	b->lb_fn = lb_fwrite_cb;
	b->skel = emit_open_load(false, 0);
	err = b->skel ? 0 : -errno;
	if (!err) {
		b->prog_fd = bpf_program__fd(b->skel->progs.emit);
		err = drain_open_libbpf(b);
	}
	for (int i = 0; i < DRAIN_ROUNDS && !err; i++) {
		for (int f = 0; f < FS_N && !err; f++)
			for (int k = 0; k < FD_N && !err && *fs->dir[f]; k++)
				err = fd_timed(x, f, k, &x->t[f][k][i]);
		for (int z = 0; z < 2 && !err; z++)
			err = fd_timed(x, -1, z, &x->t_crc[z][i]);
	}
	if (!err)
		file_drain_report(x);
	else
		fprintf(stderr, "perfbuf-bench: drain to a file: %s\n", strerror(-err));
	for (int f = 0; f < FS_N; f++) {
		char path[PATH_MAX + 32];

		snprintf(path, sizeof(path), "%s/perfbuf-bench-drain.cap", fs->dir[f]);
		unlink(path);
		snprintf(path, sizeof(path), "%s/perfbuf-bench-drain.bin", fs->dir[f]);
		unlink(path);
	}
	perfbuf_ring__free(b->ring);
	perf_buffer__free(b->lpb);
	emit__destroy(b->skel);
out:
	free(b);
	free(x);
	return err;
}

/* ---- perfbuf report: decode rate -------------------------------------- */

/* Run @argv with stdout to /dev/null, stderr to report.log: its wall
 * seconds (0: it failed), CPU seconds (user + system) in *@cpu_s. */
static double run_timed(char *const argv[], double *cpu_s)
{
	char log[PATH_MAX + 16];
	__u64 t0 = perfbuf_now_ns();
	struct rusage ru;
	int status;
	pid_t pid;

	snprintf(log, sizeof(log), "%s/report.log", env.out);
	pid = fork();
	if (pid < 0)
		return 0;
	if (pid == 0) {
		int out = open("/dev/null", O_WRONLY), err = cli_open_output(log);

		if (out < 0 || err < 0)
			_exit(127);
		dup2(out, 1);
		dup2(err, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 0;
	*cpu_s = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	return (perfbuf_now_ns() - t0) / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

enum { RP_TEXT, RP_JSON, RP_PERF_DATA, RP_PERF_SCRIPT, RP_N };

/*
 * The storm's capture (@events events) decoded to /dev/null: `perfbuf
 * report` as text and JSON Lines, `perfbuf report --perf-data` (into a
 * perf.data next to it), and `perf script` of that file (perf's own
 * decoding of the same tracepoint, libtraceevent); @reps interleaved runs
 * of each, perf script once (it is the slow one); median wall times.
 */
static void bench_report(const char *tool, const char *cap, __u64 events,
			 int reps)
{
	static const char *name[RP_N] = {
		"`perfbuf report` (text)", "`perfbuf report --json`",
		"`perfbuf report --perf-data` (writes perf.data)",
		"`perf script` of that perf.data (text)",
	};
	char data[PATH_MAX + 48];
	char *argv[RP_N][6] = {
		{ (char *)tool, "report", (char *)cap, NULL },
		{ (char *)tool, "report", "--json", (char *)cap, NULL },
		{ (char *)tool, "report", "--perf-data", data, (char *)cap, NULL },
		{ "perf", "script", "-i", data, NULL },
	};
	double wall[RP_N][MAX_REPS] = {}, cpu[RP_N][MAX_REPS] = {}, m[RP_N], c[RP_N];
	int n[RP_N];
	struct stat st;

	snprintf(data, sizeof(data), "%s.data", cap);
	printf("\nreport: decoding the capture, %d rounds...\n", reps);
	for (int i = 0; i < reps; i++)
		for (int j = 0; j < RP_N; j++)
			if (j != RP_PERF_SCRIPT || !i)
				wall[j][i] = run_timed(argv[j], &cpu[j][i]);
	for (int j = 0; j < RP_N; j++) {
		n[j] = j == RP_PERF_SCRIPT ? 1 : reps;
		qsort(wall[j], (size_t)n[j], sizeof(double), cmp_double);
		qsort(cpu[j], (size_t)n[j], sizeof(double), cmp_double);
		m[j] = wall[j][n[j] / 2];
		c[j] = cpu[j][n[j] / 2];
	}
	emit_md("\n### perfbuf report decode rate\n\n");
	if (stat(cap, &st)) {
		emit_md("skipped: no capture from the record part\n");
		return;
	}
	emit_md("The record part's capture of the storm (%llu events of "
		"`syscalls:sys_enter_getpgid`, %.0f MB, one CPU's ring), decoded to /dev/null; "
		"median of %d interleaved runs (perf script: one); CPU: user + system.\n\n"
		"| decoded by | wall | events/s | CPU | ns/event (CPU) |\n"
		"|---|---:|---:|---:|---:|\n",
		(unsigned long long)events, st.st_size / 1e6, reps);
	for (int j = 0; j < RP_N; j++) {
		if (!m[j]) {
			emit_md("| %s | failed (see %s/report.log) | | | |\n", name[j], env.out);
			continue;
		}
		emit_md("| %s | %.2f s | %.2f M | %.2f s | %.0f |\n", name[j], m[j],
			events / m[j] / 1e6, c[j], c[j] * 1e9 / events);
	}
	unlink(data);
	if (!m[RP_TEXT] || !m[RP_PERF_SCRIPT])
		return;
	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	ratio_line("events/s: perfbuf report (text) / perf script", 1 / m[RP_TEXT],
		   1 / m[RP_PERF_SCRIPT], 1.0, false);
	if (m[RP_JSON])
		info_line("events/s: perfbuf report --json / text", 1 / m[RP_JSON],
			  1 / m[RP_TEXT]);
}

/*
 * perfbuf record's speed: on the trace part's syscall storm against
 * perfbuf trace --json (to tmpfs and disk), the drain of a full ring to
 * a file against libbpf with fwrite(), and perfbuf report's decode rate.
 */
static void bench_record(double secs)
{
	char tool[PATH_MAX], cap[PATH_MAX + 32];
	struct rec_fs fs;
	__u64 events = 0;

	rec_fs_find(&fs);
	if (!*fs.dir[FS_TMPFS] && !*fs.dir[FS_DISK]) {
		emit_md("\n### perfbuf record\n\nskipped: neither /dev/shm (tmpfs) nor %s "
			"(a block device) is usable\n", env.out);
		return;
	}
	if (getenv("XX_NOSTORM")) bench_file_drain(&fs), exit(0);
	if (perfbuf_tool(tool, sizeof(tool))) {
		snprintf(cap, sizeof(cap), "%s/perfbuf-bench-report.cap",
			 fs.dir[*fs.dir[FS_TMPFS] ? FS_TMPFS : FS_DISK]);
		bench_record_storm(tool, &fs, secs, cap, &events);
	} else {
		emit_md("\n### perfbuf record vs perfbuf trace --json\n\n"
			"skipped: cannot find the perfbuf tool next to perfbuf-bench\n");
	}
	bench_file_drain(&fs);
	if (events)
		bench_report(tool, cap, events, env.quick ? 1 : MAX_REPS);
	unlink(cap);
}

/* ---- a filter in the kernel against bpftrace's /pred/ ----------------- */

enum ftracer { F_NONE, F_PERFBUF, F_BPFTRACE, F_N };

static void filter_once(int t, const char *tool, double secs,
			struct trace_run *r)
{
	char log[PATH_MAX], prog[192];
	char *pb_argv[] = { (char *)tool, "trace", "--json", "-o", "/dev/null", "--stats",
			    "--filter", "args.pid == " STR(FILTER_PID), "tracepoint:" STORM_TP, NULL };
	char *bt_argv[] = { "bpftrace", "-e", prog, NULL };

	snprintf(log, sizeof(log), "%s/%s.log", env.out,
		 t == F_PERFBUF ? "filter" : "bpftrace-filter");
	snprintf(prog, sizeof(prog), "tracepoint:%s /args->pid == %d/ { printf(\"%%d %%d %%s\\n\", pid, args->pid, comm); }",
		 STORM_TP, FILTER_PID);
	storm_traced(t == F_NONE ? NULL : t == F_PERFBUF ? pb_argv : bt_argv, log,
		     t == F_PERFBUF, secs, true, r);
}

/*
 * The same storm, its argument cycling so that 1 call in 1000 passes the
 * filter: what a filter costs the traced thread when it rejects nearly
 * everything, `perfbuf trace --filter` against bpftrace's predicate.
 */
static int bench_filter(double secs)
{
	static const char *row[F_N] = {
		"nothing",
		"`perfbuf trace --filter 'args.pid == N'`",
		"`bpftrace -e '... /args->pid == N/ { printf(...) }'`",
	};
	struct trace_run med[F_N];
	int reps = env.quick ? 1 : MAX_REPS;
	char tool[PATH_MAX];

	emit_md("\n### --filter in the kernel vs bpftrace /pred/\n\n");
	if (!perfbuf_tool(tool, sizeof(tool))) {
		emit_md("skipped: cannot find the perfbuf tool next to perfbuf-bench\n");
		return 0;
	}
	printf("\nfilter storm, %d rounds of %.0f s: untraced, perfbuf trace --filter, bpftrace /pred/...\n",
	       reps, secs);
	storm_rounds(filter_once, F_N, tool, secs, reps, med);
	if (!med[F_PERFBUF].rate)
		emit_md("perfbuf row skipped: `perfbuf trace --filter` did not start, attach or "
			"exit cleanly (see %s/filter.log)\n\n", env.out);
	if (!med[F_BPFTRACE].rate)
		emit_md("bpftrace row skipped: bpftrace is missing or did not attach "
			"(scripts/setup.sh --bench installs it; see %s/bpftrace-filter.log)\n\n", env.out);
	emit_md("getpgid(N + i %% 1000) in a loop on CPU%d (N = %d, above pid_max: the "
		"call fails at once), 1 call in 1000 passes the filter; %.0f s per run, "
		"median of %d interleaved rounds.\n\n", env.prod_cpu, FILTER_PID, secs, reps);
	emit_md("| traced by | syscalls/s | vs untraced | events delivered | lost |\n"
		"|---|---:|---:|---:|---:|\n");
	for (int t = 0; t < F_N; t++) {
		struct trace_run *r = &med[t];

		if (!r->rate)
			continue;
		if (t == F_NONE)
			emit_md("| %s | %.3f M | 1.00x | | |\n", row[t], r->rate / 1e6);
		else
			emit_md("| %s | %.3f M | %.2fx | %llu of %llu | %llu |\n", row[t],
				r->rate / 1e6, r->rate / med[F_NONE].rate,
				(unsigned long long)r->events,
				(unsigned long long)(r->calls / 1000),
				(unsigned long long)r->lost);
	}
	if (med[F_PERFBUF].rate && med[F_BPFTRACE].rate) {
		emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
		ratio_line("traced thread: perfbuf --filter / bpftrace /pred/",
			   med[F_PERFBUF].rate, med[F_BPFTRACE].rate, 0.9, false);
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
"Then perfbuf default against ordered with producers on CPU0 and CPU1,\n"
"the drain of a full ring, perfbuf trace against bpftrace (every event,\n"
"and a filter passing 1 in 1000), perfbuf profile against perf record\n"
"and bpftrace (a profiled workload's slowdown) with the time to name 10 k\n"
"stacks, and perfbuf record against perfbuf trace --json (to tmpfs and\n"
"disk), a full ring drained to a file against libbpf with fwrite(),\n"
"perfbuf report's rate.\n"
"Needs root and 2 online CPUs. Takes about 11 minutes (--quick: 3).\n"
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
"                     sweep), ordered, drain, trace, filter, profile or\n"
"                     record\n"
"      --peers LIST   the throughput table's consumers, comma-separated:\n"
"                     perfbuf, perfbuf_wake1, perfbuf_ts, perfbuf_ordered,\n"
"                     libbpf_pb, libbpf_raw, libbpf_rb (default: all)\n"
"  -h, --help         this text\n"
"\n"
"Examples:\n"
"  make bench                          # setup, build, run, into build/bench\n"
"  build/perfbuf-bench --quick --no-trace\n"
"  build/perfbuf-bench --only throughput --peers perfbuf,libbpf_raw -d 10\n");
}

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

/* An option with a value; 0, or 1 after saying what is wrong. */
static int parse_value(int opt, const char *arg)
{
	static const char *parts[] = { "throughput", "ordered", "drain", "trace",
				       "filter", "profile", "record" };
	const char *want;
	long v;

	switch (opt) {
	case 'd':
		want = "--duration wants 1..600 seconds";
		if (cli_parse_long(arg, 1, 600, &v))
			break;
		env.secs = (double)v;
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
		       "perfbuf_ordered, libbpf_pb, libbpf_raw, libbpf_rb";
		if (parse_peers(arg))
			break;
		return 0;
	case 'O':
		want = "--only wants throughput, ordered, drain, trace, filter, profile or record";
		for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
			if (!strcmp(arg, parts[i]))
				env.only = parts[i];
		if (!env.only)
			break;
		return 0;
	default:	/* -o */
		env.out = arg;
		return 0;
	}
	fprintf(stderr, "perfbuf-bench: %s, not '%s'\n", want, arg);
	return 1;
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
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":d:p:b:o:qh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd': case 'p': case 'b': case 'o': case 'O': case 'P':
			if (parse_value(opt, optarg))
				return 1;
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
		case 'h':
			usage(stdout);
			return 2;
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
	return 0;
}

/* Privileges, file descriptors and the two CPUs; 0 or -1 (said). */
static int check_system(void)
{
	int cpus[1024], n_on;
	bool has_prod = false, has_cons = false;

	if (cli_need_privileges("perfbuf-bench", CLI_BPF) ||
	    cli_need_fds("perfbuf-bench", 0))
		return -1;
	n_on = perfbuf_online_cpus(cpus, 1024);
	for (int i = 0; i < n_on; i++) {
		has_prod |= cpus[i] == env.prod_cpu;
		has_cons |= cpus[i] == env.cons_cpu;
	}
	if (!has_prod || !has_cons) {
		fprintf(stderr, "perfbuf-bench: needs CPUs %d and %d online\n",
			env.prod_cpu, env.cons_cpu);
		return -1;
	}
	return 0;
}

static bool part_on(const char *part)
{
	return !env.only || !strcmp(env.only, part);
}

static void run_parts(void)
{
	int reps = env.quick ? 1 : MAX_REPS;
	struct result sat[N_PEERS] = {}, low[N_PEERS] = {};

	if (part_on("throughput")) {
		bench_throughput(reps, sat, low);
		if (!env.only && !env.no_sweep)
			bench_sweep(sat);
	}
	if (part_on("ordered"))
		bench_ordered(reps);
	if (part_on("drain"))
		bench_drain();
	if (part_on("trace") && !(env.no_trace && !env.only))
		bench_trace(env.quick ? 2 : 3);
	if (part_on("filter") && !(env.no_trace && !env.only))
		bench_filter(env.quick ? 2 : 3);
	if (part_on("profile")) {
		bench_profile(env.quick ? 1 : 3);
		bench_symbolize();
	}
	if (part_on("record"))
		bench_record(env.quick ? 2 : 3);
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	int ret = parse_args(argc, argv);

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
	md = cli_fopen_output(path);
	if (!md) {
		fprintf(stderr, "perfbuf-bench: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	libbpf_set_print(NULL);
	signal(SIGPIPE, SIG_IGN);
	run_parts();
	fclose(md);
	printf("\ntable: %s/bench.md\n", env.out);
	return 0;
}
