// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The collector against real BPF output (bpf/emit.bpf.c). */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "perfbuf.h"
#include "perf_event_priv.h"
#include "ring_priv.h"
#include "collector_priv.h"
#include "emit_util.h"
#include "test.h"

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif

#define MAX_CPU 64

/* What a test saw, per CPU. */
struct capture;

struct seen {
	__u64 samples[MAX_CPU];
	__u64 lost[MAX_CPU];
	__u64 next_seq[MAX_CPU];
	__u64 bad_payload;
	__u64 bad_cpu;
	__u64 wrapped;
	int ring_cpu_mismatch;
	int stop_after;		/* stop the fold after this many samples */
	struct capture *capture;	/* spans_capture */
};

static int on_rec(void *ctx, const struct perfbuf_record *rec)
{
	struct seen *s = ctx;
	char buf[EMIT_MAX_SIZE + 8];
	size_t n;

	if (rec->cpu < 0 || rec->cpu >= MAX_CPU) {
		s->bad_cpu++;
		return 0;
	}
	if (rec->kind == PERFBUF_REC_LOST) {
		s->lost[rec->cpu] += rec->lost;
		s->next_seq[rec->cpu] += rec->lost;	/* the gap it explains */
		return 0;
	}
	n = perfbuf_record__copy(rec, buf, sizeof(buf));
	if (rec->data2_sz)
		s->wrapped++;
	if (!emit_payload_ok(buf, n, rec->cpu, s->next_seq[rec->cpu]))
		s->bad_payload++;
	s->next_seq[rec->cpu]++;
	s->samples[rec->cpu]++;
	if (s->stop_after && --s->stop_after == 0)
		return 42;
	return 0;
}

/* emit loaded; NULL: a SKIP without root, or a failed assertion */
static struct emit *setup(__u32 max_entries)
{
	struct emit_fixture f;

	return emit_fixture_load(&f, max_entries, false) ? f.skel : NULL;
}

/* emit loaded, and leaks looked for from then on */
struct base {
	struct emit *skel;
	struct leak_base leaks;
};

static bool base_open(struct base *b)
{
	b->skel = setup(0);
	leak_base_take(&b->leaks);
	return b->skel;
}

TEST(in_order_per_cpu)
{
	int cpus[MAX_CPU], n = perfbuf_cpus__online(cpus, MAX_CPU);
	struct seen s = {};
	struct emit_fixture f;

	if (!emit_fixture_open(&f, false, on_rec, &s, NULL))
		goto cleanup;
	ASSERT_EQ(perfbuf__ring_cnt(f.pb), n, "one ring per online CPU");
	for (size_t i = 0; i < perfbuf__ring_cnt(f.pb); i++)
		ASSERT_EQ(perfbuf__ring_cpu(f.pb, i), cpus[i], "ring cpu");
	/* each CPU in turn; sizes 24..2047 so payloads wrap the 256 KiB ring */
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < n; i++)
			for (__u64 sz = 24; sz < 2048; sz += 97) {
				ASSERT_OK(emit_run(f.skel, cpus[i], 8, sz), "emit_run");
				ASSERT_EQ(perfbuf__consume(f.pb), 8, "consume");
			}
	for (int i = 0; i < n; i++) {
		struct emit_stats st;

		ASSERT_OK(emit_stats_cpu(f.skel, cpus[i], &st), "stats");
		ASSERT_EQ(st.ok, st.attempts, "all written");
		ASSERT_EQ(s.samples[cpus[i]], st.attempts, "all received");
		ASSERT_EQ(s.lost[cpus[i]], 0, "none lost");
	}
	ASSERT_EQ(s.bad_payload, 0, "payloads exact and in order");
	ASSERT_EQ(s.bad_cpu, 0, "cpu in range");
	ASSERT_GT(s.wrapped, 0, "some payloads wrapped the ring end");
cleanup:
	emit_fixture_close(&f);
}

/* A 1-page ring and no reader: offered == received + lost, exactly. */
TEST(overflow_accounting)
{
	PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 1);
	struct seen s = {};
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
	struct emit_stats st;
	struct emit_fixture f;

	if (!emit_fixture_open(&f, false, on_rec, &s, &o))
		goto cleanup;
	ASSERT_OK(emit_run(f.skel, f.cpu, 500, 64), "emit 500 x 64 B into 4 KiB");
	ASSERT_OK(emit_stats_cpu(f.skel, f.cpu, &st), "stats");
	ASSERT_GT(st.enospc, 0, "the ring overflowed");
	/* the losses are at the end: no LOST record exists yet */
	ASSERT_GE(perfbuf__drain(f.pb), 0, "drain");
	ASSERT_EQ(s.samples[f.cpu] + s.lost[f.cpu], st.attempts, "offered == received + lost");
	ASSERT_EQ(s.lost[f.cpu], st.enospc, "lost == BPF -ENOSPC count");
	ASSERT_OK(perfbuf__stats(f.pb, 0, &cs), "perfbuf__stats");
	ASSERT_EQ(cs.lost_kernel, st.enospc, "PERF_FORMAT_LOST == -ENOSPC count");
	ASSERT_EQ(cs.lost, st.enospc, "stats.lost");
	ASSERT_EQ(cs.samples, s.samples[f.cpu], "stats.samples");
	ASSERT_GE(cs.high_water, 4096 - 8 - 80, "ring was full");

	/* overflow again, then one record that fits: the kernel writes a LOST
	 * record first, which must not be counted twice after a drain */
	ASSERT_OK(emit_run(f.skel, f.cpu, 500, 64), "overflow again");
	ASSERT_GE(perfbuf__drain(f.pb), 0, "drain 2");
	ASSERT_OK(emit_run(f.skel, f.cpu, 500, 64), "overflow a third time");
	ASSERT_GE(perfbuf__consume(f.pb), 0, "consume");
	ASSERT_OK(emit_run(f.skel, f.cpu, 1, 64), "one more, after a LOST record");
	ASSERT_GE(perfbuf__drain(f.pb), 0, "drain 3");
	ASSERT_OK(emit_stats_cpu(f.skel, f.cpu, &st), "stats");
	ASSERT_EQ(s.samples[f.cpu] + s.lost[f.cpu], st.attempts, "identity after LOST records");
	ASSERT_EQ(s.lost[f.cpu], st.enospc, "lost == -ENOSPC after LOST records");
	ASSERT_OK(perfbuf__stats(f.pb, 0, &cs), "perfbuf__stats");
	ASSERT_EQ(cs.lost_kernel, st.enospc, "PERF_FORMAT_LOST after LOST records");
	ASSERT_EQ(s.bad_payload, 0, "payloads exact, seq gaps == LOST counts");
