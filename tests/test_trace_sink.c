// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The trace pipeline without the kernel: the text and JSON Lines sinks'
 * bytes for a fixed set of values (every value type, a late event, a
 * hidden field, lost records with and without a time, CPU notices, the
 * summary), pinned here so a change to either shows as a diff; the
 * decoder's values for a synthetic format file and record; a sink's
 * error state on a full disk.
 */
#define _GNU_SOURCE	/* memfd_create */
#include <fcntl.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test.h"
#include "trace/decode.h"

/* Output to a memfd; stderr too, while capturing. */
struct capture {
	int fd, err_fd, saved_err;
};

static void capture_start(struct capture *c)
{
	c->fd = memfd_create("out", MFD_CLOEXEC);
	c->err_fd = memfd_create("err", MFD_CLOEXEC);
	fflush(stderr);
	c->saved_err = dup(2);
	dup2(c->err_fd, 2);
}

/* What was written to @fd, as a string (malloc). */
static char *read_all(int fd)
{
	off_t n = lseek(fd, 0, SEEK_END);
	char *s = calloc(1, n + 1);

	if (s && n > 0 && pread(fd, s, n, 0) != n)
		s[0] = '\0';
	return s;
}

static void capture_end(struct capture *c, char **out, char **err)
{
	fflush(stderr);
	dup2(c->saved_err, 2);
	close(c->saved_err);
	*out = read_all(c->fd);
	*err = read_all(c->err_fd);
	close(c->fd);
	close(c->err_fd);
}

static bool str_eq(const char *got, const char *want, const char *what)
{
	if (got && !strcmp(got, want))
		return true;
	fprintf(stderr, "  %s: got\n%s\n  want\n%s\n", what, got ? got : "(null)", want);
	test__failed++;
	return false;
}

typedef void feed_fn(struct trace_sink *s, const void *arg);

/* A new sink of @mk on options @o, fed by @fn(@arg), then ended: what it
 * wrote to the output and to stderr (malloc). False: no sink was made. */
static bool sink_run(struct trace_sink *(*mk)(const struct trace_sink_opts *),
		     struct trace_sink_opts o, feed_fn *fn, const void *arg,
		     char **out, char **err)
{
	struct trace_sink *s;
	struct capture c;

	capture_start(&c);
	o.fd = c.fd;
	s = mk(&o);
	if (s) {
		fn(s, arg);
		trace_sink__end(s);
	}
	capture_end(&c, out, err);
	return s;
}

/* One event, after the schema when there is one (the text header). */
struct one_event {
	const struct tv_schema *sc;
	const struct tv_event *e;
};

static void feed_one(struct trace_sink *s, const void *arg)
{
	const struct one_event *a = arg;

	if (a->sc)
		trace_sink__begin(s, a->sc);
	trace_sink__event(s, a->e);
	trace_sink__flush(s);
}

/* A record of a synthetic tracepoint, with room for its data */
union record {
	struct trace_record r;
	unsigned char b[sizeof(struct trace_record) + 128];
};

/* @p's fields from the format file @fmt */
static bool parse_format(struct trace_probe *p, const char *fmt)
{
	FILE *f = fmemopen((void *)fmt, strlen(fmt), "r");
	int err;

	if (!ASSERT_OK_PTR(f, "fmemopen"))
		return false;
	err = tp_format_parse(p, f);
	fclose(f);
	return ASSERT_OK(err, "parse");
}

static const char *const names[] = {
	"u8", "s16", "s32", "u64", "s64", "ptr", "str", "bytes", "ints",
	"nr", "q\"uote", "argv", "long",
};
static const struct tv_probe probes[] = {
	{ .id = 0, .spec = "tracepoint:cat:ev", .label = "ev",
	  .nfields = 13, .names = names },
	{ .id = 1, .spec = "tracepoint:\"weird\\", .label = "weird",
	  .nfields = 13, .names = names },
};
static const struct tv_schema schema = { .nprobes = 2, .probes = probes };

static const __s16 ints[] = { -1, 2, -300 };
static const unsigned char bytes[] = { 0x00, 0xab, 0xff };
static const char str[] = "a\"b\\c\nd\te\x01\x7f\xc3\xa9\xff";
/* execve's argv: whole, cut at --string-size, unreadable; more unread */
static const struct tv_str argv[] = {
	{ .data = "ls", .len = 2 },
	{ .data = "--colo", .len = 6, .flags = TV_F_CUT },
	{ .data = "", .len = 0, .flags = TV_F_UNREAD },
};

