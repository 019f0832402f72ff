// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The collector across real CPU hotplug: CPU1 taken offline and brought
 * back (/sys/devices/system/cpu/cpu1/online) while bpf/emit.bpf.c writes on
 * CPU0 and CPU1 and the collector is polled. No mocks.
 *
 * CPU1 is put back online in every path: at the end of each subtest, at
 * exit, on SIGINT/SIGTERM/SIGABRT/SIGSEGV (and the other fatal signals),
 * and, for the paths no handler sees (SIGKILL, a sanitizer's _exit()), by
 * a guardian process that outlives this one.
 *
 * Accounting, per CPU, over the rings the CPU had (struct emit_rec.seq
 * counts every bpf_perf_event_output() attempt, from 0):
 *   BPF ok == SAMPLE records received, BPF -ENOSPC == losses reported, and
 *   every seq gap is covered by LOST counts, but for the records the helper
 *   refused (-ENOENT, -EOPNOTSUPP), which it counts and never wrote.
 * The producer stops writing on CPU1 once its CPU_OFFLINE record is seen
 * and starts again only after its CPU_ONLINE record: while the CPU is
 * back but its new event is not in the map yet, a write would find the
 * slot empty (-ENOENT); so -ENOENT must be 0. -EOPNOTSUPP is the kernel's
 * own window while CPU1 goes down: perf detaches the CPU's events
 * (CPUHP_AP_PERF_ONLINE) before the CPU stops taking IPIs, so a write
 * there finds the event in the map but not active on the CPU. Nothing in
 * userspace can see it coming (the uevent comes after); it is counted,
 * reported when seen, and the seq gaps must match it exactly.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "perfbuf.h"
#include "sample_priv.h"
#include "collector_priv.h"
#include "emit_util.h"
#include "test.h"

#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"
#define HP_CPU 1		/* the CPU taken offline */
#define NCPU 2			/* CPU0 and CPU1 */
#define WAIT_MS 5000		/* longest wait for a hotplug notice */
#define REC_SIZE 64

/* --- CPU1 online, whatever happens -------------------------------------- */

/* set before CPU1 is first taken offline: only then is it ours to restore */
static volatile sig_atomic_t cpu1_touched;

/* Async-signal-safe: write "1" to CPU1's online file (a few tries when
 * the hotplug lock is busy). 0 or -errno. */
static int cpu1_write(const char *val)
{
	int err = 0;

	for (int i = 0; i < 50; i++) {
		int fd = open(CPU1_ONLINE, O_WRONLY | O_CLOEXEC);
		ssize_t w;

		if (fd < 0)
			return -errno;
		w = write(fd, val, 1);
		err = w == 1 ? 0 : -errno;
		close(fd);
		if (err != -EBUSY && err != -EAGAIN && err != -EINTR)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	}
	return err;
}

static void cpu1_restore_raw(void)
{
	int saved = errno;

	if (cpu1_touched)
		cpu1_write("1");
	errno = saved;
}

static void on_fatal_signal(int sig)
{
	/* SA_RESETHAND: the default action is back; a synchronous fault
	 * (SIGSEGV) is delivered again when the handler returns */
	cpu1_restore_raw();
	raise(sig);
}

static int guardian_fd = -1;	/* write end of the guardian's pipe */

/*
 * A child that waits for the end of its pipe, i.e. for this process to be
 * gone however it ended (SIGKILL, ASan/UBSan's _exit(), which run no
 * handler), then puts CPU1 back if this process said it took it offline.
 * Only async-signal-safe calls: the child of a fork.
 */
static void start_guardian(void)
{
	static const int group_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	bool touched = false;
	int p[2], fd;
	pid_t pid;
	char c;

	if (geteuid() != 0 || access(CPU1_ONLINE, W_OK) || pipe2(p, O_CLOEXEC))
		return;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid > 0) {
		close(p[0]);
		guardian_fd = p[1];
		return;
	}
	/* Ctrl-C and timeout(1) signal the whole process group */
	for (size_t i = 0; i < sizeof(group_sigs) / sizeof(group_sigs[0]); i++)
		signal(group_sigs[i], SIG_IGN);
	close(p[1]);
	/* nothing of the caller's output held open */
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int i = 0; i < 3 && fd >= 0; i++)
		dup2(fd, i);
	for (;;) {
		ssize_t n = read(p[0], &c, 1);

		if (n > 0)
			touched = true;
		else if (n == 0 || errno != EINTR)
			break;
	}
	if (touched)
		cpu1_write("1");
	_exit(0);
}

__attribute__((constructor)) static void install_restore(void)
{
	static const int sigs[] = {
		SIGINT, SIGTERM, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL,
		SIGQUIT, SIGHUP, SIGALRM,
	};
	struct sigaction sa = {
		.sa_handler = on_fatal_signal,
		.sa_flags = SA_RESETHAND,
	};

	start_guardian();	/* first: the child keeps default handlers */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	atexit(cpu1_restore_raw);
}

