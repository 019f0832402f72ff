// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A sampler: one sampling event per CPU (every task on it) or per task,
 * each with its ring and parser, or a BPF program run on every overflow.
 * Records are parsed as they are read (src/sample.c).
 *
 * CPU hotplug: an event whose CPU goes offline is dead for good (the
 * kernel cannot re-enable it), so when the CPU comes back its event is
 * opened again, after its ring was read; a CPU that comes online for the
 * first time gets an event when the sampler serves every CPU. Seen in
 * perfbuf_sampler__poll() (the uevent socket is in its epoll set).
 */
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "hotplug.h"
#include "internal.h"

struct sampler_event {
	int cpu;
	int fd;
	int link_fd;		/* perf_event link of the program, or -1 */
	struct perfbuf_ring *ring;
	struct perfbuf_sample_parser *parser;
	struct perfbuf_sampler_stats st;	/* lost and corrupt: of the
						 * events this CPU had before */
	__u64 lost_live;	/* LOST records of the event open now */
};

struct perfbuf_sampler {
	struct perf_event_attr attr;
	pid_t pid;
	size_t page_cnt;
	int prog_fd;
	struct sampler_event **ev;
	size_t cnt;
	int epfd;
	int hotplug_fd;		/* per-CPU samplers; -1 otherwise */
	__u64 hotplug_stale;	/* hotplug_follow()'s */
	bool every_cpu;		/* no CPU list: CPUs coming online join */
	bool enabled;
	bool warned_bad;
	__u32 fork_gen;		/* perfbuf_fork_gen() at the new */
};

/* -ECHILD in a child forked since the new: its rings are not mapped
 * there, and its events and epoll set are the parent's (see
 * perfbuf_fork_gen()); else 0. */
static int sampler_check_fork(const struct perfbuf_sampler *s)
{
	return perfbuf_forked(s->fork_gen) ? -ECHILD : 0;
}

/* The CPUs to open on: the caller's, every online one, or -1 (a task). */
static int sampler_cpus(const struct perfbuf_sampler_opts *o, int **cpus)
{
	int n;

	*cpus = NULL;
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
	n = perfbuf_cpus_online_alloc(cpus);
	return n ? n : -ENODEV;
}

static int attach_prog(struct sampler_event *e, int prog_fd)
{
	int err;

	e->link_fd = bpf_link_create(prog_fd, e->fd, BPF_PERF_EVENT, NULL);
	if (e->link_fd >= 0)
		return 0;
	/* kernels without perf_event links (< 5.15) */
	err = perfbuf_event__set_bpf(e->fd, prog_fd);
	if (err)
		pr_warn("sampler: attaching the BPF program to the event of CPU %d: %s\n",
			e->cpu, strerror(-err));
	return err;
}

/* Is @cpu online now? (ENODEV also means an event this CPU's PMU does
 * not have: only an offline CPU is said as such) */
static bool cpu_is_online(int cpu)
{
	int *cpus, n = perfbuf_cpus_online_alloc(&cpus);
	bool on = false;

	for (int i = 0; i < n; i++)
		on |= cpus[i] == cpu;
	if (n >= 0)
		free(cpus);
	return n < 0 || on;	/* unknown: not said to be offline */
}

/* Open @e's event (disabled), program and ring; 0 or a negative errno,
 * then event_close() releases what was set up. */
