// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * trace --aggregate without the kernel: expressions parsed and refused,
 * hist and lhist buckets at their edges with bpftrace's labels and bars,
 * bpftrace's order (by value, ties by key), the key limit, and the sink
 * over decoded values: probes without a field left out, keys of every
 * kind, JSON objects, what a map misses said after it.
 */
#define _GNU_SOURCE	/* memfd_create */
#include <sys/mman.h>
#include <unistd.h>

#include "test.h"
#include "output/agg.h"

static struct agg_spec spec_of(const char *text)
{
	struct agg_spec s;

	if (agg_spec_parse("test", text, &s))
		memset(&s, 0, sizeof(s));
	agg_specs_name("test", &s, 1);
	return s;
}

/* What @m prints as text (malloc) */
static char *map_text(const struct agg_map *m)
{
	struct outbuf o;
	int fd = memfd_create("agg", MFD_CLOEXEC);
	char *s;
	off_t n;

	outbuf_init(&o, fd, NULL);
	agg_text_map(&o, m);
	outbuf_flush(&o);
	outbuf_free(&o);
	n = lseek(fd, 0, SEEK_END);
	s = calloc(1, n + 1);
	if (s && n > 0 && pread(fd, s, n, 0) != n)
		s[0] = '\0';
	close(fd);
	return s;
}

/* The JSON buckets of @m's first entry (malloc) */
static char *json_buckets(const struct agg_map *m)
{
	const struct agg_entry **v = agg_map__sorted(m);
	struct outbuf o;
	char *s = calloc(1, 4096);
	int fd = memfd_create("agg", MFD_CLOEXEC);

	outbuf_init(&o, fd, NULL);
	if (v && agg_map__nkeys(m))
		agg_json_buckets(&o, m, v[0]);
	outbuf_flush(&o);
	outbuf_free(&o);
	if (s && pread(fd, s, 4095, 0) < 0)
		s[0] = '\0';
	close(fd);
	free(v);
	return s;
}

static bool text_is(const char *got, const char *want, const char *what)
{
	if (got && !strcmp(got, want))
		return true;
	fprintf(stderr, "  %s: got\n%s\n  want\n%s\n", what, got ? got : "(null)", want);
	test__failed++;
	return false;
}

TEST(parse)
{
	struct agg_spec s;

	if (!ASSERT_OK(agg_spec_parse("t", "@lat = lhist(args->count, -10, 100, 10) by comm, pid , a->b.c", &s),
		       "parse"))
		return;
	ASSERT_TRUE(!strcmp(s.name, "@lat") && s.named, "name");
	ASSERT_EQ(s.fn, AGG_LHIST, "fn");
	ASSERT_TRUE(s.val.b == AGG_B_FIELD && !strcmp(s.val.name, "count"), "args-> taken off");
	ASSERT_TRUE(s.min == -10 && s.max == 100 && s.step == 10, "lhist bounds");
	ASSERT_EQ(s.nkeys, 3, "keys");
	ASSERT_TRUE(s.keys[0].b == AGG_B_COMM && s.keys[1].b == AGG_B_PID, "builtins");
	ASSERT_TRUE(s.keys[2].b == AGG_B_FIELD && !strcmp(s.keys[2].name, "a->b.c"), "a member");
	agg_spec_free(&s);
	if (ASSERT_OK(agg_spec_parse("t", "count() by args.pid", &s), "args.pid"))
		ASSERT_TRUE(s.keys[0].b == AGG_B_FIELD && !strcmp(s.keys[0].name, "pid"),
			    "args.pid is the field");
	agg_spec_free(&s);
	if (ASSERT_OK(agg_spec_parse("t", "count() by comm, kstack, ustack", &s), "stacks"))
		ASSERT_TRUE(s.keys[1].b == AGG_B_KSTACK && s.keys[2].b == AGG_B_USTACK &&
			    agg_spec_has_key(&s, AGG_B_KSTACK) && !agg_spec_has_key(&s, AGG_B_PID),
			    "kstack, ustack: builtin keys");
	agg_spec_free(&s);
}