static bool cpu1_is_online(void)
{
	char c = 0;
	int fd = open(CPU1_ONLINE, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '1';
}

static __u64 ms_since(__u64 t0)
{
	return (perfbuf_now_ns() - t0) / 1000000;
}

static bool verbose(void)
{
	return getenv("PERFBUF_TEST_VERBOSE") != NULL;
}

/* Take CPU1 offline (0) or online (1), synchronously. 0 or -errno. */
static int cpu1_set(int on)
{
	__u64 t0 = perfbuf_now_ns();
	int err;

	if (!on && !cpu1_touched) {
		ssize_t w = guardian_fd >= 0 ? write(guardian_fd, "T", 1) : 0;

		(void)w;
		cpu1_touched = 1;
	}
	err = cpu1_write(on ? "1" : "0");
	if (verbose())
		fprintf(stderr, "    # CPU1 %s: %llu ms (%d)\n",
			on ? "online" : "offline", (unsigned long long)ms_since(t0), err);
	return err;
}

/* At the end of every subtest: CPU1 back, and checked. */
static void cpu1_restore(void)
{
	if (!cpu1_touched)
		return;
	ASSERT_OK(cpu1_write("1"), "CPU1 back online");
	ASSERT_TRUE(cpu1_is_online(), "CPU1 is online");
}

/* NULL when the machine lets us take CPU1 offline, else why not. */
static const char *hotplug_skip_reason(void)
{
	int cpus[64], n, fd;
	bool have0 = false, have1 = false;

	if (test_need_root())
		return test_need_root();
	if (access(CPU1_ONLINE, F_OK))
		return "no " CPU1_ONLINE ": CPU1 cannot be taken offline";
	fd = open(CPU1_ONLINE, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return CPU1_ONLINE " is not writable";
	close(fd);
	n = perfbuf_cpus__online(cpus, 64);
	for (int i = 0; i < n; i++) {
		have0 |= cpus[i] == 0;
		have1 |= cpus[i] == HP_CPU;
	}
	if (n < 2 || !have0 || !have1)
		return "needs CPU0 and CPU1 online (a single online CPU)";
	return NULL;
}

#define HOTPLUG_NEEDED() do {						\
	const char *___why = hotplug_skip_reason();			\
	if (___why)							\
		TEST_SKIP(___why);					\
} while (0)

/* --- what the callback saw --------------------------------------------- */

struct seen {
	/* per CPU */
	__u64 samples[NCPU];
	__u64 lost[NCPU];
	__u64 next_seq[NCPU];	/* the seq expected next */
	__u64 credit[NCPU];	/* losses reported, not yet matched by a gap */
	__u64 uncovered[NCPU];	/* seq gaps no LOST count explains */
	__u64 seq_back[NCPU];	/* a seq repeated or going back */
	__u64 onlines[NCPU];	/* CPU_ONLINE records */
	__u64 offlines[NCPU];
	bool down[NCPU];	/* between CPU_OFFLINE and CPU_ONLINE */
	__u64 while_down[NCPU];	/* SAMPLE/LOST of a CPU in that interval */
	__u64 bad_notice[NCPU];	/* ONLINE while up, OFFLINE while down */
	__u64 offline_ns[NCPU];	/* time of the last CPU_OFFLINE */
	__u64 older_after_offline[NCPU]; /* records older than a CPU_OFFLINE
					  * of their CPU delivered after it */
	__u64 max_rec_ns[NCPU];	/* newest SAMPLE/LOST time of the CPU */
	/* all CPUs */
	__u64 bad_payload;
	__u64 bad_cpu;
	__u64 other_kind;
	__u64 zero_time;	/* timestamps on, but a record without one */
	__u64 late;		/* flagged PERFBUF_RECF_LATE */
	__u64 backwards;	/* ordered: older than the record before, not
				 * flagged late */
	__u64 last_ns;
	bool timestamps;
	bool ordered;
	/* offline inside the callback */
	bool cb_armed;		/* take CPU1 offline on the next record */
	bool cb_done;
	int cb_err;
	int *cb_allow0;		/* set to 1 then (the producer's CPU0) */
	__u64 cb_samples1;	/* CPU1 SAMPLEs seen when it did */
	bool stop_each;		/* return PERFBUF_STOP on every record */
	__u64 samples_at_offline[NCPU];	/* SAMPLEs seen when CPU_OFFLINE came */
};

static __u64 load64(const __u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void inc64(__u64 *p)
{
	__atomic_add_fetch(p, 1, __ATOMIC_RELEASE);
}

static void check_time(struct seen *s, const struct perfbuf_record *rec)
{
	if (!s->timestamps)
		return;
	if (!rec->time_ns) {
		s->zero_time++;
		return;
	}
	if (rec->flags & PERFBUF_RECF_LATE) {
		s->late++;
		return;
	}
	if (s->ordered && rec->time_ns < s->last_ns) {
		if (s->backwards++ < 5)
			fprintf(stderr, "  kind %d of CPU %d at %llu after %llu\n",
				rec->kind, rec->cpu,
				(unsigned long long)rec->time_ns,
				(unsigned long long)s->last_ns);
	}
	if (rec->time_ns > s->last_ns)
		s->last_ns = rec->time_ns;
}

static void on_sample(struct seen *s, const struct perfbuf_record *rec)
{
	char buf[EMIT_MAX_SIZE + 8];
	int c = rec->cpu;
	size_t n = perfbuf_record__copy(rec, buf, sizeof(buf));
	__u64 seq = 0;

	if (n >= sizeof(seq))
		memcpy(&seq, buf, sizeof(seq));
	if (!emit_payload_ok(buf, n, c, seq))
		s->bad_payload++;
	s->samples[c]++;
	if (seq < s->next_seq[c]) {
		s->seq_back[c]++;
	} else {
		__u64 gap = seq - s->next_seq[c];

		if (gap <= s->credit[c]) {
			s->credit[c] -= gap;
		} else {
			s->uncovered[c] += gap - s->credit[c];
			s->credit[c] = 0;
		}
	}
	s->next_seq[c] = seq + 1;
}

static int on_rec(void *ctx, const struct perfbuf_record *rec)
{
	struct seen *s = ctx;
	int c = rec->cpu;

	if (c < 0 || c >= NCPU) {
		s->bad_cpu++;
		return PERFBUF_CONTINUE;
	}
	check_time(s, rec);
	switch (rec->kind) {
	case PERFBUF_REC_SAMPLE:
	case PERFBUF_REC_LOST:
		if (s->down[c])
			s->while_down[c]++;
		if (rec->time_ns && rec->time_ns < s->offline_ns[c])
			s->older_after_offline[c]++;
		if (rec->time_ns > s->max_rec_ns[c])
			s->max_rec_ns[c] = rec->time_ns;
		if (rec->kind == PERFBUF_REC_LOST) {
			s->lost[c] += rec->lost;
			s->credit[c] += rec->lost;
		} else {
			on_sample(s, rec);
		}
		break;
	case PERFBUF_REC_CPU_OFFLINE:
		s->bad_notice[c] += s->down[c];
		s->samples_at_offline[c] = s->samples[c];
		s->down[c] = true;
		s->offline_ns[c] = rec->time_ns;
		/* every record of the CPU so far is older than its notice */
		if (s->timestamps && s->max_rec_ns[c] > rec->time_ns)
			s->older_after_offline[c]++;
		inc64(&s->offlines[c]);
		break;
	case PERFBUF_REC_CPU_ONLINE:
		s->bad_notice[c] += !s->down[c];
		s->down[c] = false;
		inc64(&s->onlines[c]);
		break;
	default:
		s->other_kind++;
		break;
	}
	if (s->cb_armed && !s->cb_done) {
		/* synchronous: the CPU is offline when the write returns */
		s->cb_done = true;
		s->cb_samples1 = s->samples[HP_CPU];
		s->cb_err = cpu1_set(0);
		if (s->cb_allow0)
			__atomic_store_n(s->cb_allow0, 1, __ATOMIC_RELEASE);
	}
	return s->stop_each ? PERFBUF_STOP : PERFBUF_CONTINUE;
}

/* Poll until *@counter >= @want or @ms pass. */
static bool poll_until(struct perfbuf *pb, const __u64 *counter, __u64 want,
		       int ms, const char *what)
{
	__u64 t0 = perfbuf_now_ns();

	while (load64(counter) < want) {
		int r;

		if (ms_since(t0) > (__u64)ms) {
			fprintf(stderr, "  waited %d ms for %s: %llu of %llu\n",
				ms, what, (unsigned long long)load64(counter),
				(unsigned long long)want);
			test__failed++;
			return false;
		}
		r = perfbuf__poll(pb, 10);
		if (r < 0 && r != -EINTR) {
			ASSERT_OK(r, "perfbuf__poll");
			return false;
		}
	}
	if (verbose())
		fprintf(stderr, "    # %s after %llu ms\n", what,
			(unsigned long long)ms_since(t0));
	return true;
}

/* Poll for @ms, whatever comes. */
static void poll_for(struct perfbuf *pb, int ms)
{
	__u64 t0 = perfbuf_now_ns();

	while (ms_since(t0) < (__u64)ms)
		ASSERT_GE(perfbuf__poll(pb, 10), 0, "perfbuf__poll");
}

/* --- a producer thread on CPU0 and CPU1 --------------------------------- */

struct producer_ctl {
	struct emit *skel;
	int allow[NCPU];	/* write on this CPU (atomic) */
	int stop;
	__u64 loops;		/* iterations done (atomic) */
	__u64 fails[NCPU];	/* program runs that failed (CPU offline) */
	__u64 batch;
	unsigned int pause_us;
	pthread_t thread;
	bool started;
};

/* Not pinned: BPF_PROG_TEST_RUN runs the program on the CPU asked for
 * (an IPI), so the thread keeps working while CPU1 goes away. */
static void *producer_main(void *arg)
{
	struct producer_ctl *p = arg;

	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		for (int c = 0; c < NCPU; c++) {
			int err;

			if (!__atomic_load_n(&p->allow[c], __ATOMIC_ACQUIRE))
				continue;
			err = emit_run(p->skel, c, p->batch, REC_SIZE);
			p->fails[c] += err != 0;
		}
		inc64(&p->loops);
		if (p->pause_us)
			usleep(p->pause_us);
	}
	return NULL;
}

static bool prod_start(struct producer_ctl *p, struct emit *skel,
			   bool cpu0, bool cpu1)
{
	p->skel = skel;
	p->batch = 8;
	p->pause_us = 200;
	p->allow[0] = cpu0;
	p->allow[1] = cpu1;
	p->started = ASSERT_OK(pthread_create(&p->thread, NULL, producer_main, p),
			       "producer thread");
	return p->started;
}

/* No write on @cpu from now on: one that read the old flag is over. */
static void prod_block(struct producer_ctl *p, int cpu)
{
	__u64 l;

	__atomic_store_n(&p->allow[cpu], 0, __ATOMIC_SEQ_CST);
	l = load64(&p->loops);
	while (p->started && load64(&p->loops) < l + 2)
		usleep(100);
}

static void prod_allow(struct producer_ctl *p, int cpu)
{
	__atomic_store_n(&p->allow[cpu], 1, __ATOMIC_RELEASE);
}

static void prod_stop(struct producer_ctl *p)
{
	if (!p->started)
		return;
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
	pthread_join(p->thread, NULL);
	p->started = false;
}

/* --- checks ------------------------------------------------------------- */

/* Per CPU: BPF ok == received, -ENOSPC == lost reported (by records, by
 * the library's stats and by the kernel's PERF_FORMAT_LOST), the seq gaps
 * exactly the losses plus what the helper refused; no other failure.
 * Returns the -EOPNOTSUPP count (the kernel's window, see the top). */
static __u64 check_accounting(struct perfbuf *pb, struct emit *skel,
			      struct seen *s, __u64 want_enoent)
{
	__u64 eopnotsupp = 0;

	for (int c = 0; c < NCPU; c++) {
		struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
		struct emit_stats st;
		__u64 refused;

		if (!ASSERT_OK(emit_stats_cpu(skel, c, &st), "emit_stats_cpu") ||
		    !ASSERT_OK(perfbuf__stats(pb, (size_t)c, &cs), "perfbuf__stats"))
			continue;
		refused = st.enoent + st.eopnotsupp + st.e2big + st.other;
		if (verbose())
			fprintf(stderr, "    # CPU %d: attempts %llu ok %llu enospc %llu enoent %llu eopnotsupp %llu\n",
				c, st.attempts, st.ok, st.enospc, st.enoent,
				st.eopnotsupp);
		ASSERT_GT(st.ok, 0, "records written");
		ASSERT_EQ(s->samples[c], st.ok, "BPF ok == SAMPLE records received");
		ASSERT_EQ(s->lost[c], st.enospc, "BPF -ENOSPC == losses reported");
		ASSERT_EQ(cs.samples, st.ok, "stats.samples across the CPU's rings");
		ASSERT_EQ(cs.lost, st.enospc, "stats.lost across the CPU's rings");
		ASSERT_EQ(cs.lost_kernel, st.enospc, "stats.lost_kernel (PERF_FORMAT_LOST)");
		ASSERT_EQ(cs.corrupt, 0, "no corruption");
		ASSERT_EQ(st.enoent, want_enoent, "-ENOENT: no write while the slot is empty");
		ASSERT_EQ(st.e2big + st.other, 0, "no other helper failure");
		ASSERT_EQ(s->seq_back[c], 0, "seq never repeats or goes back");
		ASSERT_EQ(s->uncovered[c], refused,
			  "seq gaps not covered by LOST == records the helper refused");
		ASSERT_EQ(s->credit[c], st.attempts - s->next_seq[c],
			  "trailing losses reported, no more");
		ASSERT_EQ(s->samples[c] + s->lost[c] + refused, st.attempts,
			  "attempts == received + lost + refused");
		if (c != HP_CPU)
			ASSERT_EQ(st.eopnotsupp, 0, "-EOPNOTSUPP only on the CPU going down");
		eopnotsupp += st.eopnotsupp;
	}
	ASSERT_EQ(s->bad_payload, 0, "payloads exact");
	ASSERT_EQ(s->bad_cpu, 0, "cpu in range");
	ASSERT_EQ(s->other_kind, 0, "no OTHER record");
	return eopnotsupp;
}

/* The kinds per CPU in a legal order: records, OFFLINE, ONLINE, records;
 * no record of a CPU older than its CPU_OFFLINE after it. */
static void check_order(struct seen *s)
{
	for (int c = 0; c < NCPU; c++) {
		ASSERT_EQ(s->bad_notice[c], 0, "OFFLINE and ONLINE alternate");
		ASSERT_EQ(s->while_down[c], 0, "no record of a CPU between its OFFLINE and ONLINE");
		ASSERT_EQ(s->older_after_offline[c], 0,
			  "CPU_OFFLINE after every record of its CPU older than it");
		ASSERT_TRUE(!s->down[c], "the CPU ends online");
	}
	if (s->timestamps)
		ASSERT_EQ(s->zero_time, 0, "every record has a time");
}

/* CPU1's slot after its k-th offline (@online false) or online. */
static void check_slot(struct perfbuf *pb, bool online, __u64 k, bool ordered)
{
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };

	if (!ASSERT_OK(perfbuf__stats(pb, HP_CPU, &cs), "perfbuf__stats"))
		return;
	ASSERT_EQ(cs.cpu, HP_CPU, "slot 1 is CPU1");
	ASSERT_EQ(cs.online, online, "stats.online");
	ASSERT_EQ(cs.offlined, k, "stats.offlined");
	ASSERT_EQ(cs.onlined, online ? k : k - 1, "stats.onlined");
	ASSERT_EQ(perfbuf__offline_cnt(pb), online ? 0 : 1, "perfbuf__offline_cnt");
	if (online) {
		ASSERT_GE(perfbuf__ring_fd(pb, HP_CPU), 0, "ring fd");
	} else {
		ASSERT_EQ(perfbuf__ring_fd(pb, HP_CPU), -ENODEV, "no ring fd offline");
		ASSERT_EQ(perfbuf__consume_ring(pb, HP_CPU), ordered ? -EINVAL : -ENODEV,
			  "consume_ring of an offline CPU");
		ASSERT_EQ(cs.avail, 0, "nothing waits offline");
	}
}

