// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The ring fold on synthetic rings in memory. */
#include <stdint.h>

#include "perfbuf.h"
#include "ring_priv.h"
#include "synth.h"
#include "test.h"

#define MAX_SEEN 4096

struct got {
	size_t n;
	struct {
		enum perfbuf_record_kind kind;
		__u32 type;
		__u16 misc;
		int cpu;
		__u64 lost;
		size_t len;
		size_t len1;	/* first slice */
		unsigned char buf[128];
	} r[MAX_SEEN];
	size_t stop_at;		/* stop on this record (1-based) */
};

static int collect(void *ctx, const struct perfbuf_record *rec)
{
	struct got *g = ctx;

	if (g->n < MAX_SEEN) {
		g->r[g->n].kind = rec->kind;
		g->r[g->n].type = rec->type;
		g->r[g->n].misc = rec->misc;
		g->r[g->n].cpu = rec->cpu;
		g->r[g->n].lost = rec->lost;
		g->r[g->n].len = rec->data_sz + rec->data2_sz;
		g->r[g->n].len1 = rec->data_sz;
		perfbuf_record__copy(rec, g->r[g->n].buf, sizeof(g->r[g->n].buf));
	}
	g->n++;
	return g->stop_at && g->n == g->stop_at ? PERFBUF_STOP : PERFBUF_CONTINUE;
}

static struct got g;

static void fill(unsigned char *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 31 + i);
}

/* Every record the ring holds, into g (emptied first): how many (what
 * the fold returned, asserted the same: @what) */
static size_t fold_all(struct synth *s, const char *what)
{
	memset(&g, 0, sizeof(g));
	ASSERT_EQ(perfbuf_ring__fold(s->ring, collect, &g), g.n, what);
	return g.n;
}

TEST(empty)
{
	struct synth s;

	if (!ASSERT_OK(synth_init(&s, 1, 0), "synth_init"))
		return;
	ASSERT_EQ(fold_all(&s, "fold"), 0, "no record");
	ASSERT_EQ(perfbuf_ring__avail(s.ring), 0, "avail");
	ASSERT_EQ(perfbuf_ring__data_size(s.ring), SYNTH_PAGE, "data size");
	synth_free(&s);
}

TEST(one)
{
	unsigned char p[40];
	struct synth s;

	if (!ASSERT_OK(synth_init(&s, 1, 0), "synth_init"))
		return;
	perfbuf_ring__set_cpu(s.ring, 3);
	fill(p, sizeof(p), 1);
	synth_sample(&s, p, sizeof(p));
	synth_publish(&s);
	ASSERT_EQ(perfbuf_ring__avail(s.ring), 56, "avail before");
	ASSERT_EQ(fold_all(&s, "fold"), 1, "one record");
	ASSERT_EQ(g.r[0].kind, PERFBUF_REC_SAMPLE, "sample");
	ASSERT_EQ(g.r[0].cpu, 3, "cpu");
	ASSERT_EQ(g.r[0].len, 44, "raw size: 40 + padding to 8-byte record");
	ASSERT_EQ(g.r[0].len1, 44, "contiguous");
	ASSERT_MEMEQ(g.r[0].buf, p, sizeof(p), "payload");
	ASSERT_EQ(synth_tail(&s), 56, "tail stored");
	ASSERT_EQ(perfbuf_ring__avail(s.ring), 0, "avail after");
	synth_free(&s);
}

TEST(many_in_order)
{
	struct perfbuf_ring_stats st = { .sz = sizeof(st) };
	unsigned char p[64];
	struct synth s;
	unsigned seq = 0, want = 0;

	if (!ASSERT_OK(synth_init(&s, 2, 0), "synth_init"))
		return;
	memset(&g, 0, sizeof(g));
	/* 3000 records of varying size through an 8 KiB ring: many wraps */
	while (seq < 3000) {
		while (seq < 3000) {
			size_t len = 4 + seq % 60;

			fill(p, len, seq);
			memcpy(p, &seq, sizeof(seq));
			if (!synth_sample(&s, p, len))
				break;
			seq++;
		}
		synth_publish(&s);
		g.n = 0;
		ASSERT_EQ(perfbuf_ring__fold(s.ring, collect, &g), g.n, "fold");
		for (size_t i = 0; i < g.n; i++, want++) {
			unsigned got_seq;
			size_t len = 4 + want % 60;

			fill(p, len, want);
			memcpy(p, &want, sizeof(want));
			memcpy(&got_seq, g.r[i].buf, sizeof(got_seq));
			if (!ASSERT_EQ(got_seq, want, "in order") ||
			    !ASSERT_MEMEQ(g.r[i].buf, p, len, "payload"))
				goto out;
		}
	}
	ASSERT_EQ(want, 3000, "all delivered");
	perfbuf_ring__stats(s.ring, &st);
	ASSERT_EQ(st.samples, 3000, "stats.samples");
	ASSERT_EQ(st.corrupt, 0, "stats.corrupt");
	ASSERT_LE(st.high_water, 8192 - 8, "high water within the ring");
	ASSERT_GT(st.high_water, 8192 - 200, "high water near full");
out:
	synth_free(&s);
}

