// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The collector: a slot per CPU it serves, holding that CPU's channel
 * (channel.c) while the CPU is online; one epoll over the channels, an
 * eventfd (wake/stop) and the hotplug socket (hotplug.c); the latency grid;
 * and, when ordered, a merge of the rings (merge.c).
 *
 * Wake-ups cost ~8 us each (an irq_work self-IPI), so by default the
 * kernel wakes us only once a quarter of a ring is full (a byte watermark)
 * and perfbuf__poll() bounds the latency of what waits under the watermark
 * by draining every ring on a grid finer than latency_ms. A wake-up drains
 * the rings it names only: with hundreds of CPUs, a busy one waking us
 * must not cost a look at every other (the grid does that, once a period).
 *
 * Cost with many CPUs: memory and the slots grow with the possible CPUs
 * (no fixed bound); a poll costs the rings a wake-up named, plus, once a
 * grid period, one look at each open ring; the statistics of only the
 * rings a call touched are published at its end (one lock a call).
 *
 * Ordered: a drain delivers, merged, the records up to a horizon a little
 * behind now (SLACK_NS): a record older than the horizon that is not in
 * its ring yet had its producer interrupted between taking the time and
 * writing, and comes late. Records wait at most a grid period (4/5 of
 * latency_ms) plus the slack.
 *
 * CPU changes become notices, queued with the time they were seen and
 * handed over in order: a CPU going offline leaves the map at once, and
 * its ring is drained, its losses settled and closed when its notice is
 * delivered, after every record older than it.
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

#include "channel.h"
#include "hotplug.h"
#include "collector_priv.h"

#define DEFAULT_PAGE_CNT 64
#define DEFAULT_LATENCY_MS 10
/* Ordered: how far behind now the horizon stays. A producer takes the
 * time and writes its record with preemption off: microseconds, unless an
 * interrupt comes between. Every byte the slack holds back waits in the
 * ring: at 400 MB/s, 1 ms would fill a 256 KiB ring on its own. */
#define SLACK_NS 100000ULL

void collector_deliver(struct perfbuf *pb, const struct perfbuf_record *rec)
{
	pb->delivered++;
	if (pb->fn(pb->ctx, rec) != PERFBUF_CONTINUE)
		pb->halt = true;
}

static struct slot *slot_of_cpu(const struct perfbuf *pb, int cpu)
{
	if (cpu < 0 || (size_t)cpu >= pb->cpu_span || !pb->slot_of[cpu])
		return NULL;
	return &pb->slots[pb->slot_of[cpu] - 1];
}

void collector_touch(struct perfbuf *pb, struct slot *s)
{
	if (!s || s->dirty)
		return;
	s->dirty = true;
	pb->dirty[pb->dirty_cnt++] = (size_t)(s - pb->slots);
}

static void drain_channel(struct perfbuf *pb, struct channel *ch, size_t budget)
{
	bool stop;

	collector_touch(pb, slot_of_cpu(pb, ch->cpu));
	pb->delivered += channel_drain(ch, &pb->cfg, budget, pb->fn, pb->ctx,
				       &stop);
	pb->halt |= stop;
}

static void settle(struct perfbuf *pb, struct channel *ch, __u64 time_ns)
{
	bool stop;

	collector_touch(pb, slot_of_cpu(pb, ch->cpu));
	pb->delivered += channel_settle(ch, &pb->cfg, time_ns, pb->fn,
					pb->ctx, &stop);
	pb->halt |= stop;
}

/* The last of a channel whose CPU went offline: what is left in its ring,
 * its unreported losses, the notice; then it is closed. A stop asked on
 * the way takes effect after it: nothing of the CPU may be left behind. */
static void retire(struct perfbuf *pb, struct slot *s, struct channel *ch,
		   __u64 time_ns)
{
	struct perfbuf_record rec = {
		.kind = PERFBUF_REC_CPU_OFFLINE, .cpu = s->cpu,
		.time_ns = time_ns,
	};
	bool halt = pb->halt;

	if (pb->merge)
		perfbuf_merge__remove(pb->merge, ch->ring);
	/* past the callback's stops: the ring is about to go (an overwrite
	 * ring is never drained: its records go with it) */
	while (!pb->cfg.overwrite && perfbuf_ring__avail(ch->ring))
		drain_channel(pb, ch, SIZE_MAX);
	settle(pb, ch, time_ns);
	collector_deliver(pb, &rec);
	collector_retire_stats(pb, s, ch);
	channel_close(ch, &pb->cfg);
	free(ch);
	pb->halt |= halt;
}