/* --- the scenario shared by the producing tests ------------------------ */

enum how { FROM_MAIN, FROM_CALLBACK };

struct fixture {
	struct emit *skel;
	struct perfbuf *pb;
	struct producer_ctl prod;
	struct seen s;
};

static bool fixture_open(struct fixture *f, const struct perfbuf_opts *o)
{
	memset(f, 0, sizeof(*f));
	f->s.timestamps = o && (o->timestamps || o->ordered);
	f->s.ordered = o && o->ordered;
	f->skel = emit_load(0);
	if (!ASSERT_OK_PTR(f->skel, "emit_load"))
		return false;
	f->pb = perfbuf__new(bpf_map__fd(f->skel->maps.events), on_rec, &f->s, o);
	if (!ASSERT_OK_PTR(f->pb, "perfbuf__new"))
		return false;
	if (!ASSERT_EQ(perfbuf__ring_cnt(f->pb), NCPU, "a slot per CPU") ||
	    !ASSERT_EQ(perfbuf__ring_cpu(f->pb, HP_CPU), HP_CPU, "slot 1 is CPU1"))
		return false;
	check_slot(f->pb, true, 0, f->s.ordered);
	return true;
}

static void fixture_close(struct fixture *f)
{
	prod_stop(&f->prod);
	perfbuf__free(f->pb);
	if (f->skel)
		emit__destroy(f->skel);
	cpu1_restore();
}