TEST(lost)
{
	unsigned char p[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct perfbuf_ring_stats st = { .sz = sizeof(st) };
	struct synth s;

	if (!ASSERT_OK(synth_init(&s, 1, 0), "synth_init"))
		return;
	synth_sample(&s, p, 8);
	synth_lost(&s, 0xdeadbeef, 17);	/* id first: it is not the count */
	synth_sample(&s, p, 8);
	synth_publish(&s);
	ASSERT_EQ(fold_all(&s, "fold"), 3, "three records");
	ASSERT_EQ(g.r[1].kind, PERFBUF_REC_LOST, "lost kind");
	ASSERT_EQ(g.r[1].lost, 17, "lost count is the second u64");
	ASSERT_EQ(g.r[1].type, PERF_RECORD_LOST, "header type");
	perfbuf_ring__stats(s.ring, &st);
	ASSERT_EQ(st.lost, 17, "stats.lost");
	ASSERT_EQ(st.samples, 2, "stats.samples");
	synth_free(&s);
}

/* A LOST record with a sample_id trailer (sample_id_all) is longer. */
TEST(lost_with_sample_id)
{
	__u64 body[4] = { 99, 5, 0x1111, 0x2222 };
	struct synth s;

	if (!ASSERT_OK(synth_init(&s, 1, 0), "synth_init"))
		return;
	synth_other(&s, PERF_RECORD_LOST, 0, body, sizeof(body));
	synth_publish(&s);
	ASSERT_EQ(fold_all(&s, "fold"), 1, "one record");
	ASSERT_EQ(g.r[0].kind, PERFBUF_REC_LOST, "lost");
	ASSERT_EQ(g.r[0].lost, 5, "count");
	ASSERT_EQ(g.r[0].len, 32, "body with trailer");
	synth_free(&s);
}

/* Every payload size 1..64, placed so that it wraps at every 8-byte offset. */
TEST(wrap_matrix)
{
	unsigned char p[64];
	struct synth s;
	int bad = 0, cases = 0;

	for (size_t len = 1; len <= 64 && !bad; len++) {
		size_t rec = perfbuf_record__sample_size(len, PERF_SAMPLE_RAW);

		for (size_t back = 8; back <= rec + 8 && !bad; back += 8) {
			/* the record starts @back bytes before the ring end */
			__u64 start = SYNTH_PAGE - back;
			size_t raw = rec - 12, first;

			if (synth_init(&s, 1, start)) {
				bad++;
				break;
			}
			fill(p, len, (unsigned)(len * 100 + back));
			synth_sample(&s, p, len);
			synth_publish(&s);
			memset(&g, 0, sizeof(g));
			cases++;
			bad += !ASSERT_EQ(perfbuf_ring__fold(s.ring, collect, &g), g.n, "fold");
			bad += !ASSERT_EQ(g.n, 1, "one record");
			bad += !ASSERT_EQ(g.r[0].len, raw, "raw size");
			bad += !ASSERT_MEMEQ(g.r[0].buf, p, len, "payload across the end");
			/* payload starts 12 bytes into the record */
			first = back > 12 ? back - 12 : 0;
			if (back <= 12)	/* payload begins after the wrap */
				bad += !ASSERT_EQ(g.r[0].len1, raw, "one slice at ring start");
			else
				bad += !ASSERT_EQ(g.r[0].len1, first < raw ? first : raw,
						  "first slice ends at the ring end");
			bad += !ASSERT_EQ(synth_tail(&s), start + rec, "tail");
			synth_free(&s);
		}
	}
	ASSERT_GT(cases, 64 * 2, "cases run");
}

TEST(record_ends_at_ring_end)
{
	unsigned char p[20];
	struct synth s;

	/* 8 + 4 + 20 = 32 bytes ending exactly at 4096 */
	if (!ASSERT_OK(synth_init(&s, 1, SYNTH_PAGE - 32), "synth_init"))
		return;
	fill(p, 20, 5);
	synth_sample(&s, p, 20);
	synth_sample(&s, p, 20);	/* starts at offset 0 */
	synth_publish(&s);
	ASSERT_EQ(fold_all(&s, "fold"), 2, "two records");
	ASSERT_EQ(g.r[0].len1, 20, "first: one slice up to the end");
	ASSERT_EQ(g.r[0].len, 20, "first: no second slice");
	ASSERT_MEMEQ(g.r[1].buf, p, 20, "second at ring start");
	synth_free(&s);
}

static void positions_near(__u64 start)
{
	unsigned char p[48];
	struct synth s;
	size_t total = 0;

	if (!ASSERT_OK(synth_init(&s, 1, start), "synth_init"))
		return;
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 40; i++) {
			fill(p, sizeof(p), (unsigned)(round * 40 + i));
			if (!synth_sample(&s, p, sizeof(p)))
				break;
		}
		synth_publish(&s);
		memset(&g, 0, sizeof(g));
		ASSERT_EQ(perfbuf_ring__fold(s.ring, collect, &g), g.n, "fold");
		for (size_t i = 0; i < g.n; i++) {
			fill(p, sizeof(p), (unsigned)(total + i));
			ASSERT_MEMEQ(g.r[i].buf, p, sizeof(p), "payload");
		}
		total += g.n;
	}
	ASSERT_EQ(total, 160, "all delivered across the overflow of the position");
	ASSERT_EQ(synth_tail(&s), s.head, "tail == head");
	synth_free(&s);
}

TEST(positions_near_2_32)
{
	positions_near((1ULL << 32) - 1000);
}

TEST(positions_near_2_64)
{
	positions_near(0 - (__u64)4000);
}