static void hand_over(struct perfbuf *pb, struct notice *n)
{
	struct perfbuf_record rec = {
		.kind = n->kind, .cpu = n->slot->cpu, .time_ns = n->time_ns,
	};

	if (n->kind == PERFBUF_REC_CPU_OFFLINE)
		retire(pb, n->slot, n->ch, n->time_ns);
	else
		collector_deliver(pb, &rec);
}

void collector_pop_notice(struct perfbuf *pb)
{
	memmove(pb->notices, pb->notices + 1,
		--pb->notice_cnt * sizeof(*pb->notices));
}

static void push_notice(struct perfbuf *pb, struct notice n)
{
	if (pb->notice_cnt == pb->notice_cap) {
		size_t cap = pb->notice_cap ? 2 * pb->notice_cap : 8;
		struct notice *q = realloc(pb->notices, cap * sizeof(*q));

		if (!q) {
			pr_warn("no memory to queue the notice of CPU %d: delivered now, maybe out of order\n",
				n.slot->cpu);
			hand_over(pb, &n);
			return;
		}
		pb->notices = q;
		pb->notice_cap = cap;
	}
	pb->notices[pb->notice_cnt++] = n;
}

/* Unordered: every notice queued, as long as the caller wants records. */
static void hand_over_notices(struct perfbuf *pb)
{
	while (pb->notice_cnt && !pb->halt) {
		struct notice n = pb->notices[0];

		collector_pop_notice(pb);
		hand_over(pb, &n);
	}
}

/* Notices first: a CPU's CPU_ONLINE before the records of its new ring.
 * An empty ring costs one look at its head. */
static void drain_all(struct perfbuf *pb, size_t budget)
{
	hand_over_notices(pb);
	for (size_t i = 0; i < pb->open_cnt && !pb->halt; i++) {
		struct channel *ch = pb->slots[pb->open[i]].ch;

		if (perfbuf_ring__avail(ch->ring))
			drain_channel(pb, ch, budget);
	}
}

/* Merge up to @horizon; false when records up to it may be left. */
static bool fold_to(struct perfbuf *pb, __u64 horizon, size_t *left)
{
	bool stop;
	int n = merge_fold(pb->merge, horizon, *left, pb->fn, pb->ctx, &stop);

	pb->delivered += (__u64)n;
	*left -= (size_t)n;
	pb->halt |= stop;
	return !stop && *left;
}

/* Ordered: records and notices up to @horizon, in time order. The merge
 * looks at every open ring: each one's counters are published. */
static void ordered_round(struct perfbuf *pb, __u64 horizon, size_t budget)
{
	size_t left = budget;

	for (size_t i = 0; i < pb->open_cnt; i++)
		collector_touch(pb, &pb->slots[pb->open[i]]);

	while (pb->notice_cnt && pb->notices[0].time_ns <= horizon) {
		struct notice n = pb->notices[0];

		if (!fold_to(pb, n.time_ns, &left))
			return;
		collector_pop_notice(pb);
		hand_over(pb, &n);
		if (pb->halt)
			return;
	}
	fold_to(pb, horizon, &left);
}

/* A drain of every ring, as the grid or a wake-up asks for it. */
static void drain_round(struct perfbuf *pb)
{
	if (pb->merge)
		ordered_round(pb, perfbuf_now_ns() - SLACK_NS,
			      pb->budget ?: SIZE_MAX);
	else
		drain_all(pb, pb->budget ?: SIZE_MAX);
}

/* The counters perfbuf__stats() reports for @s, but for the kernel's
 * count of the open ring's losses and its fill (read at that call). */
static void slot_count(const struct perfbuf *pb, const struct slot *s,
		       struct perfbuf_cpu_stats *st)
{
	*st = s->gone;
	if (s->ch)
		channel_stats_add(s->ch, st);
	/* a channel whose CPU went offline, still to be retired */
	for (size_t i = 0; i < pb->notice_cnt; i++) {
		const struct channel *ch = pb->notices[i].ch;

		if (pb->notices[i].slot == s && ch) {
			channel_stats_add(ch, st);
			st->lost_kernel += channel_kernel_lost(ch, &pb->cfg);
		}
	}
	st->cpu = s->cpu;
	st->online = s->ch != NULL;
	st->onlined = s->onlined;
	st->offlined = s->offlined;
	st->data_size = (__u64)pb->cfg.page_cnt * (__u64)sysconf(_SC_PAGESIZE);
}