static int event_open(struct perfbuf_sampler *s, struct sampler_event *e)
{
	struct epoll_event ee = { .events = EPOLLIN, .data.ptr = e };
	int err;

	e->fd = perfbuf_event__open_attr(&s->attr, s->pid > 0 ? s->pid : -1,
					e->cpu, -1, 0);
	/* offline (it went offline meanwhile): the caller says it */
	if (e->fd == -ENODEV && e->cpu >= 0 && !cpu_is_online(e->cpu))
		return -ENODEV;
	if (e->fd < 0) {
		err = e->fd;
		pr_warn("sampler: perf_event_open (pid %d, CPU %d): %s%s\n",
			s->pid > 0 ? s->pid : -1, e->cpu, strerror(-err),
			err == -ENOENT || err == -EOPNOTSUPP ?
			" (no such event here: hardware events need a PMU)" :
			err == -EACCES || err == -EPERM ?
			" (needs CAP_PERFMON or root)" : "");
		return err;
	}
	if (s->prog_fd > 0 && (err = attach_prog(e, s->prog_fd)))
		return err;
	e->lost_live = 0;
	if (!s->page_cnt)
		return 0;
	e->ring = perfbuf_ring__new(e->fd, s->page_cnt);
	if (!e->ring)
		return -errno;
	perfbuf_ring__set_cpu(e->ring, e->cpu);
	/* whole records (OTHER), never raw payloads: the parser reads them */
	perfbuf_ring__set_sample_type(e->ring, 0, s->attr.sample_id_all);
	if (!e->parser && !(e->parser = perfbuf_sample_parser__new(&s->attr)))
		return -errno;
	return epoll_ctl(s->epfd, EPOLL_CTL_ADD, e->fd, &ee) ? -errno : 0;
}

/* The losses of @e's event: LOST records, or the kernel's count if more
 * (losses no LOST record reported yet: those at the end of a run). */
static __u64 event_lost(const struct perfbuf_sampler *s,
			const struct sampler_event *e)
{
	struct perfbuf_count cnt = { .sz = sizeof(cnt) };

	if (e->fd >= 0 && (s->attr.read_format & PERF_FORMAT_LOST) &&
	    !perfbuf_event__read(e->fd, s->attr.read_format, &cnt) &&
	    cnt.lost > e->lost_live)
		return cnt.lost;
	return e->lost_live;
}

static void event_close(struct perfbuf_sampler *s, struct sampler_event *e)
{
	struct perfbuf_ring_stats rs = { .sz = sizeof(rs) };

	if (e->ring) {
		perfbuf_ring__stats(e->ring, &rs);
		e->st.corrupt += rs.corrupt;
	}
	e->st.lost += event_lost(s, e);
	e->lost_live = 0;
	if (e->fd >= 0 && !sampler_check_fork(s)) {
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, e->fd, NULL);
		perfbuf_event__disable(e->fd, false);
	}
	if (e->link_fd >= 0)
		close(e->link_fd);
	perfbuf_ring__free(e->ring);
	if (e->fd >= 0)
		close(e->fd);
	e->ring = NULL;
	e->fd = e->link_fd = -1;
}

/* A new event slot for @cpu, opened. */
static int event_add(struct perfbuf_sampler *s, int cpu)
{
	struct sampler_event **v = realloc(s->ev, (s->cnt + 1) * sizeof(*v));
	struct sampler_event *e;

	if (!v)
		return -ENOMEM;
	s->ev = v;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->cpu = cpu;
	e->fd = e->link_fd = -1;
	s->ev[s->cnt++] = e;
	return event_open(s, e);
}

/* @o: the caller's options, each field read through OPTS_GET (an older
 * caller's struct is shorter), into @out. */
