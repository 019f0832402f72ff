// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The perf_event_open layer, with software events (no PMU here). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>

#include "perfbuf.h"
#include "perf_event_priv.h"
#include "ring_priv.h"
#include "test.h"

TEST(attr_from_opts)
{
	struct perf_event_attr a;
	PERFBUF_OPTS(perfbuf_event_opts, o,
		.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = 99, .sample_type = PERF_SAMPLE_IP,
		.wakeup_watermark = 4096, .disabled = true, .inherit = true,
		.exclude_kernel = true, .exclude_hv = true, .enable_on_exec = true,
		.write_backward = true, .use_clockid = true,
		.clockid = CLOCK_MONOTONIC);

	ASSERT_OK(perfbuf_event__attr(&a, &o), "attr");
	ASSERT_EQ(a.size, sizeof(a), "size");
	ASSERT_EQ(a.type, PERF_TYPE_SOFTWARE, "type");
	ASSERT_EQ(a.freq, 1, "freq mode");
	ASSERT_EQ(a.sample_freq, 99, "freq");
	ASSERT_EQ(a.watermark, 1, "watermark mode");
	ASSERT_EQ(a.wakeup_watermark, 4096, "watermark bytes");
	ASSERT_EQ(a.disabled + a.inherit + a.exclude_kernel + a.exclude_hv +
		  a.enable_on_exec + a.write_backward, 6, "flags");
	ASSERT_EQ(a.exclude_user, 0, "unset flag");
	ASSERT_EQ(a.use_clockid, 1, "use_clockid");
	ASSERT_EQ(a.clockid, CLOCK_MONOTONIC, "clockid");
	o.sample_period = 10;
	ASSERT_EQ(perfbuf_event__attr(&a, &o), -EINVAL, "period and freq");
	o.sample_period = 0;
	o.wakeup_events = 1;
	ASSERT_EQ(perfbuf_event__attr(&a, &o), -EINVAL, "events and watermark");
	o.sz = 3;
	ASSERT_EQ(perfbuf_event__attr(&a, &o), -EINVAL, "bad sz");
}

/* An options struct from an older, smaller build: fields past its sz are
 * not read (here they hold garbage), and count as 0. */
TEST(attr_from_short_opts)
{
	size_t sz = offsetof(struct perfbuf_event_opts, sample_period);
	union {
		struct perfbuf_event_opts o;
		unsigned char bytes[sizeof(struct perfbuf_event_opts)];
	} u;
	struct perf_event_attr a;

	memset(&u, 0xff, sizeof(u));
	u.o.sz = sz;
	u.o.kind = PERFBUF_EV_SOFTWARE;
	u.o.config = PERF_COUNT_SW_CPU_CLOCK;
	ASSERT_OK(perfbuf_event__attr(&a, &u.o), "attr from a short struct");
	ASSERT_EQ(a.type, PERF_TYPE_SOFTWARE, "type");
	ASSERT_EQ(a.config, PERF_COUNT_SW_CPU_CLOCK, "config");
	ASSERT_EQ(a.sample_period, 0, "sample_period past sz: 0");
	ASSERT_EQ(a.freq, 0, "sample_freq past sz: 0");
	ASSERT_EQ(a.read_format, 0, "read_format past sz: 0");
	ASSERT_EQ(a.disabled + a.inherit + a.pinned + a.exclusive, 0,
		  "flags past sz: 0");
	ASSERT_EQ(a.use_clockid, 0, "use_clockid past sz: 0");
}