#define F(i, t, ...) { .idx = (i), .name = names[i], .type = (t), __VA_ARGS__ }
static const struct tv_field fields[] = {
	F(0, TV_INT, .width = 1, .u = 255),
	F(1, TV_INT, .width = 2, .is_signed = true, .i = -32768),
	F(2, TV_INT, .width = 4, .is_signed = true, .i = -100),
	F(3, TV_INT, .width = 8, .u = 18446744073709551615ULL),
	F(4, TV_INT, .width = 8, .is_signed = true, .i = -9223372036854775807LL - 1),
	F(5, TV_PTR, .width = 8, .u = 0xffff888001234560ULL),
	F(6, TV_STR, .data = str, .len = sizeof(str) - 1),
	F(7, TV_BYTES, .data = bytes, .len = sizeof(bytes)),
	F(8, TV_ARRAY, .width = 2, .is_signed = true, .data = ints, .len = sizeof(ints)),
	F(9, TV_INT, .width = 8, .u = 257, .flags = TV_F_HIDDEN),
	F(10, TV_STR, .data = "", .len = 0),
	F(11, TV_STRS, .strs = argv, .len = 3, .flags = TV_F_CUT),
	F(12, TV_STR, .data = "/very/lo", .len = 8, .flags = TV_F_CUT),
};

static const struct tv_cpu_summary cpus[] = { { 0, 2, 5 }, { 3, 1, 0 } };

/* The same stream to any sink: two events (the second late, of the
 * probe with an awkward name), losses, notices, the summary twice (to
 * the output, then as after a failed output: none past -n, one not
 * written). */
static void feed(struct trace_sink *s, const void *arg)
{
	struct tv_event e = { .time_ns = 5123456789, .cpu = 1, .pid = 42,
			      .tid = 43, .comm = "sh\x01", .comm_len = 3,
			      .probe = &probes[0], .nfields = 13, .fields = fields };
	struct tv_summary sum = { .received = 3, .lost = 5, .printed = 2,
				  .discarded = 1, .ncpus = 2, .cpus = cpus };

	(void)arg;
	ASSERT_OK(trace_sink__begin(s, &schema), "begin");
	trace_sink__event(s, &e);
	e = (struct tv_event){ .time_ns = 6000000999, .cpu = 3, .late = true,
			       .pid = 7, .tid = 8, .comm = "a-very-long-comm",
			       .comm_len = 15, .probe = &probes[1], .nfields = 2,
			       .fields = fields };
	trace_sink__event(s, &e);
	trace_sink__lost(s, &(struct tv_lost){ .time_ns = 6000001000, .cpu = 0,
					       .count = 5 });
	trace_sink__lost(s, &(struct tv_lost){ .cpu = 3, .count = 1 });
	trace_sink__notice(s, &(struct tv_notice){ TV_CPU_OFFLINE, 6000002000, 3 });
	trace_sink__notice(s, &(struct tv_notice){ TV_CPU_ONLINE, 6000003000, 3 });
	ASSERT_OK(trace_sink__flush(s), "flush");
	ASSERT_EQ(s->written, 2, "events written");
	ASSERT_OK(trace_sink__summary(s, &sum), "summary");
	/* as after a full disk: the one meant for it is not written */
	sum.output_failed = true;
	sum.discarded = 0;
	sum.unwritten = 1;
	sum.unwritten_why = "disk full (out.txt)";
	ASSERT_OK(trace_sink__summary(s, &sum), "summary, output failed");
	ASSERT_OK(s->err, "no error");
}

static const char text_summary[] =
	"\n3 events received: 2 printed, 1 discarded (past -n); 5 lost\n"
	"CPU  RECEIVED       LOST\n"
	"0    2              5\n"
	"3    1              0\n";