TEST(stop_then_resume)
{
	unsigned char p[16];
	struct synth s;
	__u64 tail;

	if (!ASSERT_OK(synth_init(&s, 1, 0), "synth_init"))
		return;
	for (unsigned i = 0; i < 10; i++) {
		fill(p, sizeof(p), i);
		synth_sample(&s, p, sizeof(p));
	}
	synth_publish(&s);
	memset(&g, 0, sizeof(g));
	g.stop_at = 3;
	ASSERT_EQ(perfbuf_ring__fold(s.ring, collect, &g), 3, "records visited, the stopping one included");
	ASSERT_EQ(g.n, 3, "stopped on the third");
	tail = synth_tail(&s);
	ASSERT_EQ(tail, 3 * 32, "the third counts as consumed");
	ASSERT_EQ(fold_all(&s, "resume"), 7, "the other seven");
	fill(p, sizeof(p), 3);
	ASSERT_MEMEQ(g.r[0].buf, p, sizeof(p), "resumes at the fourth");
	synth_free(&s);
}

TEST(budget)
{
	unsigned char p[16] = {};
	struct synth s;

	if (!ASSERT_OK(synth_init(&s, 1, 0), "synth_init"))
		return;
	for (int i = 0; i < 5; i++)
		synth_sample(&s, p, sizeof(p));
	synth_publish(&s);
	memset(&g, 0, sizeof(g));
	ASSERT_EQ(perfbuf_ring__fold_n(s.ring, collect, &g, 2), 2, "fold_n: two visited");
	ASSERT_EQ(g.n, 2, "two visited");
	ASSERT_EQ(perfbuf_ring__avail(s.ring), 3 * 32, "three left");
	ASSERT_EQ(perfbuf_ring__fold(s.ring, collect, &g), 3, "fold: the three left");
	ASSERT_EQ(g.n, 5, "all visited");
	synth_free(&s);
}

TEST(full_ring)
{
	unsigned char p[56] = {};
	struct perfbuf_ring_stats st = { .sz = sizeof(st) };
	struct synth s;
	size_t n = 0;

	if (!ASSERT_OK(synth_init(&s, 1, 0), "synth_init"))
		return;
	while (synth_sample(&s, p, sizeof(p)))
		n++;
	synth_publish(&s);
	ASSERT_EQ(n, (SYNTH_PAGE - 8) / 72, "ring full");
	ASSERT_EQ(perfbuf_ring__avail(s.ring), n * 72, "avail");
	ASSERT_EQ(fold_all(&s, "fold"), n, "all delivered");
	perfbuf_ring__stats(s.ring, &st);
	ASSERT_EQ(st.high_water, n * 72, "high water");
	ASSERT_TRUE(synth_sample(&s, p, sizeof(p)), "room again");
	synth_free(&s);
}

TEST(other_records)
{
	__u64 body[3] = { 1, 2, 3 };
	unsigned char p[8] = { 9 };
	struct perfbuf_ring_stats st = { .sz = sizeof(st) };
	struct synth s;

	if (!ASSERT_OK(synth_init(&s, 1, SYNTH_PAGE - 16), "synth_init"))
		return;
	synth_other(&s, PERF_RECORD_COMM, 0x2000, body, sizeof(body));	/* wraps */
	synth_sample(&s, p, 8);
	synth_publish(&s);
	ASSERT_EQ(fold_all(&s, "fold"), 2, "both");
	ASSERT_EQ(g.r[0].kind, PERFBUF_REC_OTHER, "other");
	ASSERT_EQ(g.r[0].type, PERF_RECORD_COMM, "type");
	ASSERT_EQ(g.r[0].misc, 0x2000, "misc");
	ASSERT_EQ(g.r[0].len, 24, "body bytes");
	ASSERT_EQ(g.r[0].len1, 8, "body wraps");
	ASSERT_MEMEQ(g.r[0].buf, body, sizeof(body), "body");
	ASSERT_EQ(g.r[1].kind, PERFBUF_REC_SAMPLE, "then the sample");

	/* the same ring for non-BPF events: SAMPLE as OTHER */
	perfbuf_ring__set_sample_type(s.ring, PERF_SAMPLE_TID, false);
	synth_sample(&s, p, 8);
	synth_publish(&s);
	memset(&g, 0, sizeof(g));
	ASSERT_EQ(perfbuf_ring__fold(s.ring, collect, &g), g.n, "fold");
	ASSERT_EQ(g.r[0].kind, PERFBUF_REC_OTHER, "sample handed over whole");
	ASSERT_EQ(g.r[0].type, PERF_RECORD_SAMPLE, "type kept");
	ASSERT_EQ(g.r[0].len, 16, "u32 size + payload");
	perfbuf_ring__stats(s.ring, &st);
	ASSERT_EQ(st.other, 2, "stats.other");
	synth_free(&s);
}

/* Write one good record, then @bad, then one more good record. */
static void corrupt_case(const char *name, const void *bad, size_t bad_len,
			 __u64 extra_head)
{
	unsigned char p[8] = { 1 };
	struct perfbuf_ring_stats st = { .sz = sizeof(st) };
	struct synth s;

	if (!ASSERT_OK(synth_init(&s, 1, 0), name))
		return;
	synth_sample(&s, p, 8);
	synth_raw(&s, bad, bad_len);
	synth_sample(&s, p, 8);
	s.head += extra_head;
	synth_publish(&s);
	memset(&g, 0, sizeof(g));
	ASSERT_EQ(perfbuf_ring__fold(s.ring, collect, &g), -EBADMSG, name);
	ASSERT_EQ(g.n, extra_head > SYNTH_PAGE ? 0 : 1, "records before it delivered");
	ASSERT_EQ(synth_tail(&s), s.head, "resynchronised to the head");
	perfbuf_ring__stats(s.ring, &st);
	ASSERT_EQ(st.corrupt, 1, "counted");
	/* and the ring goes on */
	synth_sample(&s, p, 8);
	synth_publish(&s);
	ASSERT_EQ(fold_all(&s, "next fold"), 1, "next record delivered");
	synth_free(&s);
}