TEST(counter_enable_disable_reset)
{
	PERFBUF_OPTS(perfbuf_event_opts, o,
		.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS,
		.disabled = true, .exclude_kernel = true, .exclude_hv = true,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID);
	struct perfbuf_count c = { .sz = sizeof(c) };
	__u64 id = 0;
	int fd;

	fd = perfbuf_event__open(&o, 0, -1, -1);
	if (!ASSERT_GE(fd, 0, "open page-faults counter"))
		return;
	touch_new_pages(50);
	ASSERT_OK(perfbuf_event__read(fd, o.read_format, &c), "read");
	ASSERT_EQ(c.value, 0, "disabled: nothing counted");
	ASSERT_OK(perfbuf_event__enable(fd, false), "enable");
	touch_new_pages(100);
	ASSERT_OK(perfbuf_event__disable(fd, false), "disable");
	ASSERT_OK(perfbuf_event__read(fd, o.read_format, &c), "read");
	ASSERT_GE(c.value, 100, "faults counted");
	ASSERT_LT(c.value, 1000, "and not wildly more");
	ASSERT_GT(c.time_enabled, 0, "time_enabled");
	ASSERT_EQ(c.time_running, c.time_enabled, "not multiplexed");
	ASSERT_TRUE(c.scaled == (double)c.value, "scaled == value");
	ASSERT_OK(perfbuf_event__id(fd, &id), "id ioctl");
	ASSERT_EQ(c.id, id, "PERF_FORMAT_ID matches the ioctl");
	ASSERT_OK(perfbuf_event__reset(fd, false), "reset");
	ASSERT_OK(perfbuf_event__read(fd, o.read_format, &c), "read");
	ASSERT_EQ(c.value, 0, "reset to 0");
	ASSERT_EQ(perfbuf_event__read(fd, PERF_FORMAT_GROUP, &c), -EINVAL,
		  "group format refused by count_read");
	{
		PERFBUF_OPTS(perfbuf_event_opts, plain,
			.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS);
		int fd2 = perfbuf_event__open(&plain, 0, -1, -1);

		if (ASSERT_GE(fd2, 0, "open a plain counter")) {
			ASSERT_EQ(perfbuf_event__read(fd2, o.read_format | PERF_FORMAT_LOST, &c),
				  -EIO, "a format the event was not opened with: -EIO");
			close(fd2);
		}
	}
	close(fd);
}

TEST(group_read)
{
	__u64 rf = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
		   PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	PERFBUF_OPTS(perfbuf_event_opts, lo,
		.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
		.disabled = true, .read_format = rf);
	PERFBUF_OPTS(perfbuf_event_opts, mo,
		.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS,
		.read_format = rf);
	struct perfbuf_count c[2] = { { .sz = sizeof(c[0]) }, { .sz = sizeof(c[0]) } };
	struct perfbuf_count small[1] = { { .sz = sizeof(small[0]) } };
	__u64 id0, id1;
	int leader, member;

	leader = perfbuf_event__open(&lo, 0, -1, -1);
	if (!ASSERT_GE(leader, 0, "leader"))
		return;
	member = perfbuf_event__open(&mo, 0, -1, leader);
	if (!ASSERT_GE(member, 0, "member")) {
		close(leader);
		return;
	}
	ASSERT_OK(perfbuf_event__enable(leader, true), "enable group");
	touch_new_pages(20);
	spin_ms(5);
	ASSERT_OK(perfbuf_event__disable(leader, true), "disable group");
	ASSERT_EQ(perfbuf_event__read_group(leader, rf, c, 2), 2, "two members");
	perfbuf_event__id(leader, &id0);
	perfbuf_event__id(member, &id1);
	ASSERT_EQ(c[0].id, id0, "leader first");
	ASSERT_EQ(c[1].id, id1, "then the member");
	ASSERT_GE(c[0].value, 4000000, "task clock ran >= 4 ms");
	ASSERT_GE(c[1].value, 20, "page faults");
	ASSERT_GT(c[1].time_enabled, 0, "group times");
	ASSERT_EQ(perfbuf_event__read_group(leader, rf, small, 1), -ENOSPC, "too small");
	ASSERT_EQ(perfbuf_event__read_group(leader, PERF_FORMAT_ID, c, 2), -EINVAL,
		  "needs PERF_FORMAT_GROUP");
	close(member);
	close(leader);
}

/* A read_format that is not the event's: parse only what read() returned.
 * A lone counter read "as a group" has its value where nr would be. */
TEST(group_read_wrong_format)
{
	PERFBUF_OPTS(perfbuf_event_opts, o,
		.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS,
		.disabled = true, .exclude_kernel = true, .exclude_hv = true);
	static struct perfbuf_count out[4096];
	struct perfbuf_count c = { .sz = sizeof(c) };
	int fd;

	fd = perfbuf_event__open(&o, 0, -1, -1);
	if (!ASSERT_GE(fd, 0, "open page-faults counter"))
		return;
	for (size_t i = 0; i < 4096; i++)
		out[i].sz = sizeof(out[i]);
	ASSERT_OK(perfbuf_event__enable(fd, false), "enable");
	touch_new_pages(200);
	ASSERT_OK(perfbuf_event__disable(fd, false), "disable");
	ASSERT_OK(perfbuf_event__read(fd, 0, &c), "read");
	ASSERT_GE(c.value, 100, "a value > 64, taken for nr");
	ASSERT_EQ(perfbuf_event__read_group(fd, PERF_FORMAT_GROUP | PERF_FORMAT_ID, out, 4096),
		  -EIO, "short read refused, nothing parsed past it");
	close(fd);
}