cleanup:
	emit_fixture_close(&f);
}

TEST(bad_page_counts)
{
	size_t bad[] = { 3, 6, 100, (size_t)1 << 30 };
	struct perfbuf *pb;
	struct base b;

	if (!base_open(&b))
		return;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = bad[i]);

		pb = perfbuf__new(bpf_map__fd(b.skel->maps.events), on_rec, NULL, &o);
		ASSERT_TRUE(pb == NULL, "refused");
		ASSERT_EQ(errno, EINVAL, "EINVAL");
	}
	{
		/* the ring layer refuses 0 pages too */
		PERFBUF_OPTS(perfbuf_event_opts, eo, .kind = PERFBUF_EV_SOFTWARE,
			     .config = PERF_COUNT_SW_BPF_OUTPUT,
			     .sample_type = PERF_SAMPLE_RAW, .sample_period = 1);
		int fd = perfbuf_event__open(&eo, -1, 0, -1);

		if (ASSERT_GE(fd, 0, "open BPF_OUTPUT")) {
			ASSERT_TRUE(perfbuf_ring__new(fd, 0) == NULL, "0 pages");
			ASSERT_EQ(errno, EINVAL, "EINVAL");
			ASSERT_TRUE(perfbuf_ring__new(fd, 5) == NULL, "5 pages");
			close(fd);
		}
	}
	leak_base_check(&b.leaks, "no fd left behind", "no mapping left behind");
	emit__destroy(b.skel);
}

TEST(sparse_cpu_list)
{
	int cpus[MAX_CPU], n = perfbuf_cpus__online(cpus, MAX_CPU);
	struct seen s = {};
	struct perfbuf *pb = NULL;
	struct emit_stats st;
	struct emit *skel;
	int last;

	if (n < 2)
		TEST_SKIP("needs 2 online CPUs");
	last = cpus[n - 1];
	skel = setup(0);
	if (!skel)
		return;
	{
		PERFBUF_OPTS(perfbuf_opts, o, .cpus = &last, .cpu_cnt = 1);

		pb = perfbuf__new(bpf_map__fd(skel->maps.events), on_rec, &s, &o);
	}
	if (!ASSERT_OK_PTR(pb, "perfbuf__new"))
		goto cleanup;
	ASSERT_EQ(perfbuf__ring_cnt(pb), 1, "one ring");
	ASSERT_EQ(perfbuf__ring_cpu(pb, 0), last, "key is the CPU number");
	ASSERT_OK(emit_run(skel, last, 10, 32), "emit on the listed CPU");
	ASSERT_OK(emit_run(skel, cpus[0], 10, 32), "emit on an unlisted CPU");
	ASSERT_EQ(perfbuf__consume_ring(pb, 1), -EINVAL, "no second ring");
	ASSERT_EQ(perfbuf__consume_ring(pb, 0), 10, "ten records");
	ASSERT_EQ(s.samples[last], 10, "arrived on the listed CPU");
	ASSERT_EQ(s.bad_payload, 0, "exact");
	ASSERT_OK(emit_stats_cpu(skel, cpus[0], &st), "stats");
	ASSERT_EQ(st.enoent, 10, "unlisted CPU: empty slot, counted by BPF");
	{
		int bad[] = { last, last };
		PERFBUF_OPTS(perfbuf_opts, o, .cpus = bad, .cpu_cnt = 2);

		ASSERT_TRUE(!perfbuf__new(bpf_map__fd(skel->maps.events), on_rec, &s, &o),
			    "duplicate CPU refused");
		bad[1] = 100000;
		ASSERT_TRUE(!perfbuf__new(bpf_map__fd(skel->maps.events), on_rec, &s, &o),
			    "CPU outside the map refused");
	}
cleanup:
	perfbuf__free(pb);
	emit__destroy(skel);
}

/* Getters with an index past the rings: -EINVAL, or NULL with errno. */
TEST(bad_ring_index)
{
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
	struct emit_fixture f;
	size_t n;

	if (!emit_fixture_open(&f, false, on_rec, NULL, NULL))
		goto cleanup;
	n = perfbuf__ring_cnt(f.pb);
	ASSERT_EQ(perfbuf__ring_cpu(f.pb, n), -EINVAL, "ring_cpu");
	ASSERT_EQ(perfbuf__ring_fd(f.pb, n), -EINVAL, "ring_fd");
	ASSERT_EQ(perfbuf__consume_ring(f.pb, n), -EINVAL, "consume_ring");
	ASSERT_EQ(perfbuf__stats(f.pb, n, &cs), -EINVAL, "stats");
cleanup:
	emit_fixture_close(&f);
}

TEST(max_entries_below_cpu_count)
{
	int cpus[MAX_CPU], n = perfbuf_cpus__online(cpus, MAX_CPU);
	struct seen s = {};
	struct perfbuf *pb = NULL;
	struct emit_stats st;
	struct emit *skel;

	if (n < 2 || cpus[0] != 0)
		TEST_SKIP("needs CPUs 0 and 1 online");
	skel = setup(1);
	if (!skel)
		return;
	pb = perfbuf__new(bpf_map__fd(skel->maps.events), on_rec, &s, NULL);
	if (!ASSERT_OK_PTR(pb, "perfbuf__new clamps"))
		goto cleanup;
	ASSERT_EQ(perfbuf__ring_cnt(pb), 1, "clamped to max_entries");
	ASSERT_OK(emit_run(skel, cpus[1], 5, 32), "emit past max_entries");
	ASSERT_OK(emit_stats_cpu(skel, cpus[1], &st), "stats");
	ASSERT_EQ(st.e2big, 5, "-E2BIG counted by BPF");
cleanup:
	perfbuf__free(pb);
	emit__destroy(skel);
}

