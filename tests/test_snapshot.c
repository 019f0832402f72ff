// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Overwrite rings and their snapshots, on synthetic rings written the way
 * the kernel writes with write_backward: the wrap and corruption matrices
 * of the forward ring, for the backward layout.
 */
#include <bpf/libbpf.h>

#include "emit_util.h"
#include "synth.h"
#include "test.h"
#include "ring_priv.h"

#define MAX_GOT 70000
#define MAX_RECORD 8192

struct got {
	int n;
	__u32 seq[MAX_GOT];
	int kinds[MAX_GOT];
	__u64 lost;
	bool bad_payload;
	int stop_after;
};

static struct got g;
static size_t payload_len;	/* of the samples written last */

/* payload: u32 sequence number, then bytes (seq + i) */
static void fill(unsigned char *p, size_t len, __u32 seq)
{
	memcpy(p, &seq, sizeof(seq));
	for (size_t i = sizeof(seq); i < len; i++)
		p[i] = (unsigned char)(seq + i);
}

static int collect(void *ctx, const struct perfbuf_record *rec)
{
	unsigned char buf[MAX_RECORD];
	size_t n;

	(void)ctx;
	if (g.n < MAX_GOT)
		g.kinds[g.n] = rec->kind;
	if (rec->kind == PERFBUF_REC_LOST)
		g.lost += rec->lost;
	if (rec->kind == PERFBUF_REC_SAMPLE && g.n < MAX_GOT) {
		n = perfbuf_record__copy(rec, buf, sizeof(buf));
		memcpy(&g.seq[g.n], buf, sizeof(__u32));
		for (size_t i = sizeof(__u32); i < n && i < payload_len; i++)
			if (buf[i] != (unsigned char)(g.seq[g.n] + i))
				g.bad_payload = true;
	}
	g.n++;
	return g.stop_after && g.n == g.stop_after ? PERFBUF_STOP : PERFBUF_CONTINUE;
}

static int snap(struct synth *s)
{
	memset(&g, 0, sizeof(g));
	return perfbuf_ring__snapshot(s->ring, collect, NULL);
}

static void write_seq(struct synth *s, __u32 first, __u32 cnt, size_t len)
{
	unsigned char p[MAX_RECORD];

	payload_len = len;
	for (__u32 i = 0; i < cnt; i++) {
		fill(p, len, first + i);
		synth_sample(s, p, len);
	}
	synth_publish(s);
}

/* The records a full ring of @size bytes keeps: whole ones only. */
static __u32 fits(size_t size, size_t len, __u32 written)
{
	size_t rec = perfbuf_record__sample_size(len, PERF_SAMPLE_RAW);
	__u32 n = (__u32)(size / rec);

	return n < written ? n : written;
}

/* A run of sequence numbers ending at @last, in order, no duplicate. */
static bool run_ends_at(__u32 last)
{
	for (int i = 0; i < g.n; i++)
		if (g.seq[i] != last - (__u32)(g.n - 1 - i))
			return false;
	return true;
}

TEST(empty)
{
	struct synth s;

	if (!ASSERT_OK(synth_init_overwrite(&s, 1, 0), "init"))
		return;
	ASSERT_EQ(snap(&s), 0, "nothing written");
	ASSERT_EQ(perfbuf_ring__avail(s.ring), 0, "avail");
	synth_free(&s);
}

TEST(some_then_more)
{
	struct synth s;

	if (!ASSERT_OK(synth_init_overwrite(&s, 2, 0), "init"))
		return;
	write_seq(&s, 0, 10, 20);
	ASSERT_EQ(perfbuf_ring__avail(s.ring), 10 * 32, "avail");
	ASSERT_EQ(snap(&s), 10, "ten");
	ASSERT_TRUE(run_ends_at(9), "oldest first, 0..9");
	ASSERT_EQ(snap(&s), 0, "nothing new");
	write_seq(&s, 10, 5, 20);
	ASSERT_EQ(snap(&s), 5, "only the new ones");
	ASSERT_TRUE(run_ends_at(14), "10..14");
	ASSERT_TRUE(!g.bad_payload, "payloads");
	synth_free(&s);
}

/* Many more records than fit, from start positions near the u64 and u32
 * boundaries, of sizes that wrap the ring end at every alignment. */
static void wrap_case(__u64 start, size_t len, __u32 cnt)
{
	struct synth s;
	char what[96];
	__u32 want;

	if (!ASSERT_OK(synth_init_overwrite(&s, 1, start), "init"))
		return;
	write_seq(&s, 0, cnt, len);
	want = fits(s.data_size, len, cnt);
	snprintf(what, sizeof(what), "start %llu len %zu cnt %u",
		 (unsigned long long)start, len, cnt);
	ASSERT_EQ(snap(&s), want, what);
	ASSERT_TRUE(run_ends_at(cnt - 1), what);
	ASSERT_TRUE(!g.bad_payload, what);
	write_seq(&s, cnt, 3, len);
	ASSERT_EQ(snap(&s), fits(s.data_size, len, 3), what);
	ASSERT_TRUE(run_ends_at(cnt + 2), what);
	synth_free(&s);
}