/*
 * One cycle of CPU1 (the @k-th), the producer writing on both CPUs: CPU1
 * goes offline (the main thread writes the file, or the callback on the
 * first record it sees), its CPU_OFFLINE record comes, the producer stops
 * writing on CPU1, it comes back, its CPU_ONLINE record comes, the
 * producer writes on it again and those records arrive.
 */
static bool cycle(struct fixture *f, enum how how, __u64 k)
{
	struct seen *s = &f->s;
	__u64 mark, t0;

	if (how == FROM_MAIN) {
		/* records flowing from CPU1 first */
		if (!poll_until(f->pb, &s->samples[HP_CPU], s->samples[HP_CPU] + 50,
				WAIT_MS, "records of CPU1 before it goes") ||
		    !ASSERT_OK(cpu1_set(0), "CPU1 offline"))
			return false;
	} else {
		t0 = perfbuf_now_ns();
		s->cb_done = false;
		s->cb_armed = true;
		while (!s->cb_done)
			if (!ASSERT_GE(perfbuf__poll(f->pb, 10), 0, "perfbuf__poll") ||
			    !ASSERT_LT(ms_since(t0), WAIT_MS, "a record for the callback"))
				return false;
		s->cb_armed = false;
		if (!ASSERT_OK(s->cb_err, "CPU1 offline from the callback"))
			return false;
	}
	ASSERT_TRUE(!cpu1_is_online(), "CPU1 is offline");
	t0 = perfbuf_now_ns();
	if (!poll_until(f->pb, &s->offlines[HP_CPU], k, WAIT_MS, "CPU_OFFLINE"))
		return false;
	if (verbose())
		fprintf(stderr, "    # CPU_OFFLINE %llu ms after the CPU went\n",
			(unsigned long long)ms_since(t0));
	check_slot(f->pb, false, k, s->ordered);
	if (how == FROM_CALLBACK)
		ASSERT_GT(s->samples_at_offline[HP_CPU], s->cb_samples1,
			  "CPU1's records went on after the callback, before CPU_OFFLINE");
	ASSERT_EQ(load64(&s->onlines[HP_CPU]), k - 1, "no CPU_ONLINE yet");
	prod_block(&f->prod, HP_CPU);
	if (!ASSERT_OK(cpu1_set(1), "CPU1 online"))
		return false;
	if (!poll_until(f->pb, &s->onlines[HP_CPU], k, WAIT_MS, "CPU_ONLINE"))
		return false;
	check_slot(f->pb, true, k, s->ordered);
	mark = s->samples[HP_CPU];
	prod_allow(&f->prod, HP_CPU);
	return poll_until(f->pb, &s->samples[HP_CPU], mark + 100, WAIT_MS,
			  "records of CPU1 after its return");
}