TEST(parse_refused)
{
	static const char *const bad[] = {
		"", "cnt()", "count(x)", "count", "sum()", "sum(x", "hist(x) by",
		"hist(x) by a,", "hist(x) for comm", "lhist(x, 0, 10)", "lhist(x, 10, 0, 1)",
		"lhist(x, 0, 10, 0)", "lhist(x, 0, 100000, 1)", "@ count()", "@x = ",
		"count() by a,b,c,d,e,f,g,h,i", "sum(1)", "sum(kstack)", "hist(ustack) by comm",
	};
	struct agg_spec s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!ASSERT_EQ(agg_spec_parse("t", bad[i], &s), -EINVAL, bad[i]))
			agg_spec_free(&s);
}

TEST(names)
{
	struct agg_spec s[4];

	s[0] = spec_of("count()");
	s[1] = spec_of("count() by comm");
	s[2] = spec_of("hist(x)");
	s[3] = spec_of("@h = sum(x)");
	ASSERT_OK(agg_specs_name("t", s, 4), "named");
	ASSERT_TRUE(!strcmp(s[0].name, "@count") && !strcmp(s[1].name, "@count_2") &&
		    !strcmp(s[2].name, "@hist") && !strcmp(s[3].name, "@h"), "names");
	strcpy(s[2].name, "@h");
	s[2].named = true;
	ASSERT_EQ(agg_specs_name("t", s, 4), -EINVAL, "two maps named @h");
	for (int i = 0; i < 4; i++)
		agg_spec_free(&s[i]);
}

TEST(hist_edges)
{
	static const struct { __u64 v; bool sgn; int slot; } c[] = {
		{ (__u64)-5, true, 0 }, { 0, false, 1 }, { 1, false, 2 }, { 2, false, 3 },
		{ 3, false, 3 }, { 1023, false, 11 }, { 1024, false, 12 },
		{ 1ULL << 63, false, 65 }, { ~0ULL, false, 65 }, { ~0ULL, true, 0 },
	};
	struct agg_spec s = spec_of("hist(x)");
	struct agg_map *m = agg_map__new(&s, 10);
	char *t;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		ASSERT_EQ(agg_hist_slot(c[i].v, c[i].sgn), c[i].slot, "slot");
	if (!ASSERT_OK_PTR(m, "map"))
		return;
	/* 1 below zero, 2 zeros, 4 in [2K, 4K), 1 in [1M, 2M) */
	agg_map__update(m, NULL, (__u64)-1, true);
	for (int i = 0; i < 2; i++)
		agg_map__update(m, NULL, 0, false);
	for (int i = 0; i < 4; i++)
		agg_map__update(m, NULL, 2048 + i * 500, false);
	agg_map__update(m, NULL, 1 << 20, false);
	t = map_text(m);
	text_is(t, "@: \n"
		"(..., 0)               1 |@@@@@@@@@@@@@                                       |\n"
		"[0]                    2 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"[1]                    0 |                                                    |\n"
		"[2, 4)                 0 |                                                    |\n"
		"[4, 8)                 0 |                                                    |\n"
		"[8, 16)                0 |                                                    |\n"
		"[16, 32)               0 |                                                    |\n"
		"[32, 64)               0 |                                                    |\n"
		"[64, 128)              0 |                                                    |\n"
		"[128, 256)             0 |                                                    |\n"
		"[256, 512)             0 |                                                    |\n"
		"[512, 1K)              0 |                                                    |\n"
		"[1K, 2K)               0 |                                                    |\n"
		"[2K, 4K)               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[4K, 8K)               0 |                                                    |\n"
		"[8K, 16K)              0 |                                                    |\n"
		"[16K, 32K)             0 |                                                    |\n"
		"[32K, 64K)             0 |                                                    |\n"
		"[64K, 128K)            0 |                                                    |\n"
		"[128K, 256K)           0 |                                                    |\n"
		"[256K, 512K)           0 |                                                    |\n"
		"[512K, 1M)             0 |                                                    |\n"
		"[1M, 2M)               1 |@@@@@@@@@@@@@                                       |\n"
		"\n", "hist text");
	free(t);
	/* the top bucket's bounds, [2^63, 2^64), in JSON: exact strings */
	agg_map__reset(m);
	agg_map__update(m, NULL, ~0ULL, false);
	t = json_buckets(m);
	text_is(t, "[{\"min\":\"9223372036854775808\",\"max\":\"18446744073709551615\",\"count\":1}]",
		"top bucket");
	free(t);
	agg_map__free(m);
	agg_spec_free(&s);
}