/* Publish the statistics of the slots the call touched (every slot after
 * a snapshot): nothing to do, no lock taken, when none was. */
static void publish(struct perfbuf *pb)
{
	if (!pb->dirty_cnt && !pb->publish_all)
		return;
	pthread_mutex_lock(&pb->lock);
	if (pb->publish_all)
		for (size_t i = 0; i < pb->cnt; i++)
			slot_count(pb, &pb->slots[i], &pb->slots[i].pub);
	for (size_t i = 0; i < pb->dirty_cnt; i++) {
		struct slot *s = &pb->slots[pb->dirty[i]];

		if (!pb->publish_all)
			slot_count(pb, s, &s->pub);
		s->dirty = false;
	}
	pb->dirty_cnt = 0;
	pb->publish_all = false;
	pthread_mutex_unlock(&pb->lock);
}

void collector_retire_stats(struct perfbuf *pb, struct slot *s,
			    const struct channel *ch)
{
	collector_touch(pb, s);
	channel_stats_add(ch, &s->gone);
	s->gone.lost_kernel += channel_kernel_lost(ch, &pb->cfg);
}

/* Slot @s got a channel: into the open list, which stays ascending (a
 * hotplug change is rare: a move of the list is fine). */
static void open_add(struct perfbuf *pb, struct slot *s)
{
	size_t idx = (size_t)(s - pb->slots), i = pb->open_cnt;

	while (i && pb->open[i - 1] > idx)
		i--;
	memmove(pb->open + i + 1, pb->open + i,
		(pb->open_cnt - i) * sizeof(*pb->open));
	pb->open[i] = idx;
	pb->open_cnt++;
}

static void open_remove(struct perfbuf *pb, struct slot *s)
{
	size_t idx = (size_t)(s - pb->slots);

	for (size_t i = 0; i < pb->open_cnt; i++)
		if (pb->open[i] == idx) {
			memmove(pb->open + i, pb->open + i + 1,
				(pb->open_cnt - i - 1) * sizeof(*pb->open));
			pb->open_cnt--;
			return;
		}
}

/* Under the lock from start to end: perfbuf__stats() reads cfg's lost_fmt
 * that opening the event may clear, and s->ch. */
static void cpu_up(struct perfbuf *pb, struct slot *s)
{
	/* before the ring exists: older than every record it will hold */
	__u64 now = perfbuf_now_ns();
	struct channel *ch = calloc(1, sizeof(*ch));
	int err;

	pthread_mutex_lock(&pb->lock);
	err = ch ? channel_open(ch, s->cpu, &pb->cfg) : -ENOMEM;
	if (!err && pb->merge)
		err = perfbuf_merge__add(pb->merge, ch->ring);
	if (err) {
		pthread_mutex_unlock(&pb->lock);
		/* perf_event_open() waited for the CPU's next hotplug */
		if (err == -ENODEV)
			pr_info("CPU %d went offline again before its ring could be set up: it gets one when it comes back online\n",
				s->cpu);
		else
			pr_warn("CPU %d came online but its ring could not be set up (%s): its records are not collected\n",
				s->cpu, strerror(-err));
		if (ch)
			channel_close(ch, &pb->cfg);
		free(ch);
		return;
	}
	s->ch = ch;
	open_add(pb, s);
	s->onlined++;
	push_notice(pb, (struct notice){ now, PERFBUF_REC_CPU_ONLINE, s, NULL });
	slot_count(pb, s, &s->pub);
	pthread_mutex_unlock(&pb->lock);
}

/* Under the lock: the channel's counters move from s->ch to the notice
 * in one step for perfbuf__stats(). */
static void cpu_down(struct perfbuf *pb, struct slot *s)
{
	struct channel *ch = s->ch;

	pthread_mutex_lock(&pb->lock);
	s->ch = NULL;
	open_remove(pb, s);
	s->offlined++;
	channel_unpublish(ch, &pb->cfg);
	push_notice(pb, (struct notice){ perfbuf_now_ns(),
					 PERFBUF_REC_CPU_OFFLINE, s, ch });
	slot_count(pb, s, &s->pub);
	pthread_mutex_unlock(&pb->lock);
}

/* A CPU change (hotplug.c): a CPU back online needs a new event, the old
 * one is dead; CPUs the collector does not serve are none of its
 * business. */
static void cpu_change(void *arg, int cpu, bool online)
{
	struct perfbuf *pb = arg;
	struct slot *s = slot_of_cpu(pb, cpu);

	if (!s)
		return;
	if (s->ch)
		cpu_down(pb, s);
	if (online)
		cpu_up(pb, s);
}