TEST(e2big_reports_kernel_size)
{
	union {
		struct perf_event_attr a;
		char bytes[sizeof(struct perf_event_attr) + 64];
	} u;
	int fd;

	memset(&u, 0, sizeof(u));
	u.a.type = PERF_TYPE_SOFTWARE;
	u.a.config = PERF_COUNT_SW_CPU_CLOCK;
	u.a.size = sizeof(u);
	u.a.exclude_kernel = 1;
	u.bytes[sizeof(u) - 1] = 1;	/* a "feature" the kernel cannot know */
	fd = perfbuf_event__open_attr(&u.a, 0, -1, -1, 0);
	ASSERT_EQ(fd, -E2BIG, "E2BIG");
	ASSERT_GE(u.a.size, PERF_ATTR_SIZE_VER0, "kernel wrote its size back");
	ASSERT_LT(u.a.size, sizeof(u), "smaller than what we passed");
	if (fd >= 0)
		close(fd);
}

TEST(sampling_ioctls)
{
	PERFBUF_OPTS(perfbuf_event_opts, o,
		.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1000000, .sample_type = PERF_SAMPLE_IP,
		.exclude_kernel = true, .disabled = true);
	__u32 ids[4], cnt = 4;
	int fd, fd2;

	fd = perfbuf_event__open(&o, 0, -1, -1);
	if (!ASSERT_GE(fd, 0, "open sampler"))
		return;
	ASSERT_OK(perfbuf_event__set_period(fd, 500000), "period");
	ASSERT_OK(perfbuf_event__refresh(fd, 1), "refresh");
	ASSERT_EQ(perfbuf_event__pause_output(fd, true), -EINVAL, "pause needs a ring");
	ASSERT_ERR(perfbuf_event__set_filter(fd, "common_pid == 1"),
		   "filters are for tracepoints");
	ASSERT_ERR(perfbuf_event__query_bpf(fd, ids, &cnt), "query_bpf on a non-tracepoint");
	ASSERT_EQ(perfbuf_event__set_bpf(fd, -1), -EBADF, "set_bpf with a bad fd");
	{
		struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE };

		ASSERT_ERR(perfbuf_event__modify_attributes(fd, &a),
			   "modify_attributes is for breakpoints");
	}
	fd2 = perfbuf_event__open(&o, 0, -1, -1);
	if (ASSERT_GE(fd2, 0, "second sampler")) {
		ASSERT_EQ(perfbuf_event__set_output(fd2, fd), -EINVAL,
			  "set_output needs a mapped target");
		close(fd2);
	}
	ASSERT_EQ(perfbuf_event__enable(-1, false), -EBADF, "bad fd");
	close(fd);
}

/* TID samples; the kernel may throttle a sampler whose interrupts run
 * long (under valgrind, say) and says so in the ring. */
static int count_cb(void *ctx, const struct perfbuf_record *rec)
{
	int *samples = ctx;

	if (rec->kind == PERFBUF_REC_OTHER && (rec->type == PERF_RECORD_THROTTLE ||
					       rec->type == PERF_RECORD_UNTHROTTLE))
		return 0;
	if (rec->kind != PERFBUF_REC_OTHER || rec->type != PERF_RECORD_SAMPLE ||
	    rec->data_sz + rec->data2_sz != 8)
		return -1;
	(*samples)++;
	return 0;
}

