// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libperfbuf 4.x's growth rules (include/perfbuf/common.h), checked the
 * way an older or newer caller meets them: a caller whose struct is
 * shorter than the library's (sz smaller) gets only its bytes written, one
 * whose struct is longer keeps its extra bytes, and options have no hole
 * at their end. A program built against 3.x cannot run with 4.x at all
 * (soname libperfbuf.so.4, version node LIBPERFBUF_4.0): by design. Some
 * checks go through functions 4.0 no longer exports (the sample parser:
 * the sampler's callbacks get its samples), from the private headers.
 */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include "perfbuf.h"
#include "ring_priv.h"
#include "sample_priv.h"
#include "synth.h"
#include "test.h"

#define END(T, f) (offsetof(struct T, f) + sizeof(((struct T *)0)->f))
#define CANARY 0x5a5a5a5a5a5a5a5aULL

/* Every byte of an options struct is a named field: a designated
 * initializer zeroes it, so a later field in the space cannot see junk. */
TEST(opts_end_without_hole)
{
	ASSERT_EQ(sizeof(struct perfbuf_opts), END(perfbuf_opts, buffer_size),
		  "perfbuf_opts");
	ASSERT_EQ(sizeof(struct perfbuf_event_opts),
		  END(perfbuf_event_opts, __reserved), "perfbuf_event_opts");
	ASSERT_EQ(sizeof(struct perfbuf_sampler_opts),
		  END(perfbuf_sampler_opts, prog_fd), "perfbuf_sampler_opts");
	ASSERT_EQ(sizeof(struct perfbuf_batch_opts),
		  END(perfbuf_batch_opts, record_cnt), "perfbuf_batch_opts");
	ASSERT_EQ(sizeof(struct perfbuf_ledger_opts),
		  END(perfbuf_ledger_opts, btf), "perfbuf_ledger_opts");
}

/* An iteration into a record shorter than the library's: the fields past
 * it are never written, on the slow path either (LOST, OTHER records). */
TEST(older_record_gets_its_bytes)
{
	static const char body[16] = "other record";
	struct synth s;
	struct perfbuf_iter it;
	union {
		struct perfbuf_record rec;
		unsigned char b[sizeof(struct perfbuf_record)];
	} u;
	size_t old_sz = offsetof(struct perfbuf_record, flags);
	int n = 0;

	if (!ASSERT_OK(synth_init(&s, 1, 0), "synthetic ring"))
		return;
	ASSERT_TRUE(synth_lost(&s, 1, 7) && synth_other(&s, 99, 0, body, 16),
		    "a LOST and an OTHER record");
	synth_publish(&s);
	it = perfbuf_ring__begin_sz(s.ring, old_sz);
	memset(u.b, 0x5a, sizeof(u.b));
	/* the slow path directly: the inline part is the caller's own */
	while (it.slow(&it, &u.rec)) {
		n++;
		ASSERT_EQ(u.b[old_sz], 0x5a, "the byte past the caller's record");
		ASSERT_EQ(u.rec.flags & 0xff, 0x5a, "flags untouched");
		ASSERT_EQ(u.rec.kind, n == 1 ? PERFBUF_REC_LOST : PERFBUF_REC_OTHER,
			  "its own fields written");
	}
	ASSERT_EQ(n, 2, "both records");
	ASSERT_OK(perfbuf_ring__end(s.ring, it), "end");
	synth_free(&s);
}

/* Leave 0x5a where the next call's locals will be. */
static __attribute__((noinline)) void stack_dirty(void)
{
	volatile unsigned char junk[4096];

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = 0x5a;
}

static int lost_flags_cb(void *ctx, const struct perfbuf_record *rec)
{
	int *bad = ctx;

	if (rec->kind != PERFBUF_REC_LOST || rec->lost != 7 || rec->flags)
		(*bad)++;
	return PERFBUF_CONTINUE;
}

/* A snapshot hands the callback the library's whole record, even after an
 * older caller's begin_sz() on the same ring: the record size is the
 * iterating caller's, not the ring's for every later reader. */
TEST(snapshot_after_older_begin_fills_whole_record)
{
	size_t old_sz = offsetof(struct perfbuf_record, flags);
	struct perfbuf_iter it;
	struct synth s;
	int bad = 0;

	if (!ASSERT_OK(synth_init_overwrite(&s, 1, 0), "overwrite ring"))
		return;
	it = perfbuf_ring__begin_sz(s.ring, old_sz);
	ASSERT_EQ(perfbuf_ring__end(s.ring, it), -EINVAL,
		  "an iteration of an overwrite ring refused");
	ASSERT_TRUE(synth_lost(&s, 1, 7), "a LOST record");
	synth_publish(&s);
	stack_dirty();
	ASSERT_EQ(perfbuf_ring__snapshot(s.ring, lost_flags_cb, &bad), 1,
		  "the snapshot's record");
	ASSERT_EQ(bad, 0, "a LOST record of 7 with flags 0");
	synth_free(&s);
}

/* The inline iterator's slow path copies the iterator field by field (a
 * whole-struct copy made GCC carry two counters in a vector register):
 * every byte but the padding after cpu must come across, so that a field
 * added to the struct and not to perfbuf_iter__copy() fails here. */
TEST(iter_copy_covers_every_field)
{
	size_t hole = END(perfbuf_iter, cpu), after = offsetof(struct perfbuf_iter, samples);
	union {
		struct perfbuf_iter it;
		unsigned char b[sizeof(struct perfbuf_iter)];
	} src, dst;

	memset(src.b, 0xa5, sizeof(src.b));
	memset(dst.b, 0, sizeof(dst.b));
	perfbuf_iter__copy(&dst.it, &src.it);
	ASSERT_MEMEQ(dst.b, src.b, hole, "the fields up to cpu");
	ASSERT_MEMEQ(dst.b + after, src.b + after, sizeof(src.b) - after,
		     "the fields from samples to the end");
	ASSERT_TRUE(after - hole < 8, "no field in the padding after cpu");
}

/* A result struct: shorter, only its bytes; longer, its tail untouched
 * and sz says what was filled; no sz, -EINVAL. */
TEST(stats_sized_by_the_caller)
{
	struct {
		struct perfbuf_ring_stats st;
		__u64 newer;		/* a field of a later version */
	} big = { .st.sz = sizeof(big), .newer = CANARY };
	struct perfbuf_ring_stats st;
	struct perfbuf_iter it;
	struct perfbuf_record rec;
	struct synth s;

	if (!ASSERT_OK(synth_init(&s, 1, 0), "synthetic ring"))
		return;
	ASSERT_TRUE(synth_sample(&s, "abcdefgh", 8), "a sample");
	synth_publish(&s);
	it = perfbuf_ring__begin(s.ring);
	while (perfbuf_iter__next(&it, &rec))
		;
	perfbuf_ring__end(s.ring, it);
	memset(&st, 0x5a, sizeof(st));
	st.sz = offsetof(struct perfbuf_ring_stats, late);
	ASSERT_OK(perfbuf_ring__stats(s.ring, &st), "older caller");
	ASSERT_EQ(st.samples, 1, "its fields filled");
	ASSERT_EQ(st.late, CANARY, "the field it does not have untouched");
	ASSERT_EQ(st.sz, offsetof(struct perfbuf_ring_stats, late), "sz: its bytes");
	ASSERT_OK(perfbuf_ring__stats(s.ring, &big.st), "newer caller");
	ASSERT_EQ(big.st.samples, 1, "the library's fields filled");
	ASSERT_EQ(big.newer, CANARY, "the field the library does not know untouched");
	ASSERT_EQ(big.st.sz, sizeof(struct perfbuf_ring_stats), "sz: the library's bytes");
	st.sz = 0;
	ASSERT_EQ(perfbuf_ring__stats(s.ring, &st), -EINVAL, "sz not set");
	synth_free(&s);
}

/* The parser and counter reads fill the caller's struct up to its sz. */
TEST(sample_and_count_sized_by_the_caller)
{
	PERFBUF_OPTS(perfbuf_event_opts, ev, .kind = PERFBUF_EV_SOFTWARE,
		     .sample_period = 1, .sample_type = PERF_SAMPLE_IP);
	__u64 rec[2] = { 0, 0x1234 };	/* header, then the IP */
	struct perf_event_header *eh = (void *)rec;
	struct perf_event_attr attr;
	struct perfbuf_sample_parser *p;
	struct perfbuf_sample smp;
	__u64 value = 42;
	struct perfbuf_sample_read rd = { .nr = 1, .data = &value, .words = 1 };
	struct perfbuf_count c;
	size_t old_sz = offsetof(struct perfbuf_sample, addr);

	eh->type = PERF_RECORD_SAMPLE;
	eh->size = sizeof(rec);
	if (!ASSERT_OK(perfbuf_event__attr(&attr, &ev), "attr"))
		return;
	p = perfbuf_sample_parser__new(&attr);
	if (!ASSERT_OK_PTR(p, "parser"))
		return;
	memset(&smp, 0x5a, sizeof(smp));
	smp.sz = old_sz;
	ASSERT_OK(perfbuf_sample_parser__parse_bytes(p, rec, sizeof(rec), &smp),
		  "older caller");
	ASSERT_EQ(smp.ip, 0x1234, "its fields filled");
	ASSERT_EQ(smp.addr, CANARY, "the fields it does not have untouched");
	ASSERT_EQ(smp.sz, old_sz, "sz: its bytes");
	smp.sz = sizeof(smp);
	ASSERT_OK(perfbuf_sample_parser__parse_bytes(p, rec, sizeof(rec), &smp),
		  "same version");
	ASSERT_EQ(smp.addr, 0, "all filled");
	smp.sz = 0;
	ASSERT_EQ(perfbuf_sample_parser__parse_bytes(p, rec, sizeof(rec), &smp),
		  -EINVAL, "sz not set");
	perfbuf_sample_parser__free(p);

	memset(&c, 0x5a, sizeof(c));
	c.sz = offsetof(struct perfbuf_count, scaled);
	ASSERT_OK(perfbuf_sample_read__count(&rd, 0, &c), "older caller's count");
	ASSERT_EQ(c.value, 42, "value");
	ASSERT_EQ(c.lost, 0, "its fields filled");
	ASSERT_EQ(memcmp(&c.scaled, &(__u64){ CANARY }, 8), 0,
		  "the field it does not have untouched");
}

/* Options from a caller built when the struct was shorter: the fields it
 * does not have are never read, whatever lies in memory after it. */
TEST(older_sampler_opts_read_to_their_size)
{
	PERFBUF_OPTS(perfbuf_event_opts, ev, .kind = PERFBUF_EV_SOFTWARE,
		     .config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1000000,
		     .sample_type = PERF_SAMPLE_IP);
	PERFBUF_OPTS(perfbuf_sampler_opts, so, .pid = getpid(), .page_cnt = 1);
	struct perfbuf_sampler *s;

	TEST_NEED_ROOT();
	/* a caller without prog_fd; junk where it would be */
	so.sz = offsetof(struct perfbuf_sampler_opts, prog_fd);
	so.prog_fd = 9999;
	s = perfbuf_sampler__new(&ev, &so);
	ASSERT_OK_PTR(s, "the junk is not a program fd");
	perfbuf_sampler__free(s);
}

TEST_MAIN(
	TEST_ENTRY(opts_end_without_hole),
	TEST_ENTRY(older_record_gets_its_bytes),
	TEST_ENTRY(snapshot_after_older_begin_fills_whole_record),
	TEST_ENTRY(iter_copy_covers_every_field),
	TEST_ENTRY(stats_sized_by_the_caller),
	TEST_ENTRY(sample_and_count_sized_by_the_caller),
	TEST_ENTRY(older_sampler_opts_read_to_their_size),
)