/* A few uevents a call (HOTPLUG_BATCH), and none once a stop was asked */
static void hotplug_events(struct perfbuf *pb)
{
	int ret = hotplug_follow(pb->hotplug_fd, &pb->hotplug_stale, HOTPLUG_BATCH,
				 &pb->stopped, cpu_change, pb);

	if (ret < 0)
		hotplug_stop(&pb->hotplug_fd, pb->cfg.epfd, ret);
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

/* An ordered wake-up drained every ring from @now on: what is written
 * after it waits at most a period from there, so the grid restarts at
 * @now + period (a ring busy enough to wake us first spares the grid's
 * wake-ups). Not after a drain that may have left records: a budget, a
 * stop. */
static void grid_restart(struct perfbuf *pb, __u64 now)
{
	if (pb->latency_ms >= 0 && !pb->budget && !pb->halt)
		pb->next_drain_ns = now + pb->period_ns;
}

void collector_begin_call(struct perfbuf *pb)
{
	pb->delivered = 0;
	pb->halt = false;
}

int collector_result(struct perfbuf *pb, int err)
{
	publish(pb);
	if (err)
		return err;
	return pb->delivered > (__u64)INT32_MAX ? INT32_MAX : (int)pb->delivered;
}

int perfbuf__consume(struct perfbuf *pb)
{
	if (pb->cfg.overwrite)
		return -EINVAL;
	if (collector_check_fork(pb))
		return -ECHILD;
	collector_begin_call(pb);
	drain_round(pb);
	return collector_result(pb, 0);
}

int perfbuf__consume_ring(struct perfbuf *pb, size_t idx)
{
	if (idx >= pb->cnt || pb->merge || pb->cfg.overwrite)
		return -EINVAL;
	if (!pb->slots[idx].ch)
		return -ENODEV;
	if (collector_check_fork(pb))
		return -ECHILD;
	collector_begin_call(pb);
	drain_channel(pb, pb->slots[idx].ch, pb->budget ?: SIZE_MAX);
	return collector_result(pb, 0);
}

/* Unordered: the rings a wake-up named, each once (epoll reports a ring
 * once a wait), after the notices queued before them. */
static void drain_ready(struct perfbuf *pb, size_t n)
{
	hand_over_notices(pb);
	for (size_t i = 0; i < n && !pb->halt; i++)
		drain_channel(pb, pb->ready[i], pb->budget ?: SIZE_MAX);
}

/* epoll_wait() rounds up to whole milliseconds: a 10 ms bound needs
 * better, so wait with a timespec where the kernel has it */
static int wait_events(struct perfbuf *pb, __s64 wait_ns)
{
	struct timespec ts = {
		.tv_sec = wait_ns / 1000000000, .tv_nsec = wait_ns % 1000000000,
	};
	int max = (int)pb->cnt + EXTRA_EVENTS, n;

	n = pb->no_pwait2 ? -1 :
	    epoll_pwait2(pb->cfg.epfd, pb->events, max,
			 wait_ns < 0 ? NULL : &ts, NULL);
	if (n < 0 && (pb->no_pwait2 || errno == ENOSYS)) {
		pb->no_pwait2 = true;
		n = epoll_wait(pb->cfg.epfd, pb->events, max, wait_ns < 0 ? -1 :
			       (int)((wait_ns + 999999) / 1000000));
	}
	return n < 0 ? -errno : n;
}

int perfbuf__poll(struct perfbuf *pb, int timeout_ms)
{
	__s64 wait_ns = timeout_ms < 0 ? -1 : (__s64)timeout_ms * 1000000;
	bool hotplug = false, due;
	size_t ready = 0;
	int n, err = 0;
	__u64 now;

	if (collector_check_fork(pb))
		return -ECHILD;
	if (__atomic_load_n(&pb->stopped, __ATOMIC_ACQUIRE))
		return -ECANCELED;
	collector_begin_call(pb);
	if (pb->latency_ms >= 0) {
		now = perfbuf_now_ns();
		if (drain_due(pb, now)) {
			drain_round(pb);
			return collector_result(pb, 0);
		}
		if (wait_ns < 0 || (__u64)wait_ns > pb->next_drain_ns - now)
			wait_ns = (__s64)(pb->next_drain_ns - now);
	}
	n = wait_events(pb, wait_ns);
	if (n < 0)
		return n;
	for (int i = 0; i < n && !pb->halt; i++) {
		void *p = pb->events[i].data.ptr;
		struct channel *ch = p;
		__u64 v;

		if (p == &pb->hotplug_fd) {
			hotplug = true;
		} else if (p == &pb->wake_tag) {
			/* the caller's fd (perfbuf__add_wake_fd()): the
			 * caller looks at it after the call */
		} else if (p == &pb->evfd) {
			if (read(pb->evfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
				return -errno;
			if (__atomic_load_n(&pb->stopped, __ATOMIC_ACQUIRE))
				err = -ECANCELED;
		} else {
			ch->wakeups++;
			collector_touch(pb, slot_of_cpu(pb, ch->cpu));
			pb->ready[ready++] = ch;
		}
	}
	now = perfbuf_now_ns();
	due = !pb->halt && drain_due(pb, now);
	/* before the hotplug events: a CPU going offline may free a channel
	 * the events above point to (when its notice is handed over) */
	if (!due && ready && !pb->merge)
		drain_ready(pb, ready);
	if (hotplug)
		hotplug_events(pb);
	if (!pb->halt && (due || (ready && pb->merge))) {
		/* ordered: a wake-up merges every ring */
		drain_round(pb);
		if (ready)
			grid_restart(pb, now);
	} else if (!pb->merge && !pb->cfg.overwrite) {
		hand_over_notices(pb);
	}
	return collector_result(pb, err);
}

int perfbuf__drain(struct perfbuf *pb)
{
	__u64 now;

	if (pb->cfg.overwrite)
		return -EINVAL;
	if (collector_check_fork(pb))
		return -ECHILD;
	collector_begin_call(pb);
	if (pb->merge)
		ordered_round(pb, UINT64_MAX, SIZE_MAX);
	else
		drain_all(pb, SIZE_MAX);
	/* after the records that precede them */
	now = perfbuf_now_ns();
	for (size_t i = 0; i < pb->open_cnt && !pb->halt; i++)
		settle(pb, pb->slots[pb->open[i]].ch, now);
	return collector_result(pb, 0);
}

/*
 * synchronize_rcu(), which every non-sleepable BPF program runs inside a
 * read-side section of, through the kernel's own wait for running programs:
 * an update of an ARRAY_OF_MAPS returns after one. 0, or a negative errno
 * when the maps cannot be made (no BPF privilege).
 */
static int wait_bpf_programs(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, o);
	int inner, outer, err = 0;
	__u32 key = 0;

	inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);
	if (inner < 0)
		return -errno;
	o.inner_map_fd = inner;
	outer = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, NULL, 4, 4, 1, &o);
	if (outer < 0 || bpf_map_update_elem(outer, &key, &inner, BPF_ANY))
		err = -errno;
	if (outer >= 0)
		close(outer);
	close(inner);
	return err;
}

