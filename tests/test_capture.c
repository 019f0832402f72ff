// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Capture files (tools/record/): frames written from ring spans, read
 * back per CPU or in time order with LOST records trimmed as live; cut and
 * damaged files give everything before the damage and say where.
 */
#include <fcntl.h>
#include <unistd.h>

#include "record/capture.h"
#include "record/ledger_io.h"
#include "record/stream.h"
#include "synth.h"
#include "test.h"

#define ST (PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)
#define MAX_GOT 64

struct got {
	int n;
	int kind[MAX_GOT], cpu[MAX_GOT];
	__u64 time[MAX_GOT], lost[MAX_GOT];
	__u32 flags[MAX_GOT];
};

static int collect(void *ctx, const struct perfbuf_record *rec)
{
	struct got *g = ctx;

	if (g->n < MAX_GOT) {
		g->kind[g->n] = rec->kind;
		g->cpu[g->n] = rec->cpu;
		g->time[g->n] = rec->time_ns;
		g->lost[g->n] = rec->lost;
		g->flags[g->n] = rec->flags;
	}
	g->n++;
	return PERFBUF_CONTINUE;
}

static void on_span(void *ctx, int cpu, const struct iovec *iov, int cnt)
{
	ASSERT_OK(cap_writer__frame(ctx, CAP_DATA, (__u32)cpu, iov, cnt), "DATA");
}

/* Samples at @times (and a LOST record of @lost before the last, if any)
 * written to a synthetic ring of @cpu, then to @w as the ring's spans. */
static void data_frame(struct cap_writer *w, int cpu, const __u64 *times,
		       int n, __u64 lost, __u64 start)
{
	char payload[20] = "capture";
	struct synth s;

	if (!ASSERT_OK(synth_init(&s, 1, start), "synth"))
		return;
	perfbuf_ring__set_cpu(s.ring, cpu);
	perfbuf_ring__set_sample_type(s.ring, ST, true);
	for (int i = 0; i < n; i++) {
		if (lost && i == n - 1)
			synth_lost_at(&s, 0, lost, times[i] - 1);
		synth_sample_at(&s, times[i], payload, sizeof(payload));
	}
	synth_publish(&s);
	ASSERT_EQ(perfbuf_ring__read_spans(s.ring, on_span, w), 1, "spans");
	synth_free(&s);
}

/* The capture file, per process: another run of this test (the other
 * build's, a helper's) must not write the same file meanwhile. */
static const char *cap_path(void)
{
	static char p[64];

	if (!p[0])
		snprintf(p, sizeof(p), "/tmp/perfbuf-test-capture-%d", getpid());
	return p;
}

/*
 * CPU0: samples at 10, 30, then (a LOST record of 5 at 49) 50; its drain
 * settled 2 losses at 35 before that record came. CPU1: 20, 40, then
 * offline at 60. Written from positions near the ring end: spans wrap.
 */
static void write_capture(void)
{
	static const __u64 t0a[] = { 10, 30 }, t0b[] = { 50 }, t1[] = { 20, 40 };
	struct cap_lost l = { .lost = 2, .time_ns = 35 };
	struct cap_cpu off = { .kind = CAP_CPU_OFFLINE, .time_ns = 60 };
	struct cap_writer *w = cap_writer__open("test_capture", cap_path());

	if (!ASSERT_OK_PTR(w, "writer"))
		return;
	ASSERT_OK(cap_writer__put(w, CAP_META, 0, "clock=monotonic\n", 16), "META");
	data_frame(w, 0, t0a, 2, 0, 4096 - 24);
	data_frame(w, 1, t1, 2, 0, 0);
	ASSERT_OK(cap_writer__put(w, CAP_LOST, 0, &l, sizeof(l)), "LOST");
	data_frame(w, 0, t0b, 1, 5, 4096 - 8);
	ASSERT_OK(cap_writer__put(w, CAP_CPU, 1, &off, sizeof(off)), "CPU");
	ASSERT_OK(cap_writer__put(w, CAP_END, 0, "events=5\n", 9), "END");
	ASSERT_GT(cap_writer__bytes(w), 32, "bytes counted");
	ASSERT_OK(cap_writer__close(w, true), "close");
}