TEST(text_sink_pinned)
{
	struct trace_sink_opts o = { .max_cols = 0,
				     .clock = { TRACE_TIME_REL, 1000000000, 0 } };
	char *out, *err;

	if (!ASSERT_TRUE(sink_run(trace_sink_text_new, o, feed, NULL, &out, &err),
			 "text sink"))
		goto out;
	str_eq(out,
	       "TIME(s)    CPU PID     TID     COMM             PROBE ARGS\n"
	       "4.123456   1   42      43      sh\\x01           ev u8=255 s16=-32768"
	       " s32=-100 u64=18446744073709551615 s64=-9223372036854775808"
	       " ptr=0xffff888001234560 str=\"a\\\"b\\\\c\\nd\\te\\x01\\x7f\\xc3\\xa9\\xff\""
	       " bytes=00abff ints=[-1,2,-300] q\"uote=\"\""
	       " argv=[\"ls\", \"--colo\"..., ?]... long=\"/very/lo\"...\n"
	       "5.000000*  3   7       8       a-very-long-com  weird u8=255 s16=-32768\n"
	       "# 5.000001 CPU 0: 5 events lost\n"
	       "# CPU 3: 1 event lost\n"
	       "# 5.000002 CPU 3 went offline\n"
	       "# 5.000003 CPU 3 came online: traced\n",
	       "text output");
	str_eq(err,
	       "lost 5 events on CPU #0\n"
	       "lost 1 events on CPU #3\n"
	       "CPU 3 went offline\n"
	       "CPU 3 came online: traced\n"
	       "\n3 events received: 2 printed, 1 discarded (past -n); 5 lost\nCPU  RECEIVED       LOST\n0    2              5\n3    1              0\n"
	       "\n3 events received: 2 printed, 0 discarded (past -n); 1 not written: disk full (out.txt); 5 lost\nCPU  RECEIVED       LOST\n0    2              5\n3    1              0\n",
	       "text stderr");
	ASSERT_TRUE(strstr(err, text_summary) != NULL, "summary on stderr");
out:
	free(out);
	free(err);
}

TEST(json_sink_pinned)
{
	char *out, *err;

	if (!ASSERT_TRUE(sink_run(trace_sink_json_new, (struct trace_sink_opts){},
				  feed, NULL, &out, &err), "json sink"))
		goto out;
	str_eq(out,
	       "{\"type\":\"event\",\"time_ns\":5123456789,\"cpu\":1,\"pid\":42,\"tid\":43,"
	       "\"comm\":\"sh\\u0001\",\"probe\":\"tracepoint:cat:ev\",\"args\":{"
	       "\"u8\":255,\"s16\":-32768,\"s32\":-100,\"u64\":\"18446744073709551615\","
	       "\"s64\":\"-9223372036854775808\",\"ptr\":\"0xffff888001234560\","
	       "\"str\":\"a\\\"b\\\\c\\nd\\te\\u0001\\u007f\xc3\xa9\\udcff\","
	       "\"bytes\":\"00abff\",\"ints\":[-1,2,-300],\"nr\":257,\"q\\\"uote\":\"\","
	       "\"argv\":[\"ls\",\"--colo\",null],\"long\":\"/very/lo\"},"
	       "\"cut\":[\"argv[1]\",\"argv\",\"long\"]}\n"
	       "{\"type\":\"event\",\"time_ns\":6000000999,\"cpu\":3,\"late\":true,"
	       "\"pid\":7,\"tid\":8,\"comm\":\"a-very-long-com\","
	       "\"probe\":\"tracepoint:\\\"weird\\\\\",\"args\":{\"u8\":255,\"s16\":-32768}}\n"
	       "{\"type\":\"lost\",\"time_ns\":6000001000,\"cpu\":0,\"count\":5}\n"
	       "{\"type\":\"lost\",\"cpu\":3,\"count\":1}\n"
	       "{\"type\":\"cpu\",\"time_ns\":6000002000,\"cpu\":3,\"online\":false}\n"
	       "{\"type\":\"cpu\",\"time_ns\":6000003000,\"cpu\":3,\"online\":true}\n"
	       "{\"type\":\"summary\",\"received\":3,\"printed\":2,\"discarded\":1,\"lost\":5,\"per_cpu\":["
	       "{\"cpu\":0,\"received\":2,\"lost\":5},{\"cpu\":3,\"received\":1,\"lost\":0}]}\n",
	       "json output");
	/* after a failed output, the summary goes to stderr */
	str_eq(err,
	       "{\"type\":\"summary\",\"received\":3,\"printed\":2,\"discarded\":0,"
	       "\"not_written\":1,\"output_error\":\"disk full (out.txt)\",\"lost\":5,\"per_cpu\":["
	       "{\"cpu\":0,\"received\":2,\"lost\":5},{\"cpu\":3,\"received\":1,\"lost\":0}]}\n",
	       "json stderr");
out:
	free(out);
	free(err);
}