TEST(wrap_matrix)
{
	static const size_t lens[] = { 4, 20, 100, 1000, 4000 };
	static const __u64 starts[] = { 0, 8, 4000, 1ULL << 32, (__u64)-8,
					(__u64)-4096, (__u64)-40 };

	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		for (size_t j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			wrap_case(starts[i], lens[j], 3);
			wrap_case(starts[i], lens[j], 5000);
		}
}

/* Exactly full: the oldest record ends at head + size. */
TEST(exactly_full)
{
	struct synth s;
	size_t len = 4096 / 8 - 12;	/* records of 512 bytes */

	if (!ASSERT_OK(synth_init_overwrite(&s, 1, 0), "init"))
		return;
	write_seq(&s, 0, 8, len);
	ASSERT_EQ(snap(&s), 8, "all eight");
	ASSERT_TRUE(run_ends_at(7), "0..7");
	write_seq(&s, 8, 9, len);
	ASSERT_EQ(snap(&s), 8, "the newest eight of nine");
	ASSERT_TRUE(run_ends_at(16), "9..16");
	synth_free(&s);
}

TEST(stop_drops_the_rest)
{
	struct synth s;

	if (!ASSERT_OK(synth_init_overwrite(&s, 1, 0), "init"))
		return;
	write_seq(&s, 0, 10, 20);
	memset(&g, 0, sizeof(g));
	g.stop_after = 4;
	ASSERT_EQ(perfbuf_ring__snapshot(s.ring, collect, NULL), 4, "stopped");
	ASSERT_EQ(g.seq[0], 0, "oldest first");
	ASSERT_EQ(snap(&s), 0, "the rest is gone");
	synth_free(&s);
}

/* Damage in the new records: the newer ones are kept, the rest dropped
 * and counted. */
TEST(corrupt_headers)
{
	static const __u16 bad_sizes[] = { 0, 4, 12, 0xfff8 };

	for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
		struct perf_event_header *eh;
		struct perfbuf_ring_stats st = { .sz = sizeof(st) };
		struct synth s;
		perfbuf_print_fn old;

		if (!ASSERT_OK(synth_init_overwrite(&s, 1, 0), "init"))
			return;
		write_seq(&s, 0, 5, 20);
		/* records are 32 bytes: the third newest is seq 2 */
		eh = (void *)(s.data + ((s.head + 64) & (s.data_size - 1)));
		eh->size = bad_sizes[i];
		old = test_capture_warnings();
		ASSERT_EQ(snap(&s), 2, "the two newer");
		perfbuf_set_print(old);
		ASSERT_TRUE(run_ends_at(4), "3, 4");
		ASSERT_TRUE(strstr(test_warning, "corrupt record in a snapshot") != NULL,
			    "warned");
		perfbuf_ring__stats(s.ring, &st);
		ASSERT_EQ(st.corrupt, 1, "counted");
		ASSERT_EQ(st.samples, 2, "samples counted");
		synth_free(&s);
	}
}

TEST(lost_and_time)
{
	struct synth s;
	unsigned char p[20];

	if (!ASSERT_OK(synth_init_overwrite(&s, 1, 0), "init"))
		return;
	perfbuf_ring__set_sample_type(s.ring, PERF_SAMPLE_TIME | PERF_SAMPLE_RAW,
				      true);
	fill(p, sizeof(p), 0);
	synth_sample_at(&s, 100, p, sizeof(p));
	synth_lost_at(&s, 0, 7, 150);
	fill(p, sizeof(p), 1);
	synth_sample_at(&s, 200, p, sizeof(p));
	synth_publish(&s);
	ASSERT_EQ(snap(&s), 3, "three records");
	ASSERT_EQ(g.kinds[0], PERFBUF_REC_SAMPLE, "sample first");
	ASSERT_EQ(g.kinds[1], PERFBUF_REC_LOST, "then lost");
	ASSERT_EQ(g.lost, 7, "lost count");
	ASSERT_EQ(g.seq[2], 1, "newest last");
	synth_free(&s);
}

