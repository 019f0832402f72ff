// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record times and one stream in time order: the merge on synthetic rings
 * (known times, a forced late record, LOST records, budgets and stops),
 * then the collector's `timestamps` and `ordered` options on real rings.
 */
#include <pthread.h>
#include <stdint.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "emit_util.h"
#include "common/producer.h"
#include "synth.h"
#include "test.h"
#include "ring_priv.h"
#include "collector_priv.h"

#define TS_RAW (PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)
#define MAX_GOT 4096

/* What a merge handed over. */
struct got {
	size_t n;
	struct {
		enum perfbuf_record_kind kind;
		int cpu;
		__u64 time_ns;
		__u64 lost;
		__u32 flags;
		__u32 tag;	/* first 4 payload bytes */
	} r[MAX_GOT];
	size_t stop_every;	/* stop on every Nth record */
};

static int collect(void *ctx, const struct perfbuf_record *rec)
{
	struct got *g = ctx;

	if (g->n < MAX_GOT) {
		g->r[g->n].kind = rec->kind;
		g->r[g->n].cpu = rec->cpu;
		g->r[g->n].time_ns = rec->time_ns;
		g->r[g->n].lost = rec->lost;
		g->r[g->n].flags = rec->flags;
		g->r[g->n].tag = 0;
		perfbuf_record__copy(rec, &g->r[g->n].tag, sizeof(g->r[0].tag));
	}
	g->n++;
	return g->stop_every && g->n % g->stop_every == 0 ? PERFBUF_STOP :
							    PERFBUF_CONTINUE;
}

static struct got g;

/* @n synthetic rings with time-stamped records, in one merge. */
struct rings {
	struct synth s[4];
	size_t n;
	struct perfbuf_merge *m;
};

static bool rings_init(struct rings *r, size_t n, size_t pages)
{
	memset(r, 0, sizeof(*r));
	memset(&g, 0, sizeof(g));
	r->m = perfbuf_merge__new();
	if (!ASSERT_OK_PTR(r->m, "merge"))
		return false;
	for (r->n = 0; r->n < n; r->n++) {
		if (!ASSERT_OK(synth_init(&r->s[r->n], pages, 0), "synth_init"))
			return false;
		perfbuf_ring__set_cpu(r->s[r->n].ring, (int)r->n);
		perfbuf_ring__set_sample_type(r->s[r->n].ring, TS_RAW, true);
		if (!ASSERT_OK(perfbuf_merge__add(r->m, r->s[r->n].ring), "add"))
			return false;
	}
	return true;
}

static void rings_free(struct rings *r)
{
	perfbuf_merge__free(r->m);
	for (size_t i = 0; i < r->n; i++)
		synth_free(&r->s[i]);
}

static void put(struct rings *r, size_t ring, __u64 t, __u32 tag)
{
	ASSERT_TRUE(synth_sample_at(&r->s[ring], t, &tag, sizeof(tag)), "fits");
}

static void publish(struct rings *r)
{
	for (size_t i = 0; i < r->n; i++)
		synth_publish(&r->s[i]);
}

/* Times non-decreasing but for records flagged late; the late count. */
static size_t check_order(const struct got *got, const char *what)
{
	__u64 last = 0;
	size_t late = 0, bad = 0;

	for (size_t i = 0; i < got->n && i < MAX_GOT; i++) {
		if (got->r[i].flags & PERFBUF_RECF_LATE) {
			late++;
			bad += got->r[i].time_ns >= last;	/* flagged for nothing */
			continue;
		}
		bad += got->r[i].time_ns < last;
		last = got->r[i].time_ns;
	}
	ASSERT_EQ(bad, 0, what);
	return late;
}