TEST(teardown_leaves_nothing)
{
	int cpus[MAX_CPU], n = perfbuf_cpus__online(cpus, MAX_CPU);
	PERFBUF_OPTS(perfbuf_opts, o, .drain_on_free = true);
	struct seen s = {};
	struct perfbuf *pb;
	struct base b;

	if (!base_open(&b))
		return;
	for (int round = 0; round < 3; round++) {
		pb = perfbuf__new(bpf_map__fd(b.skel->maps.events), on_rec, &s, &o);
		if (!ASSERT_OK_PTR(pb, "perfbuf__new"))
			break;
		ASSERT_OK(emit_run(b.skel, cpus[0], 3, 40), "emit");
		perfbuf__free(pb);	/* drains first */
	}
	ASSERT_EQ(s.samples[cpus[0]], 9, "drained on free");
	leak_base_check(&b.leaks, "fds back to baseline", "mappings back to baseline");
	for (int i = 0; i < n; i++) {
		struct emit_stats before, after;

		ASSERT_OK(emit_stats_cpu(b.skel, cpus[i], &before), "stats");
		ASSERT_OK(emit_run(b.skel, cpus[i], 4, 32), "emit after free");
		ASSERT_OK(emit_stats_cpu(b.skel, cpus[i], &after), "stats");
		ASSERT_EQ(after.enoent - before.enoent, 4, "map slot deleted");
	}
	emit__destroy(b.skel);
}

/* A collector freed after another reader took its map slots leaves
 * that reader's slots alone: the kernel removes only the entries set
 * through the collector's own map file. */
TEST(free_keeps_replacing_readers_slots)
{
	int cpus[MAX_CPU], n = perfbuf_cpus__online(cpus, MAX_CPU);
	struct seen old = {}, cur = {};
	struct perfbuf *a, *b = NULL;
	struct base base;
	int map_fd;

	if (!base_open(&base))
		return;
	map_fd = bpf_map__fd(base.skel->maps.events);
	a = perfbuf__new(map_fd, on_rec, &old, NULL);
	if (!ASSERT_OK_PTR(a, "first reader"))
		goto cleanup;
	b = perfbuf__new(map_fd, on_rec, &cur, NULL);
	if (!ASSERT_OK_PTR(b, "second reader, replacing the first's slots"))
		goto cleanup;
	perfbuf__free(a);
	for (int i = 0; i < n; i++) {
		struct emit_stats st;

		ASSERT_OK(emit_run(base.skel, cpus[i], 5, 32), "emit after the first's free");
		ASSERT_OK(emit_stats_cpu(base.skel, cpus[i], &st), "stats");
		ASSERT_EQ(st.enoent, 0, "the second reader's slot is still set");
	}
	ASSERT_GE(perfbuf__drain(b), 0, "drain");
	ASSERT_EQ(cur.samples[cpus[0]], 5, "the second reader receives");
	ASSERT_EQ(old.samples[cpus[0]], 0, "the first reader got nothing");
	perfbuf__free(b);
	b = NULL;
	ASSERT_OK(emit_run(base.skel, cpus[0], 2, 32), "emit after both");
	{
		struct emit_stats st;

		ASSERT_OK(emit_stats_cpu(base.skel, cpus[0], &st), "stats");
		ASSERT_EQ(st.enoent, 2, "the last reader's free empties the slot");
	}
cleanup:
	perfbuf__free(b);
	emit__destroy(base.skel);
}

struct emitter {
	struct emit *skel;
	int cpu;
	bool stop;
};

static void *emitter(void *arg)
{
	struct emitter *e = arg;

	while (!__atomic_load_n(&e->stop, __ATOMIC_ACQUIRE))
		emit_run(e->skel, e->cpu, 16, 32);
	return NULL;
}

/* drain_on_free with a producer still writing: every record the helper
 * wrote is received or counted lost (the drain comes after the map slots
 * are deleted and the events disabled, not before). */