int perfbuf__quiesce(struct perfbuf *pb)
{
	(void)pb;
	/* not membarrier(MEMBARRIER_CMD_GLOBAL) first: with one CPU online
	 * it returns at once, though a preempted program may still write */
	if (!wait_bpf_programs())
		return 0;
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

	if (collector_check_fork(pb))
		return -ECHILD;	/* the parent's eventfd */
	return write(pb->evfd, &one, sizeof(one)) < 0 ? -errno : 0;
}

int perfbuf__stop(struct perfbuf *pb)
{
	if (collector_check_fork(pb))
		return -ECHILD;
	__atomic_store_n(&pb->stopped, true, __ATOMIC_RELEASE);
	return perfbuf__wake(pb);
}

static int add_fd(struct perfbuf *pb, int fd, void *tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = tag };

	return epoll_ctl(pb->cfg.epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int perfbuf__add_wake_fd(struct perfbuf *pb, int fd)
{
	if (!pb || fd < 0)
		return -EINVAL;
	if (collector_check_fork(pb))
		return -ECHILD;
	return add_fd(pb, fd, &pb->wake_tag);
}

static int size_rings(struct perfbuf *pb, const struct perfbuf_opts *opts);

/* The epoll set, wake-up eventfd and hotplug socket; the slots, the rings'
 * size; then the channels. */
static int setup(struct perfbuf *pb, const struct perfbuf_opts *opts,
		 __u32 max_entries)
{
	const int *want = OPTS_GET(opts, cpus, NULL);
	bool hotplug = !OPTS_GET(opts, no_hotplug, false);
	struct cpu_set online = {};
	int err;

	pb->cfg.epfd = epoll_create1(EPOLL_CLOEXEC);
	pb->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (pb->cfg.epfd < 0 || pb->evfd < 0)
		return -errno;
	err = add_fd(pb, pb->evfd, &pb->evfd);
	if (err)
		return err;
	if (hotplug) {
		/* before the online list is read: no change falls between */
		pb->hotplug_fd = hotplug_open();
		if (pb->hotplug_fd < 0)
			pr_warn("CPU hotplug is not followed: uevent socket: %s\n",
				strerror(-pb->hotplug_fd));
		else if ((err = add_fd(pb, pb->hotplug_fd, &pb->hotplug_fd)))
			return err;
	}
	err = collector_slots(pb, opts, max_entries, &online) ?: size_rings(pb, opts) ?:
	      collector_open_slots(pb, &online, want != NULL);
	free(online.in);
	return err;
}

/* -E2BIG (logged) when records of @max_rec payload bytes cannot fit. */
static int check_record_size(size_t max_rec, size_t data_size, bool timestamps)
{
	__u64 st = PERF_SAMPLE_RAW | (timestamps ? PERF_SAMPLE_TIME : 0);
	size_t rec = perfbuf_record__sample_size(max_rec, st);
	size_t lost = timestamps ? 32 : 24;	/* sample_id_all: + time */

	if (!rec) {
		pr_warn("records of %zu bytes cannot be described by the u16 perf_event_header.size (largest payload: %zu)\n",
			max_rec, (size_t)MAX_RECORD_SZ - perfbuf_record__sample_size(0, st));
		return -E2BIG;
	}
	/* the kernel keeps 8 bytes free, and a LOST record may have to
	 * precede the record */
	if (rec > data_size - 8) {
		pr_warn("records of %zu bytes cannot fit a ring of %zu bytes (largest: %zu): use more pages\n",
			max_rec, data_size,
			data_size - 8 - perfbuf_record__sample_size(0, st));
		return -E2BIG;
	}
	if (rec + lost > data_size - 8)
		pr_warn("records of %zu bytes fill the whole ring: after a loss none may ever be written; use more pages\n",
			max_rec);
	return 0;
}

/* What the options say on their own; the rings' size comes with the
 * slots (size_rings()). */
static int check_opts(const struct perfbuf_opts *opts)
{
	size_t page_cnt = OPTS_GET(opts, page_cnt, 0);
	int err;

	if (page_cnt && OPTS_GET(opts, buffer_size, 0)) {
		pr_warn("page_cnt and buffer_size are exclusive: a ring size per CPU, or a total for all\n");
		return -EINVAL;
	}
	if (page_cnt && (err = perfbuf_check_page_cnt_log(page_cnt)))
		return err;
	if (OPTS_GET(opts, wakeup_events, 0) && OPTS_GET(opts, watermark, 0)) {
		pr_warn("wakeup_events and watermark are exclusive\n");
		return -EINVAL;
	}
	if (OPTS_GET(opts, span_fn, NULL) &&
	    (OPTS_GET(opts, ordered, false) || OPTS_GET(opts, overwrite, false))) {
		pr_warn("span_fn hands over bytes, not records: not with ordered or overwrite\n");
		return -EINVAL;
	}
	return 0;
}

/* The rings' data pages: page_cnt, or buffer_size shared by every slot
 * (offline CPUs' too: their rings open when they come online), each the
 * largest power of two that fits its share; then what depends on it. */
static int size_rings(struct perfbuf *pb, const struct perfbuf_opts *opts)
{
	size_t total = OPTS_GET(opts, buffer_size, 0), page = (size_t)sysconf(_SC_PAGESIZE);
	size_t data_size, max_rec = OPTS_GET(opts, max_record_size, 0);
	__u32 watermark = OPTS_GET(opts, watermark, 0);

	pb->cfg.page_cnt = OPTS_GET(opts, page_cnt, 0) ?: DEFAULT_PAGE_CNT;
	if (total) {
		pb->cfg.page_cnt = perfbuf_ring__budget_pages(total, pb->cnt);
		if (!pb->cfg.page_cnt) {
			pr_warn("buffer_size %zu bytes is less than a page for each of the %zu CPUs: at least %zu bytes\n",
				total, pb->cnt, pb->cnt * page);
			return -EINVAL;
		}
	}
	data_size = pb->cfg.page_cnt * page;
	if (watermark >= data_size) {
		pr_warn("watermark %u bytes must be below the ring size %zu\n",
			watermark, data_size);
		return -EINVAL;
	}
	if (!max_rec)
		return 0;
	return check_record_size(max_rec, data_size, pb->cfg.timestamps);
}

/*
 * The map through a file of our own. The kernel removes the entries of a
 * perf event array that were set through a map file when that file closes
 * (perf_event_fd_array_release), and only those: closing ours at the end
 * empties exactly our slots, never the ones another reader set since (a
 * second perfbuf, bpftool map event_pipe), and the caller closing its fd
 * early takes nothing from us. -1 where the map keeps its entries
 * (BPF_F_PRESERVE_ELEMS) or an fd from the map's id is not allowed
 * (CAP_SYS_ADMIN): the slots are then deleted one by one at the end.
 */
static int own_map_file(const struct bpf_map_info *info)
{
	if (info->map_flags & BPF_F_PRESERVE_ELEMS)
		return -1;
	return bpf_map_get_fd_by_id(info->id);
}

static int check_map(int map_fd, __u32 *max_entries, int *own_fd)
{
	struct bpf_map_info info = {};
	__u32 info_len = sizeof(info);
	int err;

	if (map_fd < 0) {
		pr_warn("map fd %d is not a file descriptor\n", map_fd);
		return -EBADF;
	}
	if (bpf_obj_get_info_by_fd(map_fd, &info, &info_len)) {
		err = -errno;
		pr_warn("map fd %d: %s\n", map_fd, strerror(-err));
		return err;
	}
	if (info.type != BPF_MAP_TYPE_PERF_EVENT_ARRAY) {
		pr_warn("map '%s' is not a BPF_MAP_TYPE_PERF_EVENT_ARRAY\n",
			info.name);
		return -EINVAL;
	}
	*max_entries = info.max_entries;
	*own_fd = own_map_file(&info);
	return 0;
}

static int init_lock(struct perfbuf *pb)
{
	pthread_mutexattr_t a;
	int err = pthread_mutexattr_init(&a);

	if (!err)
		err = pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE) ?:
		      pthread_mutex_init(&pb->lock, &a);
	pthread_mutexattr_destroy(&a);
	pb->lock_init = !err;
	return err;
}