/* Stop the producer, drain, check everything. */
static void finish(struct fixture *f, __u64 cycles)
{
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
	__u64 eopnotsupp;

	prod_stop(&f->prod);
	ASSERT_OK(perfbuf__quiesce(f->pb), "quiesce");
	ASSERT_GE(perfbuf__drain(f->pb), 0, "drain");
	ASSERT_EQ(f->prod.fails[0], 0, "CPU0 writes never failed");
	if (verbose())
		fprintf(stderr, "    # %llu runs on CPU1 failed while it was offline\n",
			(unsigned long long)f->prod.fails[HP_CPU]);
	eopnotsupp = check_accounting(f->pb, f->skel, &f->s, 0);
	check_order(&f->s);
	for (int c = 0; c < NCPU; c++) {
		ASSERT_EQ(load64(&f->s.offlines[c]), c == HP_CPU ? cycles : 0, "CPU_OFFLINE records");
		ASSERT_EQ(load64(&f->s.onlines[c]), c == HP_CPU ? cycles : 0, "CPU_ONLINE records");
		if (ASSERT_OK(perfbuf__stats(f->pb, (size_t)c, &cs), "stats")) {
			ASSERT_EQ(cs.offlined, c == HP_CPU ? cycles : 0, "stats.offlined");
			ASSERT_EQ(cs.onlined, c == HP_CPU ? cycles : 0, "stats.onlined");
			ASSERT_TRUE(cs.online, "stats.online");
			if (!f->s.ordered)
				ASSERT_EQ(cs.late, 0, "no late record unordered");
		}
	}
	if (eopnotsupp)
		fprintf(stderr, "    # %llu writes refused with -EOPNOTSUPP while CPU1 went down (kernel window, accounted)\n",
			(unsigned long long)eopnotsupp);
}

/* The producer started with CPU1 only, until the callback lets CPU0
 * write too: the first record delivered is CPU1's, in the middle of its
 * ring (for a cycle FROM_CALLBACK). */
static bool prod_start_cpu1_first(struct fixture *f)
{
	f->s.cb_allow0 = &f->prod.allow[0];
	return ASSERT_OK(emit_run(f->skel, HP_CPU, 256, REC_SIZE), "fill CPU1") &&
	       prod_start(&f->prod, f->skel, false, true);
}

/* One cycle @how, the producer on both CPUs, then every check. */
static void one_cycle(enum how how)
{
	PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 16, .timestamps = true);
	struct fixture f;

	if (!fixture_open(&f, &o))
		goto cleanup;
	if (how == FROM_MAIN ? !prod_start(&f.prod, f.skel, true, true) :
			       !prod_start_cpu1_first(&f))
		goto cleanup;
	if (cycle(&f, how, 1))
		finish(&f, 1);
cleanup:
	fixture_close(&f);
}

/* 1. CPU1 offline and back while the producer writes on both CPUs. */
TEST(offline_online_while_producing)
{
	HOTPLUG_NEEDED();
	one_cycle(FROM_MAIN);
}

/* 2. Twenty cycles: nothing left behind, the counts exact, CPU1 works. */
TEST(twenty_cycles_no_leak)
{
	struct fixture f;
	struct seen *s = &f.s;
	struct leak_base leaks;
	int per = 8;
	__u64 t0;

	HOTPLUG_NEEDED();
	if (!fixture_open(&f, NULL))
		goto cleanup;
	leak_base_take(&leaks);
	t0 = perfbuf_now_ns();
	for (__u64 k = 1; k <= 20; k++) {
		/* records left in the ring when the CPU goes: retired with it */
		if (!ASSERT_OK(emit_run(f.skel, HP_CPU, per, REC_SIZE), "emit on CPU1") ||
		    !ASSERT_OK(emit_run(f.skel, 0, per, REC_SIZE), "emit on CPU0") ||
		    !ASSERT_OK(cpu1_set(0), "CPU1 offline") ||
		    !poll_until(f.pb, &s->offlines[HP_CPU], k, WAIT_MS, "CPU_OFFLINE"))
			goto cleanup;
		ASSERT_EQ(s->samples_at_offline[HP_CPU], (2 * k - 1) * per,
			  "CPU1's records all before its CPU_OFFLINE");
		if (!ASSERT_OK(cpu1_set(1), "CPU1 online") ||
		    !poll_until(f.pb, &s->onlines[HP_CPU], k, WAIT_MS, "CPU_ONLINE"))
			goto cleanup;
		if (!ASSERT_OK(emit_run(f.skel, HP_CPU, per, REC_SIZE), "emit on CPU1 after") ||
		    !poll_until(f.pb, &s->samples[HP_CPU], 2 * k * per, WAIT_MS,
				"records of CPU1 after its return"))
			goto cleanup;
		leak_base_check(&leaks, "fds back each cycle", "mappings back each cycle");
		if (test__failed)
			goto cleanup;
	}
	if (verbose())
		fprintf(stderr, "    # 20 cycles in %llu ms\n", (unsigned long long)ms_since(t0));
	leak_base_check(&leaks, "fds as with the collector open, both CPUs online",
			"mappings as with the collector open, both CPUs online");
	ASSERT_GE(perfbuf__drain(f.pb), 0, "drain");
	check_slot(f.pb, true, 20, false);
	check_accounting(f.pb, f.skel, s, 0);
	check_order(s);
	ASSERT_EQ(s->samples[HP_CPU], 40 * per, "every CPU1 record");
	ASSERT_EQ(s->samples[0], 20 * per, "every CPU0 record");
cleanup:
	fixture_close(&f);
}

/* 3. The callback takes CPU1 offline on the first record it sees (one of
 *    CPU1's), synchronously, and goes on. */
TEST(offline_inside_callback)
{
	HOTPLUG_NEEDED();
	one_cycle(FROM_CALLBACK);
}

/* 4. Ordered: one stream in time order (every record, the CPU notices
 *    included) across both kinds of cycle. */
TEST(ordered_across_hotplug)
{
	PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 16, .ordered = true);
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
	struct fixture f;
	__u64 late = 0;

	HOTPLUG_NEEDED();
	if (!fixture_open(&f, &o) || !prod_start_cpu1_first(&f))
		goto cleanup;
	if (!cycle(&f, FROM_CALLBACK, 1) || !cycle(&f, FROM_MAIN, 2))
		goto cleanup;
	finish(&f, 2);
	for (int c = 0; c < NCPU; c++)
		if (ASSERT_OK(perfbuf__stats(f.pb, (size_t)c, &cs), "stats"))
			late += cs.late;
	ASSERT_EQ(f.s.backwards, 0, "time_ns never goes back but for LATE records");
	ASSERT_EQ(f.s.late, late, "LATE records == stats.late");
	ASSERT_LE(f.s.late, 10, "very few LATE records");
	if (f.s.late || verbose())
		fprintf(stderr, "    # %llu records delivered LATE\n",
			(unsigned long long)f.s.late);