TEST(free_drains_after_disable)
{
	PERFBUF_OPTS(perfbuf_opts, o, .drain_on_free = true, .page_cnt = 8);
	struct emitter e = {};
	struct emit_stats st;
	struct seen s = {};
	struct perfbuf *pb;
	pthread_t t;

	e.skel = setup(0);
	if (!e.skel)
		return;
	pb = perfbuf__new(bpf_map__fd(e.skel->maps.events), on_rec, &s, &o);
	if (!ASSERT_OK_PTR(pb, "perfbuf__new"))
		goto cleanup;
	/* the last ring's slot was deleted last: the widest window */
	e.cpu = perfbuf__ring_cpu(pb, perfbuf__ring_cnt(pb) - 1);
	perfbuf__free(pb);
	if (!ASSERT_OK(pthread_create(&t, NULL, emitter, &e), "thread"))
		goto cleanup;
	/* 30 rounds, and more until the writer has written into one: on a
	 * loaded machine its thread may not run for the first 30 ms */
	for (int round = 0; round < 3000; round++) {
		pb = perfbuf__new(bpf_map__fd(e.skel->maps.events), on_rec, &s, &o);
		if (!ASSERT_OK_PTR(pb, "perfbuf__new"))
			break;
		usleep(1000);
		perfbuf__consume(pb);
		perfbuf__free(pb);
		if (round >= 29 && !emit_stats_cpu(e.skel, e.cpu, &st) && st.ok)
			break;
	}
	__atomic_store_n(&e.stop, true, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	ASSERT_OK(emit_stats_cpu(e.skel, e.cpu, &st), "stats");
	ASSERT_GT(st.ok, 0, "records were written");
	ASSERT_EQ(s.samples[e.cpu], st.ok, "every record written was received");
	ASSERT_EQ(s.lost[e.cpu], st.enospc, "every loss reported");
cleanup:
	emit__destroy(e.skel);
}

struct poller {
	struct perfbuf *pb;
	int ret;
	bool started;
};

static void *poll_forever(void *arg)
{
	struct poller *p = arg;

	__atomic_store_n(&p->started, true, __ATOMIC_RELEASE);
	p->ret = perfbuf__poll(p->pb, -1);
	return NULL;
}

/* stop lands before, during and after the poll blocks: it must always
 * end the poll, and each collector's teardown must leave nothing. The
 * same 1000 times with wake(), which is not sticky, on one collector. */
TEST(stop_while_polling_1000)
{
	PERFBUF_OPTS(perfbuf_opts, o, .latency_ms = -1, .page_cnt = 1);
	const char *env = getenv("PERFBUF_TEST_ROUNDS");
	int rounds = env ? atoi(env) : test_count(1000, 100);
	int stuck = 0, woken = 0;
	struct poller p = {};
	struct base b;
	pthread_t t;

	if (!base_open(&b))
		return;
	srand(1);
	for (int i = 0; i < rounds; i++) {
		p.pb = perfbuf__new(bpf_map__fd(b.skel->maps.events), on_rec, NULL, &o);
		if (!ASSERT_OK_PTR(p.pb, "perfbuf__new"))
			break;
		p.started = false;
		p.ret = 1;
		if (!ASSERT_OK(pthread_create(&t, NULL, poll_forever, &p), "thread")) {
			perfbuf__free(p.pb);
			break;
		}
		if (i % 2)	/* half the time, after the poll has begun */
			while (!__atomic_load_n(&p.started, __ATOMIC_ACQUIRE))
				sched_yield();
		if (i % 4 == 3)
			usleep(rand() % 200);
		perfbuf__stop(p.pb);
		pthread_join(t, NULL);
		stuck += p.ret != -ECANCELED;
		stuck += perfbuf__poll(p.pb, 0) != -ECANCELED;	/* stays so */
		perfbuf__free(p.pb);
	}
	ASSERT_EQ(stuck, 0, "every blocked poll ended with -ECANCELED, and later ones");
	leak_base_check(&b.leaks, "fds back to baseline", "mappings back to baseline");

	p.pb = perfbuf__new(bpf_map__fd(b.skel->maps.events), on_rec, NULL, &o);
	if (!ASSERT_OK_PTR(p.pb, "perfbuf__new"))
		goto cleanup;
	for (int i = 0; i < rounds; i++) {
		p.started = false;
		p.ret = 1;
		if (!ASSERT_OK(pthread_create(&t, NULL, poll_forever, &p), "thread"))
			break;
		while (!__atomic_load_n(&p.started, __ATOMIC_ACQUIRE))
			sched_yield();
		if (i % 2)
			usleep(rand() % 100);
		ASSERT_OK(perfbuf__wake(p.pb), "wake");
		pthread_join(t, NULL);
		woken += p.ret == 0;
	}
	ASSERT_EQ(woken, rounds, "every wake() ended a blocked poll with 0");
	perfbuf__free(p.pb);
cleanup:
	emit__destroy(b.skel);
}

static void on_alarm(int sig)
{
	(void)sig;
}

TEST(eintr_reaches_caller)
{
	PERFBUF_OPTS(perfbuf_opts, o, .latency_ms = -1);
	struct sigaction sa = { .sa_handler = on_alarm };
	struct emit_fixture f;

	if (!emit_fixture_open(&f, false, on_rec, NULL, &o))
		goto cleanup;
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART */
	/* every 50 ms: one that fired before the poll began (a stalled
	 * thread) is followed by one during it */
	ualarm(50 * 1000, 50 * 1000);
	ASSERT_EQ(perfbuf__poll(f.pb, 5000), -EINTR, "signal interrupts poll");
	ualarm(0, 0);
	/* the handler stays: a SIGALRM already pending when the timer
	 * stopped (valgrind delivers signals late) would kill the process
	 * under the default action */
cleanup:
	emit_fixture_close(&f);
}

/* A caller's fd ends a poll when readable, not before; added twice is
 * -EEXIST; closed, it is out. */
TEST(wake_fd_ends_poll)
{
	PERFBUF_OPTS(perfbuf_opts, o, .latency_ms = -1);
	struct seen s = {};
	struct emit_fixture f;
	int pfd[2] = { -1, -1 };
	__u64 t0;

	if (!emit_fixture_open(&f, false, on_rec, &s, &o) || !ASSERT_OK(pipe(pfd), "pipe"))
		goto cleanup;
	ASSERT_EQ(perfbuf__add_wake_fd(f.pb, -1), -EINVAL, "a bad fd");
	ASSERT_OK(perfbuf__add_wake_fd(f.pb, pfd[0]), "add");
	ASSERT_EQ(perfbuf__add_wake_fd(f.pb, pfd[0]), -EEXIST, "added twice");
	t0 = perfbuf_now_ns();
	ASSERT_EQ(perfbuf__poll(f.pb, 50), 0, "nothing readable: the timeout");
	ASSERT_GE(perfbuf_now_ns() - t0, 40000000ULL, "it waited");
	ASSERT_EQ(write(pfd[1], "x", 1), 1, "write");
	t0 = perfbuf_now_ns();
	ASSERT_EQ(perfbuf__poll(f.pb, 5000), 0, "readable: the poll returns");
	ASSERT_EQ(perfbuf__poll(f.pb, 5000), 0, "and again while it stays so");
	ASSERT_LT(perfbuf_now_ns() - t0, 1000000000ULL, "at once, not at the timeout");
	close(pfd[0]);
	close(pfd[1]);
	pfd[0] = pfd[1] = -1;
	t0 = perfbuf_now_ns();
	ASSERT_EQ(perfbuf__poll(f.pb, 50), 0, "closed: the timeout again");
	ASSERT_GE(perfbuf_now_ns() - t0, 40000000ULL, "it waited");
cleanup:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	emit_fixture_close(&f);
}

/* Below the watermark, records still arrive within the latency bound:
 * one poll of 1 s returns the record after about 5 ms, not its timeout
 * (500 ms allowed: a loaded machine, an ASan build). */
TEST(latency_bound_drains)
{
	PERFBUF_OPTS(perfbuf_opts, o, .latency_ms = 5);
	struct seen s = {};
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
	struct emit_fixture f;
	int got = 0;
	__u64 t0;

	if (!emit_fixture_open(&f, false, on_rec, &s, &o))
		goto cleanup;
	ASSERT_OK(emit_run(f.skel, f.cpu, 1, 32), "one record");
	t0 = perfbuf_now_ns();
	for (int i = 0; i < 100 && !got; i++) {
		int r = perfbuf__poll(f.pb, 1000);

		ASSERT_GE(r, 0, "poll");
		got += r > 0 ? r : 0;
	}
	ASSERT_EQ(got, 1, "the record came through poll");
	ASSERT_LT(perfbuf_now_ns() - t0, 500000000ULL, "within the latency bound, not at the poll's timeout");
	ASSERT_OK(perfbuf__stats(f.pb, 0, &cs), "stats");
	ASSERT_EQ(cs.wakeups, 0, "without a kernel wake-up");
cleanup:
	emit_fixture_close(&f);
}

/* A wake-up drains the rings it names, not every ring: with hundreds of
 * CPUs, one busy CPU waking the consumer must not cost a look at all the
 * others. A record under the watermark on another CPU waits for the
 * latency grid (1 s bound: 800 ms), and comes then. */
TEST(wakeup_drains_its_ring)
{
	PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 1, .latency_ms = 1000);
	struct seen s = {};
	struct emit_fixture f;
	int r, other = 0, got = 0;
	__u64 t0;

	if (!emit_fixture_open(&f, true, on_rec, &s, &o))
		goto cleanup;
	other = perfbuf__ring_cpu(f.pb, 1);
	t0 = perfbuf_now_ns();
	ASSERT_OK(emit_run(f.skel, other, 1, 32), "one record under the watermark");
	ASSERT_OK(emit_run(f.skel, f.cpu, 40, 64), "40 records past it: a wake-up");
	r = perfbuf__poll(f.pb, 500);
	if (perfbuf_now_ns() - t0 >= 700000000ULL) {
		test__skip = "too slow a start: the grid came first";
		goto cleanup;
	}
	ASSERT_EQ(r, 40, "the woken ring's records");
	ASSERT_EQ(s.samples[other], 0, "the other ring left to the grid");
	for (int i = 0; i < 20 && !s.samples[other]; i++)
		got += perfbuf__poll(f.pb, 100);
	ASSERT_EQ(s.samples[other], 1, "the grid's drain brought it");
	ASSERT_LT(perfbuf_now_ns() - t0, 1500000000ULL, "within the latency bound");
cleanup:
	emit_fixture_close(&f);
}

