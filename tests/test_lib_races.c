// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The library's findings of issue 17, each as it happens: a CPU coming
 * online between two reads of the online list, an online list longer
 * than a buffer, a resume that fails after a snapshot, uevents missed
 * (ENOBUFS) while records wait in the rings. What the kernel does not do
 * on demand is made to happen by tests/fake_sys.h.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "fake_sys.h"
#include "perfbuf.h"
#include "perf_event_priv.h"
#include "ring_priv.h"
#include "sample_priv.h"
#include "collector_priv.h"
#include "emit_util.h"
#include "test.h"

/* The sampler counted the online CPUs (1), allocated, then read them
 * again (2: one came online) and went through 2 entries of its 1. */
TEST(sampler_cpu_online_between_reads)
{
	PERFBUF_OPTS(perfbuf_event_opts, ev, .kind = PERFBUF_EV_SOFTWARE,
		     .config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1000000,
		     .sample_type = PERF_SAMPLE_IP);
	PERFBUF_OPTS(perfbuf_sampler_opts, so, .page_cnt = 1);
	struct perfbuf_sampler *s;

	TEST_NEED_ROOT();
	if (!emit_cpus01_online())
		TEST_SKIP("needs CPUs 0 and 1 online");
	fake.online[0] = "0\n";
	fake.online[1] = "0-1\n";
	s = perfbuf_sampler__new(&ev, &so);
	fake_sys_reset();
	if (!ASSERT_OK_PTR(s, "sampler"))
		return;
	ASSERT_EQ(perfbuf_sampler__cnt(s), 1, "one event: the list as read once");
	ASSERT_EQ(perfbuf_sampler__cpu(s, 0), 0, "on CPU0");
	perfbuf_sampler__free(s);
}

static int ignore(void *ctx, const struct perfbuf_record *rec)
{
	(void)ctx;
	(void)rec;
	return PERFBUF_CONTINUE;
}

/* 9,000 online CPUs, CPU1 the last: the collector's 8,192-entry buffer
 * held 8,192 of them, and the look-ups went on past it. */
TEST(collector_online_list_past_buffer)
{
	struct emit_fixture f;
	int slot1 = -1;
	bool ok;

	if (!emit_fixture_load(&f, 0, true))
		goto out;
	fake.online[0] = "2-9000,1\n";
	ok = emit_fixture_collect(&f, ignore, NULL, NULL);
	fake_sys_reset();
	if (!ok)
		goto out;
	for (size_t i = 0; i < perfbuf__ring_cnt(f.pb); i++)
		if (perfbuf__ring_cpu(f.pb, i) == 1)
			slot1 = (int)i;
	if (ASSERT_GE(slot1, 0, "a slot for CPU1")) {
		ASSERT_GE(perfbuf__ring_fd(f.pb, (size_t)slot1), 0,
			  "CPU1, listed online at entry 9000: its ring");
		ASSERT_EQ(perfbuf__ring_fd(f.pb, (size_t)!slot1), -ENODEV,
			  "CPU0, not listed: none yet");
	}
out:
	emit_fixture_close(&f);
}

static int count_samples(void *ctx, const struct perfbuf_record *rec)
{
	if (rec->kind == PERFBUF_REC_OTHER && rec->type == PERF_RECORD_SAMPLE)
		++*(int *)ctx;
	return PERFBUF_CONTINUE;
}

/* A resume that fails once after a snapshot: the ring must record again
 * at once, not only from the next snapshot on. */
