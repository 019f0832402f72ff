// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ledger (perfbuf/ledger.h, perfbuf_output() of perfbuf/bpf.h): real
 * BPF programs (tests/bpf/ledger_test.bpf.c) run on a CPU with
 * BPF_PROG_TEST_RUN write records of a kind; the counts per kind and the
 * check per CPU against the collector that read them.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <sched.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "test.h"
#include "perfbuf/object.h"

static char objdir[PATH_MAX];

static bool streq(const char *a, const char *b)
{
	return a && !strcmp(a, b);
}

/* The test object, loaded: NULL (the subtest skipped or failed) */
static struct perfbuf_object *lt_load(void)
{
	char path[PATH_MAX + 32];
	struct perfbuf_object *o;

	if (geteuid()) {
		test__skip = "needs root (BPF)";
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/bpf/ledger_test.bpf.o", objdir);
	o = perfbuf_object__open(path);
	if (!ASSERT_OK_PTR(o, "open ledger_test.bpf.o"))
		return NULL;
	if (!ASSERT_OK(perfbuf_object__load(o), "load")) {
		perfbuf_object__free(o);
		return NULL;
	}
	return o;
}

/* Program @prog of @o on @cpu: @count records of @kind, @size bytes */
static int lt_run(struct perfbuf_object *o, const char *prog, int cpu,
		  __u64 kind, __u64 count, __u64 size)
{
	__u64 args[3] = { kind, count, size };
	int fd = -ENOENT;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args,
		    .ctx_size_in = sizeof(args),
		    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = (__u32)cpu);

	for (int i = 0; i < perfbuf_object__prog_cnt(o); i++)
		if (!strcmp(perfbuf_object__prog_name(o, i), prog))
			fd = perfbuf_object__prog_fd(o, i);
	if (fd < 0)
		return fd;
	if (bpf_prog_test_run_opts(fd, &opts))
		return -errno;
	return opts.retval ? -EINVAL : 0;
}

static int on_rec(void *ctx, const struct perfbuf_record *rec)
{
	(void)ctx;
	(void)rec;
	return 0;
}

/* A collector of @pages pages on the object's `events`, CPU @cpu only */
static struct perfbuf *lt_collect(struct perfbuf_object *o, int *cpu,
				  size_t pages)
{
	PERFBUF_OPTS(perfbuf_opts, po, .page_cnt = pages, .cpus = cpu,
		     .cpu_cnt = 1, .latency_ms = -1);

	return perfbuf__new(perfbuf_object__map_fd(o, "events"), on_rec, NULL, &po);
}

static struct perfbuf_ledger_kind lt_kind(struct perfbuf_ledger *l, size_t k)
{
	struct perfbuf_ledger_kind s = { .sz = sizeof(s) };

	ASSERT_OK(perfbuf_ledger__kind(l, k, &s), "kind");
	return s;
}

/* offered = received + lost + no_reader + failed */
static bool identity(const struct perfbuf_ledger_kind *s)
{
	return s->offered == s->received + s->lost + s->no_reader + s->failed;
}

/* Written before any reader exists: counted as no reader, not lost;
 * after, every record the program wrote is one the collector received. */
TEST(no_reader_before_reader)
{
	struct perfbuf_object *o = lt_load();
	struct perfbuf_ledger *l = NULL;
	struct perfbuf_ledger_kind s;
	struct perfbuf *pb = NULL;
	int cpu;

	if (!o)
		return;
	cpu = sched_getcpu();
	l = perfbuf_ledger__from_object(o, NULL);
	if (!ASSERT_OK_PTR(l, "ledger of the object"))
		goto out;
	ASSERT_OK(lt_run(o, "ledger_emit", cpu, 1, 5, 64), "5 before the reader");
	ASSERT_EQ(perfbuf_ledger__read(l, NULL), 0, "read, no check");
	s = lt_kind(l, 1);
	ASSERT_TRUE(s.offered == 5 && s.no_reader == 5 && s.received == 0 &&
		    s.lost == 0 && identity(&s), "5 offered, 5 without a reader");
	pb = lt_collect(o, &cpu, 8);
	if (!ASSERT_OK_PTR(pb, "collector"))
		goto out;
	ASSERT_OK(lt_run(o, "ledger_emit", cpu, 0, 3, 64), "3 with the reader");
	ASSERT_OK(lt_run(o, "ledger_emit", cpu, 1, 2, 64), "2 with the reader");
	ASSERT_EQ(perfbuf__drain(pb), 5, "drain");
	ASSERT_EQ(perfbuf_ledger__read(l, pb), 0, "the collector agrees");
	s = lt_kind(l, 0);
	ASSERT_TRUE(s.offered == 3 && s.received == 3 && identity(&s), "kind 0: 3 received");
	s = lt_kind(l, 1);
	ASSERT_TRUE(s.offered == 7 && s.received == 2 && s.no_reader == 5 &&
		    identity(&s), "kind 1: 2 received, 5 without a reader");
	ASSERT_TRUE(streq(perfbuf_ledger__kind_name(l, 0), "LT_OPEN"), "kind 0 named by the enum");
	ASSERT_TRUE(streq(perfbuf_ledger__kind_name(l, 1), "LT_EXEC"), "kind 1 named");
	ASSERT_TRUE(!perfbuf_ledger__kind_name(l, 2), "the out-of-range entry: no name");
out:
	perfbuf__free(pb);
	perfbuf_ledger__free(l);
	perfbuf_object__free(o);
}