/* The losses the kernel counted before any LOST record says them: in
 * lost_total at once (the number to print), and lost_total == lost once a
 * drain has settled them. */
TEST(lost_total_before_drain)
{
	PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 1);
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
	struct seen s = {};
	struct emit_stats st;
	struct emit_fixture f;

	if (!emit_fixture_open(&f, false, on_rec, &s, &o))
		goto cleanup;
	ASSERT_OK(emit_run(f.skel, f.cpu, 500, 64), "emit 500 x 64 B into 4 KiB");
	ASSERT_OK(emit_stats_cpu(f.skel, f.cpu, &st), "stats");
	ASSERT_GE(perfbuf__consume(f.pb), 0, "consume: no LOST record yet");
	ASSERT_OK(perfbuf__stats(f.pb, 0, &cs), "perfbuf__stats");
	ASSERT_EQ(cs.lost, 0, "no loss reported yet");
	ASSERT_EQ(cs.lost_total, st.enospc, "lost_total: the kernel's count");
	ASSERT_GE(perfbuf__drain(f.pb), 0, "drain");
	ASSERT_OK(perfbuf__stats(f.pb, 0, &cs), "perfbuf__stats");
	ASSERT_EQ(cs.lost, st.enospc, "settled");
	ASSERT_EQ(cs.lost_total, st.enospc, "lost_total unchanged");
cleanup:
	emit_fixture_close(&f);
}

/* The statistics a poll published: its records counted, ordered (merged)
 * or not, without a drain at the end. */
TEST(stats_after_poll)
{
	for (int ordered = 0; ordered < 2; ordered++) {
		PERFBUF_OPTS(perfbuf_opts, o, .ordered = ordered, .latency_ms = 5);
		struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
		struct seen s = {};
		struct emit_fixture f;
		int got = 0;

		if (!emit_fixture_open(&f, false, on_rec, &s, &o)) {
			emit_fixture_close(&f);
			return;
		}
		ASSERT_OK(emit_run(f.skel, f.cpu, 10, 32), "ten records");
		for (int i = 0; i < 100 && got < 10; i++) {
			int r = perfbuf__poll(f.pb, 20);

			got += r > 0 ? r : 0;
		}
		ASSERT_EQ(got, 10, "polled");
		ASSERT_OK(perfbuf__stats(f.pb, 0, &cs), "stats");
		ASSERT_EQ(cs.samples, 10, ordered ? "ordered: counted" : "counted");
		emit_fixture_close(&f);
	}
}

/* buffer_size: a total for every CPU the collector serves, each ring the
 * largest power of two of pages within its share; exclusive with
 * page_cnt; below a page per CPU refused. */
TEST(buffer_size_shared_by_cpus)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n;
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
	struct perfbuf *pb;
	perfbuf_print_fn prev;
	struct base b;

	if (!base_open(&b))
		return;
	{
		PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 8);

		pb = perfbuf__new(bpf_map__fd(b.skel->maps.events), on_rec, NULL, &o);
		if (!ASSERT_OK_PTR(pb, "page_cnt 8"))
			goto out;
		n = perfbuf__ring_cnt(pb);
		perfbuf__free(pb);
	}
	for (size_t share = 1; share <= 12; share++) {
		PERFBUF_OPTS(perfbuf_opts, o, .buffer_size = n * share * page + page - 1);
		size_t want = share >= 8 ? 8 : share >= 4 ? 4 : share >= 2 ? 2 : 1;

		pb = perfbuf__new(bpf_map__fd(b.skel->maps.events), on_rec, NULL, &o);
		if (!ASSERT_OK_PTR(pb, "buffer_size"))
			goto out;
		for (size_t i = 0; i < n; i++) {
			ASSERT_OK(perfbuf__stats(pb, i, &cs), "stats");
			ASSERT_EQ(cs.data_size, want * page, "the power of two within the share");
		}
		perfbuf__free(pb);
	}
	prev = test_capture_warnings();
	{
		PERFBUF_OPTS(perfbuf_opts, o, .buffer_size = n * page - 1);

		pb = perfbuf__new(bpf_map__fd(b.skel->maps.events), on_rec, NULL, &o);
		ASSERT_TRUE(pb == NULL && errno == EINVAL, "less than a page per CPU: EINVAL");
		ASSERT_TRUE(strstr(test_warning, "less than a page for each") != NULL,
			    "says so");
	}
	{
		PERFBUF_OPTS(perfbuf_opts, o, .buffer_size = 1 << 20, .page_cnt = 4);

		pb = perfbuf__new(bpf_map__fd(b.skel->maps.events), on_rec, NULL, &o);
		ASSERT_TRUE(pb == NULL && errno == EINVAL, "with page_cnt: EINVAL");
		ASSERT_TRUE(strstr(test_warning, "exclusive") != NULL, "says so");
	}
	perfbuf_set_print(prev);
	leak_base_check(&b.leaks, "no fd left behind", "no mapping left behind");
