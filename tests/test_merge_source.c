// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf_merge__add_source(): sources that are not rings (arrays of
 * times here) merged with each other and with a ring: order, ties to the
 * source added first, late records flagged, a stop or a budget losing
 * nothing, a source with nothing now asked again, bad ops refused.
 */
#include <stdint.h>

#include "synth.h"
#include "test.h"
#include "ring_priv.h"

#define MAX_REC 64

/* A source: records of the given times, handed over one by one. */
struct arr {
	const __u64 *t;
	size_t n, next, avail;	/* avail: how many exist now */
	int id;
	bool taken;
	size_t ends, lates;
};

static bool arr_peek(void *ctx, __u64 *time_ns)
{
	struct arr *a = ctx;

	if (a->taken) {
		a->next++;
		a->taken = false;
	}
	if (a->next >= a->avail)
		return false;
	*time_ns = a->t[a->next];
	return true;
}

/* a time of 1 stands for a record that gives none after all */
static bool arr_next(void *ctx, struct perfbuf_record *rec)
{
	struct arr *a = ctx;

	memset(rec, 0, sizeof(*rec));
	rec->kind = PERFBUF_REC_SAMPLE;
	rec->cpu = a->id;
	rec->time_ns = a->t[a->next];
	a->taken = true;
	return rec->time_ns != 1;
}

static void arr_end(void *ctx)
{
	((struct arr *)ctx)->ends++;
}

static void arr_late(void *ctx)
{
	((struct arr *)ctx)->lates++;
}

static const struct perfbuf_source_ops ops = {
	.sz = sizeof(ops), .peek = arr_peek, .next = arr_next, .end = arr_end,
	.late = arr_late,
};

struct got {
	size_t n, stop_at;
	int cpu[MAX_REC];
	__u64 t[MAX_REC];
	__u32 flags[MAX_REC];
};

static int collect(void *ctx, const struct perfbuf_record *rec)
{
	struct got *g = ctx;

	if (g->n < MAX_REC) {
		g->cpu[g->n] = rec->cpu;
		g->t[g->n] = rec->time_ns;
		g->flags[g->n] = rec->flags;
	}
	g->n++;
	return g->stop_at && g->n == g->stop_at ? PERFBUF_STOP : PERFBUF_CONTINUE;
}

TEST(sources_in_order_ties_to_the_elder)
{
	static const __u64 t0[] = { 10, 20, 20, 40 }, t1[] = { 5, 20, 1, 30 };
	struct arr a = { .t = t0, .n = 4, .avail = 4, .id = 0 };
	struct arr b = { .t = t1, .n = 4, .avail = 4, .id = 1 };
	static const int want_cpu[] = { 1, 0, 0, 0, 1, 1, 0 };
	static const __u64 want_t[] = { 5, 10, 20, 20, 20, 30, 40 };
	struct perfbuf_merge *m = perfbuf_merge__new();
	struct got g = {};

	if (!ASSERT_OK_PTR(m, "merge"))
		return;
	ASSERT_OK(perfbuf_merge__add_source(m, &ops, &a), "add a");
	ASSERT_OK(perfbuf_merge__add_source(m, &ops, &b), "add b");
	ASSERT_EQ(perfbuf_merge__add_source(m, &ops, &a), -EEXIST, "twice");
	ASSERT_EQ(perfbuf_merge__fold(m, UINT64_MAX, 0, collect, &g), 7, "all");
	ASSERT_EQ(g.n, 7, "delivered");
	for (size_t i = 0; i < 7 && i < g.n; i++) {
		ASSERT_EQ(g.cpu[i], want_cpu[i], "source");
		ASSERT_EQ(g.t[i], want_t[i], "time");
		ASSERT_EQ(g.flags[i], 0, "none late");
	}
	ASSERT_EQ(a.ends, 1, "end called once a fold");
	ASSERT_EQ(perfbuf_merge__last_ns(m), 40, "last");
	ASSERT_OK(perfbuf_merge__remove_source(m, &b), "remove");
	ASSERT_EQ(perfbuf_merge__remove_source(m, &b), -ENOENT, "gone");
	perfbuf_merge__free(m);
}