cleanup:
	fixture_close(&f);
}

/*
 * 5. no_hotplug: nothing followed. The slot keeps CPU1's first event and
 *    ring through the cycle, stats say online, no notice comes. Once CPU1
 *    is back, that event is dead (perf detached it when the CPU went):
 *    the helper refuses CPU1's writes with -EOPNOTSUPP, the kernel counts
 *    no loss, nothing reaches the ring. CPU0 is unaffected.
 */
TEST(no_hotplug_opt)
{
	PERFBUF_OPTS(perfbuf_opts, o, .no_hotplug = true, .timestamps = true);
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
	struct emit_stats st, st2;
	struct fixture f;
	struct seen *s = &f.s;
	int fd1;

	HOTPLUG_NEEDED();
	if (!fixture_open(&f, &o))
		goto cleanup;
	fd1 = perfbuf__ring_fd(f.pb, HP_CPU);
	ASSERT_OK(emit_run(f.skel, HP_CPU, 10, REC_SIZE), "emit on CPU1");
	ASSERT_EQ(perfbuf__consume(f.pb), 10, "received");
	if (!ASSERT_OK(cpu1_set(0), "CPU1 offline"))
		goto cleanup;
	ASSERT_ERR(emit_run(f.skel, HP_CPU, 10, REC_SIZE), "no run on an offline CPU");
	poll_for(f.pb, 100);
	if (!ASSERT_OK(perfbuf__stats(f.pb, HP_CPU, &cs), "stats"))
		goto cleanup;
	ASSERT_TRUE(cs.online, "slot still online");
	ASSERT_EQ(cs.offlined, 0, "offlined");
	ASSERT_EQ(perfbuf__offline_cnt(f.pb), 0, "offline_cnt");
	ASSERT_EQ(perfbuf__ring_fd(f.pb, HP_CPU), fd1, "same event");
	if (!ASSERT_OK(cpu1_set(1), "CPU1 online"))
		goto cleanup;
	poll_for(f.pb, 100);
	ASSERT_OK(emit_stats_cpu(f.skel, HP_CPU, &st), "emit stats");
	ASSERT_OK(emit_run(f.skel, HP_CPU, 10, REC_SIZE), "emit on CPU1 after its return");
	ASSERT_OK(emit_run(f.skel, 0, 10, REC_SIZE), "emit on CPU0");
	poll_for(f.pb, 50);
	ASSERT_GE(perfbuf__drain(f.pb), 0, "drain");
	ASSERT_OK(emit_stats_cpu(f.skel, HP_CPU, &st2), "emit stats");
	ASSERT_EQ(st2.eopnotsupp - st.eopnotsupp, 10, "the dead event refuses: -EOPNOTSUPP");
	ASSERT_EQ(st2.ok, 10, "only the first records written");
	ASSERT_EQ(s->samples[HP_CPU], 10, "none after the cycle");
	ASSERT_EQ(s->samples[0], 10, "CPU0 unaffected");
	ASSERT_EQ(s->lost[HP_CPU], 0, "no loss counted");
	for (int c = 0; c < NCPU; c++) {
		ASSERT_EQ(load64(&s->onlines[c]), 0, "no CPU_ONLINE record");
		ASSERT_EQ(load64(&s->offlines[c]), 0, "no CPU_OFFLINE record");
	}
	if (ASSERT_OK(perfbuf__stats(f.pb, HP_CPU, &cs), "stats")) {
		ASSERT_TRUE(cs.online, "slot still online");
		ASSERT_EQ(cs.onlined, 0, "onlined");
		ASSERT_EQ(cs.offlined, 0, "offlined");
		ASSERT_EQ(cs.samples, 10, "samples");
		ASSERT_EQ(cs.lost_kernel, 0, "the kernel counted no loss");
	}
	ASSERT_EQ(perfbuf__ring_fd(f.pb, HP_CPU), fd1, "same event");
	ASSERT_EQ(s->bad_payload, 0, "payloads exact");
cleanup:
	fixture_close(&f);
}

/*
 * 6. A callback that stops on every record while CPU1's ring is retired:
 *    the stop may end the call, but no record of CPU1 may be left behind
 *    (collector.h: CPU_OFFLINE comes after all the CPU's records and
 *    losses; ring.h: the record stopped on is consumed and the next call
 *    resumes after it). No latency bound and 100 records under the
 *    watermark: nothing drains CPU1's ring before the uevent is handled,
 *    so its records are all left to the retirement.
 */
TEST(stop_during_offline_drain)
{
	PERFBUF_OPTS(perfbuf_opts, o, .latency_ms = -1);
	struct emit_stats st;
	struct fixture f;
	struct seen *s = &f.s;

	HOTPLUG_NEEDED();
	if (!fixture_open(&f, &o))
		goto cleanup;
	s->stop_each = true;
	if (!ASSERT_OK(emit_run(f.skel, HP_CPU, 100, REC_SIZE), "100 records on CPU1") ||
	    !ASSERT_OK(emit_run(f.skel, 0, 10, REC_SIZE), "10 on CPU0") ||
	    !ASSERT_OK(cpu1_set(0), "CPU1 offline") ||
	    !poll_until(f.pb, &s->offlines[HP_CPU], 1, WAIT_MS, "CPU_OFFLINE"))
		goto cleanup;
	ASSERT_EQ(s->samples_at_offline[HP_CPU], 100,
		  "CPU1's 100 records delivered before its CPU_OFFLINE");
	if (!ASSERT_OK(cpu1_set(1), "CPU1 online") ||
	    !poll_until(f.pb, &s->onlines[HP_CPU], 1, WAIT_MS, "CPU_ONLINE"))
		goto cleanup;
	if (!ASSERT_OK(emit_run(f.skel, HP_CPU, 10, REC_SIZE), "10 on CPU1 after its return"))
		goto cleanup;
	/* one record per call now: drain repeatedly */
	for (int i = 0; i < 1000 && perfbuf__drain(f.pb) > 0; i++)
		;
	ASSERT_OK(emit_stats_cpu(f.skel, HP_CPU, &st), "emit stats");
	ASSERT_EQ(st.ok, 110, "110 written on CPU1");
	ASSERT_EQ(s->samples[HP_CPU], st.ok, "every CPU1 record received");
	ASSERT_EQ(s->samples[0], 10, "every CPU0 record received");
	ASSERT_EQ(s->uncovered[HP_CPU], 0, "no seq gap");
	check_order(s);
cleanup:
	fixture_close(&f);
}