out:
	emit__destroy(b.skel);
}

TEST(wakeup_events_mode)
{
	PERFBUF_OPTS(perfbuf_opts, o, .wakeup_events = 1, .latency_ms = -1);
	struct seen s = {};
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
	struct emit_fixture f;
	int r;

	if (!emit_fixture_open(&f, false, on_rec, &s, &o))
		goto cleanup;
	ASSERT_OK(emit_run(f.skel, f.cpu, 3, 32), "three records");
	r = perfbuf__poll(f.pb, 2000);
	ASSERT_EQ(r, 3, "woken and drained");
	ASSERT_OK(perfbuf__stats(f.pb, 0, &cs), "stats");
	ASSERT_EQ(cs.wakeups, 1, "one epoll wake-up");
cleanup:
	emit_fixture_close(&f);
}

TEST(stop_in_callback)
{
	struct seen s = { .stop_after = 4 };
	struct emit_fixture f;

	if (!emit_fixture_open(&f, false, on_rec, &s, NULL))
		goto cleanup;
	ASSERT_OK(emit_run(f.skel, f.cpu, 10, 32), "ten records");
	ASSERT_EQ(perfbuf__consume(f.pb), 4, "the call returns the 4 delivered");
	ASSERT_EQ(s.samples[f.cpu], 4, "stopped after the 4th");
	ASSERT_EQ(perfbuf__consume(f.pb), 6, "the rest on the next call");
	ASSERT_EQ(s.bad_payload, 0, "in order, none repeated");
cleanup:
	emit_fixture_close(&f);
}

static int stop_ebadmsg(void *ctx, const struct perfbuf_record *rec)
{
	int *n = ctx;

	(void)rec;
	return ++*n == 2 ? -EBADMSG : 0;
}

/* A callback may stop with any value, -EBADMSG too: it is a stop, not an
 * error and not corruption, and it is never returned. */
TEST(stop_value_ebadmsg)
{
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
	struct emit_fixture f;
	int n = 0;

	if (!emit_fixture_open(&f, false, stop_ebadmsg, &n, NULL))
		goto cleanup;
	ASSERT_OK(emit_run(f.skel, f.cpu, 5, 32), "five records");
	ASSERT_EQ(perfbuf__consume(f.pb), 2, "records delivered, not the callback's value");
	ASSERT_EQ(n, 2, "stopped on the second");
	ASSERT_OK(perfbuf__stats(f.pb, 0, &cs), "stats");
	ASSERT_EQ(cs.corrupt, 0, "no corruption");
	ASSERT_EQ(perfbuf__consume(f.pb), 3, "the rest on the next call");
cleanup:
	emit_fixture_close(&f);
}

/* The budget is per ring per drain: a ring that spends it does not keep
 * the next ones from being drained (they would fill and lose records). */
TEST(budget_moves_on)
{
	PERFBUF_OPTS(perfbuf_opts, o, .budget = 4);
	struct seen s = {};
	struct emit_fixture f;
	size_t n;

	if (!emit_fixture_open(&f, true, on_rec, &s, &o))
		goto cleanup;
	n = perfbuf__ring_cnt(f.pb);
	for (size_t i = 0; i < n; i++)
		ASSERT_OK(emit_run(f.skel, perfbuf__ring_cpu(f.pb, i), 10, 32),
			  "ten records");
	ASSERT_EQ(perfbuf__consume(f.pb), 4 * (int)n, "a budget from every ring");
	for (size_t i = 0; i < n; i++)
		ASSERT_EQ(s.samples[perfbuf__ring_cpu(f.pb, i)], 4, "4 of each CPU");
	ASSERT_EQ(perfbuf__consume(f.pb), 4 * (int)n, "the next 4 of each");
	ASSERT_EQ(perfbuf__consume(f.pb), 2 * (int)n, "the last 2 of each");
	ASSERT_EQ(s.bad_payload, 0, "in order, none repeated");
cleanup:
	emit_fixture_close(&f);
}

/* A final drain empties every ring whatever the budget, then reports the
 * pending losses (1-page rings, budget 4: once 4 of 15 came and 11 went). */
TEST(drain_ignores_budget)
{
	PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 1, .budget = 4);
	struct seen s = {};
	struct emit_fixture f;

	if (!emit_fixture_open(&f, false, on_rec, &s, &o))
		goto cleanup;
	for (size_t i = 0; i < perfbuf__ring_cnt(f.pb); i++)
		ASSERT_OK(emit_run(f.skel, perfbuf__ring_cpu(f.pb, i), 1024, 256),
			  "1024 records of 256 B");
	ASSERT_GT(perfbuf__drain(f.pb), 4 * (int)perfbuf__ring_cnt(f.pb),
		  "more than one budget per ring");
	for (size_t i = 0; i < perfbuf__ring_cnt(f.pb); i++) {
		int cpu = perfbuf__ring_cpu(f.pb, i);
		struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
		struct emit_stats es;

		ASSERT_OK(emit_stats_cpu(f.skel, cpu, &es), "emit stats");
		ASSERT_GT(es.ok, 4, "more written than a budget");
		ASSERT_EQ(s.samples[cpu], es.ok, "every record written delivered");
		ASSERT_EQ(s.lost[cpu], es.enospc, "every loss reported");
		if (ASSERT_OK(perfbuf__stats(f.pb, i, &cs), "stats") &&
		    ASSERT_TRUE(cs.online, "CPU online"))
			ASSERT_EQ(cs.avail, 0, "ring empty");
	}
	ASSERT_EQ(s.bad_payload, 0, "in order, none repeated");
cleanup:
	emit_fixture_close(&f);
}

/* A capture: the rings' bytes as they are, per CPU, read back as a ring
 * afterwards; with the losses the drain settled, every record written and
 * every loss are there. */
struct capture {
	unsigned char *buf[MAX_CPU];
	size_t len[MAX_CPU], cap[MAX_CPU];
	int bad_cpu;
};