TEST(merge_interleaved)
{
	struct rings r;

	if (!rings_init(&r, 3, 1))
		goto out;
	/* ring i holds times i, i + 3, i + 6, ...: the stream is 0, 1, 2, ... */
	for (__u32 t = 0; t < 90; t++)
		put(&r, t % 3, 1000 + t, t);
	publish(&r);
	ASSERT_EQ(perfbuf_merge__fold(r.m, UINT64_MAX, 0, collect, &g), 90, "all delivered");
	for (__u32 i = 0; i < 90 && i < g.n; i++) {
		if (!ASSERT_EQ(g.r[i].tag, i, "in time order") ||
		    !ASSERT_EQ(g.r[i].cpu, (int)(i % 3), "from its ring") ||
		    !ASSERT_EQ(g.r[i].time_ns, 1000 + i, "time read"))
			break;
	}
	ASSERT_EQ(check_order(&g, "order"), 0, "nothing late");
	ASSERT_EQ(perfbuf_merge__last_ns(r.m), 1089, "last time");
	for (size_t i = 0; i < r.n; i++)
		ASSERT_EQ(perfbuf_ring__avail(r.s[i].ring), 0, "rings consumed");
out:
	rings_free(&r);
}

TEST(merge_horizon)
{
	struct rings r;

	if (!rings_init(&r, 2, 1))
		goto out;
	put(&r, 0, 10, 1);
	put(&r, 1, 20, 2);
	put(&r, 0, 30, 3);
	put(&r, 1, 40, 4);
	publish(&r);
	ASSERT_EQ(perfbuf_merge__fold(r.m, 25, 0, collect, &g), 2, "up to the horizon");
	ASSERT_EQ(g.r[1].tag, 2, "10 then 20");
	ASSERT_EQ(perfbuf_ring__avail(r.s[0].ring), perfbuf_record__sample_size(4, TS_RAW),
		  "newer records stay in their ring");
	ASSERT_EQ(perfbuf_merge__fold(r.m, 25, 0, collect, &g), 0, "nothing new below it");
	ASSERT_EQ(perfbuf_merge__fold(r.m, 40, 0, collect, &g), 2, "the rest");
	ASSERT_EQ(g.r[2].tag, 3, "30");
	ASSERT_EQ(g.r[3].tag, 4, "40");
out:
	rings_free(&r);
}

/* A record that shows up after a newer one went out is delivered, late. */
TEST(merge_forced_late)
{
	struct perfbuf_ring_stats st = { .sz = sizeof(st) };
	struct rings r;

	if (!rings_init(&r, 2, 1))
		goto out;
	put(&r, 0, 10, 1);
	put(&r, 0, 30, 2);
	publish(&r);
	ASSERT_EQ(perfbuf_merge__fold(r.m, 35, 0, collect, &g), 2, "10 and 30");
	put(&r, 1, 20, 3);	/* its producer was interrupted */
	put(&r, 1, 40, 4);
	publish(&r);
	ASSERT_EQ(perfbuf_merge__fold(r.m, 50, 0, collect, &g), 2, "20 and 40");
	ASSERT_EQ(g.r[2].tag, 3, "the late one first");
	ASSERT_TRUE(g.r[2].flags & PERFBUF_RECF_LATE, "flagged late");
	ASSERT_EQ(g.r[2].time_ns, 20, "with its own time");
	ASSERT_EQ(g.r[3].flags, 0, "the next one is not");
	ASSERT_EQ(check_order(&g, "order but for the late one"), 1, "one late");
	perfbuf_ring__stats(r.s[1].ring, &st);
	ASSERT_EQ(st.late, 1, "counted on its ring");
	perfbuf_ring__stats(r.s[0].ring, &st);
	ASSERT_EQ(st.late, 0, "not on the other");
out:
	rings_free(&r);
}

/* LOST records take their place at the time the ring reported them. */
TEST(merge_lost_in_stream)
{
	struct rings r;

	if (!rings_init(&r, 2, 1))
		goto out;
	put(&r, 0, 10, 1);
	put(&r, 0, 40, 4);
	ASSERT_TRUE(synth_lost_at(&r.s[1], 7, 5, 25), "lost record");
	put(&r, 1, 30, 3);
	publish(&r);
	ASSERT_EQ(perfbuf_merge__fold(r.m, UINT64_MAX, 0, collect, &g), 4, "all");
	ASSERT_EQ(g.r[1].kind, PERFBUF_REC_LOST, "LOST second");
	ASSERT_EQ(g.r[1].time_ns, 25, "at its time");
	ASSERT_EQ(g.r[1].lost, 5, "its count");
	ASSERT_EQ(g.r[1].cpu, 1, "its ring");
	ASSERT_EQ(g.r[2].tag, 3, "then 30");
	ASSERT_EQ(check_order(&g, "order"), 0, "nothing late");
out:
	rings_free(&r);
}