TEST(snapshot_resume_retried)
{
	PERFBUF_OPTS(perfbuf_event_opts, ev, .kind = PERFBUF_EV_SOFTWARE,
		     .config = PERF_COUNT_SW_PAGE_FAULTS, .sample_period = 1,
		     .sample_type = PERF_SAMPLE_IP, .write_backward = true,
		     .disabled = true, .exclude_kernel = true, .exclude_hv = true);
	PERFBUF_OPTS(perfbuf_ring_opts, ro, .overwrite = true);
	struct perfbuf_ring *r;
	int fd, n = 0;

	TEST_NEED_ROOT();
	fd = perfbuf_event__open(&ev, 0, -1, -1);
	if (!ASSERT_GE(fd, 0, "page-fault event"))
		return;
	r = perfbuf_ring__new_opts(fd, 8, &ro);
	if (!ASSERT_OK_PTR(r, "overwrite ring"))
		goto out;
	perfbuf_ring__set_sample_type(r, PERF_SAMPLE_IP, false);
	perfbuf_event__enable(fd, false);
	touch_new_pages(10);
	fake.ioctl_req = PERF_EVENT_IOC_PAUSE_OUTPUT;
	fake.ioctl_arg = 0;		/* resume */
	fake.ioctl_errno = EIO;
	fake.ioctl_fails = 1;
	ASSERT_GE(perfbuf_ring__snapshot(r, count_samples, &n), 0,
		  "snapshot: the resume's one failure got over");
	ASSERT_GE(n, 10, "the faults before it");
	fake_sys_reset();
	n = 0;
	touch_new_pages(10);		/* before any other snapshot */
	perfbuf_event__disable(fd, false);
	ASSERT_GE(perfbuf_ring__snapshot(r, count_samples, &n), 0, "snapshot");
	ASSERT_GE(n, 10, "the faults after it: the ring was resumed");
	/* a resume that keeps failing: said, as an error */
	fake.ioctl_req = PERF_EVENT_IOC_PAUSE_OUTPUT;
	fake.ioctl_errno = EIO;
	fake.ioctl_fails = 100;
	ASSERT_EQ(perfbuf_ring__snapshot(r, count_samples, &n), -EIO,
		  "a resume that fails for good: -EIO");
	fake_sys_reset();
out:
	perfbuf_ring__free(r);
	close(fd);
}

/* A uevent of CPU0 ("change": not a hotplug), which wakes a collector or
 * sampler on its uevent socket; false (the test skipped) where it cannot
 * be made. *@fd: the file, for the caller to close (-1 or open). */
static bool make_uevent(int *fd)
{
	*fd = open("/sys/devices/system/cpu/cpu0/uevent", O_WRONLY);
	if (*fd < 0 || write(*fd, "change", 6) != 6) {
		test__skip = "cannot make a uevent here";
		return false;
	}
	return true;
}

/* Missed uevents (ENOBUFS) make the sampler reopen every online CPU's
 * event; the records written since the last read (here: page faults
 * while the notices are read) must be handed over first, not dropped
 * with the old ring uncounted: a callback's stops too. */
static int faults;

static void fault_many(void)
{
	touch_new_pages(faults);
}

struct parsed {
	int samples;
	bool stop;	/* stop on every record */
};

static int count_parsed(void *ctx, const struct perfbuf_sample *s)
{
	struct parsed *p = ctx;

	if (s->type == PERF_RECORD_SAMPLE)
		p->samples++;
	return p->stop ? PERFBUF_STOP : PERFBUF_CONTINUE;
}