static void on_span(void *ctx, int cpu, const struct iovec *iov, int cnt)
{
	struct seen *live = ctx;
	struct capture *c = live->capture;

	if (cpu < 0 || cpu >= MAX_CPU) {
		c->bad_cpu++;
		return;
	}
	for (int i = 0; i < cnt; i++) {
		if (c->len[cpu] + iov[i].iov_len > c->cap[cpu]) {
			c->cap[cpu] = 2 * (c->len[cpu] + iov[i].iov_len);
			c->buf[cpu] = realloc(c->buf[cpu], c->cap[cpu]);
		}
		memcpy(c->buf[cpu] + c->len[cpu], iov[i].iov_base, iov[i].iov_len);
		c->len[cpu] += iov[i].iov_len;
	}
}

/* The captured bytes of @cpu, folded as a ring of their own. */
static void fold_capture(struct capture *c, int cpu, struct seen *out)
{
	size_t pages = 1;
	struct perf_event_mmap_page *hdr;
	struct perfbuf_ring *r;
	char *mem;

	while (pages * 4096 < c->len[cpu])
		pages *= 2;
	mem = calloc(1, 4096 * (pages + 1));
	if (!ASSERT_OK_PTR(mem, "capture ring"))
		return;
	memcpy(mem + 4096, c->buf[cpu], c->len[cpu]);
	hdr = (void *)mem;
	hdr->data_head = c->len[cpu];
	r = perfbuf_ring__new_mem(mem, 4096, pages);
	perfbuf_ring__set_cpu(r, cpu);
	ASSERT_GE(perfbuf_ring__fold(r, on_rec, out), 0, "captured bytes parse");
	perfbuf_ring__free(r);
	free(mem);
}

TEST(spans_capture)
{
	PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 1, .span_fn = on_span);
	struct capture cap = {};
	struct seen live = { .capture = &cap }, back = {};
	struct emit_fixture f;

	if (!emit_fixture_open(&f, false, on_rec, &live, &o))
		goto cleanup;
	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < perfbuf__ring_cnt(f.pb); i++)
			ASSERT_OK(emit_run(f.skel, perfbuf__ring_cpu(f.pb, i), 300, 100),
				  "more than a ring holds");
		ASSERT_GT(perfbuf__consume(f.pb), 0, "records counted in the bytes");
	}
	perfbuf__drain(f.pb);
	ASSERT_EQ(cap.bad_cpu, 0, "CPU of each span");
	for (size_t i = 0; i < perfbuf__ring_cnt(f.pb); i++) {
		int cpu = perfbuf__ring_cpu(f.pb, i);
		struct emit_stats es;

		fold_capture(&cap, cpu, &back);
		ASSERT_OK(emit_stats_cpu(f.skel, cpu, &es), "emit stats");
		ASSERT_GT(es.enospc, 0, "losses happened");
		ASSERT_EQ(back.samples[cpu], es.ok, "every record in the bytes");
		ASSERT_EQ(back.lost[cpu] + live.lost[cpu], es.enospc,
			  "every loss: LOST records in the bytes + the drain's");
		ASSERT_EQ(live.samples[cpu], 0, "no record handed over one by one");
		free(cap.buf[cpu]);
	}
	ASSERT_EQ(back.bad_payload, 0, "in order, intact");
	{
		PERFBUF_OPTS(perfbuf_opts, bad, .span_fn = on_span, .ordered = true);

		ASSERT_TRUE(!perfbuf__new(bpf_map__fd(f.skel->maps.events), on_rec,
					  NULL, &bad), "spans and ordered refused");
		ASSERT_EQ(errno, EINVAL, "EINVAL");
	}
cleanup:
	emit_fixture_close(&f);
}

/* max_record_size: no overflow in the size arithmetic, and a record must
 * be describable by the u16 header.size whatever the ring size. */
TEST(max_record_size_limits)
{
	struct perfbuf *pb;
	struct emit *skel;
	int fd;

	skel = setup(0);
	if (!skel)
		return;
	fd = bpf_map__fd(skel->maps.events);
	{
		PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 1, .max_record_size = SIZE_MAX - 3);

		ASSERT_TRUE(!perfbuf__new(fd, on_rec, NULL, &o), "SIZE_MAX - 3 refused");
		ASSERT_EQ(errno, E2BIG, "E2BIG");
	}
	{
		PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 32, .max_record_size = 70000);

		ASSERT_TRUE(!perfbuf__new(fd, on_rec, NULL, &o), "over 64 KiB refused");
		ASSERT_EQ(errno, E2BIG, "E2BIG");
	}
	{
		PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 32, .max_record_size = 0xfff8 - 12);

		pb = perfbuf__new(fd, on_rec, NULL, &o);
		ASSERT_OK_PTR(pb, "largest u16 record accepted");
		perfbuf__free(pb);
	}
	{
		PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 32, .max_record_size = 0xfff8 - 11);

		ASSERT_TRUE(!perfbuf__new(fd, on_rec, NULL, &o), "one byte more refused");
		ASSERT_EQ(errno, E2BIG, "E2BIG");
	}
	emit__destroy(skel);
}

TEST(bad_setup)
{
	struct emit *skel;
	int fd;

	skel = setup(0);
	if (!skel)
		return;
	{
		PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 1, .max_record_size = 4096);

		ASSERT_TRUE(!perfbuf__new(bpf_map__fd(skel->maps.events), on_rec, NULL, &o),
			    "record larger than the ring refused");
		ASSERT_EQ(errno, E2BIG, "E2BIG");
	}
	{
		PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 1, .max_record_size = 4096 - 20);

		struct perfbuf *pb = perfbuf__new(bpf_map__fd(skel->maps.events), on_rec, NULL, &o);
		ASSERT_OK_PTR(pb, "largest record that fits accepted");
		perfbuf__free(pb);
	}
	ASSERT_TRUE(!perfbuf__new(bpf_map__fd(skel->maps.stats), on_rec, NULL, NULL),
		    "not a PERF_EVENT_ARRAY");
	ASSERT_EQ(errno, EINVAL, "EINVAL");
	ASSERT_TRUE(!perfbuf__new(-1, on_rec, NULL, NULL), "bad fd");
	ASSERT_EQ(errno, EBADF, "EBADF");
	{
		struct { size_t sz; char pad[512]; } big = { .sz = sizeof(big) };

		big.pad[500] = 1;
		ASSERT_TRUE(!perfbuf__new(bpf_map__fd(skel->maps.events), on_rec, NULL,
					  (void *)&big), "unknown option bytes refused");
		ASSERT_EQ(errno, EINVAL, "EINVAL");
	}
	fd = bpf_map__fd(skel->maps.events);
	{
		PERFBUF_OPTS(perfbuf_opts, o, .wakeup_events = 4, .watermark = 4096);

		ASSERT_TRUE(!perfbuf__new(fd, on_rec, NULL, &o), "both wake-up kinds");
	}
	emit__destroy(skel);
}