static int fold_mem(const void *buf, size_t len, bool ordered, struct got *g,
		    bool *truncated, char *why)
{
	struct cap_reader *r = cap_reader__open_mem(buf, len, why, 160);
	struct cap_stream *s;
	int n;

	memset(g, 0, sizeof(*g));
	if (!r)
		return -EINVAL;
	s = cap_stream__new(r, ST, true);
	if (!ASSERT_OK_PTR(s, "stream")) {
		cap_reader__close(r);
		return -ENOMEM;
	}
	n = cap_stream__fold(s, ordered, collect, g);
	*truncated = cap_reader__truncated(r);
	snprintf(why, 160, "%s", cap_reader__error(r));
	cap_stream__free(s);
	cap_reader__close(r);
	return n;
}

static char *slurp(size_t *len)
{
	int fd = open(cap_path(), O_RDONLY);
	char *buf = malloc(1 << 16);
	ssize_t n = fd >= 0 && buf ? read(fd, buf, 1 << 16) : -1;

	if (fd >= 0)
		close(fd);
	*len = n > 0 ? (size_t)n : 0;
	return buf;
}

TEST(ordered_and_lost_trimmed)
{
	static const __u64 want_t[] = { 10, 20, 30, 35, 40, 49, 50, 60 };
	static const int want_k[] = {
		PERFBUF_REC_SAMPLE, PERFBUF_REC_SAMPLE, PERFBUF_REC_SAMPLE,
		PERFBUF_REC_LOST, PERFBUF_REC_SAMPLE, PERFBUF_REC_LOST,
		PERFBUF_REC_SAMPLE, PERFBUF_REC_CPU_OFFLINE,
	};
	char why[160];
	bool cut;
	size_t len;
	char *buf;
	struct got g;

	write_capture();
	buf = slurp(&len);
	ASSERT_EQ(fold_mem(buf, len, true, &g, &cut, why), 8, "8 records");
	for (int i = 0; i < 8; i++) {
		ASSERT_EQ(g.time[i], want_t[i], "time order");
		ASSERT_EQ(g.kind[i], want_k[i], "kind");
		ASSERT_EQ(g.flags[i], 0, "none late");
	}
	ASSERT_EQ(g.lost[3], 2, "the drain's 2");
	ASSERT_EQ(g.lost[5], 3, "the LOST record's 5, less the 2 reported");
	ASSERT_EQ(g.cpu[7], 1, "CPU1 went offline");
	ASSERT_TRUE(!cut, "ends with its END frame");
	ASSERT_EQ(fold_mem(buf, len, false, &g, &cut, why), 8, "file order");
	ASSERT_EQ(g.time[2], 20, "CPU0's first frame, then CPU1's");
	ASSERT_EQ(g.time[4], 35, "then the LOST frame");
	free(buf);
	unlink(cap_path());
}

/* Every prefix of the file: no crash, nothing past the cut, and either a
 * clean cut between frames (truncated) or damage named by offset. */
TEST(every_cut)
{
	size_t len;
	char *buf, why[160];
	int full, last = 0;

	write_capture();
	buf = slurp(&len);
	for (size_t cut = 0; cut <= len; cut++) {
		char *copy = malloc(cut ? cut : 1);	/* exact: ASan sees overreads */
		struct got g;
		bool truncated;
		int n;

		memcpy(copy, buf, cut);
		n = fold_mem(copy, cut, true, &g, &truncated, why);
		if (cut < 32) {
			ASSERT_EQ(n, -EINVAL, "no header: refused");
		} else if (n == -EBADMSG) {
			ASSERT_TRUE(strstr(why, "at byte") != NULL, why);
			ASSERT_GE(g.n, last, "records grow with the prefix");
		} else if (cut + 7 < len) {	/* not in END's padding */
			ASSERT_TRUE(truncated, "cut between frames: said so");
		}
		if (n >= 0 || n == -EBADMSG)
			last = g.n;
		free(copy);
	}
	{
		struct got g;
		bool t;

		full = fold_mem(buf, len, true, &g, &t, why);
		ASSERT_EQ(full, 8, "whole file");
		ASSERT_EQ(last, 8, "the whole file gave all");
	}
	free(buf);
	unlink(cap_path());
}