static void enobufs_case(int n_faults, bool stop, int pages)
{
	static const int cpus[] = { 0, 1 };
	PERFBUF_OPTS(perfbuf_event_opts, ev, .kind = PERFBUF_EV_SOFTWARE,
		     .config = PERF_COUNT_SW_PAGE_FAULTS, .sample_period = 1,
		     .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
		     .exclude_kernel = true, .exclude_hv = true,
		     .read_format = PERF_FORMAT_LOST);
	PERFBUF_OPTS(perfbuf_sampler_opts, so, .pid = getpid(), .cpus = cpus,
		     .cpu_cnt = 2, .page_cnt = (size_t)pages);
	struct perfbuf_sampler_stats st = { .sz = sizeof(st) };
	struct parsed before = { 0 }, got = { .stop = stop };
	struct perfbuf_sampler *s;
	int fd;

	TEST_NEED_ROOT();
	if (!emit_cpus01_online())
		TEST_SKIP("needs CPUs 0 and 1 online");
	s = perfbuf_sampler__new(&ev, &so);
	if (!ASSERT_OK_PTR(s, "sampler"))
		return;
	while (perfbuf_sampler__poll(s, 0, count_parsed, &before) > 0)
		;
	faults = n_faults;
	fake.recvmsg_errno = ENOBUFS;
	fake.recvmsg_hook = fault_many;
	if (!make_uevent(&fd))
		goto out;
	for (int i = 0; i < 50 && fake.recvmsg_errno; i++) {
		int r = perfbuf_sampler__poll(s, 100, count_parsed, &got);

		if (!ASSERT_GE(r, 0, "poll"))
			break;
	}
	if (!ASSERT_EQ(fake.recvmsg_errno, 0, "the uevent came, ENOBUFS seen"))
		goto out;
	while (perfbuf_sampler__poll(s, 0, count_parsed, &got) > 0)
		;
	ASSERT_GE(got.samples, n_faults, "the faults of the missed notices delivered");
	ASSERT_EQ(perfbuf_sampler__cnt(s), 2, "both events reopened");
	ASSERT_OK(perfbuf_sampler__stats(s, &st), "stats");
	ASSERT_EQ(st.lost, 0, "none lost");
out:
	if (fd >= 0)
		close(fd);
	fake_sys_reset();
	perfbuf_sampler__free(s);
}

TEST(sampler_enobufs_drains_before_reopen)
{
	enobufs_case(100, false, 16);
}

/* 3000 faults on two CPUs: one ring holds 1500 at least (32 pages hold
 * 5000 records of 24 bytes), each handed over by a callback that stops */
TEST(sampler_enobufs_drains_past_stops)
{
	enobufs_case(3000, true, 32);
}

/* The collector after missed uevents (ENOBUFS): a uevent queued before
 * the overflow ("offline" of CPU1, which is online now) is older than the
 * online list the collector then reads, and must not take CPU1's ring
 * away; and since a CPU may have gone and come back unseen (its event is
 * then dead), every online CPU gets a fresh event: a CPU_OFFLINE then a
 * CPU_ONLINE record each. */
struct notes {
	int samples[64], offline[64], online[64];
};

static int on_note(void *ctx, const struct perfbuf_record *rec)
{
	struct notes *w = ctx;

	if (rec->cpu < 0 || rec->cpu >= 64)
		return PERFBUF_CONTINUE;
	w->samples[rec->cpu] += rec->kind == PERFBUF_REC_SAMPLE;
	w->offline[rec->cpu] += rec->kind == PERFBUF_REC_CPU_OFFLINE;
	w->online[rec->cpu] += rec->kind == PERFBUF_REC_CPU_ONLINE;
	return PERFBUF_CONTINUE;
}

TEST(collector_enobufs_stale_uevent)
{
	static const char stale[] = "offline@/devices/system/cpu/cpu1\0"
		"ACTION=offline\0DEVPATH=/devices/system/cpu/cpu1\0"
		"SUBSYSTEM=cpu\0SEQNUM=1";
	struct notes w = {};
	struct emit_fixture f;
	size_t idx1 = 0;
	int fd = -1;

	if (!emit_fixture_open(&f, true, on_note, &w, NULL))
		goto out;
	while (idx1 < perfbuf__ring_cnt(f.pb) && perfbuf__ring_cpu(f.pb, idx1) != 1)
		idx1++;
	fake.recvmsg_errno = ENOBUFS;
	fake.uevent = stale;
	fake.uevent_len = sizeof(stale);
	if (!make_uevent(&fd))
		goto out;
	for (int i = 0; i < 200 && (fake.recvmsg_errno || fake.uevent_len); i++)
		if (!ASSERT_GE(perfbuf__poll(f.pb, 100), 0, "poll"))
			break;
	if (!ASSERT_TRUE(!fake.recvmsg_errno && !fake.uevent_len,
			 "ENOBUFS and the stale uevent seen"))
		goto out;
	for (int i = 0; i < 3; i++)
		ASSERT_GE(perfbuf__poll(f.pb, 20), 0, "poll");
	ASSERT_GE(perfbuf__ring_fd(f.pb, idx1), 0, "CPU1 keeps a ring");
	ASSERT_OK(emit_run(f.skel, 1, 10, 32), "ten records on CPU1");
	ASSERT_GE(perfbuf__drain(f.pb), 10, "drained");
	ASSERT_EQ(w.samples[1], 10, "CPU1's records delivered");
	for (int cpu = 0; cpu < 2; cpu++) {
		ASSERT_EQ(w.offline[cpu], 1, "a fresh event: CPU_OFFLINE");
		ASSERT_EQ(w.online[cpu], 1, "a fresh event: CPU_ONLINE");
	}
out:
	if (fd >= 0)
		close(fd);
	fake_sys_reset();
	emit_fixture_close(&f);
}