/* Budgets and stops end a fold anywhere; the stream stays in order and
 * complete, nothing repeated. */
TEST(merge_budget_and_stop)
{
	struct rings r;
	__u32 tag = 0;
	int calls = 0;

	if (!rings_init(&r, 3, 4))
		goto out;
	for (__u64 t = 1; t <= 600; t++)
		put(&r, (t * 7) % 3, t * 10 + (t % 3), tag++);
	publish(&r);
	g.stop_every = 13;
	while (g.n < 600 && calls++ < 1000)
		perfbuf_merge__fold(r.m, UINT64_MAX, calls % 2 ? 5 : 0, collect, &g);
	ASSERT_EQ(g.n, 600, "all, once");
	ASSERT_GT(calls, 50, "in many folds");
	for (__u32 i = 0; i < 600; i++)
		if (!ASSERT_EQ(g.r[i].tag, i, "in order"))
			break;
	ASSERT_EQ(check_order(&g, "order"), 0, "nothing late");
out:
	rings_free(&r);
}

/* Records without a time (other layouts, LOST without sample_id_all) go
 * out when they reach a ring's head, never late. */
TEST(merge_untimed_records)
{
	struct rings r;

	if (!rings_init(&r, 2, 1))
		goto out;
	perfbuf_ring__set_sample_type(r.s[1].ring, PERF_SAMPLE_RAW, false);
	put(&r, 0, 10, 1);
	put(&r, 0, 30, 3);
	ASSERT_TRUE(synth_sample(&r.s[1], &(__u32){ 2 }, 4), "untimed sample");
	ASSERT_TRUE(synth_lost(&r.s[1], 1, 9), "untimed lost");
	publish(&r);
	ASSERT_EQ(perfbuf_merge__fold(r.m, UINT64_MAX, 0, collect, &g), 4, "all");
	ASSERT_EQ(check_order(&g, "order"), 0, "nothing late");
	ASSERT_EQ(g.r[3].tag, 3, "the timed 30 last");
out:
	rings_free(&r);
}

/* PERF_SAMPLE_TIME read at its place in every layout, wrapped or not. */
TEST(time_layouts)
{
	static const __u64 layouts[] = {
		PERF_SAMPLE_TIME | PERF_SAMPLE_RAW,
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW,
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW,
	};

	for (size_t l = 0; l < 3; l++) {
		__u64 st = layouts[l], fixed = __builtin_popcountll(st) - 1;
		__u64 before = __builtin_popcountll(st & (PERF_SAMPLE_IDENTIFIER |
				PERF_SAMPLE_IP | PERF_SAMPLE_TID));
		struct synth s;

		if (!ASSERT_OK(synth_init(&s, 1, SYNTH_PAGE - 16), "synth_init"))
			return;
		perfbuf_ring__set_sample_type(s.ring, st, true);
		memset(&g, 0, sizeof(g));
		for (__u32 i = 0; i < 200; i++) {
			size_t total = perfbuf_record__sample_size(4, st);
			struct perf_event_header h = {
				.type = PERF_RECORD_SAMPLE, .size = (__u16)total,
			};
			__u32 raw = (__u32)(total - 12 - 8 * fixed);
			__u64 f[8] = {};

			f[before] = 5000 + i;	/* the time among the fields */
			synth_raw(&s, &h, sizeof(h));
			synth_raw(&s, f, 8 * fixed);
			synth_raw(&s, &raw, 4);
			synth_raw(&s, &i, 4);
			synth_raw(&s, (char[8]){}, raw - 4);
			if (i % 20 == 19) {
				synth_publish(&s);
				perfbuf_ring__fold(s.ring, collect, &g);
			}
		}
		ASSERT_EQ(g.n, 200, "all parsed as samples");
		for (__u32 i = 0; i < g.n && i < 200; i++)
			if (!ASSERT_EQ(g.r[i].time_ns, 5000 + i, "time") ||
			    !ASSERT_EQ(g.r[i].tag, i, "payload after the fields") ||
			    !ASSERT_EQ(g.r[i].kind, PERFBUF_REC_SAMPLE, "sample"))
				break;
		synth_free(&s);
	}
}

