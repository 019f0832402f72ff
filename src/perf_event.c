// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perf_event_open(2), its ioctls and counter reads. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

int perfbuf_event_attr(struct perf_event_attr *attr,
		       const struct perfbuf_event_opts *user)
{
	struct perfbuf_event_opts o = {}, *opts = &o;

	if (!attr || !user || !OPTS_VALID(user, perfbuf_event_opts))
		return -EINVAL;
	/* a caller built against an older, smaller struct: read only its
	 * bytes, the fields it does not know are 0 */
	memcpy(&o, user, user->sz < sizeof(o) ? user->sz : sizeof(o));
	if (opts->sample_period && opts->sample_freq) {
		pr_warn("event: sample_period and sample_freq are exclusive\n");
		return -EINVAL;
	}
	if (opts->wakeup_events && opts->wakeup_watermark) {
		pr_warn("event: wakeup_events and wakeup_watermark are exclusive\n");
		return -EINVAL;
	}

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = opts->kind;
	attr->config = opts->config;
	if (opts->sample_freq) {
		attr->freq = 1;
		attr->sample_freq = opts->sample_freq;
	} else {
		attr->sample_period = opts->sample_period;
	}
	attr->sample_type = opts->sample_type;
	attr->read_format = opts->read_format;
	if (opts->wakeup_watermark) {
		attr->watermark = 1;
		attr->wakeup_watermark = opts->wakeup_watermark;
	} else {
		attr->wakeup_events = opts->wakeup_events;
	}
	attr->disabled = opts->disabled;
	attr->inherit = opts->inherit;
	attr->pinned = opts->pinned;
	attr->exclusive = opts->exclusive;
	attr->exclude_user = opts->exclude_user;
	attr->exclude_kernel = opts->exclude_kernel;
	attr->exclude_hv = opts->exclude_hv;
	attr->exclude_idle = opts->exclude_idle;
	attr->enable_on_exec = opts->enable_on_exec;
	attr->write_backward = opts->write_backward;
	if (opts->use_clockid) {
		attr->use_clockid = 1;
		attr->clockid = opts->clockid;
	}
	attr->sample_id_all = opts->sample_id_all;
	if (opts->kind == PERFBUF_EV_BREAKPOINT) {
		attr->bp_type = opts->bp_type;
		attr->bp_addr = opts->bp_addr;
		attr->bp_len = opts->bp_len;
	}
	return 0;
}

int perfbuf_event_open_attr(struct perf_event_attr *attr, pid_t pid, int cpu,
			    int group_fd, unsigned long flags)
{
	__u32 asked = attr->size;
	long fd;

	fd = syscall(__NR_perf_event_open, attr, pid, cpu, group_fd,
		     flags | PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		return (int)fd;
	if (errno == E2BIG)
		pr_warn("perf_event_open: attr size %u is larger than the kernel's %u: a requested feature is newer than this kernel\n",
			asked, attr->size);
	return -errno;
}

int perfbuf_event_open(const struct perfbuf_event_opts *opts, pid_t pid,
		       int cpu, int group_fd)
{
	struct perf_event_attr attr;
	int err;

	err = perfbuf_event_attr(&attr, opts);
	if (err)
		return err;
	return perfbuf_event_open_attr(&attr, pid, cpu, group_fd, 0);
}

static int ioc(int fd, unsigned long req, unsigned long arg)
{
	int ret = ioctl(fd, req, arg);

	return ret < 0 ? -errno : ret;
}

int perfbuf_ioc_enable(int fd, bool group)
{
	return ioc(fd, PERF_EVENT_IOC_ENABLE, group ? PERF_IOC_FLAG_GROUP : 0);
}

int perfbuf_ioc_disable(int fd, bool group)
{
	return ioc(fd, PERF_EVENT_IOC_DISABLE, group ? PERF_IOC_FLAG_GROUP : 0);
}

int perfbuf_ioc_reset(int fd, bool group)
{
	return ioc(fd, PERF_EVENT_IOC_RESET, group ? PERF_IOC_FLAG_GROUP : 0);
}

int perfbuf_ioc_refresh(int fd, int count)
{
	return ioc(fd, PERF_EVENT_IOC_REFRESH, (unsigned long)count);
}

int perfbuf_ioc_period(int fd, __u64 period)
{
	return ioc(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&period);
}

int perfbuf_ioc_set_output(int fd, int target_fd)
{
	return ioc(fd, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)target_fd);
}