TEST(damage_and_versions)
{
	struct cap_header h;
	size_t len;
	char *buf, why[160];
	struct got g;
	bool t;

	write_capture();
	buf = slurp(&len);
	/* END is the last 40 bytes (24 + 9 + 7 of padding), the CPU frame
	 * the 40 before: flip a bit of its payload */
	buf[len - 50] ^= 1;
	ASSERT_EQ(fold_mem(buf, len, true, &g, &t, why), -EBADMSG, "CRC");
	ASSERT_TRUE(strstr(why, "fails its CRC") != NULL, why);
	ASSERT_GE(g.n, 7, "what came before is delivered");
	buf[len - 50] ^= 1;
	memcpy(&h, buf, sizeof(h));
	h.version = CAP_VERSION + 1;
	memcpy(buf, &h, sizeof(h));
	ASSERT_EQ(fold_mem(buf, len, true, &g, &t, why), -EINVAL, "newer");
	ASSERT_TRUE(strstr(why, "newer than this perfbuf") != NULL, why);
	ASSERT_EQ(fold_mem("hello", 5, true, &g, &t, why), -EINVAL, "junk");
	ASSERT_TRUE(strstr(why, "not a perfbuf capture") != NULL, why);
	free(buf);
	unlink(cap_path());
}

TEST(writer_refusals)
{
	struct cap_writer *w;

	unlink("/tmp/perfbuf-test-capture-link");
	ASSERT_OK(symlink("/tmp/perfbuf-test-capture-target",
			  "/tmp/perfbuf-test-capture-link"), "symlink");
	w = cap_writer__open("test_capture", "/tmp/perfbuf-test-capture-link");
	ASSERT_TRUE(!w && errno == ELOOP, "never through a symlink");
	unlink("/tmp/perfbuf-test-capture-link");
	w = cap_writer__open("test_capture", "/dev/full");
	ASSERT_TRUE(!w && errno == ENOSPC, "a full disk at the header");
}

/* A capture cut (by another process) while report has it mapped: the
 * pages past the new end fault (SIGBUS); the reader says it was cut. */
TEST(file_cut_while_read)
{
	char why[160], meta[3 * 4096], cut[80];
	struct cap_reader *r = NULL;
	struct cap_writer *w;
	struct cap_view v;
	int ret;

	snprintf(cut, sizeof(cut), "%s-cut", cap_path());
	memset(meta, 'x', sizeof(meta));
	w = cap_writer__open("test_capture", cut);
	if (!ASSERT_OK_PTR(w, "writer"))
		return;
	ASSERT_OK(cap_writer__put(w, CAP_META, 0, meta, sizeof(meta)), "META of 3 pages");
	ASSERT_OK(cap_writer__put(w, CAP_END, 0, "", 0), "END");
	ASSERT_OK(cap_writer__close(w, true), "close");
	r = cap_reader__open(cut, why, sizeof(why));
	if (!ASSERT_OK_PTR(r, why))
		goto out;
	ASSERT_OK(truncate(cut, 4096), "cut to a page");
	while ((ret = cap_reader__next(r, &v)) > 0)
		;
	ASSERT_EQ(ret, -EBADMSG, "damage, not a crash");
	ASSERT_TRUE(strstr(cap_reader__error(r), "cut while being read") != NULL,
		    cap_reader__error(r));
out:
	cap_reader__close(r);
	unlink(cut);
}


/* A capture with two LEDGER frames (a second from a later drain) among
 * its records, @offered the second's first kind's count */
