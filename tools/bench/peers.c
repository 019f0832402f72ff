// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench: the peers (perfbuf, libbpf perf_buffer and ring_buffer)
 * consuming one BPF producer: one measurement is run_point(). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/epoll.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"

#include "emit.skel.h"

const char *const peer_name[N_PEERS] = {
	"perfbuf default",
	"perfbuf wakeup_events=1",
	"perfbuf timestamps",
	"perfbuf ordered",
	"libbpf perf_buffer default",
	"libbpf perf_buffer_raw, same watermark",
	"libbpf ring_buffer",
	"perfbuf default, a callback counting by kind",
	"libbpf perf_buffer_raw, same watermark, the same callback",
	"the floor: libbpf's rings read by an inline loop, no callback",
	"perfbuf's inline iterator on libbpf's rings, no callback",
};

const char *const peer_key[N_PEERS] = {
	"perfbuf", "perfbuf_wake1", "perfbuf_ts", "perfbuf_ordered",
	"libbpf_pb", "libbpf_raw", "libbpf_rb", "perfbuf_kind", "libbpf_kind",
	"floor", "perfbuf_iter",
};

/* In the offered-rate sweep and its plot. timestamps and ordered are
 * left out to keep the run short (the sweep takes a minute and a half):
 * the throughput table has their flat-out and 1 k/s rows. */
const bool peer_swept[N_PEERS] = {
	[PB_DEFAULT] = true, [PB_WAKE1] = true, [LB_DEFAULT] = true,
	[LB_RAW] = true, [LB_RINGBUF] = true,
};

#define MAX_RINGS 64