/* settle_lost(): what the kernel counted beyond the LOST records, once. */
TEST(settle_lost)
{
	struct perfbuf_ring_stats st = { .sz = sizeof(st) };
	struct synth s;

	if (!ASSERT_OK(synth_init(&s, 1, 0), "synth_init"))
		return;
	memset(&g, 0, sizeof(g));
	synth_lost(&s, 1, 3);
	synth_publish(&s);
	perfbuf_ring__fold(s.ring, collect, &g);
	ASSERT_EQ(perfbuf_ring__settle_lost(s.ring, 10), 7, "7 not reported yet");
	ASSERT_EQ(perfbuf_ring__settle_lost(s.ring, 10), 0, "once");
	synth_lost(&s, 1, 5);	/* the kernel's next record: 5 of the 7 */
	synth_lost(&s, 1, 4);	/* 2 of the 7, and 2 new */
	synth_publish(&s);
	ASSERT_EQ(perfbuf_ring__fold(s.ring, collect, &g), 1, "one record left");
	ASSERT_EQ(g.r[1].lost, 2, "only the new losses");
	perfbuf_ring__stats(s.ring, &st);
	ASSERT_EQ(st.lost, 12, "12 in all");
	ASSERT_EQ(st.lost_records, 3, "3 LOST records read");
	synth_free(&s);
}

/* ----- the collector on real rings ----- */

struct live {
	__u64 n, late, bad_order, switches, untimed, lost;
	__u64 samples[2], last_ns;
	int last_cpu;
	__u64 stamp_before_emit;	/* time_ns < the BPF program's clock */
};

static int on_live(void *ctx, const struct perfbuf_record *rec)
{
	struct live *l = ctx;
	struct emit_rec er;

	if (rec->kind == PERFBUF_REC_LOST)
		l->lost += rec->lost;
	if (rec->kind != PERFBUF_REC_SAMPLE && rec->kind != PERFBUF_REC_LOST)
		return 0;
	l->n++;
	l->untimed += !rec->time_ns;
	if (rec->flags & PERFBUF_RECF_LATE)
		l->late++;
	else if (rec->time_ns < l->last_ns)
		l->bad_order++;
	else
		l->last_ns = rec->time_ns;
	l->switches += rec->cpu != l->last_cpu;
	l->last_cpu = rec->cpu;
	if (rec->kind == PERFBUF_REC_SAMPLE && rec->cpu >= 0 && rec->cpu < 2) {
		l->samples[rec->cpu]++;
		perfbuf_record__copy(rec, &er, sizeof(er));
		/* the kernel takes the time after the program's ktime */
		l->stamp_before_emit += rec->time_ns < er.time_ns;
	}
	return 0;
}

TEST(timestamps_real)
{
	PERFBUF_OPTS(perfbuf_opts, o, .timestamps = true);
	struct live l = { .last_cpu = -1 };
	struct emit_fixture f;
	__u64 t0 = perfbuf_now_ns();

	if (!emit_fixture_open(&f, false, on_live, &l, &o))
		goto out;
	ASSERT_OK(emit_run(f.skel, 0, 100, 64), "emit");
	ASSERT_EQ(perfbuf__drain(f.pb), 100, "drained");
	ASSERT_EQ(l.untimed, 0, "every record has a time");
	ASSERT_EQ(l.stamp_before_emit, 0, "after the BPF program's clock");
	ASSERT_GE(l.last_ns, t0, "CLOCK_MONOTONIC, after the start");
	ASSERT_LE(l.last_ns, perfbuf_now_ns(), "before now");
	ASSERT_EQ(l.bad_order, 0, "one CPU: in order");
out:
	emit_fixture_close(&f);
}

static int stop_flag;

/* Producers flat out on CPU0 and CPU1, the consumer ordered: > 1 M records
 * in time order, both CPUs' interleaved, every record accounted for.
 * Under valgrind 60 000 (each ring of ~13 000 still wraps four times), and
 * one thread runs at a time there: the CPUs take turns in long runs. */