/* The ring serves non-BPF events: cpu-clock samples of this thread. */
TEST(ring_over_software_sampler)
{
	PERFBUF_OPTS(perfbuf_event_opts, o,
		.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = 100000, .sample_type = PERF_SAMPLE_TID,
		.exclude_kernel = true, .disabled = true);
	struct perfbuf_ring_stats st = { .sz = sizeof(st) };
	struct perfbuf_ring *r;
	int fd, fd2, samples = 0;

	fd = perfbuf_event__open(&o, 0, -1, -1);
	if (!ASSERT_GE(fd, 0, "open"))
		return;
	r = perfbuf_ring__new(fd, 4);
	if (!ASSERT_OK_PTR(r, "ring"))
		goto out;
	perfbuf_ring__set_sample_type(r, PERF_SAMPLE_TID, false);
	fd2 = perfbuf_event__open(&o, 0, -1, -1);
	if (ASSERT_GE(fd2, 0, "second event"))
		ASSERT_OK(perfbuf_event__set_output(fd2, fd), "set_output to a mapped ring");
	perfbuf_event__enable(fd, false);
	/* 20 ms of CPU, more while fewer than 10 samples (16 B each) came:
	 * ticks landing in the kernel are excluded, a loaded host has more */
	for (int i = 0; i < 100 && perfbuf_ring__avail(r) < 10 * 16; i++)
		spin_ms(20);
	perfbuf_event__disable(fd, false);
	ASSERT_GT(perfbuf_ring__avail(r), 0, "samples written");
	{
		size_t before;

		ASSERT_OK(perfbuf_event__pause_output(fd, true), "pause output");
		before = perfbuf_ring__avail(r);
		perfbuf_event__enable(fd, false);
		spin_ms(5);
		perfbuf_event__disable(fd, false);
		ASSERT_EQ(perfbuf_ring__avail(r), before, "paused: nothing written");
		ASSERT_OK(perfbuf_event__pause_output(fd, false), "resume output");
	}
	ASSERT_GT(perfbuf_ring__fold(r, count_cb, &samples), 0, "fold: TID samples (and throttling)");
	perfbuf_ring__stats(r, &st);
	ASSERT_GE(samples, 10, "samples every 0.1 ms of CPU");
	ASSERT_GE(st.other, samples, "samples counted as OTHER");
	ASSERT_EQ(st.corrupt, 0, "no corruption");
	ASSERT_EQ(perfbuf_ring__avail(r), 0, "consumed");
	if (fd2 >= 0)
		close(fd2);
	perfbuf_ring__free(r);
out:
	close(fd);
}

/* Do this machine's breakpoints fire? A write-breakpoint opened by hand,
 * without the library, on a variable written twice: a hypervisor that does
 * not pass debug exceptions through opens it and never counts (0). */
static int breakpoints_fire(void)
{
	static volatile long probe;
	struct perf_event_attr a = {
		.type = PERF_TYPE_BREAKPOINT, .size = sizeof(a),
		.bp_type = HW_BREAKPOINT_W, .bp_addr = (__u64)(uintptr_t)&probe,
		.bp_len = HW_BREAKPOINT_LEN_8, .exclude_kernel = 1,
	};
	long long n = 0;
	int fd;

	fd = syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -errno;
	probe = 1;
	probe = 2;
	if (read(fd, &n, sizeof(n)) != sizeof(n))
		n = -1;
	close(fd);
	return n == 2 ? 1 : 0;
}

TEST(breakpoint_modify)
{
	static volatile long watched, other;
	PERFBUF_OPTS(perfbuf_event_opts, o,
		.kind = PERFBUF_EV_BREAKPOINT, .bp_type = HW_BREAKPOINT_W,
		.bp_addr = (__u64)(uintptr_t)&watched, .bp_len = HW_BREAKPOINT_LEN_8,
		.sample_period = 1, .exclude_kernel = true);
	struct perf_event_attr a;
	struct perfbuf_count c = { .sz = sizeof(c) };
	int fd, fire = breakpoints_fire();

	if (fire < 0)
		TEST_SKIP("no hardware breakpoints on this machine");
	if (fire == 0)
		TEST_SKIP("breakpoints open but never fire here (the hypervisor does not pass debug exceptions through)");
	fd = perfbuf_event__open(&o, 0, -1, -1);
	if (!ASSERT_GE(fd, 0, "open breakpoint"))
		return;
	watched = 1;
	watched = 2;
	ASSERT_OK(perfbuf_event__read(fd, 0, &c), "read");
	ASSERT_EQ(c.value, 2, "two writes seen");
	perfbuf_event__attr(&a, &o);
	a.bp_addr = (__u64)(uintptr_t)&other;
	ASSERT_OK(perfbuf_event__modify_attributes(fd, &a), "move the breakpoint");
	watched = 3;
	other = 1;
	ASSERT_OK(perfbuf_event__read(fd, 0, &c), "read");
	ASSERT_EQ(c.value, 3, "now the other variable");
	close(fd);
}