/*
 * 6b. A CPU that goes offline again before its ring is set up (its
 *     "online" uevent read late, when it is gone: the kernel refuses the
 *     event with ENODEV) is said as such, as information, not as a
 *     failure; and it is picked up when it comes back. The late uevent is
 *     a synthetic one (written to the CPU's uevent file) while CPU1 is
 *     offline.
 */
static struct {
	enum perfbuf_print_level level;
	char text[512];
} said;

static int keep_cpu1_line(enum perfbuf_print_level level, const char *fmt,
			  va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (strstr(buf, "CPU 1 ")) {
		said.level = level;
		snprintf(said.text, sizeof(said.text), "%s", buf);
	}
	return 0;
}

TEST(offline_again_before_setup)
{
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
	perfbuf_print_fn prev = NULL;
	struct fixture f;
	struct seen *s = &f.s;
	bool printing = false;
	int fd;

	HOTPLUG_NEEDED();
	if (!fixture_open(&f, NULL) || !ASSERT_OK(cpu1_set(0), "CPU1 offline") ||
	    !poll_until(f.pb, &s->offlines[HP_CPU], 1, WAIT_MS, "CPU_OFFLINE"))
		goto cleanup;
	said.text[0] = '\0';
	prev = perfbuf_set_print(keep_cpu1_line);
	printing = true;
	fd = open("/sys/devices/system/cpu/cpu1/uevent", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "online", 6) != 6) {
		if (fd >= 0)
			close(fd);
		test__skip = "cannot make a uevent of CPU1 here";
		goto cleanup;
	}
	close(fd);
	poll_for(f.pb, 200);
	ASSERT_TRUE(strstr(said.text, "CPU 1 went offline again before its ring could be set up") != NULL,
		    "says what happened");
	if (said.text[0])
		fprintf(stderr, "    # said: %s", said.text);
	ASSERT_EQ(said.level, PERFBUF_INFO, "as information, not a warning");
	ASSERT_EQ(load64(&s->onlines[HP_CPU]), 0, "no CPU_ONLINE without a ring");
	ASSERT_OK(perfbuf__stats(f.pb, HP_CPU, &cs), "stats");
	ASSERT_TRUE(!cs.online, "no ring");
	perfbuf_set_print(prev);
	printing = false;
	if (!ASSERT_OK(cpu1_set(1), "CPU1 online") ||
	    !poll_until(f.pb, &s->onlines[HP_CPU], 1, WAIT_MS, "CPU_ONLINE"))
		goto cleanup;
	if (!ASSERT_OK(emit_run(f.skel, HP_CPU, 10, REC_SIZE), "10 on CPU1 after its return"))
		goto cleanup;
	ASSERT_GE(perfbuf__drain(f.pb), 10, "drained");
	ASSERT_EQ(s->samples[HP_CPU], 10, "CPU1 picked up: its records come");
	check_order(s);
cleanup:
	if (printing)
		perfbuf_set_print(prev);
	fixture_close(&f);
}

/*
 * 7. A flight recorder across a hotplug cycle: nothing is handed over
 *    until a snapshot; CPU1's ring, gone offline, is read one last time
 *    by the next snapshot, its records before its CPU_OFFLINE; the new
 *    ring's records after its CPU_ONLINE, in the snapshot after that.
 */
TEST(flight_recorder_across_hotplug)
{
	PERFBUF_OPTS(perfbuf_opts, o, .overwrite = true, .timestamps = true);
	struct fixture f;
	struct seen *s = &f.s;

	HOTPLUG_NEEDED();
	if (!fixture_open(&f, &o))
		goto cleanup;
	if (!ASSERT_OK(emit_run(f.skel, HP_CPU, 20, REC_SIZE), "20 on CPU1") ||
	    !ASSERT_OK(emit_run(f.skel, 0, 10, REC_SIZE), "10 on CPU0") ||
	    !ASSERT_OK(cpu1_set(0), "CPU1 offline"))
		goto cleanup;
	poll_for(f.pb, 200);	/* the uevent is read: a notice waits */
	ASSERT_EQ(s->samples[HP_CPU] + s->samples[0], 0, "poll hands nothing over");
	ASSERT_EQ(load64(&s->offlines[HP_CPU]), 0, "the notice waits too");
	ASSERT_EQ(perfbuf__snapshot(f.pb), 31, "20 + 10 records and the notice");
	ASSERT_EQ(s->samples_at_offline[HP_CPU], 20, "CPU1's 20 before its CPU_OFFLINE");
	ASSERT_EQ(s->samples[0], 10, "CPU0's 10");
	ASSERT_EQ(perfbuf__snapshot(f.pb), 0, "nothing twice");
	if (!ASSERT_OK(cpu1_set(1), "CPU1 online"))
		goto cleanup;
	poll_for(f.pb, 200);
	if (!ASSERT_OK(emit_run(f.skel, HP_CPU, 5, REC_SIZE), "5 on CPU1 after its return"))
		goto cleanup;
	ASSERT_EQ(perfbuf__snapshot(f.pb), 6, "its CPU_ONLINE and the 5");
	ASSERT_EQ(load64(&s->onlines[HP_CPU]), 1, "CPU_ONLINE");
	ASSERT_EQ(s->samples[HP_CPU], 25, "every CPU1 record, once");
	ASSERT_EQ(s->uncovered[HP_CPU], 0, "no seq gap");
	ASSERT_EQ(s->bad_payload, 0, "payloads exact");
	check_order(s);
cleanup:
	fixture_close(&f);
}

/*
 * 8. A sampler (perfbuf/sample.h) on every CPU: CPU1's cpu-clock event dies
 *    with the CPU; when the CPU is back the sampler opens a new one, and
 *    CPU1 is sampled again.
 */
static int count_cpu1(void *ctx, const struct perfbuf_sample *smp)
{
	int *n = ctx;

	*n += smp->type == PERF_RECORD_SAMPLE && smp->cpu == HP_CPU;
	return PERFBUF_CONTINUE;
}

static int sampler_index(struct perfbuf_sampler *s, int cpu)
{
	for (size_t i = 0; i < perfbuf_sampler__cnt(s); i++)
		if (perfbuf_sampler__cpu(s, i) == cpu)
			return (int)i;
	return -1;
}

