// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The collector: one PERF_COUNT_SW_BPF_OUTPUT event and ring per CPU of a
 * BPF_MAP_TYPE_PERF_EVENT_ARRAY, stored in the map at key = CPU number,
 * waited on with one epoll.
 *
 * Wake-ups cost ~8 us each (an irq_work self-IPI), so by default the
 * kernel wakes us only once a quarter of a ring is full (a byte watermark)
 * and perfbuf__poll() bounds the latency of what waits under the watermark
 * by draining every ring on a grid finer than latency_ms.
 *
 * Lost records: the kernel writes PERF_RECORD_LOST only before the next
 * record that fits, so losses at the end of a run never appear as records.
 * perfbuf__drain() reads the exact total (PERF_FORMAT_LOST) and reports the
 * difference; later LOST records report only what was not reported yet.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <linux/membarrier.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "internal.h"

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif

#define DEFAULT_PAGE_CNT 64
#define DEFAULT_LATENCY_MS 10
#define LOST_RECORD_SZ 24
#define MAX_RECORD_SZ 0xfff8	/* largest 8-aligned u16 header.size */
#define MAX_CPUS 8192

struct pb_cpu {
	struct perfbuf *pb;
	struct perfbuf_ring *ring;
	int fd;
	int cpu;
	bool map_set;
	__u64 lost_reported;	/* handed to the callback */
	__u64 wakeups;
	__u64 polls;
};

struct perfbuf {
	int map_fd;
	perfbuf_record_fn fn;
	void *ctx;
	int epfd;
	int evfd;
	struct pb_cpu *cpus;
	size_t cnt;
	size_t offline;
	struct epoll_event *events;
	int latency_ms;
	size_t budget;
	bool drain_on_free;
	bool lost_fmt;		/* events opened with PERF_FORMAT_LOST */
	bool stopped;
	__u64 period_ns;	/* of the latency drains: 4/5 of latency_ms */
	__u64 next_drain_ns;
	bool no_pwait2;		/* kernel < 5.11: epoll_wait() */
	__u64 delivered;	/* records handed over in the current call */
	__u64 swallowed;	/* LOST records already reported by a drain */
};

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* The sum of the LOST records' counts read from this ring so far. */
static __u64 ring_lost(const struct pb_cpu *c)
{
	struct perfbuf_ring_stats st;

	perfbuf_ring__stats(c->ring, &st);
	return st.lost;
}

/* Used only while perfbuf__drain() has reported losses that LOST records
 * still in flight will report again: pass on only the part not yet told. */
static int on_record_dedup(void *ctx, const struct perfbuf_record *rec)
{
	struct pb_cpu *c = ctx;
	struct perfbuf *pb = c->pb;
	struct perfbuf_record r;

	__u64 seen;

	if (rec->kind != PERFBUF_REC_LOST)
		return pb->fn(pb->ctx, rec);
	seen = ring_lost(c);	/* this record's count included */
	if (seen <= c->lost_reported) {
		pb->swallowed++;
		return 0;
	}
	r = *rec;
	r.lost = seen - c->lost_reported;
	c->lost_reported = seen;
	return pb->fn(pb->ctx, &r);
}

static __u64 records(const struct perfbuf_ring_stats *st)
{
	return st->samples + st->lost_records + st->other;
}

static int drain_cpu(struct pb_cpu *c)
{
	struct perfbuf *pb = c->pb;
	struct perfbuf_ring_stats before, after;
	size_t budget = pb->budget ?: SIZE_MAX;
	int ret;

	c->polls++;
	perfbuf_ring__stats(c->ring, &before);
	if (before.lost == c->lost_reported) {
		/* the common case: records go straight to the caller */
		ret = perfbuf_ring__fold_n(c->ring, pb->fn, pb->ctx, budget);
		perfbuf_ring__stats(c->ring, &after);
		c->lost_reported = after.lost;
	} else {
		pb->swallowed = 0;
		ret = perfbuf_ring__fold_n(c->ring, on_record_dedup, c, budget);
		perfbuf_ring__stats(c->ring, &after);
		pb->delivered -= pb->swallowed;
	}
	pb->delivered += records(&after) - records(&before);
	/* corruption is logged and counted by the ring; keep going. It ends
	 * the walk, so a callback that stopped saw none: then -EBADMSG is
	 * the callback's own stop value */
	if (ret == -EBADMSG && after.corrupt != before.corrupt)
		return 0;
	return ret;
}