static int check_opts(const struct perfbuf_event_opts *ev,
		      const struct perfbuf_sampler_opts *user,
		      struct perfbuf_sampler_opts *o)
{
	if (!ev || !user || !OPTS_VALID(user, perfbuf_sampler_opts))
		return -EINVAL;
	*o = (struct perfbuf_sampler_opts){
		.sz = sizeof(*o),
		.cpus = OPTS_GET(user, cpus, NULL),
		.cpu_cnt = OPTS_GET(user, cpu_cnt, 0),
		.page_cnt = OPTS_GET(user, page_cnt, 0),
		.pid = OPTS_GET(user, pid, 0),
		.prog_fd = OPTS_GET(user, prog_fd, 0),
	};
	if (!OPTS_GET(ev, sample_period, 0) && !OPTS_GET(ev, sample_freq, 0)) {
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
	struct epoll_event ee = { .events = EPOLLIN, .data.ptr = &s->hotplug_fd };
	int *cpus = NULL, n, err;

	err = perfbuf_event__attr(&s->attr, ev);
	if (err)
		return err;
	s->attr.disabled = 1;	/* enabled once all are set up */
	s->pid = o->pid;
	s->page_cnt = o->page_cnt;
	s->prog_fd = o->prog_fd;
	s->every_cpu = o->pid <= 0 && !(o->cpus && o->cpu_cnt);
	n = sampler_cpus(o, &cpus);
	for (int i = 0; !err && i < n; i++)
		err = event_add(s, cpus[i]);
	if (err == -ENODEV && s->ev[s->cnt - 1]->fd == -ENODEV && !cpu_is_online(s->ev[s->cnt - 1]->cpu))
		pr_warn("sampler: CPU %d is offline\n", s->ev[s->cnt - 1]->cpu);
	free(cpus);
	if (n < 0 || err)
		return n < 0 ? n : err;
	/* per-CPU events: followed across hotplug (without, only warned) */
	if (o->pid > 0 && !(o->cpus && o->cpu_cnt))
		return 0;
	s->hotplug_fd = hotplug_open();
	if (s->hotplug_fd < 0)
		pr_info("sampler: CPU hotplug not followed (%s)\n",
			strerror(-s->hotplug_fd));
	else if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->hotplug_fd, &ee))
		return -errno;
	return 0;
}

struct perfbuf_sampler *
perfbuf_sampler__new(const struct perfbuf_event_opts *ev,
		     const struct perfbuf_sampler_opts *opts)
{
	struct perfbuf_sampler_opts o;
	struct perfbuf_sampler *s;
	int err = check_opts(ev, opts, &o);
	bool disabled;

	if (err)
		return err_ptr(err);
	disabled = OPTS_GET(ev, disabled, false);
	s = calloc(1, sizeof(*s));
	if (!s)
		return err_ptr(-ENOMEM);
	s->fork_gen = perfbuf_fork_gen();
	s->hotplug_fd = -1;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	err = s->epfd < 0 ? -errno : sampler_open(s, ev, &o);
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
		event_close(s, s->ev[i]);
		perfbuf_sample_parser__free(s->ev[i]->parser);
		free(s->ev[i]);
	}
	if (s->hotplug_fd >= 0)
		close(s->hotplug_fd);
	if (s->epfd >= 0)
		close(s->epfd);
	free(s->ev);
	free(s);
}

static int for_each_event(struct perfbuf_sampler *s, int (*op)(int, bool))
{
	int err = 0;

	for (size_t i = 0; i < s->cnt; i++) {
		int e = s->ev[i]->fd >= 0 ? op(s->ev[i]->fd, false) : 0;

		if (e && !err)
			err = e;
	}
	return err;
}

int perfbuf_sampler__enable(struct perfbuf_sampler *s)
{
	if (sampler_check_fork(s))
		return -ECHILD;
	s->enabled = true;
	return for_each_event(s, perfbuf_event__enable);
}

int perfbuf_sampler__disable(struct perfbuf_sampler *s)
{
	if (sampler_check_fork(s))
		return -ECHILD;
	s->enabled = false;
	return for_each_event(s, perfbuf_event__disable);
}

size_t perfbuf_sampler__cnt(const struct perfbuf_sampler *s)
{
	return s->cnt;
}

int perfbuf_sampler__cpu(const struct perfbuf_sampler *s, size_t idx)
{
	return idx < s->cnt ? s->ev[idx]->cpu : -EINVAL;
}

struct consume_ctx {
	struct perfbuf_sampler *s;
	struct sampler_event *e;
	perfbuf_sample_fn fn;
	void *ctx;
	int err;
	bool stop;		/* the callback stopped: the call ends */
};