TEST(modes_refused)
{
	struct perfbuf_record rec;
	struct perfbuf_iter it;
	struct synth fw, ow;

	if (!ASSERT_OK(synth_init(&fw, 1, 0), "forward") ||
	    !ASSERT_OK(synth_init_overwrite(&ow, 1, 0), "overwrite"))
		return;
	ASSERT_EQ(perfbuf_ring__snapshot(fw.ring, collect, NULL), -EINVAL,
		  "snapshot of a forward ring");
	write_seq(&ow, 0, 3, 20);
	ASSERT_EQ(perfbuf_ring__fold(ow.ring, collect, NULL), -EINVAL,
		  "fold of an overwrite ring");
	it = perfbuf_ring__begin(ow.ring);
	ASSERT_TRUE(!perfbuf_iter__next(&it, &rec), "iterator empty");
	ASSERT_EQ(perfbuf_ring__end(ow.ring, it), -EINVAL, "iterator refused");
	ASSERT_EQ(ow.hdr->data_tail, 0, "data_tail never written");
	ASSERT_EQ(snap(&ow), 3, "still there for the snapshot");
	synth_free(&fw);
	synth_free(&ow);
}


/* ---- for real: a flight-recorder collector on emit.bpf.c ------------- */

struct live {
	int n[2];		/* samples per CPU */
	__u64 first[2], last[2];
	bool gap, bad, unordered, other;
	__u64 last_ns;
};

static int on_live(void *ctx, const struct perfbuf_record *rec)
{
	struct live *l = ctx;
	unsigned char buf[256];
	struct emit_rec er;
	int c = rec->cpu;

	if (rec->kind != PERFBUF_REC_SAMPLE || c < 0 || c > 1) {
		l->other = true;
		return PERFBUF_CONTINUE;
	}
	perfbuf_record__copy(rec, buf, sizeof(buf));
	memcpy(&er, buf, sizeof(er));
	if (l->n[c] && er.seq != l->last[c] + 1)
		l->gap = true;
	if (!l->n[c])
		l->first[c] = er.seq;
	if (!emit_payload_ok(buf, rec->data_sz + rec->data2_sz, c, er.seq))
		l->bad = true;
	if (rec->time_ns < l->last_ns || (rec->flags & PERFBUF_RECF_LATE))
		l->unordered = true;
	l->last_ns = rec->time_ns;
	l->last[c] = er.seq;
	l->n[c]++;
	return PERFBUF_CONTINUE;
}

static const int cpu01[] = { 0, 1 };

TEST(flight_recorder_real)
{
	PERFBUF_OPTS(perfbuf_opts, o, .overwrite = true, .timestamps = true,
		     .page_cnt = 1, .cpus = cpu01, .cpu_cnt = 2);
	struct emit_stats es;
	struct live l = {};
	struct emit_fixture f;
	/* 64-byte payloads with a time: 88-byte records, 46 in 4 KiB */
	const int keep = 4096 / 88;

	if (!emit_fixture_open(&f, true, on_live, &l, &o))
		goto out;
	for (int c = 0; c < 2; c++)
		ASSERT_OK(emit_run(f.skel, c, 1000, 64), "emit");
	ASSERT_EQ(perfbuf__poll(f.pb, 10), 0, "poll hands nothing over");
	ASSERT_EQ(perfbuf__consume(f.pb), -EINVAL, "consume refused");
	ASSERT_EQ(perfbuf__drain(f.pb), -EINVAL, "drain refused");
	ASSERT_EQ(perfbuf__snapshot(f.pb), 2 * keep, "the newest of each CPU");
	for (int c = 0; c < 2; c++) {
		ASSERT_EQ(l.n[c], keep, "kept per CPU");
		ASSERT_EQ(l.last[c], 999, "ending at the last");
		ASSERT_OK(emit_stats_cpu(f.skel, c, &es), "emit stats");
		ASSERT_EQ(es.ok, 1000, "the kernel never refused");
	}
	ASSERT_TRUE(!l.gap && !l.bad && !l.other, "contiguous, intact");
	ASSERT_TRUE(!l.unordered, "in time order across CPUs");
	memset(&l, 0, sizeof(l));
	ASSERT_OK(emit_run(f.skel, 0, 10, 64), "emit more");
	ASSERT_EQ(perfbuf__snapshot(f.pb), 10, "only what is new");
	ASSERT_EQ(l.n[0], 10, "CPU0's ten");
	ASSERT_EQ(l.first[0], 1000, "from 1000");
	ASSERT_EQ(l.n[1], 0, "nothing of CPU1 twice");
out:
	emit_fixture_close(&f);
}

TEST_MAIN(
	TEST_ENTRY(empty),
	TEST_ENTRY(some_then_more),
	TEST_ENTRY(wrap_matrix),
	TEST_ENTRY(exactly_full),
	TEST_ENTRY(stop_drops_the_rest),
	TEST_ENTRY(corrupt_headers),
	TEST_ENTRY(lost_and_time),
	TEST_ENTRY(modes_refused),
	TEST_ENTRY(flight_recorder_real),
)