TEST(ordered_two_cpus)
{
	PERFBUF_OPTS(perfbuf_opts, o, .ordered = true, .page_cnt = 256);
	long want = test_count(1200000, 60000);
	struct producer p[2] = {};
	struct live l = { .last_cpu = -1 };
	struct emit_fixture f;

	if (!emit_fixture_open(&f, true, on_live, &l, &o))
		goto out;
	__atomic_store_n(&stop_flag, 0, __ATOMIC_RELEASE);
	for (int c = 0; c < 2; c++) {
		p[c] = (struct producer){ .prog_fd = emit_prog_fd(f.skel, false),
					  .cpu = c, .size = 64, .batch = 64,
					  .stop = &stop_flag };
		ASSERT_OK(producer_start(&p[c]), "producer");
	}
	while (l.n < (__u64)want && !test__failed)
		if (perfbuf__poll(f.pb, 100) < 0)
			break;
	__atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
	for (int c = 0; c < 2; c++)
		producer_join(&p[c]);
	perfbuf__drain(f.pb);
	ASSERT_GE(l.n, want, "over a million records");
	ASSERT_EQ(l.bad_order, 0, "non-decreasing time_ns but for late records");
	ASSERT_LT(l.late, l.n / 1000, "late records are rare");
	ASSERT_GT(l.switches, test_count(1000, 1), "the CPUs' records interleaved");
	for (int c = 0; c < 2; c++) {
		struct emit_stats es;
		struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };

		ASSERT_OK(emit_stats_cpu(f.skel, c, &es), "emit stats");
		ASSERT_OK(perfbuf__stats(f.pb, (size_t)c, &cs), "stats");
		ASSERT_EQ(l.samples[c], es.ok, "every record written delivered");
		ASSERT_EQ(cs.lost, es.enospc, "every loss reported");
		ASSERT_EQ(es.attempts, es.ok + es.enospc, "no other failure");
	}
	fprintf(stderr, "  %llu records, %llu late, %llu CPU switches\n",
		(unsigned long long)l.n, (unsigned long long)l.late,
		(unsigned long long)l.switches);
out:
	emit_fixture_close(&f);
}

/* Overflowed 1-page rings: the kernel's LOST records, with their time,
 * in the ordered stream; the drain's pending losses last. */
TEST(ordered_lost_real)
{
	PERFBUF_OPTS(perfbuf_opts, o, .ordered = true, .page_cnt = 1);
	struct live l = { .last_cpu = -1 };
	struct emit_stats es[2];
	struct emit_fixture f;

	if (!emit_fixture_open(&f, true, on_live, &l, &o))
		goto out;
	ASSERT_EQ(perfbuf__consume_ring(f.pb, 0), -EINVAL,
		  "one ring alone would break the order: refused");
	for (int round = 0; round < 4; round++) {
		for (int c = 0; c < 2; c++)
			ASSERT_OK(emit_run(f.skel, c, 200, 256), "overflow");
		perfbuf__consume(f.pb);
	}
	perfbuf__drain(f.pb);
	ASSERT_EQ(l.bad_order, 0, "in order, LOST records too");
	ASSERT_EQ(l.untimed, 0, "LOST records have their time");
	for (int c = 0; c < 2; c++)
		ASSERT_OK(emit_stats_cpu(f.skel, c, &es[c]), "emit stats");
	ASSERT_GT(es[0].enospc + es[1].enospc, 0, "records were lost");
	ASSERT_EQ(l.lost, es[0].enospc + es[1].enospc, "every loss reported");
	ASSERT_EQ(l.samples[0] + l.samples[1], es[0].ok + es[1].ok, "every record delivered");
out:
	emit_fixture_close(&f);
}

TEST_MAIN(
	TEST_ENTRY(merge_interleaved),
	TEST_ENTRY(merge_horizon),
	TEST_ENTRY(merge_forced_late),
	TEST_ENTRY(merge_lost_in_stream),
	TEST_ENTRY(merge_budget_and_stop),
	TEST_ENTRY(merge_untimed_records),
	TEST_ENTRY(time_layouts),
	TEST_ENTRY(settle_lost),
	TEST_ENTRY(timestamps_real),
	TEST_ENTRY(ordered_two_cpus),
	TEST_ENTRY(ordered_lost_real),
)