TEST(late_stop_budget_horizon_lose_nothing)
{
	static const __u64 t0[] = { 10, 30, 50, 60 }, t1[] = { 20, 40 };
	struct arr a = { .t = t0, .n = 4, .avail = 2, .id = 0 };
	struct arr b = { .t = t1, .n = 2, .avail = 2, .id = 1 };
	struct perfbuf_merge *m = perfbuf_merge__new();
	struct got g = { .stop_at = 2 };

	if (!ASSERT_OK_PTR(m, "merge"))
		return;
	ASSERT_OK(perfbuf_merge__add_source(m, &ops, &a), "add a");
	ASSERT_OK(perfbuf_merge__add_source(m, &ops, &b), "add b");
	ASSERT_EQ(perfbuf_merge__fold(m, UINT64_MAX, 0, collect, &g), 2, "stop");
	g.stop_at = 0;
	ASSERT_EQ(perfbuf_merge__fold(m, 35, 0, collect, &g), 1, "horizon");
	ASSERT_EQ(perfbuf_merge__fold(m, UINT64_MAX, 1, collect, &g), 1, "budget");
	ASSERT_EQ(perfbuf_merge__fold(m, UINT64_MAX, 0, collect, &g), 0, "a has none now");
	a.avail = 4;	/* more came: asked again */
	ASSERT_EQ(perfbuf_merge__fold(m, UINT64_MAX, 0, collect, &g), 2, "the rest");
	ASSERT_EQ(g.n, 6, "every record once");
	for (size_t i = 1; i < g.n && i < MAX_REC; i++)
		ASSERT_LE(g.t[i - 1], g.t[i], "in order");
	/* an older record after a newer one: delivered, flagged */
	static const __u64 t2[] = { 15 };
	struct arr c = { .t = t2, .n = 1, .avail = 1, .id = 2 };

	ASSERT_OK(perfbuf_merge__add_source(m, &ops, &c), "add c");
	ASSERT_EQ(perfbuf_merge__fold(m, UINT64_MAX, 0, collect, &g), 1, "late one");
	ASSERT_EQ(g.flags[6], PERFBUF_RECF_LATE, "flagged late");
	ASSERT_EQ(c.lates, 1, "counted by its source");
	ASSERT_EQ(a.lates + b.lates, 0, "the others none");
	perfbuf_merge__free(m);
}

TEST(sources_beside_a_ring)
{
	static const __u64 t0[] = { 15, 25 };
	struct arr a = { .t = t0, .n = 2, .avail = 2, .id = 7 };
	struct perfbuf_merge *m = perfbuf_merge__new();
	struct got g = {};
	struct synth s;
	__u32 tag = 1;

	if (!ASSERT_OK_PTR(m, "merge") ||
	    !ASSERT_OK(synth_init(&s, 1, 0), "synth")) {
		perfbuf_merge__free(m);
		return;
	}
	perfbuf_ring__set_cpu(s.ring, 3);
	perfbuf_ring__set_sample_type(s.ring, PERF_SAMPLE_TIME | PERF_SAMPLE_RAW, true);
	ASSERT_TRUE(synth_sample_at(&s, 10, &tag, sizeof(tag)), "fits");
	ASSERT_TRUE(synth_sample_at(&s, 20, &tag, sizeof(tag)), "fits");
	synth_publish(&s);
	ASSERT_OK(perfbuf_merge__add(m, s.ring), "add ring");
	ASSERT_OK(perfbuf_merge__add_source(m, &ops, &a), "add source");
	ASSERT_EQ(perfbuf_merge__fold(m, UINT64_MAX, 0, collect, &g), 4, "all");
	ASSERT_EQ(g.t[0], 10, "ring");
	ASSERT_EQ(g.t[1], 15, "source");
	ASSERT_EQ(g.t[2], 20, "ring");
	ASSERT_EQ(g.t[3], 25, "source");
	ASSERT_EQ(g.cpu[1], 7, "the source's record");
	perfbuf_merge__free(m);
	synth_free(&s);
}

TEST(bad_ops_refused)
{
	struct perfbuf_source_ops small = { .sz = sizeof(size_t), .peek = arr_peek };
	struct perfbuf_source_ops no_peek = { .sz = sizeof(no_peek), .next = arr_next };
	struct perfbuf_source_ops big[2] = { { .sz = 2 * sizeof(big[0]), .peek = arr_peek,
					       .next = arr_next } };
	struct perfbuf_merge *m = perfbuf_merge__new();
	struct arr a = {};

	if (!ASSERT_OK_PTR(m, "merge"))
		return;
	ASSERT_EQ(perfbuf_merge__add_source(m, NULL, &a), -EINVAL, "no ops");
	ASSERT_EQ(perfbuf_merge__add_source(m, &small, &a), -EINVAL, "too small");
	ASSERT_EQ(perfbuf_merge__add_source(m, &no_peek, &a), -EINVAL, "no peek");
	ASSERT_OK(perfbuf_merge__add_source(m, big, &a), "larger, zeros past");
	ASSERT_OK(perfbuf_merge__remove_source(m, &a), "removed");
	big[1].sz = 1;
	ASSERT_EQ(perfbuf_merge__add_source(m, big, &a), -EINVAL, "unknown bytes");
	ASSERT_EQ(perfbuf_merge__add(m, NULL), -EINVAL, "no ring");
	ASSERT_EQ(perfbuf_merge__remove(m, NULL), -ENOENT, "no ring to remove");
	perfbuf_merge__free(m);
}

TEST_MAIN(
	TEST_ENTRY(sources_in_order_ties_to_the_elder),
	TEST_ENTRY(late_stop_budget_horizon_lose_nothing),
	TEST_ENTRY(sources_beside_a_ring),
	TEST_ENTRY(bad_ops_refused),
)