/* Two kinds 3:1 into one page: both lose; per CPU the ring-full counts
 * are the collector's lost, the written ones its received. */
TEST(ring_full_per_kind)
{
	struct perfbuf_object *o = lt_load();
	struct perfbuf_ledger_cpu c = { .sz = sizeof(c) };
	struct perfbuf_cpu_stats st = { .sz = sizeof(st) };
	struct perfbuf_ledger_kind a, b;
	struct perfbuf_ledger *l = NULL;
	struct perfbuf *pb = NULL;
	int cpu;

	if (!o)
		return;
	cpu = sched_getcpu();
	l = perfbuf_ledger__new(perfbuf_object__map_fd(o, PERFBUF_LEDGER_MAP), NULL);
	pb = lt_collect(o, &cpu, 1);
	if (!ASSERT_OK_PTR(l, "ledger by fd") || !ASSERT_OK_PTR(pb, "collector"))
		goto out;
	for (int i = 0; i < 3; i++) {
		ASSERT_OK(lt_run(o, "ledger_emit", cpu, 0, 100, 200), "kind 0");
		if (i == 1)
			ASSERT_OK(lt_run(o, "ledger_emit", cpu, 1, 100, 200), "kind 1");
	}
	ASSERT_TRUE(perfbuf__drain(pb) > 0, "drain");
	ASSERT_EQ(perfbuf_ledger__read(l, pb), 0, "every CPU agrees");
	a = lt_kind(l, 0);
	b = lt_kind(l, 1);
	ASSERT_TRUE(a.offered == 300 && b.offered == 100, "offered: what was run");
	ASSERT_TRUE(a.lost > 0 && b.lost > 0, "both kinds lose");
	ASSERT_TRUE(identity(&a) && identity(&b), "identities");
	ASSERT_OK(perfbuf__stats(pb, 0, &st), "stats");
	ASSERT_EQ(a.lost + b.lost, st.lost_total, "lost sums to the collector's");
	ASSERT_EQ(a.received + b.received, st.samples, "written sums to received");
	for (size_t i = 0; i < perfbuf_ledger__cpu_cnt(l); i++) {
		ASSERT_OK(perfbuf_ledger__cpu(l, i, &c), "cpu entry");
		ASSERT_TRUE(c.checked && !c.mismatch, "checked, agrees");
	}
out:
	perfbuf__free(pb);
	perfbuf_ledger__free(l);
	perfbuf_object__free(o);
}

/* Records the ledger did not see (a bpf_perf_event_output() beside it):
 * the check says which CPU disagrees, by how much */
TEST(mismatch_reported)
{
	struct perfbuf_object *o = lt_load();
	struct perfbuf_ledger_cpu c = { .sz = sizeof(c) };
	struct perfbuf_ledger *l = NULL;
	struct perfbuf *pb = NULL;
	int cpu, found = 0;

	if (!o)
		return;
	cpu = sched_getcpu();
	l = perfbuf_ledger__from_object(o, NULL);
	pb = lt_collect(o, &cpu, 8);
	if (!ASSERT_OK_PTR(l, "ledger") || !ASSERT_OK_PTR(pb, "collector"))
		goto out;
	ASSERT_OK(lt_run(o, "ledger_emit", cpu, 0, 4, 64), "4 counted");
	ASSERT_OK(lt_run(o, "raw_emit", cpu, 0, 3, 64), "3 not counted");
	ASSERT_EQ(perfbuf__drain(pb), 7, "drain");
	ASSERT_EQ(perfbuf_ledger__read(l, pb), 1, "one CPU disagrees");
	for (size_t i = 0; i < perfbuf_ledger__cpu_cnt(l); i++) {
		ASSERT_OK(perfbuf_ledger__cpu(l, i, &c), "cpu entry");
		if (c.cpu != cpu)
			continue;
		found = 1;
		ASSERT_TRUE(c.mismatch && c.written == 4 && c.received == 7,
			    "written 4, received 7");
	}
	ASSERT_TRUE(found, "the CPU has an entry");
out:
	perfbuf__free(pb);
	perfbuf_ledger__free(l);
	perfbuf_object__free(o);
}