TEST(sampler_follows_cpu)
{
	PERFBUF_OPTS(perfbuf_event_opts, ev,
		.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1000000, .sample_type = PERF_SAMPLE_CPU);
	PERFBUF_OPTS(perfbuf_sampler_opts, so, .page_cnt = 8);
	struct perfbuf_sampler *s;
	struct busy busy = {};
	int idx, n = 0;
	__u64 t0;

	HOTPLUG_NEEDED();
	s = perfbuf_sampler__new(&ev, &so);
	if (!ASSERT_OK_PTR(s, "sampler"))
		return;
	idx = sampler_index(s, HP_CPU);
	if (!ASSERT_GE(idx, 0, "an event on CPU1"))
		goto out;
	/* CPU1 kept busy: an idle CPU's cpu-clock may tick rarely */
	busy_start(&busy, HP_CPU);
	t0 = perfbuf_now_ns();
	while (ms_since(t0) < WAIT_MS && n < 5)
		perfbuf_sampler__poll(s, 20, count_cpu1, &n);
	if (!ASSERT_GE(n, 5, "CPU1 sampled") || !ASSERT_OK(cpu1_set(0), "CPU1 offline") ||
	    !ASSERT_OK(cpu1_set(1), "CPU1 online"))
		goto out;
	/* a few samples may be left from before; 50 need the new event */
	n = 0;
	t0 = perfbuf_now_ns();
	while (ms_since(t0) < WAIT_MS && n < 50)
		perfbuf_sampler__poll(s, 50, count_cpu1, &n);
	ASSERT_GE(n, 50, "CPU1 sampled again (1 ms period)");
	ASSERT_EQ(perfbuf_sampler__cnt(s), 2, "still one event per CPU");
out:
	busy_stop(&busy);
	perfbuf_sampler__free(s);
	cpu1_restore();
}

/* 9. perfbuf__stats() from another thread while the poller runs and
 *    CPU1 comes and goes: never a torn or shrinking series (a CPU's
 *    counters only grow, across its rings), never a freed ring read
 *    (ASan), and the last read agrees with the poller's own. */
struct stats_reader {
	struct perfbuf *pb;
	int stop;
	__u64 reads, shrank, bad;
	__u64 last[NCPU][4];	/* samples, lost_kernel, polls, offlined */
};

static void *stats_reader_main(void *arg)
{
	struct stats_reader *r = arg;
	bool last = false;

	/* one more round after the stop is seen: the last read comes after
	 * the poller's last drain (a round begun before it was stale) */
	while (!last) {
		last = __atomic_load_n(&r->stop, __ATOMIC_ACQUIRE);
		for (int c = 0; c < NCPU; c++) {
			struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
			__u64 now[4];

			if (perfbuf__stats(r->pb, (size_t)c, &cs) ||
			    cs.cpu != c || cs.sz != sizeof(cs)) {
				r->bad++;
				continue;
			}
			now[0] = cs.samples;
			now[1] = cs.lost_kernel;
			now[2] = cs.polls;
			now[3] = cs.offlined;
			for (int k = 0; k < 4; k++) {
				r->shrank += now[k] < r->last[c][k];
				r->last[c][k] = now[k];
			}
			r->reads++;
		}
	}
	return NULL;
}

/* A sampler asked for an offline CPU: refused with ENODEV, the CPU said
 * offline in one warning (not a perf_event_open errno) */
TEST(sampler_offline_cpu_said)
{
	PERFBUF_OPTS(perfbuf_event_opts, ev,
		.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1000000, .sample_type = PERF_SAMPLE_CPU);
	int cpu = HP_CPU;
	PERFBUF_OPTS(perfbuf_sampler_opts, so, .page_cnt = 8, .cpus = &cpu, .cpu_cnt = 1);
	struct perfbuf_sampler *s;
	perfbuf_print_fn prev;

	HOTPLUG_NEEDED();
	if (!ASSERT_OK(cpu1_set(0), "CPU1 offline"))
		goto out;
	said.text[0] = '\0';
	prev = perfbuf_set_print(keep_cpu1_line);
	s = perfbuf_sampler__new(&ev, &so);
	perfbuf_set_print(prev);
	ASSERT_TRUE(!s && errno == ENODEV, "refused: ENODEV");
	ASSERT_TRUE(strstr(said.text, "sampler: CPU 1 is offline\n") && said.level == PERFBUF_WARN,
		    "said: the CPU is offline");
	if (test__failed)
		fprintf(stderr, "    # said: %s", said.text);
	perfbuf_sampler__free(s);
out:
	ASSERT_OK(cpu1_set(1), "CPU1 online");
}

TEST(stats_from_another_thread)
{
	PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 4);
	struct stats_reader r = {};
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
	struct fixture f;
	pthread_t t;
	bool started = false;
	__u64 k;

	HOTPLUG_NEEDED();
	if (!fixture_open(&f, &o) || !prod_start(&f.prod, f.skel, true, true))
		goto cleanup;
	r.pb = f.pb;
	started = !pthread_create(&t, NULL, stats_reader_main, &r);
	if (!ASSERT_TRUE(started, "reader thread"))
		goto cleanup;
	for (k = 1; k <= 5; k++)
		if (!cycle(&f, FROM_MAIN, k))
			break;
	finish(&f, k - 1);
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	started = false;
	ASSERT_GT(r.reads, 1000, "the reader read all along");
	ASSERT_EQ(r.bad, 0, "every read succeeded");
	ASSERT_EQ(r.shrank, 0, "no counter ever went back");
	if (ASSERT_OK(perfbuf__stats(f.pb, HP_CPU, &cs), "stats"))
		ASSERT_EQ(r.last[HP_CPU][0], cs.samples,
			  "the reader's last read is the poller's");
cleanup:
	if (started) {
		__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
	}
	fixture_close(&f);
}

TEST_MAIN(
	TEST_ENTRY(offline_online_while_producing),
	TEST_ENTRY(twenty_cycles_no_leak),
	TEST_ENTRY(offline_inside_callback),
	TEST_ENTRY(ordered_across_hotplug),
	TEST_ENTRY(no_hotplug_opt),
	TEST_ENTRY(stop_during_offline_drain),
	TEST_ENTRY(offline_again_before_setup),
	TEST_ENTRY(flight_recorder_across_hotplug),
	TEST_ENTRY(sampler_follows_cpu),
	TEST_ENTRY(sampler_offline_cpu_said),
	TEST_ENTRY(stats_from_another_thread),
)