/* @e through a new sink of @mk (schema @sc, times on @clock or 0): what
 * it wrote to the output. */
static char *render(struct trace_sink *(*mk)(const struct trace_sink_opts *),
		    const struct tv_schema *sc, const struct tv_event *e,
		    const struct trace_clock *clock)
{
	struct trace_sink_opts o = {};
	struct one_event a = { sc, e };
	char *out, *err;

	if (clock)
		o.clock = *clock;
	sink_run(mk, o, feed_one, &a, &out, &err);
	free(err);
	return out;
}

/* JSON integers a double cannot hold exactly (beyond 2^53) are strings;
 * the rest numbers; text prints them all as numbers. */
TEST(json_int_exact)
{
	static const char *const n[] = { "a", "b", "c", "d", "e" };
	static const __u64 big[] = { 1ULL << 53, (1ULL << 53) + 1 };
	static const struct tv_probe p = { .spec = "t:x:y", .label = "y",
					   .nfields = 5, .names = n };
	static const struct tv_schema sc = { .nprobes = 1, .probes = &p };
	const struct tv_field f[] = {
		{ .idx = 0, .name = n[0], .type = TV_INT, .width = 8, .u = 1ULL << 53 },
		{ .idx = 1, .name = n[1], .type = TV_INT, .width = 8, .u = (1ULL << 53) + 1 },
		{ .idx = 2, .name = n[2], .type = TV_INT, .width = 8, .is_signed = true,
		  .i = -(1LL << 53) },
		{ .idx = 3, .name = n[3], .type = TV_INT, .width = 8, .is_signed = true,
		  .i = -(1LL << 53) - 1 },
		{ .idx = 4, .name = n[4], .type = TV_ARRAY, .width = 8, .data = big,
		  .len = sizeof(big) },
	};
	struct tv_event e = { .time_ns = 1, .comm = "x", .comm_len = 1, .probe = &p,
			      .nfields = 5, .fields = f };
	struct trace_clock mono = { TRACE_TIME_MONO };
	char *out = render(trace_sink_json_new, &sc, &e, &mono);

	str_eq(out, "{\"type\":\"event\",\"time_ns\":1,\"cpu\":0,\"pid\":0,"
	       "\"tid\":0,\"comm\":\"x\",\"probe\":\"t:x:y\",\"args\":{"
	       "\"a\":9007199254740992,\"b\":\"9007199254740993\","
	       "\"c\":-9007199254740992,\"d\":\"-9007199254740993\","
	       "\"e\":[9007199254740992,\"9007199254740993\"]}}\n", "json");
	free(out);
	out = render(trace_sink_text_new, &sc, &e, &mono);
	ASSERT_TRUE(out && strstr(out, " y a=9007199254740992 b=9007199254740993"
				  " c=-9007199254740992 d=-9007199254740993"
				  " e=[9007199254740992,9007199254740993]\n"), "text: numbers");
	free(out);
}

/* --time: one clock for text and JSON; wall time in JSON is past 2^53 ns
 * (a string), its text the local date and time (here TZ=UTC). */
TEST(clock_modes)
{
	/* started at monotonic 10 s, when the wall clock read 2026-11-23
	 * 01:40:00 UTC (1795398000 s) */
	struct trace_clock c = { TRACE_TIME_REL, 10000000000ULL,
				 1795398000000000000LL - 10000000000LL };
	static const struct tv_probe p = { .spec = "t:x:y", .label = "y" };
	static const struct tv_schema sc = { .nprobes = 1, .probes = &p };
	struct tv_event e = { .time_ns = 12345678901ULL, .comm = "x",
			      .comm_len = 1, .probe = &p };
	enum trace_time m;
	char buf[40], *out;

	setenv("TZ", "UTC", 1);
	tzset();
	trace_clock_text(&c, e.time_ns, buf, sizeof(buf));
	str_eq(buf, "2.345678", "rel: since the start");
	ASSERT_EQ(trace_clock_ns(&c, 5), 0, "rel: before the start is 0");
	c.mode = TRACE_TIME_MONO;
	trace_clock_text(&c, e.time_ns, buf, sizeof(buf));
	str_eq(buf, "12.345678", "mono: CLOCK_MONOTONIC");
	c.mode = TRACE_TIME_WALL;
	trace_clock_text(&c, e.time_ns, buf, sizeof(buf));
	str_eq(buf, "2026-11-23T01:40:02.345678", "wall: the date and time");
	str_eq(trace_clock_header(&c), "TIME", "wall header");
	ASSERT_TRUE(!trace_time_parse("mono", &m) && m == TRACE_TIME_MONO, "parse mono");
	ASSERT_EQ(trace_time_parse("utc", &m), -EINVAL, "parse: unknown");
	out = render(trace_sink_json_new, &sc, &e, &c);
	{
		static const char want[] = "{\"type\":\"event\",\"time_ns\":\"1795398002345678901\",";

		ASSERT_TRUE(out && !strncmp(out, want, sizeof(want) - 1),
			    "JSON wall time_ns: exact, a string");
	}
	free(out);
	unsetenv("TZ");
	tzset();
}