int perfbuf_ioc_set_filter(int fd, const char *filter)
{
	return ioc(fd, PERF_EVENT_IOC_SET_FILTER, (unsigned long)filter);
}

int perfbuf_ioc_id(int fd, __u64 *id)
{
	return ioc(fd, PERF_EVENT_IOC_ID, (unsigned long)id);
}

int perfbuf_ioc_set_bpf(int fd, int prog_fd)
{
	return ioc(fd, PERF_EVENT_IOC_SET_BPF, (unsigned long)prog_fd);
}

int perfbuf_ioc_pause_output(int fd, bool pause)
{
	return ioc(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, pause ? 1 : 0);
}

int perfbuf_ioc_query_bpf(int fd, __u32 *ids, __u32 *cnt)
{
	/* struct perf_event_query_bpf { u32 ids_len, prog_cnt, ids[] } */
	__u32 buf[2 + 64];
	struct perf_event_query_bpf *q = (struct perf_event_query_bpf *)buf;
	__u32 room = *cnt < 64 ? *cnt : 64, n;
	int err;

	q->ids_len = room;
	q->prog_cnt = 0;
	err = ioc(fd, PERF_EVENT_IOC_QUERY_BPF, (unsigned long)q);
	if (err && err != -ENOSPC)
		return err;
	n = q->prog_cnt < room ? q->prog_cnt : room;
	if (n)
		memcpy(ids, q->ids, n * sizeof(__u32));
	*cnt = q->prog_cnt;
	return err;
}

int perfbuf_ioc_modify_attributes(int fd, struct perf_event_attr *attr)
{
	return ioc(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, (unsigned long)attr);
}

static void scale(struct perfbuf_count *c, __u64 read_format)
{
	bool times = (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) &&
		     (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);

	if (!times || c->time_running == c->time_enabled)
		c->scaled = (double)c->value;
	else if (c->time_running == 0)
		c->scaled = 0;
	else
		c->scaled = (double)c->value * (double)c->time_enabled /
			    (double)c->time_running;
}

int perfbuf_count_read(int fd, __u64 read_format, struct perfbuf_count *out)
{
	__u64 buf[5], *p = buf;
	ssize_t n;

	if (read_format & PERF_FORMAT_GROUP)
		return -EINVAL;
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	/* one u64 per field asked for: a shorter read is not this format */
	if (n < (ssize_t)(sizeof(__u64) *
			  (1 + __builtin_popcountll(read_format &
				(PERF_FORMAT_TOTAL_TIME_ENABLED |
				 PERF_FORMAT_TOTAL_TIME_RUNNING |
				 PERF_FORMAT_ID | PERF_FORMAT_LOST)))))
		return -EIO;
	memset(out, 0, sizeof(*out));
	out->value = *p++;
	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		out->time_enabled = *p++;
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		out->time_running = *p++;
	if (read_format & PERF_FORMAT_ID)
		out->id = *p++;
	if (read_format & PERF_FORMAT_LOST)
		out->lost = *p++;
	scale(out, read_format);
	return 0;
}

int perfbuf_group_read(int leader_fd, __u64 read_format,
		       struct perfbuf_count *out, size_t cnt)
{
	/* { nr, [time_enabled], [time_running], { value, [id], [lost] }[nr] } */
	__u64 buf[3 + 3 * 64], *p = buf, nr, enabled = 0, running = 0, i;
	size_t head = 1, per = 1;
	ssize_t n;

	if (!(read_format & PERF_FORMAT_GROUP))
		return -EINVAL;
	n = read(leader_fd, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	head += !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		!!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
	per += !!(read_format & PERF_FORMAT_ID) + !!(read_format & PERF_FORMAT_LOST);
	if (n < (ssize_t)sizeof(__u64))
		return -EIO;
	nr = *p++;
	/* parse only what read() returned: @read_format may not be the
	 * event's (then nr is any value) */
	if (nr > sizeof(buf) / sizeof(buf[0]) ||
	    (head + nr * per) * sizeof(__u64) > (size_t)n)
		return -EIO;
	if (nr > cnt)
		return -ENOSPC;
	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		enabled = *p++;
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		running = *p++;
	for (i = 0; i < nr; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].value = *p++;
		if (read_format & PERF_FORMAT_ID)
			out[i].id = *p++;
		if (read_format & PERF_FORMAT_LOST)
			out[i].lost = *p++;
		out[i].time_enabled = enabled;
		out[i].time_running = running;
		scale(&out[i], read_format);
	}
	return (int)nr;
}
