// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One CPU's channel: a PERF_COUNT_SW_BPF_OUTPUT event opened on the CPU,
 * its ring, and its fd in the PERF_EVENT_ARRAY at key = CPU number.
 *
 * Lost records: the kernel writes PERF_RECORD_LOST only before the next
 * record that fits, so losses at the end of a run never appear as records.
 * channel_settle() reads the exact total (PERF_FORMAT_LOST) and reports the
 * difference; the ring then trims later LOST records to what is new.
 */
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "channel.h"

static int open_event(struct channel *ch, struct channel_cfg *cfg)
{
	size_t data_size = cfg->page_cnt * (size_t)sysconf(_SC_PAGESIZE);
	struct perfbuf_event_opts eo = {
		.sz = sizeof(eo),
		.kind = PERFBUF_EV_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW |
			       (cfg->timestamps ? PERF_SAMPLE_TIME : 0),
		.write_backward = cfg->overwrite,
		.use_clockid = cfg->timestamps,
		.clockid = CLOCK_MONOTONIC,
		.sample_id_all = cfg->timestamps,
		.read_format = cfg->lost_fmt ? PERF_FORMAT_LOST : 0,
		.wakeup_events = cfg->wakeup_events,
		.wakeup_watermark = cfg->wakeup_events ? 0 :
				    (cfg->watermark ?: (__u32)(data_size / 4)),
	};
	int fd = perfbuf_event__open(&eo, -1, ch->cpu, -1);

	if (fd == -EINVAL && cfg->lost_fmt) {
		/* kernel < 6.0: no PERF_FORMAT_LOST; LOST records only */
		eo.read_format = 0;
		fd = perfbuf_event__open(&eo, -1, ch->cpu, -1);
		if (fd >= 0) {
			pr_info("kernel has no PERF_FORMAT_LOST: losses after the last record are not counted\n");
			cfg->lost_fmt = false;
		}
	}
	if (fd == -EMFILE || fd == -ENFILE)
		pr_warn("out of file descriptors opening the event of CPU %d (one per CPU is needed): raise 'ulimit -n'\n",
			ch->cpu);
	else if (fd == -EACCES || fd == -EPERM)
		pr_warn("perf_event_open on CPU %d: permission denied; run as root or with CAP_PERFMON (or lower kernel.perf_event_paranoid)\n",
			ch->cpu);
	else if (fd == -ENODEV)
		pr_debug("CPU %d is offline\n", ch->cpu);	/* the caller decides */
	else if (fd < 0)
		pr_warn("perf_event_open on CPU %d: %s\n", ch->cpu, strerror(-fd));
	return fd;
}

int channel_open(struct channel *ch, int cpu, struct channel_cfg *cfg)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ch };
	struct perfbuf_ring_opts ro = {
		.sz = sizeof(ro), .overwrite = cfg->overwrite,
	};
	int err;

	memset(ch, 0, sizeof(*ch));
	ch->cpu = cpu;
	ch->fd = open_event(ch, cfg);
	if (ch->fd < 0)
		return ch->fd;
	ch->ring = perfbuf_ring__new_opts(ch->fd, cfg->page_cnt, &ro);
	if (!ch->ring)
		return -errno;
	perfbuf_ring__set_cpu(ch->ring, cpu);
	perfbuf_ring__set_sample_type(ch->ring, PERF_SAMPLE_RAW |
				      (cfg->timestamps ? PERF_SAMPLE_TIME : 0),
				      cfg->timestamps);
	/* an overwrite ring wakes nobody: it is read when asked */
	if (!cfg->overwrite && epoll_ctl(cfg->epfd, EPOLL_CTL_ADD, ch->fd, &ev) < 0) {
		err = -errno;
		pr_warn("epoll_ctl on CPU %d: %s\n", cpu, strerror(-err));
		return err;
	}
	ch->in_epoll = !cfg->overwrite;
	if (bpf_map_update_elem(cfg->map_fd, &ch->cpu, &ch->fd, BPF_ANY)) {
		err = -errno;
		pr_warn("storing the event of CPU %d in the map: %s\n", cpu,
			strerror(-err));
		return err;
	}
	ch->map_set = true;
	return 0;
}