/* Text lines are cut to max_cols with "..." (JSON never is). */
TEST(text_sink_cut)
{
	struct trace_sink_opts o = { .max_cols = 40 };
	struct tv_event e = { .comm = "x", .comm_len = 1, .probe = &probes[0],
			      .nfields = 13, .fields = fields };
	char *out, *err, *line;

	if (!ASSERT_TRUE(sink_run(trace_sink_text_new, o, feed_one,
				  &(struct one_event){ NULL, &e }, &out, &err),
			 "text sink"))
		goto out;
	line = out;
	str_eq(line, "0.000000   0   0       0       x     ...\n", "cut line");
	ASSERT_EQ(strlen(line), 41, "40 columns and the newline");
out:
	free(out);
	free(err);
}

/* A full disk: the error is kept, no event counted as written. */
TEST(sink_error_state)
{
	struct trace_sink_opts o = { .fd = open("/dev/full", O_WRONLY | O_CLOEXEC) };
	struct tv_event e = { .comm = "x", .comm_len = 1, .probe = &probes[0],
			      .nfields = 1, .fields = fields };
	struct trace_sink *s;

	if (o.fd < 0)
		TEST_SKIP("no /dev/full");
	s = trace_sink_json_new(&o);
	if (!ASSERT_OK_PTR(s, "json sink"))
		return;
	ASSERT_OK(trace_sink__begin(s, &schema), "begin");
	trace_sink__event(s, &e);
	ASSERT_EQ(trace_sink__flush(s), -ENOSPC, "flush");
	ASSERT_EQ(s->err, -ENOSPC, "err kept");
	ASSERT_EQ(s->written, 0, "nothing written");
	trace_sink__end(s);
	close(o.fd);
}

/* A synthetic tracepoint: the decoder's values, then the text sink. */
static const char format[] =
	"name: sys_enter_fake\nID: 1\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * pathname;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:char comm[4];\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:u16 ids[2];\toffset:44;\tsize:4;\tsigned:0;\n"
	"\tfield:void * ptr;\toffset:48;\tsize:8;\tsigned:0;\n";

