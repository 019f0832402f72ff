// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * nats-tail's merge (tools/nats/tail_src.c: each host a source of
 * perfbuf_merge), without a server: messages' lines in time order across
 * hosts, held for the window, a host's late batch sorted in while within
 * it and flagged late after it, ties deterministic, -n's stop losing
 * nothing, every line printed or counted skipped.
 */
#include <stdint.h>

#include "test.h"
#include "nats/tail_src.h"

#define MAX_OUT 32

struct out {
	size_t n, stop_at;
	char host[MAX_OUT];	/* the hosts are one letter */
	__s64 t[MAX_OUT];
	bool late[MAX_OUT];
	char data[MAX_OUT][64];
};

static int collect(void *ctx, const struct tail_line *l)
{
	struct out *o = ctx;

	if (o->n < MAX_OUT) {
		o->host[o->n] = l->host[0];
		o->t[o->n] = l->time;
		o->late[o->n] = l->late;
		snprintf(o->data[o->n], sizeof(o->data[0]), "%s", l->data);
	}
	o->n++;
	return o->stop_at && o->n == o->stop_at ? PERFBUF_STOP : PERFBUF_CONTINUE;
}

/* A message of @host whose first line is at Unix time @real, its lines
 * events at the monotonic times @t (0: a line without time_ns). */
static size_t msg(struct tail_src *ts, const char *host, __s64 real,
		  const __s64 *t, size_t n)
{
	char buf[1024];
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		if (t[i])
			len += snprintf(buf + len, sizeof(buf) - len,
					"{\"type\":\"event\",\"time_ns\":%lld,\"i\":%zu}\n",
					(long long)t[i], i);
		else
			len += snprintf(buf + len, sizeof(buf) - len,
					"{\"type\":\"lost\",\"i\":%zu}\n", i);
	}
	return tail_src_add(ts, host, "i", real, buf, len);
}

static void expect(const struct out *o, const char *hosts, const __s64 *t,
		   const char *what)
{
	size_t n = strlen(hosts);

	if (!ASSERT_EQ(o->n, n, what))
		return;
	for (size_t i = 0; i < n && i < MAX_OUT; i++) {
		if (!ASSERT_EQ(o->host[i], hosts[i], what) ||
		    !ASSERT_EQ(o->t[i], t[i], what))
			fprintf(stderr, "  line %zu\n", i);
	}
}

/* Two hosts interleaved; equal times: a host's lines in arrival order,
 * the host seen first before the other (not arrival across hosts: the
 * library's merge orders sources, ties to the elder) */
TEST(hosts_in_time_order_ties_deterministic)
{
	static const __s64 a1[] = { 10, 20, 30 }, b1[] = { 5, 10, 15 };
	static const __s64 a2[] = { 7 }, want_t[] = { 1000, 1005, 1010,
		1010, 1010, 1015, 1020 };
	struct tail_src *ts = tail_src_new();
	struct out o = {};

	if (!ASSERT_OK_PTR(ts, "new"))
		return;
	ASSERT_EQ(msg(ts, "a", 1000, a1, 3), 0, "a: 1000 1010 1020");
	ASSERT_EQ(msg(ts, "b", 1005, b1, 3), 0, "b: 1005 1010 1015");
	ASSERT_EQ(msg(ts, "a", 1010, a2, 1), 0, "a again: 1010");
	ASSERT_EQ(tail_src_waiting(ts), 7, "waiting");
	ASSERT_EQ(tail_src_emit(ts, 0, true, collect, &o), 7, "all");
	expect(&o, "abaabba", want_t, "order");
	ASSERT_TRUE(strstr(o.data[3], "\"i\":0") && strstr(o.data[2], "\"i\":1"),
		    "a's 1010s in arrival order");
	ASSERT_EQ(tail_src_late(ts), 0, "none late");
	ASSERT_EQ(tail_src_waiting(ts), 0, "none waiting");
	tail_src_free(ts);
}

/* Lines wait until the newest is a window past them; a host's batch that
 * comes late but within the window is sorted in; one that comes after
 * newer lines went out goes out late, flagged and counted */