/* A kind past PERFBUF_LEDGER()'s is counted in the last entry */
TEST(kind_out_of_range)
{
	struct perfbuf_object *o = lt_load();
	struct perfbuf_ledger *l = NULL;
	struct perfbuf_ledger_kind s;

	if (!o)
		return;
	l = perfbuf_ledger__from_object(o, NULL);
	if (!ASSERT_OK_PTR(l, "ledger"))
		goto out;
	ASSERT_EQ(perfbuf_ledger__kind_cnt(l), 3, "LT_CNT + 1 entries");
	ASSERT_OK(lt_run(o, "ledger_emit", sched_getcpu(), 77, 2, 64), "kind 77");
	ASSERT_EQ(perfbuf_ledger__read(l, NULL), 0, "read");
	s = lt_kind(l, 2);
	ASSERT_TRUE(s.offered == 2 && s.no_reader == 2, "counted in entry 2");
out:
	perfbuf_ledger__free(l);
	perfbuf_object__free(o);
}

/* The caller's names before the enum's; options, results and maps that
 * are wrong refused; the sz rule on results */
TEST(names_opts_and_sz)
{
	const char *names[] = { "open", NULL };
	struct perfbuf_object *o = lt_load();
	struct perfbuf_ledger *l = NULL;
	struct { struct perfbuf_ledger_opts o; __u64 junk; } big;
	struct perfbuf_ledger_kind s;
	int fd;

	if (!o)
		return;
	fd = perfbuf_object__map_fd(o, PERFBUF_LEDGER_MAP);
	PERFBUF_OPTS(perfbuf_ledger_opts, lo, .names = names, .name_cnt = 2);
	l = perfbuf_ledger__new(fd, &lo);
	if (ASSERT_OK_PTR(l, "ledger with names")) {
		ASSERT_TRUE(streq(perfbuf_ledger__kind_name(l, 0), "open"), "the caller's name");
		ASSERT_TRUE(!perfbuf_ledger__kind_name(l, 5), "out of range: NULL");
		memset(&s, 0x5a, sizeof(s));
		s.sz = offsetof(struct perfbuf_ledger_kind, lost);
		ASSERT_OK(perfbuf_ledger__kind(l, 0, &s), "an older caller's struct");
		ASSERT_EQ(s.sz, offsetof(struct perfbuf_ledger_kind, lost), "sz: its bytes");
		ASSERT_EQ(s.lost, 0x5a5a5a5a5a5a5a5aULL, "past its sz: untouched");
		s.sz = 2;
		ASSERT_EQ(perfbuf_ledger__kind(l, 0, &s), -EINVAL, "sz too small");
		ASSERT_EQ(perfbuf_ledger__kind(l, 3, &s), -EINVAL, "kind out of range");
	}
	perfbuf_ledger__free(l);
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.junk = 1;
	errno = 0;
	ASSERT_TRUE(!perfbuf_ledger__new(fd, &big.o) && errno == EINVAL,
		    "unknown non-zero option bytes: EINVAL");
	errno = 0;
	ASSERT_TRUE(!perfbuf_ledger__new(perfbuf_object__map_fd(o, "events"), NULL) &&
		    errno == EINVAL, "not a ledger map: EINVAL");
	errno = 0;
	ASSERT_TRUE(!perfbuf_ledger__new(-1, NULL) && errno == EINVAL, "fd -1: EINVAL");
	ASSERT_EQ(perfbuf_ledger__read(NULL, NULL), -EINVAL, "read NULL");
	perfbuf_object__free(o);
}

int main(int argc, char **argv)
{
	static const struct test_case cases[] = {
		TEST_ENTRY(no_reader_before_reader), TEST_ENTRY(ring_full_per_kind),
		TEST_ENTRY(mismatch_reported), TEST_ENTRY(kind_out_of_range),
		TEST_ENTRY(names_opts_and_sz),
	};
	ssize_t n = readlink("/proc/self/exe", objdir, sizeof(objdir) - 1);

	if (n > 0)
		objdir[n] = 0;
	*strrchr(objdir, '/') = 0;
	return test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
