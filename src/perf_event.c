// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perf_event_open(2), its ioctls and counter reads. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/* The sampling details and side-band records of perfbuf_event_opts. */
static void sample_fields(struct perf_event_attr *attr,
			  const struct perfbuf_event_opts *o)
{
	attr->branch_sample_type = o->branch_sample_type;
	attr->sample_regs_user = o->sample_regs_user;
	attr->sample_regs_intr = o->sample_regs_intr;
	attr->sample_stack_user = o->sample_stack_user;
	attr->aux_sample_size = o->aux_sample_size;
	attr->sample_max_stack = o->sample_max_stack;
	attr->precise_ip = o->precise_ip;
	attr->exclude_callchain_kernel = o->exclude_callchain_kernel;
	attr->exclude_callchain_user = o->exclude_callchain_user;
	attr->mmap = o->mmap;
	attr->mmap2 = o->mmap2;
	attr->mmap_data = o->mmap_data;
	attr->build_id = o->build_id;
	attr->comm = o->comm;
	attr->comm_exec = o->comm_exec;
	attr->task = o->task;
	attr->context_switch = o->context_switch;
	attr->namespaces = o->namespaces;
	attr->ksymbol = o->ksymbol;
	attr->bpf_event = o->bpf_event;
	attr->cgroup = o->cgroup;
	attr->text_poke = o->text_poke;
}

int perfbuf_event__attr(struct perf_event_attr *attr,
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
	sample_fields(attr, opts);
	if (opts->kind == PERFBUF_EV_BREAKPOINT) {
		attr->bp_type = opts->bp_type;
		attr->bp_addr = opts->bp_addr;
		attr->bp_len = opts->bp_len;
	}
	return 0;
}

int perfbuf_event__open_attr(struct perf_event_attr *attr, pid_t pid, int cpu,
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

int perfbuf_event__open(const struct perfbuf_event_opts *opts, pid_t pid,
		       int cpu, int group_fd)
{
	struct perf_event_attr attr;
	int err;

	err = perfbuf_event__attr(&attr, opts);
	if (err)
		return err;
	return perfbuf_event__open_attr(&attr, pid, cpu, group_fd, 0);
}

static int ioc(int fd, unsigned long req, unsigned long arg)
{
	int ret = ioctl(fd, req, arg);

	return ret < 0 ? -errno : ret;
}

int perfbuf_event__enable(int fd, bool group)
{
	return ioc(fd, PERF_EVENT_IOC_ENABLE, group ? PERF_IOC_FLAG_GROUP : 0);
}

int perfbuf_event__disable(int fd, bool group)
{
	return ioc(fd, PERF_EVENT_IOC_DISABLE, group ? PERF_IOC_FLAG_GROUP : 0);
}

int perfbuf_event__reset(int fd, bool group)
{
	return ioc(fd, PERF_EVENT_IOC_RESET, group ? PERF_IOC_FLAG_GROUP : 0);
}

int perfbuf_event__refresh(int fd, int count)
{
	return ioc(fd, PERF_EVENT_IOC_REFRESH, (unsigned long)count);
}

int perfbuf_event__set_period(int fd, __u64 period)
{
	return ioc(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&period);
}

int perfbuf_event__set_output(int fd, int target_fd)
{
	return ioc(fd, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)target_fd);
}

int perfbuf_event__set_filter(int fd, const char *filter)
{
	return ioc(fd, PERF_EVENT_IOC_SET_FILTER, (unsigned long)filter);
}

int perfbuf_event__id(int fd, __u64 *id)
{
	return ioc(fd, PERF_EVENT_IOC_ID, (unsigned long)id);
}

int perfbuf_event__set_bpf(int fd, int prog_fd)
{
	return ioc(fd, PERF_EVENT_IOC_SET_BPF, (unsigned long)prog_fd);
}

int perfbuf_event__pause_output(int fd, bool pause)
{
	return ioc(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, pause ? 1 : 0);
}

int perfbuf_event__query_bpf(int fd, __u32 *ids, __u32 *cnt)
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

int perfbuf_event__modify_attributes(int fd, struct perf_event_attr *attr)
{
	return ioc(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, (unsigned long)attr);
}

void perfbuf_count_scale(struct perfbuf_count *c, __u64 read_format)
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

/*
 * The read_format block, as read(2) returns it and PERF_SAMPLE_READ
 * carries it:
 *   { value, [time_enabled], [time_running], [id], [lost] }	   one counter
 *   { nr, [time_enabled], [time_running], { value, [id], [lost] }[nr] } group
 */
int perfbuf_read_format_count(const __u64 *p, size_t words, __u64 f,
			      size_t i, struct perfbuf_count *out)
{
	size_t per = 1 + !!(f & PERF_FORMAT_ID) + !!(f & PERF_FORMAT_LOST);
	size_t times = !!(f & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		       !!(f & PERF_FORMAT_TOTAL_TIME_RUNNING);
	bool group = f & PERF_FORMAT_GROUP;
	__u64 nr = group ? (words ? p[0] : 0) : 1;

	/* only what is there: @f may not be the event's (nr is any value) */
	if (!words || nr > words / per ||
	    words < (group ? 1 + times + nr * per : times + per))
		return -EIO;
	if (i >= nr)
		return -ERANGE;
	memset(out, 0, sizeof(*out));
	if (group)
		p++;
	else
		out->value = *p++;
	if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
		out->time_enabled = *p++;
	if (f & PERF_FORMAT_TOTAL_TIME_RUNNING)
		out->time_running = *p++;
	if (group) {
		p += i * per;
		out->value = *p++;
	}
	if (f & PERF_FORMAT_ID)
		out->id = *p++;
	if (f & PERF_FORMAT_LOST)
		out->lost = *p++;
	perfbuf_count_scale(out, f);
	return 0;
}

int perfbuf_count_out(const __u64 *p, size_t words, __u64 f, size_t i,
		      struct perfbuf_count *out)
{
	struct perfbuf_count c;
	int err = perfbuf_read_format_count(p, words, f, i, &c);

	return err ?: OUT_COPY(out, &c);
}

int perfbuf_event__read(int fd, __u64 read_format, struct perfbuf_count *out)
{
	__u64 buf[5];
	ssize_t n;

	if ((read_format & PERF_FORMAT_GROUP) || !out || out->sz < sizeof(size_t))
		return -EINVAL;
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	return perfbuf_count_out(buf, (size_t)n / 8, read_format, 0, out);
}

int perfbuf_event__read_group(int leader_fd, __u64 read_format,
		       struct perfbuf_count *out, size_t cnt)
{
	__u64 buf[3 + 3 * 64], nr;
	size_t words;
	ssize_t n;
	int err;

	/* the caller's struct may be older: its size is the stride */
	size_t stride = cnt && out ? out->sz : sizeof(struct perfbuf_count);

	if (!(read_format & PERF_FORMAT_GROUP) || (cnt && !out) ||
	    stride < sizeof(size_t))
		return -EINVAL;
	n = read(leader_fd, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	words = (size_t)n / 8;
	/* the whole block first: -EIO when it is not this format */
	err = perfbuf_count_out(buf, words, read_format, 0,
				cnt ? out : &(struct perfbuf_count){
					.sz = sizeof(struct perfbuf_count) });
	if (err)
		return err == -ERANGE ? 0 : err;	/* no member */
	nr = buf[0];
	if (nr > cnt)
		return -ENOSPC;
	for (__u64 i = 1; i < nr; i++) {
		struct perfbuf_count *o = (void *)((char *)out + i * stride);

		o->sz = stride;
		perfbuf_count_out(buf, words, read_format, i, o);
	}
	return (int)nr;
}