static void count(struct sampler_event *e, const struct perfbuf_sample *smp,
		  const struct perfbuf_record *rec)
{
	switch (smp->type) {
	case PERF_RECORD_SAMPLE:
		e->st.samples++;
		break;
	case PERF_RECORD_LOST:
		e->lost_live += rec->lost;
		break;
	case PERF_RECORD_THROTTLE:
		e->st.throttled++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		e->st.unthrottled++;
		break;
	default:
		e->st.other++;
	}
}

static int on_record(void *arg, const struct perfbuf_record *rec)
{
	struct consume_ctx *c = arg;
	struct perfbuf_sample smp = { .sz = sizeof(smp) };
	int err = perfbuf_sample_parser__parse(c->e->parser, rec, &smp);

	if (err) {
		c->e->st.bad++;
		c->err = -EBADMSG;
		if (!c->s->warned_bad)
			pr_warn("sampler: a record of type %u (%u bytes) on CPU %d does not match the event's attr: %s; skipped (and counted)\n",
				rec->type, rec->size, c->e->cpu, strerror(-err));
		c->s->warned_bad = true;
		return PERFBUF_CONTINUE;
	}
	count(c->e, &smp, rec);
	if (c->fn(c->ctx, &smp) == PERFBUF_CONTINUE)
		return PERFBUF_CONTINUE;
	c->stop = true;
	return PERFBUF_STOP;
}

/* Fold event @e's ring into @c; adds the records to *@total. */
static void consume_event(struct consume_ctx *c, struct sampler_event *e,
			  long *total)
{
	int n;

	c->e = e;
	n = perfbuf_ring__fold(e->ring, on_record, c);
	if (n > 0)
		*total += n;
	else if (n < 0 && !c->err)
		c->err = n;
}

int perfbuf_sampler__consume(struct perfbuf_sampler *s, perfbuf_sample_fn fn,
			     void *ctx)
{
	struct consume_ctx c = { .s = s, .fn = fn, .ctx = ctx };
	long total = 0;

	if (!s->page_cnt)
		return -ENODATA;
	if (sampler_check_fork(s))
		return -ECHILD;
	for (size_t i = 0; i < s->cnt && !c.stop; i++)
		if (s->ev[i]->ring)
			consume_event(&c, s->ev[i], &total);
	return c.err ?: (int)(total > INT32_MAX ? INT32_MAX : total);
}

int perfbuf_sampler__consume_ring(struct perfbuf_sampler *s, size_t idx,
				  perfbuf_sample_fn fn, void *ctx)
{
	struct consume_ctx c = { .s = s, .fn = fn, .ctx = ctx };
	long total = 0;

	if (idx >= s->cnt)
		return -EINVAL;
	if (!s->page_cnt)
		return -ENODATA;
	if (!s->ev[idx]->ring)
		return -ENODEV;
	if (sampler_check_fork(s))
		return -ECHILD;
	consume_event(&c, s->ev[idx], &total);
	return c.err ?: (int)(total > INT32_MAX ? INT32_MAX : total);
}

/* The last of an event about to be replaced: stopped, then every record
 * in its ring handed over (a callback's stop too: the ring goes), so
 * that none written since the last read is lost uncounted. */
static void event_retire(struct consume_ctx *c, struct sampler_event *e,
			 long *total)
{
	/* a fold stopped on each record takes one (>= 8 bytes): a ring's
	 * worth of folds empties it, where a bound of 1000 dropped the rest */
	size_t max = e->ring ? perfbuf_ring__data_size(e->ring) / 8 + 1 : 0;

	if (e->fd >= 0)
		perfbuf_event__disable(e->fd, false);
	for (size_t i = 0; i < max && perfbuf_ring__avail(e->ring); i++)
		consume_event(c, e, total);
}

/* A CPU came (back) online: a new event for it, the old one (dead since
 * the CPU went away) closed once its ring was read. */