TEST(decode_values)
{
	static char spec[] = "tracepoint:syscalls:sys_enter_fake",
		    target[] = "syscalls:sys_enter_fake", label[] = "sys_enter_fake";
	struct trace_probe p = { .kind = PK_TRACEPOINT, .spec = spec,
				 .target = target, .label = label };
	struct probe_set set = { .v = &p, .n = 1, .cap = 1 };
	union record u = {};
	struct trace_decoder *d;
	const struct tv_event *e;
	__s64 dfd = -100;
	__u64 ptr = 0xffffffff81000000ULL, user = 0x7ffd0000;

	if (!parse_format(&p, format))
		return;
	ASSERT_EQ(p.nfields, 7, "fields (common_* left out)");
	ASSERT_EQ(p.cfg.nstr, 2, "two string slots");
	/* the record: raw part, then the slot strings (the second unread) */
	u.r.raw_size = 56;
	u.r.str_len[0] = 5;
	u.r.pid = 1;
	memcpy(u.r.comm, "cat", 3);
	memcpy(u.r.data + 8, &(__u32){ 257 }, 4);
	memcpy(u.r.data + 16, &dfd, 8);
	memcpy(u.r.data + 32, &user, 8);
	memcpy(u.r.data + 40, "abcd", 4);	/* no NUL: cut */
	memcpy(u.r.data + 44, (__u16[]){ 1, 65535 }, 4);
	memcpy(u.r.data + 48, &ptr, 8);
	memcpy(u.r.data + 56, "/etc", 5);
	d = trace_decoder__new(&set);
	if (!ASSERT_OK_PTR(d, "decoder"))
		goto out;
	e = trace_decoder__decode(d, &u.r, sizeof(u.r) + 61, 0, false);
	if (!ASSERT_OK_PTR(e, "decoded") || !ASSERT_EQ(e->nfields, 7, "fields"))
		goto out;
	ASSERT_TRUE(e->fields[0].flags & TV_F_HIDDEN, "__syscall_nr hidden");
	ASSERT_EQ(e->fields[1].type, TV_INT, "dfd int");
	ASSERT_EQ(e->fields[1].i, -100, "dfd narrowed to int");
	ASSERT_EQ(e->fields[2].type, TV_STR, "filename string");
	ASSERT_EQ(e->fields[2].len, 4, "filename up to the NUL");
	ASSERT_EQ(e->fields[3].type, TV_PTR, "unread: its pointer");
	ASSERT_TRUE(e->fields[3].flags & TV_F_UNREAD, "flagged unread");
	ASSERT_TRUE(e->fields[4].flags & TV_F_CUT, "comm[4] without NUL: cut");
	ASSERT_EQ(e->fields[5].type, TV_ARRAY, "ids array");
	ASSERT_EQ(e->fields[6].u, ptr, "ptr value");
	ASSERT_EQ(trace_decoder__decode(d, &u.r, sizeof(u.r) - 1, 0, false), NULL,
		  "short record refused");
	u.r.cookie = 1;
	ASSERT_EQ(trace_decoder__decode(d, &u.r, sizeof(u.r) + 61, 0, false), NULL,
		  "unknown probe refused");
	{
		char *out, *err;

		u.r.cookie = 0;
		e = trace_decoder__decode(d, &u.r, sizeof(u.r) + 61, 0, false);
		sink_run(trace_sink_text_new, (struct trace_sink_opts){}, feed_one,
			 &(struct one_event){ NULL, e }, &out, &err);
		str_eq(out, "0.000000   0   1       0       cat              sys_enter_fake"
		       " dfd=-100 filename=\"/etc\" pathname=<unreadable 0x7ffd0000> comm=\"abcd\"... ids=[1,65535]"
		       " ptr=0xffffffff81000000\n", "decoded, as text");
		free(out);
		free(err);
	}
out:
	trace_decoder__free(d);
	tp_fields_free(&p);
}

/* execve's argv, a write buffer (--buffers), cut marks: the slots as
 * bpf/trace.h lays them out (the argv slot last, whatever its index). */
static const char format2[] =
	"name: sys_enter_fake2\nID: 2\nformat:\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:const char * filename;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char *const * argv;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * buf;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t count;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:char * rbuf;\toffset:48;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t len;\toffset:56;\tsize:8;\tsigned:0;\n";