TEST(window_sorts_in_then_late_flagged)
{
	static const __s64 a[] = { 100, 200, 300 }, b[] = { 50, 250 };
	static const __s64 c[] = { 40 }, want1[] = { 1050, 1100 };
	static const __s64 want2[] = { 1200, 1250 }, want3[] = { 990 };
	static const __s64 want4[] = { 1300 };
	struct tail_src *ts = tail_src_new();
	struct out o = {};

	if (!ASSERT_OK_PTR(ts, "new"))
		return;
	msg(ts, "a", 1000, a, 1);			/* 1000 */
	msg(ts, "a", 1100, a + 1, 2);			/* 1100 1200 */
	ASSERT_EQ(tail_src_emit(ts, 150, false, collect, &o), 1, "to 1050");
	msg(ts, "b", 1050, b, 2);			/* 1050 1250 */
	o = (struct out){};
	ASSERT_EQ(tail_src_emit(ts, 150, false, collect, &o), 2, "to 1100");
	expect(&o, "ba", want1, "b's 1050 sorted in");
	o = (struct out){};
	msg(ts, "a", 1300, a + 2, 1);			/* 1300: to 1150 */
	ASSERT_EQ(tail_src_emit(ts, 50, false, collect, &o), 2, "to 1250");
	expect(&o, "ab", want2, "window");
	ASSERT_EQ(tail_src_waiting(ts), 1, "1300 waits");
	o = (struct out){};
	msg(ts, "c", 990, c, 1);			/* older than all */
	ASSERT_EQ(tail_src_emit(ts, 50, false, collect, &o), 1, "late one");
	expect(&o, "c", want3, "late");
	ASSERT_TRUE(o.late[0], "flagged");
	ASSERT_EQ(tail_src_late(ts), 1, "counted");
	o = (struct out){};
	ASSERT_EQ(tail_src_emit(ts, 50, true, collect, &o), 1, "the rest");
	expect(&o, "a", want4, "rest");
	ASSERT_TRUE(!o.late[0], "not late");
	tail_src_free(ts);
}

/* -n stops in the middle: the rest goes out at the next call, once */
TEST(stop_loses_nothing)
{
	static const __s64 a[] = { 1, 2, 3, 4, 5 }, b[] = { 1, 2, 3 };
	struct tail_src *ts = tail_src_new();
	struct out o = { .stop_at = 3 }, o2 = {};

	if (!ASSERT_OK_PTR(ts, "new"))
		return;
	msg(ts, "a", 100, a, 5);
	msg(ts, "b", 100, b, 3);
	ASSERT_EQ(tail_src_emit(ts, 0, true, collect, &o), 3, "stopped");
	ASSERT_EQ(tail_src_waiting(ts), 5, "five wait");
	ASSERT_EQ(tail_src_emit(ts, 0, true, collect, &o2), 5, "the rest");
	ASSERT_EQ(o2.t[0], 101, "from where it stopped");
	ASSERT_EQ(o2.host[0], 'b', "b's 101 after a's");
	ASSERT_EQ(tail_src_waiting(ts), 0, "none left");
	ASSERT_EQ(tail_src_late(ts), 0, "none late");
	tail_src_free(ts);
}

/* A line without time_ns takes its elder's time; what is not perfbuf's
 * JSON is skipped and counted; empty lines are nothing */
TEST(lines_timed_and_skipped)
{
	static const char data[] =
		"{\"type\":\"event\",\"time_ns\":\"500\"}\n"
		"\n"
		"{\"type\":\"summary\"}\n"
		"not json\n"
		"{\"host\":\"forged\",\"type\":\"event\"}\n"
		"{\"type\":\"event\",\"time_ns\":530}";
	static const __s64 want[] = { 7000, 7000, 7030 };
	struct tail_src *ts = tail_src_new();
	struct out o = {};

	if (!ASSERT_OK_PTR(ts, "new"))
		return;
	ASSERT_EQ(tail_src_add(ts, "h", "", 7000, data, strlen(data)), 2, "skipped");
	ASSERT_EQ(tail_src_emit(ts, 0, true, collect, &o), 3, "kept");
	expect(&o, "hhh", want, "times");
	ASSERT_TRUE(!strcmp(o.data[1], "{\"type\":\"summary\"}"), "NUL-ended");
	ASSERT_EQ(tail_src_add(ts, "h", "", 1, "", 0), 0, "empty message");
	ASSERT_EQ(tail_src_waiting(ts), 0, "none");
	tail_src_free(ts);
}

/* --json: the Perfbuf-Host header (anyone's bytes) by the escaper of
 * every JSON output: a byte that is not UTF-8 as \udcXX, never copied */
TEST(json_host_escaped)
{
	struct tail_line l = { .time = 5, .host = "we\xff" "b\"1\x7f", .args = "",
			       .data = "{\"type\":\"event\"}" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!ASSERT_OK_PTR(f, "memstream"))
		return;
	l.len = strlen(l.data);
	tail_print(f, &l, true);
	fclose(f);
	ASSERT_TRUE(buf && !strcmp(buf, "{\"host\":\"we\\udcffb\\\"1\\u007f\",\"realtime_ns\":5,\"type\":\"event\"}\n"),
		    buf ? buf : "nothing");
	free(buf);
}

TEST_MAIN(
	TEST_ENTRY(json_host_escaped),
	TEST_ENTRY(hosts_in_time_order_ties_deterministic),
	TEST_ENTRY(window_sorts_in_then_late_flagged),
	TEST_ENTRY(stop_loses_nothing),
	TEST_ENTRY(lines_timed_and_skipped),
)