/* The records in the bytes handed over: counted by the ring. */
static __u64 records_seen(const struct channel *ch)
{
	struct perfbuf_ring_stats st = { .sz = sizeof(st) };

	perfbuf_ring__stats(ch->ring, &st);
	return st.samples + st.lost_records + st.other;
}

static size_t drain_spans(struct channel *ch, perfbuf_span_fn fn, void *ctx)
{
	__u64 before = records_seen(ch);

	perfbuf_ring__read_spans(ch->ring, fn, ctx);
	return (size_t)(records_seen(ch) - before);
}

size_t channel_drain(struct channel *ch, const struct channel_cfg *cfg,
		     size_t budget, perfbuf_record_fn fn, void *ctx, bool *stop)
{
	int err;

	ch->polls++;
	*stop = false;
	if (cfg->span_fn)
		return drain_spans(ch, cfg->span_fn, ctx);
	/* corruption is logged and counted by the ring; keep going */
	return ring_fold(ch->ring, fn, ctx, budget, stop, &err);
}

static bool kernel_lost(const struct channel *ch,
			const struct channel_cfg *cfg, __u64 *total)
{
	struct perfbuf_count cnt = { .sz = sizeof(cnt) };

	if (!cfg->lost_fmt || ch->fd < 0 ||
	    perfbuf_event__read(ch->fd, PERF_FORMAT_LOST, &cnt))
		return false;
	*total = cnt.lost;
	return true;
}

__u64 channel_kernel_lost(const struct channel *ch,
			  const struct channel_cfg *cfg)
{
	__u64 total;

	return kernel_lost(ch, cfg, &total) ? total : 0;
}

int channel_settle(struct channel *ch, const struct channel_cfg *cfg,
		   __u64 time_ns, perfbuf_record_fn fn, void *ctx, bool *stop)
{
	struct perfbuf_record rec = {
		.kind = PERFBUF_REC_LOST,
		.cpu = ch->cpu,
		.type = PERF_RECORD_LOST,
		.time_ns = time_ns,
	};
	__u64 total;

	*stop = false;
	if (!kernel_lost(ch, cfg, &total))
		return 0;
	rec.lost = perfbuf_ring__settle_lost(ch->ring, total);
	if (!rec.lost)
		return 0;
	*stop = fn(ctx, &rec) != PERFBUF_CONTINUE;
	return 1;
}

void channel_unpublish(struct channel *ch, const struct channel_cfg *cfg)
{
	if (ch->map_set)
		bpf_map_delete_elem(cfg->map_fd, &ch->cpu);
	ch->map_set = false;
	if (ch->in_epoll)
		epoll_ctl(cfg->epfd, EPOLL_CTL_DEL, ch->fd, NULL);
	ch->in_epoll = false;
	if (ch->fd >= 0)
		perfbuf_event__disable(ch->fd, false);
}

void channel_close(struct channel *ch, const struct channel_cfg *cfg)
{
	channel_unpublish(ch, cfg);
	channel_release(ch);
}

void channel_release(struct channel *ch)
{
	perfbuf_ring__free(ch->ring);
	ch->ring = NULL;
	if (ch->fd >= 0)
		close(ch->fd);
	ch->fd = -1;
}

void channel_stats_add(const struct channel *ch, struct perfbuf_cpu_stats *out)
{
	struct perfbuf_ring_stats rs = { .sz = sizeof(rs) };

	perfbuf_ring__stats(ch->ring, &rs);
	out->samples += rs.samples;
	out->bytes += rs.sample_bytes;
	out->lost += rs.lost;
	out->wakeups += ch->wakeups;
	out->polls += ch->polls;
	if (rs.high_water > out->high_water)
		out->high_water = rs.high_water;
	out->corrupt += rs.corrupt;
	out->late += rs.late;
}