TEST(corrupt_headers)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };
	struct { struct perf_event_header h; __u32 raw; __u32 pad; } r;

	h.size = 0;
	corrupt_case("size 0", &h, sizeof(h), 0);
	h.size = 4;
	corrupt_case("size < 8", &h, sizeof(h), 0);
	h.size = 20;
	corrupt_case("size not a multiple of 8", &h, sizeof(h), 0);
	h.size = 0xfff8;
	corrupt_case("size past the head / larger than the ring", &h, sizeof(h), 0);
	r.h = (struct perf_event_header){ .type = PERF_RECORD_SAMPLE, .size = 16 };
	r.raw = 100;
	r.pad = 0;
	corrupt_case("raw size larger than the record", &r, sizeof(r), 0);
	r.h = (struct perf_event_header){ .type = PERF_RECORD_SAMPLE, .size = 8 };
	corrupt_case("sample without a size field", &r, 8, 0);
	r.h = (struct perf_event_header){ .type = PERF_RECORD_LOST, .size = 16 };
	corrupt_case("lost record too short", &r, sizeof(r), 0);
	corrupt_case("head - tail larger than the ring", NULL, 0, 2 * SYNTH_PAGE);
}

/* The callback-free walk: same records, early exit, corruption. */
TEST(iterator)
{
	unsigned char p[40];
	struct perfbuf_ring_stats st = { .sz = sizeof(st) };
	struct perfbuf_record rec;
	struct perfbuf_iter it;
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 4 };
	struct synth s;
	int n = 0;

	if (!ASSERT_OK(synth_init(&s, 1, SYNTH_PAGE - 64), "synth_init"))
		return;
	for (unsigned i = 0; i < 6; i++) {
		fill(p, sizeof(p), i);
		synth_sample(&s, p, sizeof(p));
		if (i == 2)
			synth_lost(&s, 1, 9);
	}
	synth_publish(&s);
	it = perfbuf_ring__begin(s.ring);
	while (perfbuf_iter__next(&it, &rec) && ++n < 4) {
		if (n == 3)
			ASSERT_EQ(rec.kind, PERFBUF_REC_SAMPLE, "third: a sample");
	}
	ASSERT_EQ(rec.kind, PERFBUF_REC_LOST, "fourth: the LOST record");
	ASSERT_EQ(rec.lost, 9, "its count");
	ASSERT_OK(perfbuf_ring__end(s.ring, it), "end");
	ASSERT_EQ(synth_tail(&s), SYNTH_PAGE - 64 + 3 * 56 + 24, "consumed up to the last returned");
	n = 0;
	it = perfbuf_ring__begin(s.ring);
	while (perfbuf_iter__next(&it, &rec)) {
		unsigned char got[44];

		fill(p, sizeof(p), 3 + n);
		ASSERT_EQ(perfbuf_record__copy(&rec, got, sizeof(got)), 44, "payload size");
		ASSERT_MEMEQ(got, p, sizeof(p), "payload, across the end too");
		n++;
	}
	ASSERT_OK(perfbuf_ring__end(s.ring, it), "end");
	ASSERT_EQ(n, 3, "the rest");
	perfbuf_ring__stats(s.ring, &st);
	ASSERT_EQ(st.samples, 6, "stats.samples");
	ASSERT_EQ(st.sample_bytes, 6 * 44, "stats.sample_bytes");
	ASSERT_EQ(st.lost, 9, "stats.lost");

	/* a corrupt header ends the walk and resynchronises */
	synth_sample(&s, p, 8);
	synth_raw(&s, &h, sizeof(h));
	synth_sample(&s, p, 8);
	synth_publish(&s);
	n = 0;
	it = perfbuf_ring__begin(s.ring);
	while (perfbuf_iter__next(&it, &rec))
		n++;
	ASSERT_EQ(n, 1, "the record before it");
	ASSERT_EQ(perfbuf_ring__end(s.ring, it), -EBADMSG, "reported by end");
	ASSERT_EQ(synth_tail(&s), s.head, "resynchronised");
	ASSERT_OK(perfbuf_ring__end(s.ring, perfbuf_ring__begin(s.ring)), "clean after");
	synth_free(&s);
}

/* A sample whose u32 raw size plus its fixed part wraps 32 bits to the
 * header's size (8, or 0): the inline walk must not take it (a 4 GiB
 * payload, or a record of size 0 returned for ever). */
static void iter_wrap_case(const char *name, __u16 size, __u32 raw)
{
	struct { struct perf_event_header h; __u32 raw; __u32 pad; } r = {
		{ .type = PERF_RECORD_SAMPLE, .size = size }, raw, 0,
	};
	unsigned char p[8] = { 1 };
	struct perfbuf_record rec;
	struct perfbuf_iter it;
	struct synth s;
	int n = 0;

	if (!ASSERT_OK(synth_init(&s, 1, 0), "synth_init"))
		return;
	synth_sample(&s, p, sizeof(p));
	synth_raw(&s, &r, sizeof(r));
	synth_sample(&s, p, sizeof(p));
	synth_publish(&s);
	it = perfbuf_ring__begin(s.ring);
	while (n < 10 && perfbuf_iter__next(&it, &rec)) {
		ASSERT_LE(rec.data_sz + rec.data2_sz, s.data_size, name);
		n++;
	}
	ASSERT_EQ(n, 1, "only the record before it");
	ASSERT_EQ(perfbuf_ring__end(s.ring, it), -EBADMSG, "reported by end");
	ASSERT_EQ(synth_tail(&s), s.head, "resynchronised");
	synth_free(&s);
}