struct perfbuf *perfbuf__new(int map_fd, perfbuf_record_fn fn, void *ctx,
			     const struct perfbuf_opts *opts)
{
	struct perfbuf *pb;
	__u32 max_entries = 0;
	bool ordered, overwrite;
	int err, own_fd = -1;

	if (!fn || !OPTS_VALID(opts, perfbuf_opts))
		return err_ptr(-EINVAL);
	err = check_opts(opts) ?: check_map(map_fd, &max_entries, &own_fd);
	if (err)
		return err_ptr(err);
	pb = calloc(1, sizeof(*pb));
	if (!pb) {
		if (own_fd >= 0)
			close(own_fd);
		return err_ptr(-ENOMEM);
	}
	pb->own_map_fd = own_fd;
	pb->fork_gen = perfbuf_fork_gen();
	overwrite = OPTS_GET(opts, overwrite, false);
	/* snapshots are merged by time anyway */
	ordered = OPTS_GET(opts, ordered, false) && !overwrite;
	if (init_lock(pb)) {
		if (own_fd >= 0)
			close(own_fd);
		free(pb);
		return err_ptr(-ENOMEM);
	}
	pb->fn = fn;
	pb->ctx = ctx;
	pb->evfd = pb->hotplug_fd = -1;
	pb->cfg = (struct channel_cfg){
		.map_fd = own_fd >= 0 ? own_fd : map_fd, .epfd = -1,
		.wakeup_events = OPTS_GET(opts, wakeup_events, 0),
		.watermark = OPTS_GET(opts, watermark, 0),
		.timestamps = OPTS_GET(opts, ordered, false) ||
			      OPTS_GET(opts, timestamps, false),
		.overwrite = overwrite,
		.span_fn = OPTS_GET(opts, span_fn, NULL),
		.lost_fmt = true,
	};
	pb->latency_ms = overwrite ? -1 :
			 OPTS_GET(opts, latency_ms, 0) ?: DEFAULT_LATENCY_MS;
	pb->budget = OPTS_GET(opts, budget, 0);
	pb->drain_on_free = OPTS_GET(opts, drain_on_free, false);
	pb->period_ns = (__u64)(pb->latency_ms > 0 ? pb->latency_ms : 0) * 800000;
	if (ordered && !(pb->merge = perfbuf_merge__new())) {
		err = -ENOMEM;
		goto fail;
	}
	err = setup(pb, opts, max_entries);
	if (err)
		goto fail;
	pb->next_drain_ns = perfbuf_now_ns() + pb->period_ns;
	pb->publish_all = true;
	publish(pb);
	return pb;
fail:
	pb->drain_on_free = false;
	perfbuf__free(pb);
	return err_ptr(err);
}

