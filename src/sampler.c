// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A sampler: one sampling event per CPU (every task on it) or per task,
 * each with its ring and parser, or a BPF program run on every overflow.
 * Records are parsed as they are read (src/sample.c).
 */
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "internal.h"

struct sampler_event {
	int cpu;
	int fd;
	int link_fd;		/* perf_event link of the program, or -1 */
	struct perfbuf_ring *ring;
	struct perfbuf_sample_parser *parser;
	struct perfbuf_sampler_stats st;
};

struct perfbuf_sampler {
	struct perf_event_attr attr;
	struct sampler_event *ev;
	size_t cnt;
	int epfd;
	bool warned_bad;
};

/* The CPUs to open on: the caller's, every online one, or -1 (a task). */
static int sampler_cpus(const struct perfbuf_sampler_opts *o, int **cpus)
{
	int n;

	if (o->cpus && o->cpu_cnt) {
		*cpus = malloc(o->cpu_cnt * sizeof(int));
		if (!*cpus)
			return -ENOMEM;
		memcpy(*cpus, o->cpus, o->cpu_cnt * sizeof(int));
		return (int)o->cpu_cnt;
	}
	if (o->pid > 0) {
		*cpus = malloc(sizeof(int));
		if (!*cpus)
			return -ENOMEM;
		**cpus = -1;
		return 1;
	}
	n = perfbuf_online_cpus(NULL, 0);
	if (n <= 0)
		return n < 0 ? n : -ENODEV;
	*cpus = malloc((size_t)n * sizeof(int));
	if (!*cpus)
		return -ENOMEM;
	return perfbuf_online_cpus(*cpus, (size_t)n);
}

static int attach_prog(struct sampler_event *e, int prog_fd)
{
	int err;

	e->link_fd = bpf_link_create(prog_fd, e->fd, BPF_PERF_EVENT, NULL);
	if (e->link_fd >= 0)
		return 0;
	/* kernels without perf_event links (< 5.15) */
	err = perfbuf_ioc_set_bpf(e->fd, prog_fd);
	if (err)
		pr_warn("sampler: attaching the BPF program to the event of CPU %d: %s\n",
			e->cpu, strerror(-err));
	return err;
}

static int open_event(struct perfbuf_sampler *s, struct sampler_event *e,
		      const struct perfbuf_sampler_opts *o)
{
	struct epoll_event ee = { .events = EPOLLIN, .data.ptr = e };
	int err;

	e->fd = perfbuf_event_open_attr(&s->attr, o->pid > 0 ? o->pid : -1,
					e->cpu, -1, 0);
	if (e->fd < 0) {
		err = e->fd;
		pr_warn("sampler: perf_event_open (pid %d, CPU %d): %s%s\n",
			o->pid > 0 ? o->pid : -1, e->cpu, strerror(-err),
			err == -ENOENT || err == -EOPNOTSUPP ?
			" (no such event here: hardware events need a PMU)" :
			err == -EACCES || err == -EPERM ?
			" (needs CAP_PERFMON or root)" : "");
		return err;
	}
	if (o->prog_fd > 0 && (err = attach_prog(e, o->prog_fd)))
		return err;
	if (!o->page_cnt)
		return 0;
	e->ring = perfbuf_ring__new(e->fd, o->page_cnt);
	if (!e->ring)
		return -errno;
	perfbuf_ring__set_cpu(e->ring, e->cpu);
	/* whole records (OTHER), never raw payloads: the parser reads them */
	perfbuf_ring__set_sample_type(e->ring, 0, s->attr.sample_id_all);
	e->parser = perfbuf_sample_parser__new(&s->attr);
	if (!e->parser)
		return -errno;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, e->fd, &ee))
		return -errno;
	return 0;
}

