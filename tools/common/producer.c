// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Producer threads for `perfbuf stress` and perfbuf-bench (see producer.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "emit.skel.h"
#include "kfeat.h"
#include "producer.h"

__u64 thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

int emit_once(int prog_fd, int cpu, __u64 count, __u64 size)
{
	struct emit_args args = { .count = count, .size = size };
	/* ON_CPU costs an IPI only when @cpu is not the caller's CPU; a pinned
	 * producer runs it locally, and the flag keeps records on @cpu even
	 * if pinning failed. */
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.ctx_in = &args,
		.ctx_size_in = sizeof(args),
		.flags = BPF_F_TEST_RUN_ON_CPU,
		.cpu = (__u32)cpu,
	);

	if (bpf_prog_test_run_opts(prog_fd, &opts))
		return -errno;
	return opts.retval ? -EINVAL : 0;
}

struct emit *emit_open_load(bool ringbuf, __u32 size)
{
	struct emit *skel = emit__open();
	int err;

	if (!skel)
		return NULL;
	bpf_program__set_autoload(ringbuf ? skel->progs.emit : skel->progs.emit_rb,
				  false);
	if (size)
		bpf_map__set_max_entries(ringbuf ? skel->maps.rb : skel->maps.events,
					 size);
	/* before 5.17: the twin with a bounded loop, not bpf_loop() */
	err = kfeat_prepare(skel->obj, NULL) ?: emit__load(skel);
	if (err) {
		emit__destroy(skel);
		errno = -err;
		return NULL;
	}
	return skel;
}

int emit_prog_fd(struct emit *skel, bool ringbuf)
{
	return bpf_program__fd(kfeat_prog(skel->obj, ringbuf ? skel->progs.emit_rb :
						     skel->progs.emit));
}

int emit_stats_read(int map_fd, int cpu, struct emit_stats *out)
{
	int n = libbpf_num_possible_cpus();
	struct emit_stats *vals;
	__u32 zero = 0;
	int err = 0;

	if (n < 0)
		return n;
	if (cpu < 0 || cpu >= n)
		return -EINVAL;
	vals = calloc((size_t)n, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(map_fd, &zero, vals))
		err = -errno;
	else
		*out = vals[cpu];
	free(vals);
	return err;
}

static void sleep_until(__u64 t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000ULL),
			       .tv_nsec = (long)(t % 1000000000ULL) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void *producer_main(void *arg)
{
	struct producer *p = arg;
	__u64 interval = 0, next = 0;

	pin_self(p->cpu);	/* best effort: emit_once() keeps the CPU right */
	if (p->rate > 0) {
		interval = (__u64)(p->batch * 1e9 / p->rate);
		next = perfbuf_now_ns();
	}
	while (!__atomic_load_n(p->stop, __ATOMIC_ACQUIRE)) {
		int err;

		if (interval) {
			__u64 now = perfbuf_now_ns();

			/* sleep when well ahead, spin the last few us */
			if (next > now + 50000)
				sleep_until(next - 20000);
			while (perfbuf_now_ns() < next)
				;
			next += interval;
			/* after a stall, do not burst to catch up */
			if (perfbuf_now_ns() > next + 100 * interval + 100000000ULL)
				next = perfbuf_now_ns();
		}
		err = emit_once(p->prog_fd, p->cpu, p->batch, p->size);
		if (err) {
			p->err = err;
			break;
		}
		p->runs++;
		p->requested += p->batch;
	}
	return NULL;
}

int producer_start(struct producer *p)
{
	int err;

	if (!p->batch || p->batch > EMIT_MAX_BATCH || !p->stop)
		return -EINVAL;
	p->err = 0;
	p->runs = p->requested = 0;
	err = pthread_create(&p->thread, NULL, producer_main, p);
	if (err)
		return -err;
	p->started = true;
	return 0;
}

int producer_join(struct producer *p)
{
	if (p->started) {
		pthread_join(p->thread, NULL);
		p->started = false;
	}
	return p->err;
}

#define SUB (1U << LAT_SUB_BITS)

void lat_add(struct lat_hist *h, __u64 ns)
{
	unsigned int idx;

	if (ns < SUB) {
		idx = (unsigned int)ns;
	} else {
		int e = 63 - __builtin_clzll(ns);	/* >= LAT_SUB_BITS */

		idx = (unsigned int)((e - LAT_SUB_BITS + 1) * SUB +
				     ((ns >> (e - LAT_SUB_BITS)) & (SUB - 1)));
	}
	h->b[idx]++;
	h->cnt++;
	if (ns > h->max)
		h->max = ns;
}

/* Midpoint of bucket @idx. */
static __u64 bucket_ns(unsigned int idx)
{
	unsigned int e, sub;

	if (idx < SUB)
		return idx;
	e = idx / SUB + LAT_SUB_BITS - 1;
	sub = idx % SUB;
	return ((__u64)(SUB + sub) << (e - LAT_SUB_BITS)) +
	       ((1ULL << (e - LAT_SUB_BITS)) >> 1);
}

__u64 lat_quantile(const struct lat_hist *h, double q)
{
	__u64 want, seen = 0;

	if (!h->cnt)
		return 0;
	want = (__u64)(q * (double)h->cnt);
	if (want >= h->cnt)
		want = h->cnt - 1;
	for (unsigned int i = 0; i < LAT_BUCKETS; i++) {
		seen += h->b[i];
		if (seen > want) {
			__u64 v = bucket_ns(i);

			return v < h->max ? v : h->max;
		}
	}
	return h->max;
}