static int drain_all(struct perfbuf *pb)
{
	for (size_t i = 0; i < pb->cnt; i++) {
		int ret = drain_cpu(&pb->cpus[i]);

		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The latency bound: every ring is drained on a fixed grid of period_ns,
 * 4/5 of latency_ms, so that a record waits at most one period plus the
 * wake-up's lateness. Returns true when a drain is due now and moves the
 * grid on; behind schedule, the grid restarts from @now.
 */
static bool drain_due(struct perfbuf *pb, __u64 now)
{
	if (pb->latency_ms < 0 || now < pb->next_drain_ns)
		return false;
	pb->next_drain_ns += pb->period_ns;
	if (pb->next_drain_ns <= now)
		pb->next_drain_ns = now + pb->period_ns;
	return true;
}

static int result(struct perfbuf *pb, int ret)
{
	if (ret)
		return ret;
	return pb->delivered > (__u64)INT32_MAX ? INT32_MAX : (int)pb->delivered;
}

int perfbuf__consume(struct perfbuf *pb)
{
	pb->delivered = 0;
	return result(pb, drain_all(pb));
}

int perfbuf__consume_ring(struct perfbuf *pb, size_t idx)
{
	if (idx >= pb->cnt)
		return -EINVAL;
	pb->delivered = 0;
	return result(pb, drain_cpu(&pb->cpus[idx]));
}

int perfbuf__poll(struct perfbuf *pb, int timeout_ms)
{
	__s64 wait_ns = timeout_ms < 0 ? -1 : (__s64)timeout_ms * 1000000;
	struct timespec ts;
	int n, ret = 0;
	__u64 now;

	if (__atomic_load_n(&pb->stopped, __ATOMIC_ACQUIRE))
		return -ECANCELED;
	pb->delivered = 0;
	if (pb->latency_ms >= 0) {
		now = now_ns();
		if (drain_due(pb, now))
			return result(pb, drain_all(pb));
		if (wait_ns < 0 || (__u64)wait_ns > pb->next_drain_ns - now)
			wait_ns = (__s64)(pb->next_drain_ns - now);
	}

	/* epoll_wait() rounds up to whole milliseconds: a 10 ms bound needs
	 * better, so wait with a timespec where the kernel has it */
	ts.tv_sec = wait_ns / 1000000000;
	ts.tv_nsec = wait_ns % 1000000000;
	n = pb->no_pwait2 ? -1 :
	    epoll_pwait2(pb->epfd, pb->events, (int)pb->cnt + 1,
			 wait_ns < 0 ? NULL : &ts, NULL);
	if (n < 0 && (pb->no_pwait2 || errno == ENOSYS)) {
		pb->no_pwait2 = true;
		n = epoll_wait(pb->epfd, pb->events, (int)pb->cnt + 1,
			       wait_ns < 0 ? -1 : (int)((wait_ns + 999999) / 1000000));
	}
	if (n < 0)
		return -errno;
	for (int i = 0; i < n && !ret; i++) {
		struct pb_cpu *c = pb->events[i].data.ptr;

		if (!c) {
			__u64 v;

			if (read(pb->evfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
				return -errno;
			if (__atomic_load_n(&pb->stopped, __ATOMIC_ACQUIRE))
				ret = -ECANCELED;
			continue;
		}
		c->wakeups++;
		ret = drain_cpu(c);
	}
	if (!ret && drain_due(pb, now_ns()))
		ret = drain_all(pb);
	return result(pb, ret);
}

/* Losses the kernel counted that no LOST record has reported yet. */
static int report_pending_lost(struct pb_cpu *c)
{
	struct perfbuf *pb = c->pb;
	struct perfbuf_count cnt;
	struct perfbuf_record rec = {
		.kind = PERFBUF_REC_LOST,
		.cpu = c->cpu,
		.type = PERF_RECORD_LOST,
		.size = LOST_RECORD_SZ,
	};

	if (!pb->lost_fmt || perfbuf_count_read(c->fd, PERF_FORMAT_LOST, &cnt))
		return 0;
	if (cnt.lost <= c->lost_reported)
		return 0;
	rec.lost = cnt.lost - c->lost_reported;
	c->lost_reported = cnt.lost;
	pb->delivered++;
	return pb->fn(pb->ctx, &rec);
}

int perfbuf__drain(struct perfbuf *pb)
{
	int ret;

	pb->delivered = 0;
	ret = drain_all(pb);
	for (size_t i = 0; i < pb->cnt && !ret; i++)
		ret = report_pending_lost(&pb->cpus[i]);
	return result(pb, ret);
}

int perfbuf__quiesce(struct perfbuf *pb)
{
	(void)pb;
	/* MEMBARRIER_CMD_GLOBAL is synchronize_rcu(): every non-sleepable
	 * BPF program runs inside an RCU read-side section */
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* nohz_full CPUs or no membarrier: programs run for microseconds */
	usleep(10 * 1000);
	return 0;
}

int perfbuf__wake(struct perfbuf *pb)
{
	__u64 one = 1;

	return write(pb->evfd, &one, sizeof(one)) < 0 ? -errno : 0;
}

int perfbuf__stop(struct perfbuf *pb)
{
	__atomic_store_n(&pb->stopped, true, __ATOMIC_RELEASE);
	return perfbuf__wake(pb);
}

static int open_cpu(struct perfbuf *pb, struct pb_cpu *c, size_t page_cnt,
		    __u32 wakeup_events, __u32 watermark)
{
	size_t data_size = page_cnt * (size_t)sysconf(_SC_PAGESIZE);
	struct perfbuf_event_opts eo = {
		.sz = sizeof(eo),
		.kind = PERFBUF_EV_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
		.read_format = pb->lost_fmt ? PERF_FORMAT_LOST : 0,
		.wakeup_events = wakeup_events,
		.wakeup_watermark = wakeup_events ? 0 :
				    (watermark ?: (__u32)(data_size / 4)),
	};
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
	int err;

	c->pb = pb;
	c->fd = perfbuf_event_open(&eo, -1, c->cpu, -1);
	if (c->fd == -EINVAL && pb->lost_fmt) {
		/* kernel < 6.0: no PERF_FORMAT_LOST; LOST records only */
		eo.read_format = 0;
		c->fd = perfbuf_event_open(&eo, -1, c->cpu, -1);
		if (c->fd >= 0) {
			pr_info("kernel has no PERF_FORMAT_LOST: losses after the last record are not counted\n");
			pb->lost_fmt = false;
		}
	}
	if (c->fd < 0) {
		err = c->fd;
		if (err == -EMFILE || err == -ENFILE)
			pr_warn("out of file descriptors opening the event of CPU %d (one per CPU is needed): raise 'ulimit -n'\n",
				c->cpu);
		else if (err == -EACCES || err == -EPERM)
			pr_warn("perf_event_open on CPU %d: permission denied; run as root or with CAP_PERFMON (or lower kernel.perf_event_paranoid)\n",
				c->cpu);
		else
			pr_warn("perf_event_open on CPU %d: %s\n", c->cpu,
				strerror(-err));
		return err;
	}
	c->ring = perfbuf_ring__new(c->fd, page_cnt);
	if (!c->ring)
		return -errno;
	perfbuf_ring__set_cpu(c->ring, c->cpu);
	if (epoll_ctl(pb->epfd, EPOLL_CTL_ADD, c->fd, &ev) < 0) {
		err = -errno;
		pr_warn("epoll_ctl on CPU %d: %s\n", c->cpu, strerror(-err));
		return err;
	}
	if (bpf_map_update_elem(pb->map_fd, &c->cpu, &c->fd, BPF_ANY)) {
		err = -errno;
		pr_warn("storing the event of CPU %d in the map: %s\n", c->cpu,
			strerror(-err));
		return err;
	}
	c->map_set = true;
	return 0;
}

static bool in_list(const int *list, int n, int cpu)
{
	for (int i = 0; i < n; i++)
		if (list[i] == cpu)
			return true;
	return false;
}

/* Fill pb->cpus with the CPUs to use: the caller's, or the online ones. */
static int pick_cpus(struct perfbuf *pb, const struct perfbuf_opts *opts,
		     __u32 max_entries)
{
	const int *want = OPTS_GET(opts, cpus, NULL);
	size_t want_cnt = OPTS_GET(opts, cpu_cnt, 0);
	int *possible = NULL, *online = NULL, n_pos, n_on = 0, err = 0;
	size_t clamped = 0;

	if (want) {
		if (!want_cnt)
			return -EINVAL;
		pb->cpus = calloc(want_cnt, sizeof(*pb->cpus));
		if (!pb->cpus)
			return -ENOMEM;
		for (size_t i = 0; i < want_cnt; i++) {
			if (want[i] < 0 || (__u32)want[i] >= max_entries) {
				pr_warn("CPU %d is outside the map (max_entries %u)\n",
					want[i], max_entries);
				return -E2BIG;
			}
			for (size_t j = 0; j < i; j++)
				if (want[j] == want[i]) {
					pr_warn("CPU %d is listed twice\n", want[i]);
					return -EINVAL;
				}
			pb->cpus[pb->cnt].cpu = want[i];
			pb->cpus[pb->cnt++].fd = -1;
		}
		return 0;
	}

	possible = calloc(MAX_CPUS, sizeof(int));
	online = calloc(MAX_CPUS, sizeof(int));
	pb->cpus = calloc(MAX_CPUS, sizeof(*pb->cpus));
	if (!possible || !online || !pb->cpus) {
		err = -ENOMEM;
		goto out;
	}
	n_pos = perfbuf_possible_cpus(possible, MAX_CPUS);
	if (n_pos < 0) {
		pr_warn("cannot read the possible CPUs: %s\n", strerror(-n_pos));
		err = n_pos;
		goto out;
	}
	n_on = perfbuf_online_cpus(online, MAX_CPUS);
	if (n_on < 0)
		n_on = 0;	/* assume all online */
	if (n_pos > MAX_CPUS || n_on > MAX_CPUS) {
		pr_warn("more than %d CPUs: only the first %d are used\n",
			MAX_CPUS, MAX_CPUS);
		n_pos = n_pos > MAX_CPUS ? MAX_CPUS : n_pos;
		n_on = n_on > MAX_CPUS ? MAX_CPUS : n_on;
	}
	for (int i = 0; i < n_pos && i < MAX_CPUS; i++) {
		int cpu = possible[i];

		if ((__u32)cpu >= max_entries) {
			clamped++;
			continue;
		}
		if (n_on && !in_list(online, n_on, cpu)) {
			pb->offline++;
			continue;
		}
		pb->cpus[pb->cnt].cpu = cpu;
		pb->cpus[pb->cnt++].fd = -1;
	}
	if (clamped)
		pr_warn("map max_entries %u is smaller than the %d possible CPUs: %zu CPUs get no ring and their records fail with -E2BIG\n",
			max_entries, n_pos, clamped);
	if (pb->offline)
		pr_debug("%zu offline CPUs skipped\n", pb->offline);
	if (!pb->cnt) {
		pr_warn("no usable CPU for the map\n");
		err = -ENODEV;
	}
out:
	free(possible);
	free(online);
	return err;
}

struct perfbuf *perfbuf__new(int map_fd, perfbuf_record_fn fn, void *ctx,
			     const struct perfbuf_opts *opts)
{
	struct bpf_map_info info = {};
	__u32 info_len = sizeof(info);
	size_t page_cnt, data_size, max_rec;
	__u32 wakeup_events, watermark;
	struct perfbuf *pb;
	int err;

	if (!fn || !OPTS_VALID(opts, perfbuf_opts))
		return err_ptr(-EINVAL);
	page_cnt = OPTS_GET(opts, page_cnt, 0) ?: DEFAULT_PAGE_CNT;
	err = perfbuf_check_page_cnt(page_cnt);
	if (err)
		return err_ptr(err);
	data_size = page_cnt * (size_t)sysconf(_SC_PAGESIZE);
	wakeup_events = OPTS_GET(opts, wakeup_events, 0);
	watermark = OPTS_GET(opts, watermark, 0);
	if (wakeup_events && watermark) {
		pr_warn("wakeup_events and watermark are exclusive\n");
		return err_ptr(-EINVAL);
	}
	if (watermark >= data_size) {
		pr_warn("watermark %u bytes must be below the ring size %zu\n",
			watermark, data_size);
		return err_ptr(-EINVAL);
	}
	max_rec = OPTS_GET(opts, max_record_size, 0);
	if (max_rec) {
		/* header + u32 size + payload, 8-aligned; the kernel keeps
		 * 8 bytes free, and a LOST record may have to precede it */
		size_t rec = max_rec > MAX_RECORD_SZ ? SIZE_MAX :
			     (sizeof(struct perf_event_header) + 4 + max_rec + 7) & ~7UL;

		if (rec > MAX_RECORD_SZ) {
			pr_warn("records of %zu bytes cannot be described by the u16 perf_event_header.size (largest payload: %zu)\n",
				max_rec, (size_t)MAX_RECORD_SZ - 12);
			return err_ptr(-E2BIG);
		}
		if (rec > data_size - 8) {
			pr_warn("records of %zu bytes cannot fit a ring of %zu bytes (largest: %zu): use more pages\n",
				max_rec, data_size, data_size - 8 - 12);
			return err_ptr(-E2BIG);
		}
		if (rec + LOST_RECORD_SZ > data_size - 8)
			pr_warn("records of %zu bytes fill the whole ring: after a loss none may ever be written; use more pages\n",
				max_rec);
	}

	if (map_fd < 0) {
		pr_warn("map fd %d is not a file descriptor\n", map_fd);
		return err_ptr(-EBADF);
	}
	if (bpf_obj_get_info_by_fd(map_fd, &info, &info_len)) {
		err = -errno;
		pr_warn("map fd %d: %s\n", map_fd, strerror(-err));
		return err_ptr(err);
	}
	if (info.type != BPF_MAP_TYPE_PERF_EVENT_ARRAY) {
		pr_warn("map '%s' is not a BPF_MAP_TYPE_PERF_EVENT_ARRAY\n",
			info.name);
		return err_ptr(-EINVAL);
	}

	pb = calloc(1, sizeof(*pb));
	if (!pb)
		return err_ptr(-ENOMEM);
	pb->map_fd = map_fd;
	pb->fn = fn;
	pb->ctx = ctx;
	pb->evfd = -1;
	pb->latency_ms = OPTS_GET(opts, latency_ms, 0) ?: DEFAULT_LATENCY_MS;
	pb->budget = OPTS_GET(opts, budget, 0);
	pb->drain_on_free = OPTS_GET(opts, drain_on_free, false);
	pb->lost_fmt = true;
	pb->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (pb->epfd < 0) {
		err = -errno;
		goto fail;
	}
	err = pick_cpus(pb, opts, info.max_entries);
	if (err)
		goto fail;
	pb->events = calloc(pb->cnt + 1, sizeof(*pb->events));
	if (!pb->events) {
		err = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < pb->cnt; i++) {
		err = open_cpu(pb, &pb->cpus[i], page_cnt, wakeup_events,
			       watermark);
		if (err)
			goto fail;
	}
	pb->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (pb->evfd < 0) {
		err = -errno;
		goto fail;
	}
	{
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

		if (epoll_ctl(pb->epfd, EPOLL_CTL_ADD, pb->evfd, &ev) < 0) {
			err = -errno;
			goto fail;
		}
	}
	pb->period_ns = (__u64)(pb->latency_ms > 0 ? pb->latency_ms : 0) * 800000;
	pb->next_drain_ns = now_ns() + pb->period_ns;
	return pb;
fail:
	pb->drain_on_free = false;
	perfbuf__free(pb);
	return err_ptr(err);
}

void perfbuf__free(struct perfbuf *pb)
{
	if (!pb)
		return;
	/* no new records: BPF finds no event (-ENOENT) or a disabled one */
	for (size_t i = 0; i < pb->cnt; i++) {
		struct pb_cpu *c = &pb->cpus[i];

		if (c->map_set)
			bpf_map_delete_elem(pb->map_fd, &c->cpu);
		if (c->fd >= 0)
			perfbuf_ioc_disable(c->fd, false);
	}
	/* then, once programs already past the map lookup are done, the
	 * drain sees every record written and the final lost count */
	if (pb->drain_on_free) {
		perfbuf__quiesce(pb);
		perfbuf__drain(pb);
	}
	for (size_t i = 0; i < pb->cnt; i++) {
		struct pb_cpu *c = &pb->cpus[i];

		perfbuf_ring__free(c->ring);
		if (c->fd >= 0)
			close(c->fd);
	}
	if (pb->evfd >= 0)
		close(pb->evfd);
	if (pb->epfd >= 0)
		close(pb->epfd);
	free(pb->events);
	free(pb->cpus);
	free(pb);
}

int perfbuf__epoll_fd(const struct perfbuf *pb)
{
	return pb->epfd;
}

size_t perfbuf__ring_cnt(const struct perfbuf *pb)
{
	return pb->cnt;
}

int perfbuf__ring_cpu(const struct perfbuf *pb, size_t idx)
{
	return idx < pb->cnt ? pb->cpus[idx].cpu : -EINVAL;
}

int perfbuf__ring_fd(const struct perfbuf *pb, size_t idx)
{
	return idx < pb->cnt ? pb->cpus[idx].fd : -EINVAL;
}

struct perfbuf_ring *perfbuf__ring(const struct perfbuf *pb, size_t idx)
{
	return idx < pb->cnt ? pb->cpus[idx].ring : err_ptr(-EINVAL);
}

size_t perfbuf__offline_cnt(const struct perfbuf *pb)
{
	return pb->offline;
}

int perfbuf__stats(const struct perfbuf *pb, size_t idx,
		   struct perfbuf_cpu_stats *out)
{
	const struct pb_cpu *c;
	struct perfbuf_ring_stats rs;
	struct perfbuf_count cnt;

	if (idx >= pb->cnt || !out)
		return -EINVAL;
	c = &pb->cpus[idx];
	perfbuf_ring__stats(c->ring, &rs);
	memset(out, 0, sizeof(*out));
	out->cpu = c->cpu;
	out->samples = rs.samples;
	out->bytes = rs.sample_bytes;
	out->lost = c->lost_reported;
	if (pb->lost_fmt && !perfbuf_count_read(c->fd, PERF_FORMAT_LOST, &cnt))
		out->lost_kernel = cnt.lost;
	out->wakeups = c->wakeups;
	out->polls = c->polls;
	out->high_water = rs.high_water;
	out->corrupt = rs.corrupt;
	out->data_size = perfbuf_ring__data_size(c->ring);
	return 0;
}