/* CPU1 going offline and online faster than its uevents are read: the
 * kernel makes a ring's set-up wait for a hotplug under way (tens of ms,
 * then ENODEV), so under load the uevents never run out. A poll must
 * still come back to its caller, which looks at its stop flag between
 * calls (the examples' SIGINT handler sets one), and end at once on a
 * perfbuf__stop(); and no change may be lost: after the burst CPU1 has
 * its ring, every offline and online was handed over, CPU1's records
 * come. The uevents are tests/fake_sys.h's; CPU1 stays online. */
#define BURST 2000	/* uevents: offline, online, ... */

static const char cpu1_offline[] = "offline@/devices/system/cpu/cpu1\0"
	"ACTION=offline\0DEVPATH=/devices/system/cpu/cpu1\0SUBSYSTEM=cpu\0SEQNUM=2";
static const char cpu1_online[] = "online@/devices/system/cpu/cpu1\0"
	"ACTION=online\0DEVPATH=/devices/system/cpu/cpu1\0SUBSYSTEM=cpu\0SEQNUM=3";

static struct {
	int at;			/* the uevent served before the stop */
	volatile int flag;	/* the caller's stop flag */
	struct perfbuf *pb;	/* or perfbuf__stop() */
} burst_stop;

static void stop_in_burst(int served)
{
	if (served != burst_stop.at)
		return;
	burst_stop.flag = 1;
	if (burst_stop.pb)
		perfbuf__stop(burst_stop.pb);
}

/* A burst of @n uevents from now, a stop asked before the uevent @stop_at
 * of it (perfbuf__stop() on @pb, or a flag only); false (skipped) where
 * the socket cannot be woken. */
static bool burst_start(int n, int stop_at, struct perfbuf *pb, int *fd)
{
	fake.burst[0] = cpu1_offline;
	fake.burst_len[0] = sizeof(cpu1_offline);
	fake.burst[1] = cpu1_online;
	fake.burst_len[1] = sizeof(cpu1_online);
	fake.burst_left = n;
	fake.burst_hook = stop_in_burst;
	burst_stop.at = fake.burst_served + stop_at;
	burst_stop.flag = 0;
	burst_stop.pb = pb;
	return make_uevent(fd);
}