/* A channel's end: in a forked child only this process's memory and
 * fds, the rest being the parent's. */
static void end_channel(struct perfbuf *pb, struct channel *ch, bool child)
{
	if (ch && child)
		channel_release(ch);
	else if (ch)
		channel_close(ch, &pb->cfg);
	free(ch);
}

/* Close our own map file, if we have one: the kernel then removes the
 * entries set through it (own_map_file()), and nothing is left for
 * channel_unpublish() to delete. */
static void release_map_file(struct perfbuf *pb)
{
	if (pb->own_map_fd < 0)
		return;
	for (size_t i = 0; i < pb->cnt; i++)
		if (pb->slots[i].ch)
			pb->slots[i].ch->map_set = false;
	for (size_t i = 0; i < pb->notice_cnt; i++)
		if (pb->notices[i].ch)
			pb->notices[i].ch->map_set = false;
	close(pb->own_map_fd);
	pb->own_map_fd = -1;
}

void perfbuf__free(struct perfbuf *pb)
{
	bool child;

	if (!pb)
		return;
	child = collector_check_fork(pb) != 0;
	/* no new records: BPF finds no event (-ENOENT) or a disabled one;
	 * closing our map file empties our slots, and only ours */
	release_map_file(pb);
	for (size_t i = 0; i < pb->cnt && !child; i++)
		if (pb->slots[i].ch)
			channel_unpublish(pb->slots[i].ch, &pb->cfg);
	/* then, once programs already past the map lookup are done, the
	 * drain sees every record written and the final lost count */
	if (pb->drain_on_free && !child) {
		perfbuf__quiesce(pb);
		perfbuf__drain(pb);
	}
	for (size_t i = 0; i < pb->cnt; i++)
		end_channel(pb, pb->slots[i].ch, child);
	for (size_t i = 0; i < pb->notice_cnt; i++)
		end_channel(pb, pb->notices[i].ch, child);
	if (pb->hotplug_fd >= 0)
		close(pb->hotplug_fd);
	if (pb->evfd >= 0)
		close(pb->evfd);
	if (pb->cfg.epfd >= 0)
		close(pb->cfg.epfd);
	perfbuf_merge__free(pb->merge);
	free(pb->notices);
	free(pb->events);
	free(pb->ready);
	free(pb->dirty);
	free(pb->open);
	free(pb->slot_of);
	free(pb->slots);
	if (pb->lock_init)
		pthread_mutex_destroy(&pb->lock);
	free(pb);
}