/* bpftrace's linear(): STEP not dividing MAX - MIN puts MAX - 1 above */
TEST(lhist_edges)
{
	struct agg_spec s = spec_of("lhist(x, 0, 10, 3)"), n = spec_of("lhist(x, -2048, 2048, 1024)");
	struct agg_map *m = agg_map__new(&n, 10);
	char *t;

	ASSERT_EQ(agg_lhist_buckets(&s), 3, "buckets");
	ASSERT_EQ(agg_lhist_slot(&s, 0, false), 1, "min");
	ASSERT_EQ(agg_lhist_slot(&s, 8, false), 3, "8");
	ASSERT_EQ(agg_lhist_slot(&s, 9, false), 4, "9: past the last whole step");
	ASSERT_EQ(agg_lhist_slot(&s, 10, false), 4, "max");
	ASSERT_EQ(agg_lhist_slot(&s, (__u64)-1, true), 0, "below");
	ASSERT_EQ(agg_lhist_slot(&n, (__u64)-2049, true), 0, "signed below");
	ASSERT_EQ(agg_lhist_slot(&n, (__u64)-2048, true), 1, "signed min");
	ASSERT_EQ(agg_lhist_slot(&n, 5, false), 3, "unsigned over a negative min");
	if (!ASSERT_OK_PTR(m, "map"))
		return;
	agg_map__update(m, NULL, (__u64)-3000, true);
	agg_map__update(m, NULL, 1024, false);
	agg_map__update(m, NULL, 1500, false);
	agg_map__update(m, NULL, 4096, false);
	t = map_text(m);
	text_is(t, "@: \n"
		"(..., -2K)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"[-2K, -1K)             0 |                                                    |\n"
		"[-1K, 0)               0 |                                                    |\n"
		"[0, 1K)                0 |                                                    |\n"
		"[1K, 2K)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[2K, ...)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"\n", "lhist text");
	free(t);
	agg_map__free(m);
	agg_spec_free(&s);
	agg_spec_free(&n);
}

static struct agg_part str_part(const char *s)
{
	return (struct agg_part){ .kind = AGG_K_STR, .s = s, .len = strlen(s) };
}

/* by value ascending, equal values by key; signed values as such */
TEST(order_and_limit)
{
	struct agg_spec s = spec_of("sum(x) by comm, pid");
	struct agg_map *m = agg_map__new(&s, 4);
	struct agg_part k[2];
	char *t;

	if (!ASSERT_OK_PTR(m, "map"))
		return;
	k[1] = (struct agg_part){ .kind = AGG_K_U, .v = 10 };
	k[0] = str_part("zsh");
	agg_map__update(m, k, 5, false);
	k[0] = str_part("bash");
	agg_map__update(m, k, 5, false);
	k[1].v = 9;
	agg_map__update(m, k, 5, false);
	k[0] = str_part("sh");
	agg_map__update(m, k, (__u64)-7, true);
	ASSERT_EQ(agg_map__nkeys(m), 4, "keys");
	k[0] = str_part("new");
	ASSERT_EQ(agg_map__update(m, k, 1, false), 1, "the limit, said once");
	ASSERT_EQ(agg_map__update(m, k, 1, false), 0, "not said again");
	k[0] = str_part("zsh");
	k[1].v = 10;
	ASSERT_EQ(agg_map__update(m, k, 0, false), 0, "a known key still counts");
	ASSERT_EQ(agg_map__other(m), 2, "events past the limit");
	t = map_text(m);
	text_is(t, "@[sh, 9]: -7\n@[bash, 9]: 5\n@[bash, 10]: 5\n@[zsh, 10]: 5\n", "order");
	free(t);
	agg_map__reset(m);
	ASSERT_TRUE(agg_map__nkeys(m) == 0 && agg_map__other(m) == 0, "reset");
	agg_map__free(m);
	agg_spec_free(&s);
}

/* A sink's JSON over two probes, one without the field: objects per key,
 * a string value for sum() counted as missing, the summary last */
TEST(sink_json)
{
	static const char *const names0[] = { "count", "name" }, *const names1[] = { "other" };
	struct tv_probe probes[2] = {
		{ .id = 0, .spec = "tracepoint:a:w", .label = "w", .nfields = 2, .names = names0 },
		{ .id = 1, .spec = "tracepoint:a:x", .label = "x", .nfields = 1, .names = names1 },
	};
	struct tv_schema schema = { .nprobes = 2, .probes = probes };
	struct tv_field f[2] = {
		{ .idx = 0, .name = "count", .type = TV_INT, .width = 8, .u = 100 },
		{ .idx = 1, .name = "name", .type = TV_STR, .data = "a\"b", .len = 3 },
	};
	struct tv_event e = { .pid = 1, .tid = 1, .comm = "sh", .comm_len = 2,
			      .probe = &probes[0], .nfields = 2, .fields = f };
	struct agg_spec specs[2] = { spec_of("sum(count) by name"), spec_of("sum(name)") };
	struct agg_sink_opts o = { .prog = "t", .json = true, .specs = specs, .nspecs = 2 };
	struct tv_summary sum = { .received = 3, .printed = 3 };
	struct trace_sink *sk;
	char buf[2048] = "";
	int fd = memfd_create("agg", MFD_CLOEXEC);

	agg_specs_name("t", specs, 2);
	o.fd = fd;
	sk = trace_sink_agg_new(&o);
	if (!ASSERT_OK_PTR(sk, "sink") || !ASSERT_OK(trace_sink__begin(sk, &schema), "begin"))
		goto out;
	trace_sink__event(sk, &e);
	trace_sink__event(sk, &e);
	e.probe = &probes[1];
	e.nfields = 0;
	trace_sink__event(sk, &e);	/* no part of either map */
	trace_sink__summary(sk, &sum);
	if (pread(fd, buf, sizeof(buf) - 1, 0) < 0)
		buf[0] = '\0';
	ASSERT_TRUE(strstr(buf, "\"map\":\"@sum\",\"expr\":\"sum(count) by name\",\"key\":{\"name\":\"a\\\"b\"},\"value\":200}\n") != NULL,
		    "an object per key");
	ASSERT_TRUE(strstr(buf, "\"map\":\"@sum_2\",\"expr\":\"sum(name)\",\"lost\":0,\"lost_of\":\"any\",\"past_key_limit\":0,\"no_value\":2}\n") != NULL,
		    "what a map misses");
	ASSERT_TRUE(strstr(buf, "{\"type\":\"summary\",\"received\":3,") != NULL, "the summary");
	if (test__failed)
		fprintf(stderr, "%s", buf);
out:
	trace_sink__end(sk);
	close(fd);
	for (int i = 0; i < 2; i++)
		agg_spec_free(&specs[i]);
}

/* What a sink of @spec prints for @n events of @e (text or JSON) */
static void sink_out(const char *spec, bool json, struct tv_schema *schema,
		     struct tv_event *e, int n, char *buf, size_t size)
{
	struct agg_spec sp = spec_of(spec);
	struct agg_sink_opts o = { .prog = "t", .json = json, .specs = &sp, .nspecs = 1 };
	struct tv_summary sum = { .received = (__u64)n, .printed = (__u64)n };
	struct trace_sink *sk;
	ssize_t got = 0;

	o.fd = memfd_create("agg", MFD_CLOEXEC);
	sk = trace_sink_agg_new(&o);
	if (sk && !trace_sink__begin(sk, schema)) {
		for (int i = 0; i < n; i++)
			trace_sink__event(sk, e);
		trace_sink__summary(sk, &sum);
		got = pread(o.fd, buf, size - 1, 0);
	}
	buf[got > 0 ? got : 0] = '\0';
	if (sk)
		trace_sink__end(sk);
	close(o.fd);
	agg_spec_free(&sp);
}

/* Keys by stack: bpftrace's layout (a line a frame, four spaces in, "]"
 * on a line of its own), a JSON array of the frames, and a stack too
 * long for a key ending in a "..." frame, not cut in a name */
TEST(stack_keys)
{
	static const char *const kframes[] = { "vfs_read_[k]", "ksys_read_[k]" };
	static const char *const uframes[] = { "leaf", "main" };
	static const char *deep[2000];
	struct tv_probe probe = { .id = 0, .spec = "tracepoint:a:r", .label = "r" };
	struct tv_schema schema = { .nprobes = 1, .probes = &probe };
	struct tv_event e = { .pid = 1, .tid = 1, .comm = "sh", .comm_len = 2, .probe = &probe,
			      .kstack = kframes, .nkstack = 2, .ustack = uframes, .nustack = 2 };
	static char buf[65536];
	const char *p;
	int n = 0;

	sink_out("count() by kstack", false, &schema, &e, 3, buf, sizeof(buf));
	ASSERT_TRUE(!strncmp(buf, "@[\n    vfs_read_[k]\n    ksys_read_[k]\n]: 3\n", 41), "by kstack");
	sink_out("@c = count() by comm, ustack", false, &schema, &e, 2, buf, sizeof(buf));
	ASSERT_TRUE(!strncmp(buf, "@c[sh, \n    leaf\n    main\n]: 2\n", 30), "by comm, ustack");
	sink_out("count() by kstack, pid", true, &schema, &e, 1, buf, sizeof(buf));
	ASSERT_TRUE(strstr(buf, "\"key\":{\"kstack\":[\"vfs_read_[k]\",\"ksys_read_[k]\"],\"pid\":1},\"value\":1}") != NULL,
		    "JSON: an array of frames");
	e.nkstack = 0;
	sink_out("count() by kstack", false, &schema, &e, 1, buf, sizeof(buf));
	ASSERT_TRUE(!strncmp(buf, "@[\n]: 1\n", 8), "an empty stack");
	for (int i = 0; i < 2000; i++)
		deep[i] = "a_function_of_twenty";
	e.kstack = deep;
	e.nkstack = 2000;
	sink_out("count() by kstack", false, &schema, &e, 1, buf, sizeof(buf));
	for (p = buf; (p = strstr(p, "    a_function_of_twenty\n")); p++)
		n++;
	ASSERT_TRUE(n > 100 && n < 2000, "a long stack: its first frames");
	ASSERT_TRUE(strstr(buf, "a_function_of_twenty\n    ...\n]: 1\n") != NULL, "then a ... frame");
	if (test__failed)
		fprintf(stderr, "%.2000s", buf);
}

TEST_MAIN(TEST_ENTRY(parse), TEST_ENTRY(parse_refused), TEST_ENTRY(names),
	  TEST_ENTRY(hist_edges), TEST_ENTRY(lhist_edges), TEST_ENTRY(order_and_limit),
	  TEST_ENTRY(sink_json), TEST_ENTRY(stack_keys))