TEST(collector_uevent_burst_stop)
{
	PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 1);
	struct notes w = {};
	struct emit_fixture f;
	size_t idx1 = 0;
	int fd = -1, r = 0, i;

	if (!emit_fixture_open(&f, true, on_note, &w, &o))
		goto out;
	while (idx1 < perfbuf__ring_cnt(f.pb) && perfbuf__ring_cpu(f.pb, idx1) != 1)
		idx1++;
	/* the caller's flag: the loop of tpcount.c */
	if (!burst_start(BURST, 5, NULL, &fd))
		goto out;
	for (i = 0; i < 100 && !burst_stop.flag; i++)
		if (!ASSERT_GE(perfbuf__poll(f.pb, 100), 0, "poll"))
			goto out;
	ASSERT_TRUE(burst_stop.flag, "the flag was set");
	ASSERT_LT(fake.burst_served, 5 + 100,
		  "the poll came back to its caller a few uevents after the flag, not at the burst's end");
	for (i = 0; i < BURST && fake.burst_left; i++)
		if (!ASSERT_GE(perfbuf__poll(f.pb, 100), 0, "poll"))
			goto out;
	for (i = 0; i < 3; i++)
		ASSERT_GE(perfbuf__poll(f.pb, 10), 0, "poll");
	ASSERT_EQ(fake.burst_left, 0, "the burst was read");
	ASSERT_EQ(w.offline[1], BURST / 2, "every CPU_OFFLINE handed over");
	ASSERT_EQ(w.online[1], BURST / 2, "every CPU_ONLINE handed over");
	ASSERT_GE(perfbuf__ring_fd(f.pb, idx1), 0, "CPU1 has a ring");
	ASSERT_OK(emit_run(f.skel, 1, 10, 32), "ten records on CPU1");
	ASSERT_GE(perfbuf__drain(f.pb), 10, "drained");
	ASSERT_EQ(w.samples[1], 10, "CPU1's records delivered");
	close(fd);
	/* perfbuf__stop(): the call it interrupts ends, the next says so */
	if (!burst_start(BURST, 5, f.pb, &fd))
		goto out;
	for (i = 0; i < 100 && r >= 0; i++)
		r = perfbuf__poll(f.pb, 100);
	ASSERT_EQ(r, -ECANCELED, "the stop is seen");
	ASSERT_LT(fake.burst_served - (burst_stop.at - 5), 5 + 10,
		  "a few uevents after it, not at the burst's end");
out:
	if (fd >= 0)
		close(fd);
	fake_sys_reset();
	emit_fixture_close(&f);
}

/* The same burst after missed uevents (ENOBUFS): the collector reads the
 * CPU lists anew and drops the uevents older than them, but only those
 * (their SEQNUM is at most the kernel's count read before the lists):
 * reading until none is left never ends while uevents keep coming. */
static char burst_msg[2][160];

static size_t burst_uevent(char *buf, size_t size, const char *action,
			   unsigned long long seq)
{
	int n = snprintf(buf, size, "%s@/devices/system/cpu/cpu1%cACTION=%s%c"
			 "DEVPATH=/devices/system/cpu/cpu1%cSUBSYSTEM=cpu%cSEQNUM=%llu",
			 action, 0, action, 0, 0, 0, seq);

	return (size_t)n + 1;
}

TEST(collector_enobufs_burst_stop)
{
	PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 1);
	unsigned long long seq = 0;
	struct notes w = {};
	struct emit_fixture f;
	int fd = -1, i;
	FILE *fp;

	if (!emit_fixture_open(&f, true, on_note, &w, &o))
		goto out;
	fp = fopen("/sys/kernel/uevent_seqnum", "r");
	if (!fp || fscanf(fp, "%llu", &seq) != 1)
		test__skip = "no /sys/kernel/uevent_seqnum";
	if (fp)
		fclose(fp);
	if (test__skip)
		goto out;
	/* newer than anything the kernel sends meanwhile */
	seq += 1000000;
	if (!burst_start(BURST, 5, NULL, &fd))
		goto out;
	fake.burst[0] = burst_msg[0];
	fake.burst_len[0] = burst_uevent(burst_msg[0], sizeof(burst_msg[0]), "offline", seq);
	fake.burst[1] = burst_msg[1];
	fake.burst_len[1] = burst_uevent(burst_msg[1], sizeof(burst_msg[1]), "online", seq + 1);
	fake.recvmsg_errno = ENOBUFS;
	for (i = 0; i < 100 && !burst_stop.flag; i++)
		if (!ASSERT_GE(perfbuf__poll(f.pb, 100), 0, "poll"))
			goto out;
	ASSERT_EQ(fake.recvmsg_failed, 1, "ENOBUFS seen");
	ASSERT_TRUE(burst_stop.flag, "the flag was set");
	ASSERT_LT(fake.burst_served, 5 + 100,
		  "the poll came back to its caller a few uevents after the flag, not at the burst's end");
	for (i = 0; i < BURST && fake.burst_left; i++)
		if (!ASSERT_GE(perfbuf__poll(f.pb, 100), 0, "poll"))
			goto out;
	ASSERT_EQ(fake.burst_left, 0, "the burst was read");
	/* the lists' fresh rings, then the burst's changes */
	ASSERT_EQ(w.offline[1], 1 + BURST / 2, "every CPU_OFFLINE handed over");
	ASSERT_EQ(w.online[1], 1 + BURST / 2, "every CPU_ONLINE handed over");
	ASSERT_OK(emit_run(f.skel, 1, 10, 32), "ten records on CPU1");
	ASSERT_GE(perfbuf__drain(f.pb), 10, "drained");
	ASSERT_EQ(w.samples[1], 10, "CPU1's records delivered");