TEST(iterator_raw_size_wraps)
{
	iter_wrap_case("size 8, raw 2^32 - 4", 8, 0xfffffffcU);
	iter_wrap_case("size 0, raw 2^32 - 12", 0, 0xfffffff4U);
}

TEST(mem_ring_bad_args)
{
	char *mem = calloc(1, SYNTH_PAGE * 4);

	ASSERT_TRUE(!perfbuf_ring__new_mem(mem, SYNTH_PAGE, 0), "0 pages");
	ASSERT_EQ(errno, EINVAL, "EINVAL");
	ASSERT_TRUE(!perfbuf_ring__new_mem(mem, SYNTH_PAGE, 3), "3 pages");
	ASSERT_TRUE(!perfbuf_ring__new_mem(mem, 1000, 2), "page size not a power of two");
	ASSERT_TRUE(!perfbuf_ring__new_mem(mem, 512, 2), "page smaller than the header");
	ASSERT_TRUE(!perfbuf_ring__new_mem(NULL, SYNTH_PAGE, 2), "no memory");
	ASSERT_TRUE(!perfbuf_ring__new_mem(mem, SYNTH_PAGE, (size_t)1 << 40), "too large");
	ASSERT_TRUE(!perfbuf_ring__new_mem(mem + 4, SYNTH_PAGE, 2), "not 8-byte aligned");
	ASSERT_EQ(errno, EINVAL, "EINVAL when misaligned");
	free(mem);
}

TEST(record_copy)
{
	unsigned char a[3] = { 1, 2, 3 }, b[2] = { 4, 5 }, out[8] = {};
	struct perfbuf_record rec = {
		.data = a, .data_sz = 3, .data2 = b, .data2_sz = 2,
	};

	ASSERT_EQ(perfbuf_record__copy(&rec, out, sizeof(out)), 5, "joined");
	ASSERT_MEMEQ(out, "\1\2\3\4\5", 5, "bytes");
	memset(out, 0, sizeof(out));
	ASSERT_EQ(perfbuf_record__copy(&rec, out, 4), 4, "truncated to dst");
	ASSERT_MEMEQ(out, "\1\2\3\4\0", 5, "no overflow");
	ASSERT_EQ(perfbuf_record__copy(&rec, out, 2), 2, "inside the first slice");
}

TEST(cpu_lists)
{
	int c[16];

	ASSERT_EQ(perfbuf_cpus__parse("0-3,8,10-11\n", c, 16), 7, "count");
	ASSERT_EQ(c[4], 8, "single");
	ASSERT_EQ(c[6], 11, "range end");
	ASSERT_EQ(perfbuf_cpus__parse("0-63", c, 16), 64, "count beyond max");
	ASSERT_EQ(perfbuf_cpus__parse("3-1", c, 16), -EINVAL, "reversed");
	ASSERT_EQ(perfbuf_cpus__parse("a", c, 16), -EINVAL, "junk");
	ASSERT_EQ(perfbuf_cpus__parse("1,", c, 16), 1, "trailing comma");
	ASSERT_EQ(perfbuf_cpus__parse("1-", c, 16), -EINVAL, "open range");
	ASSERT_EQ(perfbuf_cpus__parse("", c, 16), -EINVAL, "empty");
	ASSERT_GE(perfbuf_cpus__possible(c, 16), 1, "possible");
	ASSERT_GE(perfbuf_cpus__online(c, 16), 1, "online");
}

/* Bytes as they are: one span, or two at the ring end; the headers are
 * counted and LOST records trimmed as a fold would. */
struct spans {
	int calls, cnt, cpu;
	size_t len[2];
	unsigned char bytes[8192];
	size_t total;
};

static void on_spans(void *ctx, int cpu, const struct iovec *iov, int cnt)
{
	struct spans *sp = ctx;

	sp->calls++;
	sp->cnt = cnt;
	sp->cpu = cpu;
	for (int i = 0; i < cnt; i++) {
		sp->len[i] = iov[i].iov_len;
		memcpy(sp->bytes + sp->total, iov[i].iov_base, iov[i].iov_len);
		sp->total += iov[i].iov_len;
	}
}