static int check_opts(const struct perfbuf_event_opts *ev,
		      const struct perfbuf_sampler_opts *o)
{
	if (!ev || !o || !OPTS_VALID(o, perfbuf_sampler_opts))
		return -EINVAL;
	if (!OPTS_HAS(ev, sample_freq) ||
	    (!ev->sample_period && !ev->sample_freq)) {
		pr_warn("sampler: the event needs sample_period or sample_freq\n");
		return -EINVAL;
	}
	if (!o->page_cnt && o->prog_fd <= 0) {
		pr_warn("sampler: neither rings (page_cnt) nor a BPF program (prog_fd): the samples would go nowhere\n");
		return -EINVAL;
	}
	return o->page_cnt ? perfbuf_check_page_cnt_log(o->page_cnt) : 0;
}

static int sampler_open(struct perfbuf_sampler *s,
			const struct perfbuf_event_opts *ev,
			const struct perfbuf_sampler_opts *o)
{
	int *cpus = NULL, n, err;

	err = perfbuf_event_attr(&s->attr, ev);
	if (err)
		return err;
	s->attr.disabled = 1;	/* enabled once all are set up */
	n = sampler_cpus(o, &cpus);
	if (n < 0)
		return n;
	s->ev = calloc((size_t)n, sizeof(*s->ev));
	if (!s->ev) {
		free(cpus);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		s->ev[i] = (struct sampler_event){ .cpu = cpus[i], .fd = -1,
						   .link_fd = -1 };
		s->cnt++;
		err = open_event(s, &s->ev[i], o);
		if (err)
			break;
	}
	free(cpus);
	return err;
}

struct perfbuf_sampler *
perfbuf_sampler__new(const struct perfbuf_event_opts *ev,
		     const struct perfbuf_sampler_opts *opts)
{
	struct perfbuf_sampler *s;
	int err = check_opts(ev, opts);
	bool disabled;

	if (err)
		return err_ptr(err);
	disabled = OPTS_GET(ev, disabled, false);
	s = calloc(1, sizeof(*s));
	if (!s)
		return err_ptr(-ENOMEM);
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	err = s->epfd < 0 ? -errno : sampler_open(s, ev, opts);
	if (!err && !disabled)
		err = perfbuf_sampler__enable(s);
	if (err) {
		perfbuf_sampler__free(s);
		return err_ptr(err);
	}
	/* the caller's choice, as the events now are */
	s->attr.disabled = disabled;
	return s;
}

void perfbuf_sampler__free(struct perfbuf_sampler *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->cnt; i++) {
		struct sampler_event *e = &s->ev[i];

		if (e->fd >= 0)
			perfbuf_ioc_disable(e->fd, false);
		if (e->link_fd >= 0)
			close(e->link_fd);
		perfbuf_ring__free(e->ring);
		perfbuf_sample_parser__free(e->parser);
		if (e->fd >= 0)
			close(e->fd);
	}
	if (s->epfd >= 0)
		close(s->epfd);
	free(s->ev);
	free(s);
}

static int for_each_event(struct perfbuf_sampler *s, int (*op)(int, bool))
{
	int err = 0;

	for (size_t i = 0; i < s->cnt; i++) {
		int e = op(s->ev[i].fd, false);

		if (e && !err)
			err = e;
	}
	return err;
}

int perfbuf_sampler__enable(struct perfbuf_sampler *s)
{
	return for_each_event(s, perfbuf_ioc_enable);
}

int perfbuf_sampler__disable(struct perfbuf_sampler *s)
{
	return for_each_event(s, perfbuf_ioc_disable);
}

const struct perf_event_attr *perfbuf_sampler__attr(const struct perfbuf_sampler *s)
{
	return &s->attr;
}

size_t perfbuf_sampler__cnt(const struct perfbuf_sampler *s)
{
	return s->cnt;
}

int perfbuf_sampler__fd(const struct perfbuf_sampler *s, size_t idx)
{
	return idx < s->cnt ? s->ev[idx].fd : -EINVAL;
}

int perfbuf_sampler__cpu(const struct perfbuf_sampler *s, size_t idx)
{
	return idx < s->cnt ? s->ev[idx].cpu : -EINVAL;
}