struct consumer {
	enum peer peer;
	int cpu;		/* pinned there; -1: where the scheduler puts it */
	bool check_order;	/* perfbuf: pb_order_cb() */
	struct perfbuf *pb;
	struct perf_buffer *lpb;
	struct ring_buffer *rb;
	struct perfbuf_ring *iter_ring[MAX_RINGS];	/* PB_ITER */
	int stop;
	__u64 received;
	__u64 lost_seen;	/* as reported to the consumer */
	__u64 lat_mask;		/* take the latency of seq & mask == 0 */
	__u64 seq_sum;		/* keeps the record read from being elided */
	__u64 last_ns;		/* order check: the newest time seen */
	__u64 late;		/* records flagged PERFBUF_RECF_LATE */
	__u64 disorder;		/* older than one before them, not flagged */
	struct lat_hist lat;
	__u64 kinds[16];	/* PB_KIND, LB_KIND: records by kind */
	__u64 cpu_ns;
	int err;
	pthread_t thread;
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

/* A payload that wraps the ring's end (perfbuf hands it over in two
 * slices, where libbpf copies it for every consumer): copied here, out of
 * the common path, as drain.c's callback does. */
static __attribute__((noinline, cold)) void
seen_wrapped(struct consumer *c, const struct perfbuf_record *rec)
{
	struct emit_rec r;

	perfbuf_record__copy(rec, &r, sizeof(r));
	seen(c, &r);
}

static int pb_cb(void *ctx, const struct perfbuf_record *rec)
{
	struct consumer *c = ctx;

	if (rec->kind == PERFBUF_REC_LOST)
		c->lost_seen += rec->lost;
	else if (rec->data_sz >= 16)
		seen(c, rec->data);
	else
		seen_wrapped(c, rec);
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
	    perfbuf_record__copy(rec, &r, sizeof(r)) == sizeof(r))
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

/*
 * The same-callback pair: each callback only counts the records it is
 * handed by their kind (perfbuf's kind, the perf record type), so the two
 * consumers differ only in what reads the ring and calls back.
 */
static int pb_kind_cb(void *ctx, const struct perfbuf_record *rec)
{
	((struct consumer *)ctx)->kinds[rec->kind & 15]++;
	return PERFBUF_CONTINUE;
}

static enum bpf_perf_event_ret lb_kind_event(void *ctx, int cpu,
					     struct perf_event_header *eh)
{
	(void)cpu;
	((struct consumer *)ctx)->kinds[eh->type & 15]++;
	return LIBBPF_PERF_EVENT_CONT;
}

/*
 * The floor: the default rows' work per record (seen()) done by a loop
 * over libbpf's mmaps with no callback at all, woken by the same
 * watermark. It does the loads every consumer must do and nothing else,
 * so that its ns/record is about what this host's caches allow.
 */
static __attribute__((noinline, cold)) void
floor_wrapped(struct consumer *c, const char *data, size_t data_sz,
	      __u64 off, __u32 size)
{
	char rec[128];
	size_t first = data_sz - off;

	if (size > sizeof(rec)) {
		c->err = -EBADMSG;
		return;
	}
	memcpy(rec, data + off, first);
	memcpy(rec + first, data, size - first);
	if (((struct perf_event_header *)rec)->type == PERF_RECORD_SAMPLE)
		seen(c, rec + 12);
	else if (((struct perf_event_header *)rec)->type == PERF_RECORD_LOST)
		c->lost_seen += ((const __u64 *)(rec + 8))[1];	/* id, lost */
}

/* The same work through perfbuf's iterator, over the same mmap. */
static int iter_ring(struct consumer *c, struct perfbuf_ring *ring)
{
	struct perfbuf_iter it = perfbuf_ring__begin(ring);
	struct perfbuf_record rec;

	while (perfbuf_iter__next(&it, &rec)) {
		if (rec.kind == PERFBUF_REC_LOST) {
			c->lost_seen += rec.lost;
		} else if (rec.data_sz >= 16) {
			seen(c, rec.data);
		} else {
			/* the payload's slices only: rec stays in
			 * registers, its other fields unused */
			struct perfbuf_record w = {
				.data = rec.data, .data_sz = rec.data_sz,
				.data2 = rec.data2, .data2_sz = rec.data2_sz,
			};

			seen_wrapped(c, &w);
		}
	}
	return perfbuf_ring__end(ring, it);
}

static int floor_ring(struct consumer *c, int idx)
{
	struct perf_event_mmap_page *h;
	size_t data_sz;		/* libbpf's mmap size: the data pages */
	const char *data;
	__u64 head, tail;
	void *base;

	if (perf_buffer__buffer(c->lpb, idx, &base, &data_sz))
		return -EINVAL;
	h = base;
	data = (const char *)base + PAGE_SZ;
	head = __atomic_load_n(&h->data_head, __ATOMIC_ACQUIRE);
	tail = h->data_tail;
	while (tail != head) {
		__u64 off = tail & (data_sz - 1);
		const struct perf_event_header *eh = (const void *)(data + off);
		__u32 size = eh->size;

		if (__builtin_expect(size < sizeof(*eh), 0)) {
			c->err = -EBADMSG;	/* damaged: no way on */
			break;
		}
		if (__builtin_expect(off + size > data_sz, 0))
			floor_wrapped(c, data, data_sz, off, size);
		else if (eh->type == PERF_RECORD_SAMPLE)
			seen(c, (const char *)eh + 12);
		else if (eh->type == PERF_RECORD_LOST)
			c->lost_seen += ((const __u64 *)(eh + 1))[1];
		tail += size;
	}
	__atomic_store_n(&h->data_tail, tail, __ATOMIC_RELEASE);
	return 0;
}

static int floor_drain(struct consumer *c)
{
	int err = 0;

	for (size_t i = 0; i < perf_buffer__buffer_cnt(c->lpb) && !err; i++)
		err = c->peer == PB_ITER ? iter_ring(c, c->iter_ring[i]) :
		      floor_ring(c, (int)i);
	return err ?: c->err;
}

/* Every ring on any wake-up, as perfbuf's collector drains them. */
static int floor_poll(struct consumer *c, int timeout_ms)
{
	struct epoll_event ev[64];
	int n = epoll_wait(perf_buffer__epoll_fd(c->lpb), ev, 64, timeout_ms);

	if (n <= 0)
		return n < 0 ? -errno : 0;
	return floor_drain(c);
}

bool kind_peer(enum peer p)
{
	return p == PB_KIND || p == LB_KIND;
}

/* The peers that read libbpf's rings with a loop of the bench's own. */
static bool own_loop(enum peer p)
{
	return p == LB_FLOOR || p == PB_ITER;
}

static bool is_perfbuf(enum peer p)
{
	return p <= PB_ORDERED || p == PB_KIND;
}

/* Everything left after the producers stopped; < 0 on failure. perfbuf
 * and libbpf count records delivered, ring_buffer__consume() too. */
static int consume_all(struct consumer *c)
{
	if (is_perfbuf(c->peer))
		return perfbuf__drain(c->pb);
	if (own_loop(c->peer))
		return floor_drain(c);
	if (c->lpb)
		return perf_buffer__consume(c->lpb);
	return ring_buffer__consume(c->rb);
}

static int poll_once(struct consumer *c)
{
	if (is_perfbuf(c->peer))
		return perfbuf__poll(c->pb, 100);
	if (own_loop(c->peer))
		return floor_poll(c, 100);
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

int perf_attr_wm(struct perf_event_attr *attr, __u32 watermark)
{
	PERFBUF_OPTS(perfbuf_event_opts, eo, .kind = PERFBUF_EV_SOFTWARE,
		     .config = PERF_COUNT_SW_BPF_OUTPUT, .sample_period = 1,
		     .sample_type = PERF_SAMPLE_RAW,
		     .wakeup_watermark = watermark);

	return perfbuf_event__attr(attr, &eo);
}

/* PB_ITER: a perfbuf_ring over each of libbpf's mmaps. */
static int iter_rings_open(struct consumer *c, size_t pages)
{
	size_t n = perf_buffer__buffer_cnt(c->lpb);

	if (n > MAX_RINGS)
		return -E2BIG;
	for (size_t i = 0; i < n; i++) {
		size_t sz;
		void *base;

		if (perf_buffer__buffer(c->lpb, (int)i, &base, &sz))
			return -EINVAL;
		c->iter_ring[i] = perfbuf_ring__new_mem(base, PAGE_SZ, pages);
		if (!c->iter_ring[i])
			return -errno;
	}
	return 0;
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
		c->pb = perfbuf__new(map_fd, c->peer == PB_KIND ? pb_kind_cb :
				     c->check_order ? pb_order_cb : pb_cb, c, &o);
		return c->pb ? 0 : -errno;
	}
	switch (c->peer) {
	case LB_DEFAULT:
		c->lpb = perf_buffer__new(map_fd, pages, lb_sample, lb_lost, c, NULL);
		return c->lpb ? 0 : -errno;
	case LB_RAW:
	case LB_KIND:
	case LB_FLOOR:
	case PB_ITER:
		/* perfbuf's default watermark: a quarter of the ring */
		err = perf_attr_wm(&attr, (__u32)(pages * PAGE_SZ / 4));
		if (err)
			return err;
		c->lpb = perf_buffer__new_raw(map_fd, pages, &attr,
					      c->peer == LB_KIND ? lb_kind_event :
					      lb_raw_event, c, NULL);
		if (!c->lpb)
			return -errno;
		return c->peer == PB_ITER ? iter_rings_open(c, pages) : 0;
	default:
		c->rb = ring_buffer__new(map_fd, rb_sample, c, NULL);
		return c->rb ? 0 : -errno;
	}
}

static void consumer_close(struct consumer *c)
{
	perfbuf__free(c->pb);
	for (int i = 0; i < MAX_RINGS; i++) {
		perfbuf_ring__free(c->iter_ring[i]);
		c->iter_ring[i] = NULL;
	}
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
	int cpus[1024], n = perfbuf_cpus__online(cpus, 1024);

	return n > 0 ? n : 1;
}

void sleep_ns(__u64 ns)
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
	e->prog_fd = emit_prog_fd(e->skel, rb);
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
int run_point(const struct point *pt, struct result *out)
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
		if (kind_peer(pt->peer))
			c->received = c->kinds[pt->peer == PB_KIND ? PERFBUF_REC_SAMPLE :
					       PERF_RECORD_SAMPLE];
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