out:
	if (fd >= 0)
		close(fd);
	fake_sys_reset();
	emit_fixture_close(&f);
}

/* A uevent socket that cannot be read stays readable: the collector must
 * stop following hotplug (said once), not read it again on every poll,
 * and go on delivering the rings' records */
TEST(collector_hotplug_socket_fails)
{
	struct notes w = {};
	struct emit_fixture f;
	int fd = -1;

	if (!emit_fixture_open(&f, true, on_note, &w, NULL))
		goto out;
	fake.recvmsg_errno = EIO;
	fake.recvmsg_sticky = true;
	if (!make_uevent(&fd))
		goto out;
	for (int i = 0; i < 200 && !fake.recvmsg_failed; i++)
		if (!ASSERT_GE(perfbuf__poll(f.pb, 100), 0, "poll"))
			break;
	if (!ASSERT_EQ(fake.recvmsg_failed, 1, "the uevent came, the read failed"))
		goto out;
	for (int i = 0; i < 10; i++)
		ASSERT_GE(perfbuf__poll(f.pb, 10), 0, "poll");
	ASSERT_EQ(fake.recvmsg_failed, 1, "the socket not read again");
	ASSERT_OK(emit_run(f.skel, 0, 10, 32), "ten records on CPU0");
	ASSERT_GE(perfbuf__drain(f.pb), 10, "drained");
	ASSERT_EQ(w.samples[0], 10, "CPU0's records delivered");
out:
	if (fd >= 0)
		close(fd);
	fake_sys_reset();
	emit_fixture_close(&f);
}

/* A machine of 10,001 possible CPUs in a sparse list: 0-1 and the even
 * numbers 4 to 20,000 (a /sys file of 54 KB), 0 and 1 online. */
#define MANY_CPUS 10001
#define MANY_LAST 20000

static char *many_cpus_list(void)
{
	size_t cap = 8 * MANY_CPUS, len;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	len = (size_t)snprintf(s, cap, "0-1");
	for (int c = 4; c <= MANY_LAST; c += 2)
		len += (size_t)snprintf(s + len, cap - len, ",%d", c);
	snprintf(s + len, cap - len, "\n");
	return s;
}

/* The least time of 200 perfbuf__poll(pb, 0) calls, over 5 tries. */
static __u64 poll_cost_ns(struct perfbuf *pb)
{
	__u64 best = UINT64_MAX;

	for (int t = 0; t < 5; t++) {
		__u64 t0 = perfbuf_now_ns(), d;

		for (int i = 0; i < 200; i++)
			perfbuf__poll(pb, 0);
		d = perfbuf_now_ns() - t0;
		best = d < best ? d : best;
	}
	return best;
}

static int count_rec(void *ctx, const struct perfbuf_record *rec)
{
	*(int *)ctx += rec->kind == PERFBUF_REC_SAMPLE;
	return PERFBUF_CONTINUE;
}