TEST(read_spans)
{
	struct perfbuf_ring_stats st = { .sz = sizeof(st) };
	unsigned char p[100] = { 1, 2, 3 };
	struct spans sp = {};
	struct synth s;

	/* 40 bytes before the end: a 112-byte record wraps */
	if (!ASSERT_OK(synth_init(&s, 1, 4096 - 40), "init"))
		return;
	perfbuf_ring__set_cpu(s.ring, 3);
	ASSERT_EQ(perfbuf_ring__read_spans(s.ring, on_spans, &sp), 0, "empty");
	ASSERT_EQ(sp.calls, 0, "not called when empty");
	synth_sample(&s, p, sizeof(p));
	synth_lost(&s, 0, 5);
	synth_publish(&s);
	ASSERT_EQ(perfbuf_ring__settle_lost(s.ring, 2), 2, "2 settled before");
	ASSERT_EQ(perfbuf_ring__read_spans(s.ring, on_spans, &sp), 1, "handed");
	ASSERT_EQ(sp.cnt, 2, "two spans at the ring end");
	ASSERT_EQ(sp.len[0], 40, "first to the end");
	ASSERT_EQ(sp.len[1], 112 + 24 - 40, "rest from the start");
	ASSERT_EQ(sp.cpu, 3, "cpu");
	ASSERT_EQ(synth_tail(&s), s.head, "consumed");
	ASSERT_EQ(sp.bytes[12], 1, "bytes as they are");
	perfbuf_ring__stats(s.ring, &st);
	ASSERT_EQ(st.samples, 1, "sample counted");
	ASSERT_EQ(st.lost_records, 1, "LOST counted");
	ASSERT_EQ(st.lost, 5, "5 in all: 2 settled + 3 new");
	ASSERT_EQ(st.sample_bytes, 136, "bytes");
	ASSERT_EQ(perfbuf_ring__settle_lost(s.ring, 5), 0, "nothing pending");
	synth_free(&s);

	if (!ASSERT_OK(synth_init(&s, 1, 0), "init"))
		return;
	s.hdr->data_head = 8192;	/* head - tail past the ring */
	ASSERT_EQ(perfbuf_ring__read_spans(s.ring, on_spans, &sp), -EBADMSG,
		  "corrupt positions");
	synth_free(&s);
	if (!ASSERT_OK(synth_init_overwrite(&s, 1, 0), "init"))
		return;
	ASSERT_EQ(perfbuf_ring__read_spans(s.ring, on_spans, &sp), -EINVAL,
		  "overwrite ring refused");
	synth_free(&s);
}

/* ---- the fold's and the iterator's fast paths agree with the slow one -- */

struct walk {
	size_t n;
	__u64 sum;		/* of kind, size, lost, time and every byte */
	size_t stop_every;	/* stop the fold on every Nth record */
};

static void walk_add(struct walk *w, const struct perfbuf_record *rec)
{
	unsigned char buf[256];
	size_t len = perfbuf_record__copy(rec, buf, sizeof(buf));

	w->sum = w->sum * 31 + rec->kind * 7 + rec->size + rec->lost +
		 rec->time_ns + rec->data_sz + rec->data2_sz;
	for (size_t i = 0; i < len; i++)
		w->sum = w->sum * 131 + buf[i];
	w->n++;
}

static int walk_cb(void *ctx, const struct perfbuf_record *rec)
{
	struct walk *w = ctx;

	walk_add(w, rec);
	return w->stop_every && w->n % w->stop_every == 0 ?
	       PERFBUF_STOP : PERFBUF_CONTINUE;
}

/* A ring from @s's memory, read again from @tail with fresh statistics. */
static struct perfbuf_ring *reread(struct synth *s, __u64 tail, bool timed)
{
	struct perfbuf_ring *r = perfbuf_ring__new_mem(s->mem, SYNTH_PAGE,
						       s->data_size / SYNTH_PAGE);

	s->hdr->data_tail = tail;
	if (r && timed)
		perfbuf_ring__set_sample_type(r, PERF_SAMPLE_TIME | PERF_SAMPLE_RAW,
					      true);
	return r;
}

/* Read @s (records in [@tail, head)) by a fold, a fold stopped every few
 * records, fold_n with small budgets, and the iterator: the same records,
 * the same statistics, everything consumed. */
static int walks_agree(struct synth *s, __u64 tail, bool timed)
{
	struct perfbuf_ring_stats st[4];
	struct walk w[4];
	int bad = 0, n;

	for (int k = 0; k < 4; k++) {
		struct perfbuf_ring *r = reread(s, tail, timed);
		struct perfbuf_record rec;
		struct perfbuf_iter it;

		memset(&w[k], 0, sizeof(w[k]));
		st[k] = (struct perfbuf_ring_stats){ .sz = sizeof(st[k]) };
		if (!r)
			return 1;
		switch (k) {
		case 0:
			perfbuf_ring__fold(r, walk_cb, &w[k]);
			break;
		case 1:
			w[k].stop_every = 3;
			while (perfbuf_ring__fold(r, walk_cb, &w[k]) > 0)
				;
			break;
		case 2:
			for (n = 1; perfbuf_ring__fold_n(r, walk_cb, &w[k], n % 5 + 1) > 0; n++)
				;
			break;
		default:
			it = perfbuf_ring__begin(r);
			while (perfbuf_iter__next(&it, &rec))
				walk_add(&w[k], &rec);
			perfbuf_ring__end(r, it);
		}
		perfbuf_ring__stats(r, &st[k]);
		perfbuf_ring__free(r);
		bad += !ASSERT_EQ(synth_tail(s), s->head, "all consumed");
		if (k == 0)
			continue;
		bad += !ASSERT_EQ(w[k].n, w[0].n, "as many records as the fold");
		bad += !ASSERT_EQ(w[k].sum, w[0].sum, "the same records");
		bad += !ASSERT_EQ(st[k].samples, st[0].samples, "stats.samples");
		bad += !ASSERT_EQ(st[k].sample_bytes, st[0].sample_bytes,
				  "stats.sample_bytes");
		bad += !ASSERT_EQ(st[k].lost, st[0].lost, "stats.lost");
		bad += !ASSERT_EQ(st[k].other, st[0].other, "stats.other");
		bad += !ASSERT_EQ(st[k].corrupt, 0, "stats.corrupt");
	}
	return bad;
}

/* Runs of one size, sizes that change, LOST and other records, payloads
 * that wrap, timed and untimed layouts, positions near 2^32: the fold
 * (stretches, runs), fold_n, stops and the iterator see the same. */