/* Unprivileged, a large ring is over the mlock limits: say which ones. */
TEST(mmap_eperm_names_the_limits)
{
	int pipefd[2], status = 0;
	char msg[1024] = "";
	ssize_t n;
	pid_t pid;

	if (geteuid() != 0)
		TEST_SKIP("needs root to drop to an unprivileged user");
	if (pipe(pipefd))
		return;
	pid = fork();
	if (pid == 0) {
		PERFBUF_OPTS(perfbuf_event_opts, o,
			.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
			.sample_period = 100000, .exclude_kernel = true,
			.exclude_hv = true);
		struct rlimit rl = { 0, 0 };
		struct perfbuf_ring *r;
		int fd, code = 0;

		close(pipefd[0]);
		setrlimit(RLIMIT_MEMLOCK, &rl);
		if (setgid(65534) || setuid(65534))
			_exit(3);
		test_capture_warnings();
		fd = perfbuf_event__open(&o, 0, -1, -1);
		if (fd < 0)
			_exit(4);	/* perf_event_paranoid forbids even this */
		r = perfbuf_ring__new(fd, 1024);
		if (r || errno != EPERM)
			code = 5;
		if (write(pipefd[1], test_warning, strlen(test_warning)) < 0)
			code = 6;
		_exit(code);
	}
	close(pipefd[1]);
	n = read(pipefd[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	if (WEXITSTATUS(status) == 4)
		TEST_SKIP("perf_event_paranoid forbids unprivileged events");
	ASSERT_EQ(WEXITSTATUS(status), 0, "mmap refused with EPERM");
	ASSERT_TRUE(strstr(msg, "perf_event_mlock_kb") != NULL, "names perf_event_mlock_kb");
	ASSERT_TRUE(strstr(msg, "RLIMIT_MEMLOCK") != NULL, "names RLIMIT_MEMLOCK");
}

/* Mapped rings in a forked child, which the kernel gives no copy of the
 * perf mappings (VM_DONTCOPY): every read is refused with -ECHILD, never
 * a fault, and free() leaves the range alone. The parent reads on. */
static int child_reads(struct perfbuf_ring *r, struct perfbuf_ring *ow)
{
	struct perfbuf_iter it = perfbuf_ring__begin(r);
	struct perfbuf_record rec;
	int n = 0, bad = 0;

	bad |= perfbuf_iter__next(&it, &rec) << 0;
	bad |= (perfbuf_ring__end(r, it) != -ECHILD) << 1;
	bad |= (perfbuf_ring__fold(r, count_cb, &n) != -ECHILD) << 2;
	bad |= (perfbuf_ring__avail(r) != 0) << 3;
	bad |= (ow && perfbuf_ring__snapshot(ow, count_cb, &n) != -ECHILD) << 4;
	bad |= (n != 0) << 5;
	perfbuf_ring__free(r);
	perfbuf_ring__free(ow);
	return bad;
}

TEST(ring_in_forked_child)
{
	PERFBUF_OPTS(perfbuf_event_opts, o,
		.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = 100000, .sample_type = PERF_SAMPLE_TID,
		.exclude_kernel = true, .disabled = true);
	struct perfbuf_ring_opts ro = { .sz = sizeof(ro), .overwrite = true };
	struct perfbuf_ring *r = NULL, *ow = NULL;
	int fd, fd_ow, status = -1, n = 0;
	pid_t pid;

	fd = perfbuf_event__open(&o, 0, -1, -1);
	o.write_backward = true;
	fd_ow = perfbuf_event__open(&o, 0, -1, -1);
	if (!ASSERT_GE(fd, 0, "open") || !ASSERT_GE(fd_ow, 0, "open backward"))
		goto out;
	r = perfbuf_ring__new(fd, 1);
	ow = perfbuf_ring__new_opts(fd_ow, 1, &ro);
	if (!ASSERT_OK_PTR(r, "ring") || !ASSERT_OK_PTR(ow, "overwrite ring"))
		goto out;
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(child_reads(r, ow));
	if (!ASSERT_GT(pid, 0, "fork"))
		goto out;
	ASSERT_EQ(waitpid(pid, &status, 0), pid, "waitpid");
	ASSERT_TRUE(WIFEXITED(status), "the child exited (not killed by a signal)");
	ASSERT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status), 0,
		  "every read refused (bit set: the one that was not)");
	ASSERT_GE(perfbuf_ring__fold(r, count_cb, &n), 0, "the parent's fold");
	ASSERT_GE(perfbuf_ring__snapshot(ow, count_cb, &n), 0, "the parent's snapshot");
out:
	perfbuf_ring__free(r);
	perfbuf_ring__free(ow);
	if (fd >= 0)
		close(fd);
	if (fd_ow >= 0)
		close(fd_ow);
}

TEST_MAIN(
	TEST_ENTRY(attr_from_opts),
	TEST_ENTRY(attr_from_short_opts),
	TEST_ENTRY(counter_enable_disable_reset),
	TEST_ENTRY(group_read),
	TEST_ENTRY(group_read_wrong_format),
	TEST_ENTRY(e2big_reports_kernel_size),
	TEST_ENTRY(sampling_ioctls),
	TEST_ENTRY(ring_over_software_sampler),
	TEST_ENTRY(breakpoint_modify),
	TEST_ENTRY(mmap_eperm_names_the_limits),
	TEST_ENTRY(ring_in_forked_child),
)