struct perfbuf_ring *perfbuf_sampler__ring(const struct perfbuf_sampler *s,
					   size_t idx)
{
	if (idx >= s->cnt)
		return err_ptr(-EINVAL);
	return s->ev[idx].ring ?: err_ptr(-ENODATA);
}

struct consume_ctx {
	struct perfbuf_sampler *s;
	struct sampler_event *e;
	perfbuf_sample_fn fn;
	void *ctx;
	int err;
};

static void count(struct perfbuf_sampler_stats *st, const struct perfbuf_sample *smp,
		  const struct perfbuf_record *rec)
{
	switch (smp->type) {
	case PERF_RECORD_SAMPLE:
		st->samples++;
		break;
	case PERF_RECORD_LOST:
		st->lost += rec->lost;	/* less what a drain settled */
		break;
	case PERF_RECORD_THROTTLE:
		st->throttled++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		st->unthrottled++;
		break;
	default:
		st->other++;
	}
}

static int on_record(void *arg, const struct perfbuf_record *rec)
{
	struct consume_ctx *c = arg;
	struct perfbuf_sample smp;
	int err = perfbuf_sample__parse(c->e->parser, rec, &smp);

	if (err) {
		c->e->st.bad++;
		c->err = -EBADMSG;
		if (!c->s->warned_bad)
			pr_warn("sampler: a record of type %u (%u bytes) on CPU %d does not match the event's attr: %s; skipped (and counted)\n",
				rec->type, rec->size, c->e->cpu, strerror(-err));
		c->s->warned_bad = true;
		return PERFBUF_CONTINUE;
	}
	count(&c->e->st, &smp, rec);
	return c->fn(c->ctx, &smp);
}

int perfbuf_sampler__consume(struct perfbuf_sampler *s, perfbuf_sample_fn fn,
			     void *ctx)
{
	struct consume_ctx c = { .s = s, .fn = fn, .ctx = ctx };
	long total = 0;

	if (!s->cnt || !s->ev[0].ring)
		return -ENODATA;
	for (size_t i = 0; i < s->cnt; i++) {
		struct perfbuf_ring_stats rs;
		int n;

		c.e = &s->ev[i];
		n = perfbuf_ring__fold(c.e->ring, on_record, &c);
		perfbuf_ring__stats(c.e->ring, &rs);
		c.e->st.corrupt = rs.corrupt;
		if (n > 0)
			total += n;
		else if (n < 0 && !c.err)
			c.err = n;
	}
	return c.err ?: (int)(total > INT32_MAX ? INT32_MAX : total);
}

int perfbuf_sampler__poll(struct perfbuf_sampler *s, int timeout_ms,
			  perfbuf_sample_fn fn, void *ctx)
{
	struct epoll_event evs[16];

	if (!s->cnt || !s->ev[0].ring)
		return -ENODATA;
	if (epoll_wait(s->epfd, evs, 16, timeout_ms) < 0)
		return -errno;
	return perfbuf_sampler__consume(s, fn, ctx);
}

void perfbuf_sampler__stats(const struct perfbuf_sampler *s,
			    struct perfbuf_sampler_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < s->cnt; i++) {
		const struct perfbuf_sampler_stats *st = &s->ev[i].st;
		struct perfbuf_count cnt;
		__u64 lost = st->lost;

		/* the kernel's own count covers losses no LOST record
		 * reported yet (those at the end of a run) */
		if ((s->attr.read_format & PERF_FORMAT_LOST) &&
		    !perfbuf_count_read(s->ev[i].fd, s->attr.read_format, &cnt) &&
		    cnt.lost > lost)
			lost = cnt.lost;
		out->samples += st->samples;
		out->lost += lost;
		out->throttled += st->throttled;
		out->unthrottled += st->unthrottled;
		out->other += st->other;
		out->bad += st->bad;
		out->corrupt += st->corrupt;
	}
}