int perfbuf__epoll_fd(const struct perfbuf *pb)
{
	return pb->cfg.epfd;
}

size_t perfbuf__ring_cnt(const struct perfbuf *pb)
{
	return pb->cnt;
}

int perfbuf__ring_cpu(const struct perfbuf *pb, size_t idx)
{
	return idx < pb->cnt ? pb->slots[idx].cpu : -EINVAL;
}

int perfbuf__ring_fd(const struct perfbuf *pb, size_t idx)
{
	if (idx >= pb->cnt)
		return -EINVAL;
	return pb->slots[idx].ch ? pb->slots[idx].ch->fd : -ENODEV;
}

size_t perfbuf__offline_cnt(const struct perfbuf *pb)
{
	return pb->cnt - pb->open_cnt;
}

int perfbuf__stats(const struct perfbuf *pb, size_t idx,
		   struct perfbuf_cpu_stats *out)
{
	/* the lock only: the collector is not changed */
	struct perfbuf *w = (struct perfbuf *)pb;
	struct perfbuf_cpu_stats st;
	const struct slot *s;

	if (!pb || idx >= pb->cnt || !out)
		return -EINVAL;
	if (collector_check_fork(pb))
		return -ECHILD;
	s = &pb->slots[idx];
	pthread_mutex_lock(&w->lock);
	st = s->pub;
	if (s->ch) {
		st.lost_kernel += channel_kernel_lost(s->ch, &pb->cfg);
		st.avail = perfbuf_ring__avail(s->ch->ring);
	}
	pthread_mutex_unlock(&w->lock);
	/* the kernel's count runs ahead of the LOST records until a drain
	 * settles it; without PERF_FORMAT_LOST it is 0 */
	st.lost_total = st.lost > st.lost_kernel ? st.lost : st.lost_kernel;
	return OUT_COPY(out, &st);
}