TEST(fast_paths_agree)
{
	unsigned char p[200];
	unsigned seed = 12345;
	int bad = 0, cases = 0;

	for (int c = 0; c < 24 && !bad; c++) {
		bool timed = c & 1;
		__u64 start = c < 12 ? (__u64)c * 1000 : (1ULL << 32) - 4000 + c * 8;
		size_t want = 0, expect_samples = 0, expect_bytes = 0;
		struct synth s;

		if (!ASSERT_OK(synth_init(&s, 2, start), "synth_init"))
			return;
		for (int i = 0; i < 400; i++) {
			size_t len = (seed >> 8) % 5 ? 4 + (size_t)(c % 3) * 28 :
				     1 + (seed >> 12) % sizeof(p);
			bool ok;

			seed = seed * 1103515245 + 12345;
			fill(p, len, seed);
			if ((seed >> 16) % 23 == 0)
				ok = timed ? synth_lost_at(&s, 1, 1 + i, 77 + i) :
					     synth_lost(&s, 1, 1 + i);
			else if ((seed >> 16) % 29 == 0)
				ok = synth_other(&s, 99, 0, p, len & ~3UL);
			else if ((ok = timed ? synth_sample_at(&s, 1000 + i, p, len) :
					       synth_sample(&s, p, len))) {
				expect_samples++;
				expect_bytes += perfbuf_record__sample_size(len,
					timed ? PERF_SAMPLE_TIME | PERF_SAMPLE_RAW :
						PERF_SAMPLE_RAW) - (timed ? 20 : 12);
			}
			if (!ok)
				break;
			want++;
		}
		synth_publish(&s);
		bad += walks_agree(&s, start, timed);
		{
			struct perfbuf_ring *r = reread(&s, start, timed);
			struct perfbuf_ring_stats st = { .sz = sizeof(st) };
			struct walk w = {};

			perfbuf_ring__fold(r, walk_cb, &w);
			perfbuf_ring__stats(r, &st);
			bad += !ASSERT_EQ(st.samples, expect_samples, "samples written");
			bad += !ASSERT_EQ(st.sample_bytes, expect_bytes, "their bytes");
			bad += !ASSERT_EQ(w.n, want, "every record delivered");
			perfbuf_ring__free(r);
		}
		synth_free(&s);
		cases++;
	}
	ASSERT_EQ(cases, 24, "cases run");
}

/* A run of alike records breaks on any difference: misc, or a raw size
 * shorter than the record (harmless) under the same header; each record
 * is delivered with its own misc and size, and a layout other than the
 * two common ones (IP | RAW) reads the same. */
static void put_raw_sample(struct synth *s, __u16 misc, __u32 raw_sz, int seed)
{
	unsigned char rec[24] = { 0 };
	struct perf_event_header eh = {
		.type = PERF_RECORD_SAMPLE, .misc = misc, .size = sizeof(rec),
	};

	memcpy(rec, &eh, sizeof(eh));
	memcpy(rec + 8, &raw_sz, 4);
	fill(rec + 12, raw_sz, (unsigned)seed);
	synth_raw(s, rec, sizeof(rec));
}

TEST(runs_break_on_any_difference)
{
	static const struct { __u16 misc; __u32 raw; } want[] = {
		{ 1, 12 }, { 1, 12 }, { 1, 12 }, { 2, 12 }, { 1, 12 },
		{ 1, 8 }, { 1, 12 }, { 1, 12 }, { 2, 8 }, { 2, 8 },
	};
	size_t n = sizeof(want) / sizeof(want[0]);
	unsigned char p[40];
	struct synth s;

	if (!ASSERT_OK(synth_init(&s, 1, 0), "synth_init"))
		return;
	for (size_t i = 0; i < n; i++)
		put_raw_sample(&s, want[i].misc, want[i].raw, (int)i);
	synth_publish(&s);
	memset(&g, 0, sizeof(g));
	perfbuf_ring__fold(s.ring, collect, &g);
	ASSERT_EQ(g.n, n, "every record");
	for (size_t i = 0; i < n && i < g.n; i++) {
		unsigned char b[12];

		fill(b, want[i].raw, (unsigned)i);
		ASSERT_EQ(g.r[i].misc, want[i].misc, "its misc");
		ASSERT_EQ(g.r[i].len, want[i].raw, "its raw size");
		ASSERT_MEMEQ(g.r[i].buf, b, want[i].raw, "its payload");
	}
	synth_free(&s);

	/* IP | RAW: raw_off 16, no time; the synth's time stands for the IP */
	if (!ASSERT_OK(synth_init(&s, 1, 0), "synth_init"))
		return;
	perfbuf_ring__set_sample_type(s.ring, PERF_SAMPLE_IP | PERF_SAMPLE_RAW,
				      false);
	for (int i = 0; i < 20; i++) {
		fill(p, sizeof(p), (unsigned)i);
		synth_sample_at(&s, 100 + (__u64)i, p, i % 7 ? 20 : sizeof(p));
	}
	synth_publish(&s);
	memset(&g, 0, sizeof(g));
	perfbuf_ring__fold(s.ring, collect, &g);
	ASSERT_EQ(g.n, 20, "every IP | RAW record");
	for (int i = 0; i < 20 && (size_t)i < g.n; i++) {
		fill(p, sizeof(p), (unsigned)i);
		ASSERT_EQ(g.r[i].len, i % 7 ? 20 : 44, "its size");
		ASSERT_MEMEQ(g.r[i].buf, p, i % 7 ? 20 : sizeof(p), "its payload");
	}
	synth_free(&s);
}