/* A slot per possible CPU, however many (the collector had 8,192 and read
 * 4 KiB of the list), keyed by its number. */
TEST(collector_many_possible_cpus)
{
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
	char *list = many_cpus_list();
	struct emit_fixture f;
	int got = 0;
	bool ok;

	if (!ASSERT_TRUE(list != NULL, "the list"))
		return;
	if (!emit_fixture_load(&f, MANY_LAST + 1, true))
		goto out;
	fake.possible = list;
	ok = emit_fixture_collect(&f, count_rec, &got, NULL);
	fake_sys_reset();
	if (!ok)
		goto out;
	ASSERT_EQ(perfbuf__ring_cnt(f.pb), MANY_CPUS, "a slot per possible CPU");
	ASSERT_EQ(perfbuf__ring_cpu(f.pb, MANY_CPUS - 1), MANY_LAST,
		  "keyed by the CPU's number");
	ASSERT_EQ(perfbuf__offline_cnt(f.pb), MANY_CPUS - 2, "two online");
	ASSERT_EQ(perfbuf__ring_fd(f.pb, MANY_CPUS - 1), -ENODEV, "no ring offline");
	ASSERT_OK(perfbuf__stats(f.pb, MANY_CPUS - 1, &cs), "stats of the last");
	ASSERT_EQ(cs.cpu, MANY_LAST, "its CPU");
	ASSERT_OK(emit_run(f.skel, 1, 10, 32), "ten records on CPU1");
	ASSERT_EQ(perfbuf__consume(f.pb), 10, "delivered");
out:
	emit_fixture_close(&f);
	free(list);
}

/* With 8,192 possible CPUs (2 online), a poll costs what it costs with
 * the real two, not a look at every slot: the statistics of all were
 * published at the end of every call. */
TEST(poll_cost_with_many_cpus)
{
	struct emit_fixture f;
	struct perfbuf *small = NULL;
	__u64 many_ns, two_ns;
	int got = 0;
	bool ok;

	if (!emit_fixture_load(&f, 8192, true))
		goto out;
	fake.possible = "0-8191\n";
	ok = emit_fixture_collect(&f, count_rec, &got, NULL);
	fake_sys_reset();
	if (!ok || !ASSERT_EQ(perfbuf__ring_cnt(f.pb), 8192, "8,192 slots"))
		goto out;
	many_ns = poll_cost_ns(f.pb);
	perfbuf__free(f.pb);
	f.pb = NULL;
	small = perfbuf__new(bpf_map__fd(f.skel->maps.events), count_rec, &got, NULL);
	if (!ASSERT_OK_PTR(small, "a collector of the real CPUs"))
		goto out;
	two_ns = poll_cost_ns(small);
	ASSERT_LT(many_ns, 4 * two_ns + 2000000,
		  "a poll costs the same with 8,192 possible CPUs");
	fprintf(stderr, "  200 polls: %llu ns with 8192 CPUs, %llu ns with %zu\n",
		(unsigned long long)many_ns, (unsigned long long)two_ns,
		perfbuf__ring_cnt(small));
out:
	perfbuf__free(small);
	emit_fixture_close(&f);
}

TEST_MAIN(
	TEST_ENTRY(sampler_cpu_online_between_reads),
	TEST_ENTRY(collector_online_list_past_buffer),
	TEST_ENTRY(snapshot_resume_retried),
	TEST_ENTRY(sampler_enobufs_drains_before_reopen),
	TEST_ENTRY(sampler_enobufs_drains_past_stops),
	TEST_ENTRY(collector_enobufs_stale_uevent),
	TEST_ENTRY(collector_hotplug_socket_fails),
	TEST_ENTRY(collector_uevent_burst_stop),
	TEST_ENTRY(collector_enobufs_burst_stop),
	TEST_ENTRY(collector_many_possible_cpus),
	TEST_ENTRY(poll_cost_with_many_cpus),
)