/* The RLIMIT_NOFILE under which exactly @want fds are free. */
static int limit_for_free_fds(int want)
{
	for (int fd = 0, free = 0; fd < 1 << 16; fd++)
		if (fcntl(fd, F_GETFD) < 0 && ++free == want)
			return fd + 1;
	return -1;
}

/* RLIMIT_NOFILE below what the rings need: EMFILE, a message, no leak. */
TEST(out_of_fds)
{
	struct rlimit old, rl;
	struct perfbuf *pb;
	perfbuf_print_fn prev;
	struct base b;

	if (!base_open(&b))
		return;
	getrlimit(RLIMIT_NOFILE, &old);
	/* room for the map file of our own, the epoll fd, the eventfd, the
	 * hotplug socket and one event only */
	rl.rlim_max = old.rlim_max;
	rl.rlim_cur = (rlim_t)limit_for_free_fds(5);
	setrlimit(RLIMIT_NOFILE, &rl);
	prev = test_capture_warnings();
	pb = perfbuf__new(bpf_map__fd(b.skel->maps.events), on_rec, NULL, NULL);
	perfbuf_set_print(prev);
	setrlimit(RLIMIT_NOFILE, &old);
	if (pb && perfbuf__ring_cnt(pb) == 1) {
		perfbuf__free(pb);
		emit__destroy(b.skel);
		TEST_SKIP("one CPU: every fd fits");
	}
	ASSERT_TRUE(pb == NULL, "refused");
	ASSERT_EQ(errno, EMFILE, "EMFILE");
	if (!ASSERT_TRUE(strstr(test_warning, "ulimit -n") != NULL, "says to raise ulimit -n"))
		fprintf(stderr, "  the warning was: %s", test_warning);
	leak_base_check(&b.leaks, "no fd leaked", "no mapping leaked");
	perfbuf__free(pb);
	emit__destroy(b.skel);
}

/* The collector's calls in a child forked after perfbuf__new(): -ECHILD
 * each, never a fault on the rings the child does not have (perf mappings
 * are not copied), and perfbuf__free() there leaves the parent's map
 * slots, events and eventfd alone: the parent reads on. */
static int child_calls(struct perfbuf *pb)
{
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
	int bad = 0;

	bad |= (perfbuf__poll(pb, 0) != -ECHILD) << 0;
	bad |= (perfbuf__consume(pb) != -ECHILD) << 1;
	bad |= (perfbuf__consume_ring(pb, 0) != -ECHILD) << 2;
	bad |= (perfbuf__drain(pb) != -ECHILD) << 3;
	bad |= (perfbuf__stats(pb, 0, &cs) != -ECHILD) << 4;
	bad |= (perfbuf__wake(pb) != -ECHILD) << 5;
	bad |= (perfbuf__stop(pb) != -ECHILD) << 6;
	perfbuf__free(pb);
	return bad;
}

TEST(forked_child_leaves_parent_alone)
{
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
	struct seen s = {};
	struct emit_fixture f;
	int status = -1;
	pid_t pid;

	if (!emit_fixture_open(&f, false, on_rec, &s, NULL))
		goto cleanup;
	ASSERT_OK(emit_run(f.skel, f.cpu, 5, 64), "5 records before the fork");
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(child_calls(f.pb));
	if (!ASSERT_GT(pid, 0, "fork"))
		goto cleanup;
	ASSERT_EQ(waitpid(pid, &status, 0), pid, "waitpid");
	ASSERT_TRUE(WIFEXITED(status), "the child exited (not killed by a signal)");
	ASSERT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status), 0,
		  "every call refused with -ECHILD (bit set: the call that was not)");
	ASSERT_OK(emit_run(f.skel, f.cpu, 5, 64), "5 records after the child's free");
	ASSERT_GE(perfbuf__drain(f.pb), 0, "the parent drains");
	ASSERT_EQ(s.samples[f.cpu], 10, "all 10: map slot and event still the parent's");
	ASSERT_OK(perfbuf__stats(f.pb, 0, &cs), "the parent's stats");
	ASSERT_EQ(perfbuf__poll(f.pb, 0), 0, "no stop from the child");
cleanup:
	emit_fixture_close(&f);
}

TEST_MAIN(
	TEST_ENTRY(in_order_per_cpu),
	TEST_ENTRY(overflow_accounting),
	TEST_ENTRY(bad_page_counts),
	TEST_ENTRY(sparse_cpu_list),
	TEST_ENTRY(bad_ring_index),
	TEST_ENTRY(max_entries_below_cpu_count),
	TEST_ENTRY(teardown_leaves_nothing),
	TEST_ENTRY(free_keeps_replacing_readers_slots),
	TEST_ENTRY(free_drains_after_disable),
	TEST_ENTRY(stop_while_polling_1000),
	TEST_ENTRY(eintr_reaches_caller),
	TEST_ENTRY(wake_fd_ends_poll),
	TEST_ENTRY(latency_bound_drains),
	TEST_ENTRY(wakeup_drains_its_ring),
	TEST_ENTRY(lost_total_before_drain),
	TEST_ENTRY(buffer_size_shared_by_cpus),
	TEST_ENTRY(stats_after_poll),
	TEST_ENTRY(wakeup_events_mode),
	TEST_ENTRY(stop_in_callback),
	TEST_ENTRY(stop_value_ebadmsg),
	TEST_ENTRY(bad_setup),
	TEST_ENTRY(max_record_size_limits),
	TEST_ENTRY(out_of_fds),
	TEST_ENTRY(budget_moves_on),
	TEST_ENTRY(drain_ignores_budget),
	TEST_ENTRY(spans_capture),
	TEST_ENTRY(forked_child_leaves_parent_alone),
)