static __u64 ring_samples(struct perfbuf_ring *r)
{
	struct perfbuf_ring_stats st = { .sz = sizeof(st) };

	perfbuf_ring__stats(r, &st);
	return st.samples;
}

/* Three samples of 40 bytes (56 in the ring) in a fresh ring. */
static bool three_samples(struct synth *s)
{
	unsigned char p[40] = "sample";

	if (synth_init(s, 1, 0))
		return false;
	for (int i = 0; i < 3; i++)
		synth_sample(s, p, sizeof(p));
	synth_publish(s);
	return true;
}

/* perfbuf_ring__end() takes only the iterator of the ring's open
 * iteration, once: another ring's, a second end, a stale or forged one
 * leave data_tail and the statistics alone, and the iteration stays open
 * for its own iterator. */
TEST(end_checks_its_iterator)
{
	struct perfbuf_iter it, bad, old;
	struct perfbuf_record rec;
	struct synth a, b;

	if (!ASSERT_TRUE(three_samples(&a), "ring a"))
		return;
	if (!ASSERT_TRUE(three_samples(&b), "ring b")) {
		synth_free(&a);
		return;
	}
	it = perfbuf_ring__begin(a.ring);
	ASSERT_TRUE(perfbuf_iter__next(&it, &rec) && perfbuf_iter__next(&it, &rec),
		    "two records of a");
	ASSERT_EQ(perfbuf_ring__end(b.ring, it), -EINVAL, "a's iterator to b");
	ASSERT_EQ(synth_tail(&b), 0, "b's data_tail untouched");
	ASSERT_EQ(ring_samples(b.ring), 0, "b counts nothing");

	bad = it;
	bad.tail = it.head + 64;	/* past the head */
	ASSERT_EQ(perfbuf_ring__end(a.ring, bad), -EINVAL, "tail past the head");
	bad = it;
	bad.pos -= 2 * 56 + 8;		/* before the begin's tail */
	ASSERT_EQ(perfbuf_ring__end(a.ring, bad), -EINVAL, "tail before the begin");
	bad = it;
	bad.pos -= 4;			/* not on a record */
	ASSERT_EQ(perfbuf_ring__end(a.ring, bad), -EINVAL, "tail inside a record");
	bad = it;
	bad.samples = 1000;		/* more than 112 bytes can hold */
	ASSERT_EQ(perfbuf_ring__end(a.ring, bad), -EINVAL, "samples forged");
	bad = it;
	bad.head += 56;
	ASSERT_EQ(perfbuf_ring__end(a.ring, bad), -EINVAL, "head not the begin's");
	ASSERT_EQ(synth_tail(&a), 0, "a's data_tail untouched by them");
	ASSERT_EQ(ring_samples(a.ring), 0, "nor its statistics");

	ASSERT_OK(perfbuf_ring__end(a.ring, it), "its own iterator, still open");
	ASSERT_EQ(synth_tail(&a), 2 * 56, "two records consumed");
	ASSERT_EQ(ring_samples(a.ring), 2, "counted once");
	ASSERT_EQ(perfbuf_ring__end(a.ring, it), -EINVAL, "end twice");
	ASSERT_EQ(ring_samples(a.ring), 2, "not counted twice");
	ASSERT_EQ(synth_tail(&a), 2 * 56, "data_tail as it was");

	/* an iterator of an iteration ended, after a new begin */
	old = it;
	it = perfbuf_ring__begin(a.ring);
	ASSERT_EQ(perfbuf_ring__end(a.ring, old), -EINVAL, "the ended one");
	ASSERT_TRUE(perfbuf_iter__next(&it, &rec), "the third record");
	ASSERT_OK(perfbuf_ring__end(a.ring, it), "the new one");
	ASSERT_EQ(ring_samples(a.ring), 3, "three in all");
	ASSERT_EQ(synth_tail(&a), 3 * 56, "all consumed");
	/* the library's own iterations still end as they did */
	memset(&g, 0, sizeof(g));
	ASSERT_EQ(perfbuf_ring__fold(b.ring, collect, &g), 3, "a fold of b");
	ASSERT_EQ(perfbuf_ring__end(b.ring, it), -EINVAL, "a's iterator after b's fold");
	ASSERT_EQ(ring_samples(b.ring), 3, "b: its three");
	synth_free(&a);
	synth_free(&b);
}

TEST_MAIN(
	TEST_ENTRY(empty),
	TEST_ENTRY(one),
	TEST_ENTRY(many_in_order),
	TEST_ENTRY(lost),
	TEST_ENTRY(lost_with_sample_id),
	TEST_ENTRY(wrap_matrix),
	TEST_ENTRY(record_ends_at_ring_end),
	TEST_ENTRY(positions_near_2_32),
	TEST_ENTRY(positions_near_2_64),
	TEST_ENTRY(stop_then_resume),
	TEST_ENTRY(budget),
	TEST_ENTRY(full_ring),
	TEST_ENTRY(other_records),
	TEST_ENTRY(corrupt_headers),
	TEST_ENTRY(iterator),
	TEST_ENTRY(iterator_raw_size_wraps),
	TEST_ENTRY(mem_ring_bad_args),
	TEST_ENTRY(record_copy),
	TEST_ENTRY(cpu_lists),
	TEST_ENTRY(read_spans),
	TEST_ENTRY(fast_paths_agree),
	TEST_ENTRY(runs_break_on_any_difference),
	TEST_ENTRY(end_checks_its_iterator),
)