static void decode_fake2(enum trace_buffers buffers)
{
	static char spec[] = "tracepoint:syscalls:sys_enter_fake2",
		    target[] = "syscalls:sys_enter_fake2", label[] = "fake2";
	static const unsigned char args[] = "\0ls\0\1--colo\0\2\0\3";
	struct trace_probe p = { .kind = PK_TRACEPOINT, .spec = spec,
				 .target = target, .label = label };
	struct probe_set set = { .v = &p, .n = 1, .cap = 1 };
	union record u = {};
	struct trace_decoder *d = NULL;
	const struct tv_event *e;
	const struct tv_field *f;

	set.read = (struct trace_read_opts){ .str_size = 4, .buffers = buffers };
	p.read = &set.read;
	if (!parse_format(&p, format2))
		goto out;
	ASSERT_EQ(p.cfg.nstr, 3, "slots: filename, argv, buf (not rbuf: filled by the call)");
	ASSERT_EQ(p.cfg.argv_slot, 1, "argv's slot");
	ASSERT_EQ(p.cfg.str[2].kind, TRACE_BUF_USER_PTR, "buf read as a buffer");
	ASSERT_EQ(p.cfg.str[2].len_off, 40, "bounded by count");
	u.r.raw_size = 64;
	u.r.str_len[0] = 5;			/* "/bin" + NUL, cut */
	u.r.str_len[2] = 4;			/* a NUL b + our NUL */
	u.r.str_len[1] = sizeof(args) - 1;	/* last in the record */
	u.r.str_cut = 1 << 0 | 1 << 1;
	memcpy(u.r.data + 64, "/bin", 5);
	memcpy(u.r.data + 69, "a\0b", 4);
	memcpy(u.r.data + 73, args, sizeof(args) - 1);
	d = trace_decoder__new(&set);
	e = d ? trace_decoder__decode(d, &u.r, sizeof(u.r) + 73 + sizeof(args) - 1, 0, false) : NULL;
	if (!ASSERT_OK_PTR(e, "decoded") || !ASSERT_EQ(e->nfields, 7, "fields"))
		goto out;
	f = &e->fields[1];
	ASSERT_TRUE(f->type == TV_STR && f->len == 4 && (f->flags & TV_F_CUT),
		    "filename: 4 bytes, cut");
	f = &e->fields[2];
	if (ASSERT_EQ(f->type, TV_STRS, "argv: a list") && ASSERT_EQ(f->len, 3, "3 arguments")) {
		ASSERT_TRUE(f->flags & TV_F_CUT, "argv: more arguments than read");
		ASSERT_TRUE(f->strs[0].len == 2 && !memcmp(f->strs[0].data, "ls", 2) &&
			    !f->strs[0].flags, "argv[0] whole");
		ASSERT_TRUE(f->strs[1].len == 6 && f->strs[1].flags == TV_F_CUT, "argv[1] cut");
		ASSERT_EQ(f->strs[2].flags, TV_F_UNREAD, "argv[2] unreadable");
	}
	f = &e->fields[3];
	ASSERT_EQ(f->type, buffers == BUFFERS_HEX ? TV_BYTES : TV_STR, "buf: bytes or escaped");
	ASSERT_TRUE(f->len == 3 && !memcmp(f->data, "a\0b", 3) && !f->flags,
		    "buf: every byte, the NUL too");
	ASSERT_EQ(e->fields[5].type, TV_PTR, "rbuf (filled by the call): its address");
out:
	trace_decoder__free(d);
	tp_fields_free(&p);
}

TEST(decode_argv_buffers)
{
	decode_fake2(BUFFERS_ESCAPED);
	decode_fake2(BUFFERS_HEX);
}

/* Without --buffers, no buffer is read: a pointer, however named */
TEST(decode_buffers_off)
{
	static char target[] = "syscalls:sys_enter_fake2";
	struct trace_probe p = { .kind = PK_TRACEPOINT, .target = target };

	if (!parse_format(&p, format2))
		return;
	ASSERT_EQ(p.cfg.nstr, 2, "slots: filename, argv");
	ASSERT_EQ(p.fields[3].kind, FK_PTR, "buf: a pointer");
	tp_fields_free(&p);
}

/* The print fmt line: addresses (%pI4, %pI6c, %pISpc) and the names of
 * values (__print_symbolic, __print_flags) of the fields it prints. */
static const char format3[] =
	"name: fake3\nID: 3\nformat:\n"
	"\tfield:int state;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long flags;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:__u8 saddr[4];\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:__u8 daddr_v6[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	"\tfield:__u8 sa[28];\toffset:44;\tsize:28;\tsigned:0;\n"
	"\tfield:int other;\toffset:72;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"state=%s flags=%s saddr=%pI4 daddr=%pI6c sa=%pISpc other=%s %d\", "
	"__print_symbolic(REC->state, { 1, \"TCP_ESTABLISHED\" }, { 7, \"TCP_CLOSE\" }, "
	"{ TCP_NOT_A_NUMBER, \"SKIPPED\" }), "
	"__print_flags((unsigned long)REC->flags, \"|\", { 0, \"NONE\" }, { 1 << 0, \"A\" }, "
	"{ (1UL << 3) | 1, \"AD\" }, { 0x10, \"B\\\"q\" }), "
	"REC->saddr, REC->daddr_v6, REC->sa, "
	"__print_symbolic(REC->other >> 1, { 1, \"X\" }), REC->other\n";