static void write_ledger_capture(const char *path, __u64 offered)
{
	static const __u64 t[] = { 10, 20 };
	struct tv_kind_summary k[2] = {
		{ .name = "tracepoint:a:b", .offered = 3, .received = 3 },
		{ .name = "uprobe:c", .offered = 7, .received = 5, .lost = 2 },
	};
	struct ledger_view v = { .kinds = k, .nkinds = 2 };
	struct cap_writer *w = cap_writer__open("test_capture", path);

	if (!ASSERT_OK_PTR(w, "writer"))
		return;
	ASSERT_OK(cap_writer__put(w, CAP_META, 0, "clock=monotonic\n", 16), "META");
	ASSERT_OK(capture_ledger_write(w, &v, "probe"), "a first LEDGER");
	data_frame(w, 0, t, 2, 0, 0);
	k[0].offered = k[0].received = offered;
	ASSERT_OK(capture_ledger_write(w, &v, "probe"), "the last LEDGER");
	ASSERT_OK(cap_writer__put(w, CAP_END, 0, "events=2\n", 9), "END");
	ASSERT_OK(cap_writer__close(w, true), "close");
}

/* report's ledger is the last LEDGER frame its one reading of the file
 * passed: the capture is not opened again (the path, replaced meanwhile
 * by another capture, or gone, changes nothing), and before the reading
 * there is none */
TEST(ledger_from_the_one_reading)
{
	char other[80], word[CAP_LEDGER_WORD_MAX];
	struct ledger_view v;
	struct cap_reader *r;
	struct cap_stream *s;

	snprintf(other, sizeof(other), "%s-other", cap_path());
	write_ledger_capture(cap_path(), 4);
	write_ledger_capture(other, 99);
	r = cap_reader__open(cap_path(), NULL, 0);
	if (!ASSERT_OK_PTR(r, "reader"))
		return;
	ASSERT_EQ(capture_ledger_read("test_capture", cap_path(), r, &v, word), 0,
		  "no ledger before the frames are read");
	s = cap_stream__new(r, ST, true);	/* report's one pass */
	ASSERT_OK_PTR(s, "stream");
	ASSERT_OK(rename(other, cap_path()), "the path now another capture");
	ASSERT_EQ(capture_ledger_read("test_capture", cap_path(), r, &v, word), 1, "ledger");
	ASSERT_EQ(v.nkinds, 2, "two kinds");
	if (v.nkinds == 2) {
		ASSERT_EQ(v.kinds[0].offered, 4, "the last frame of the file read, not the path's");
		ASSERT_TRUE(!strcmp(v.kinds[1].name, "uprobe:c"), "kind name");
		ASSERT_EQ(v.kinds[1].lost, 2, "kind lost");
	}
	ASSERT_TRUE(!strcmp(word, "probe"), "kind word");
	ledger_view_free(&v);
	unlink(cap_path());
	ASSERT_EQ(capture_ledger_read("test_capture", cap_path(), r, &v, word), 1,
		  "the path gone: the ledger still");
	ledger_view_free(&v);
	cap_stream__free(s);
	cap_reader__close(r);
}

/* A capture may hold more than 2^31 records: counted in an int, a count
 * of 2^32 - 74 read as -EBADMSG (damage). Building such a file takes too
 * long for a test: the type that counts them is checked. */
TEST(record_count_is_64_bit)
{
	ASSERT_EQ(sizeof(cap_stream__fold(NULL, false, NULL, NULL)), 8,
		  "cap_stream__fold() counts in 64 bits");
}


TEST_MAIN(
	TEST_ENTRY(file_cut_while_read),
	TEST_ENTRY(record_count_is_64_bit),
	TEST_ENTRY(ordered_and_lost_trimmed),
	TEST_ENTRY(every_cut),
	TEST_ENTRY(damage_and_versions),
	TEST_ENTRY(writer_refusals),
	TEST_ENTRY(ledger_from_the_one_reading),
)