static void cpu_online(struct consume_ctx *c, int cpu, long *total)
{
	struct perfbuf_sampler *s = c->s;
	struct sampler_event *e = NULL;
	int err;

	for (size_t i = 0; i < s->cnt && !e; i++)
		if (s->ev[i]->cpu == cpu)
			e = s->ev[i];
	if (!e && !s->every_cpu)
		return;
	if (e) {
		event_retire(c, e, total);
		event_close(s, e);
		err = event_open(s, e);
	} else {
		err = event_add(s, cpu);
		/* a failed allocation added no event: the last is another CPU's */
		e = s->cnt && s->ev[s->cnt - 1]->cpu == cpu ? s->ev[s->cnt - 1] : NULL;
	}
	if (!err && s->enabled)
		err = perfbuf_event__enable(e->fd, false);
	if (err == -ENODEV)	/* perf_event_open() waited for its next hotplug */
		pr_info("sampler: CPU %d went offline again before its event could be opened: it gets one when it comes back online\n",
			cpu);
	else if (err)
		pr_warn("sampler: CPU %d came online, but its event could not be opened: %s; it is not sampled\n",
			cpu, strerror(-err));
	if (err && e)
		event_close(s, e);
}

struct hotplug_ctx {
	struct consume_ctx *c;
	long *total;
};

/* A CPU change (hotplug.c): only a CPU coming online matters, an event
 * on a CPU gone offline counts nothing until it is replaced. */
static void cpu_change(void *arg, int cpu, bool online)
{
	struct hotplug_ctx *h = arg;

	if (online)
		cpu_online(h->c, cpu, h->total);
}

/* Events for the CPUs that came online; records handed over on the way
 * added to *@total. */
static void hotplug_events(struct consume_ctx *c, long *total)
{
	struct hotplug_ctx h = { c, total };
	int err = hotplug_follow(c->s->hotplug_fd, &c->s->hotplug_stale,
				 HOTPLUG_BATCH, NULL, cpu_change, &h);

	if (err < 0)
		hotplug_stop(&c->s->hotplug_fd, c->s->epfd, err);
}

int perfbuf_sampler__poll(struct perfbuf_sampler *s, int timeout_ms,
			  perfbuf_sample_fn fn, void *ctx)
{
	struct consume_ctx c = { .s = s, .fn = fn, .ctx = ctx };
	struct epoll_event evs[16];
	bool hotplug = false;
	long total = 0;
	int n, ret;

	if (sampler_check_fork(s))
		return -ECHILD;
	n = epoll_wait(s->epfd, evs, 16, timeout_ms);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++)
		hotplug |= evs[i].data.ptr == &s->hotplug_fd;
	/* the rings first: a CPU's old ring is read before it is replaced */
	ret = s->page_cnt ? perfbuf_sampler__consume(s, fn, ctx) : 0;
	if (hotplug)
		hotplug_events(&c, &total);
	if (ret < 0)
		return ret;
	total += ret;
	return c.err ?: (int)(total > INT32_MAX ? INT32_MAX : total);
}

int perfbuf_sampler__stats(const struct perfbuf_sampler *s,
			   struct perfbuf_sampler_stats *out)
{
	struct perfbuf_sampler_stats sum = { .sz = sizeof(sum) };

	for (size_t i = 0; i < s->cnt; i++) {
		const struct sampler_event *e = s->ev[i];
		struct perfbuf_ring_stats rs = { .sz = sizeof(rs) };

		if (e->ring)
			perfbuf_ring__stats(e->ring, &rs);
		sum.samples += e->st.samples;
		sum.lost += e->st.lost + event_lost(s, e);
		sum.throttled += e->st.throttled;
		sum.unthrottled += e->st.unthrottled;
		sum.other += e->st.other;
		sum.bad += e->st.bad;
		sum.corrupt += e->st.corrupt + rs.corrupt;
	}
	return OUT_COPY(out, &sum);
}