TEST(print_fmt_hints)
{
	static char target[] = "x:fake3", spec[] = "tracepoint:x:fake3", label[] = "fake3";
	struct trace_probe p = { .kind = PK_TRACEPOINT, .target = target,
				 .spec = spec, .label = label };
	struct probe_set set = { .v = &p, .n = 1, .cap = 1 };
	union record u = {};
	static const unsigned char sa[28] = { 10, 0, 0x1f, 0x90, 0, 0, 0, 0,
		[23] = 1 };	/* AF_INET6 (host order), port 8080, ::1 */
	struct trace_decoder *d = NULL;
	const struct tv_event *e;
	char *out;

	if (!parse_format(&p, format3))
		goto out;
	ASSERT_EQ(p.fields[0].hint, TV_HINT_SYMBOLIC, "state: symbolic");
	ASSERT_EQ(p.fields[0].nnames, 2, "an enum name tracefs left is skipped");
	ASSERT_EQ(p.fields[1].hint, TV_HINT_FLAGS, "flags, through a cast");
	ASSERT_EQ(p.fields[1].nnames, 4, "1 << 0, (1UL << 3) | 1 read");
	ASSERT_EQ(p.fields[1].names[2].value, 9, "(1UL << 3) | 1 == 9");
	ASSERT_EQ(p.fields[2].hint, TV_HINT_IPV4, "saddr: %pI4");
	ASSERT_EQ(p.fields[3].hint, TV_HINT_IPV6, "daddr_v6: %pI6c");
	ASSERT_EQ(p.fields[4].hint, TV_HINT_SOCKADDR, "sa: %pISpc");
	ASSERT_EQ(p.fields[5].hint, TV_HINT_NONE, "other: an expression, no names");
	u.r.raw_size = 76;
	memcpy(u.r.data + 8, &(__s32){ 1 }, 4);
	/* greedy in table order, as the kernel's __print_flags: A, then
	 * not AD (bit 3 left alone), B"q, the rest in hex */
	memcpy(u.r.data + 16, &(__u64){ 0x1d | 0x100 }, 8);
	memcpy(u.r.data + 24, (unsigned char[]){ 127, 0, 0, 1 }, 4);
	u.r.data[28 + 15] = 1;					/* ::1 */
	memcpy(u.r.data + 44, sa, sizeof(sa));
	memcpy(u.r.data + 72, &(__s32){ 2 }, 4);
	d = trace_decoder__new(&set);
	e = d ? trace_decoder__decode(d, &u.r, sizeof(u.r) + 80, 0, false) : NULL;
	if (!ASSERT_OK_PTR(e, "decoded"))
		goto out;
	out = render(trace_sink_text_new, trace_decoder__schema(d), e, NULL);
	ASSERT_TRUE(out && strstr(out, " fake3 state=1(TCP_ESTABLISHED) flags=285(A|B\\\"q|0x10c)"
				  " saddr=127.0.0.1 daddr_v6=::1 sa=[::1]:8080 other=2\n"),
		    "text: names beside numbers, addresses");
	free(out);
	out = render(trace_sink_json_new, trace_decoder__schema(d), e, NULL);
	ASSERT_TRUE(out && strstr(out, "\"args\":{\"state\":1,\"flags\":285,"
				  "\"saddr\":\"127.0.0.1\",\"daddr_v6\":\"::1\",\"sa\":\"[::1]:8080\","
				  "\"other\":2},\"names\":{\"state\":\"TCP_ESTABLISHED\","
				  "\"flags\":\"A|B\\\"q|0x10c\"}}\n"),
		    "json: names beside args, addresses as strings");
	free(out);
	/* 0: the table's name for 0; 7: TCP_CLOSE; 5: no name */
	u.r.data[16] = 0;
	u.r.data[17] = 0;
	u.r.data[8] = 5;
	e = trace_decoder__decode(d, &u.r, sizeof(u.r) + 80, 0, false);
	out = render(trace_sink_text_new, trace_decoder__schema(d), e, NULL);
	ASSERT_TRUE(out && strstr(out, " state=5 flags=0(NONE) "), "no name; the name of 0");
	free(out);
out:
	trace_decoder__free(d);
	tp_fields_free(&p);
}

TEST_MAIN(TEST_ENTRY(text_sink_pinned), TEST_ENTRY(json_sink_pinned),
	  TEST_ENTRY(json_int_exact), TEST_ENTRY(clock_modes),
	  TEST_ENTRY(text_sink_cut), TEST_ENTRY(sink_error_state),
	  TEST_ENTRY(decode_values), TEST_ENTRY(decode_argv_buffers),
	  TEST_ENTRY(decode_buffers_off), TEST_ENTRY(print_fmt_hints))
