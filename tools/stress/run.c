// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf stress: the producers, the consumer and the checks of every
 * record (sequence, CPU, size, time order). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "common/cli.h"
#include "common/loaderr.h"
#include "emit.h"
#include "emit.skel.h"
#include "stress.h"

static volatile sig_atomic_t exiting;

static void check_order(struct stress *s, const struct perfbuf_record *rec)
{
	if (rec->flags & PERFBUF_RECF_LATE)
		s->late++;
	else if (rec->time_ns < s->last_ns)
		s->order_errors++;
	else
		s->last_ns = rec->time_ns;
}

static int on_record(void *ctx, const struct perfbuf_record *rec)
{
	struct stress *s = ctx;
	struct cpu_seen *c;
	struct emit_rec r;

	if (rec->cpu < 0 || rec->cpu >= MAX_CPUS)
		return 0;
	c = &s->seen[rec->cpu];
	if (rec->time_ns)
		check_order(s, rec);
	if (rec->kind == PERFBUF_REC_LOST) {
		c->lost += rec->lost;
		c->next_seq += rec->lost;	/* the gap it explains */
		return 0;
	}
	if (rec->kind != PERFBUF_REC_SAMPLE)
		return 0;
	/* raw payloads are only 4-byte aligned, and may wrap the ring end */
	if (rec->data_sz >= sizeof(r))
		memcpy(&r, rec->data, sizeof(r));
	else
		perfbuf_record__copy(rec, &r, sizeof(r));
	c->received++;
	if (r.seq != c->next_seq) {
		if (!c->seq_errors) {
			c->first_bad_seq = r.seq;
			c->first_bad_want = c->next_seq;
		}
		c->seq_errors++;
	}
	if ((int)r.cpu != rec->cpu || r.size != s->size)
		c->bad++;
	c->next_seq = r.seq + 1;
	return 0;
}

/* Privileges, CPUs, memory, the BPF program and the rings: 0 or -1
 * after a message. */
int stress_setup(struct stress_run *run)
{
	struct stress_opts *o = &run->o;

	/* before the load: a signal meanwhile, even to a background job
	 * (SIGINT ignored from its start), ends the run after it */
	cli_stop_on_signals(&exiting, true);
	if (cli_need_privileges("perfbuf stress", CLI_BPF) ||
	    cli_need_fds("perfbuf stress", 0))
		return -1;
	if (!o->n_cpus) {
		o->n_cpus = perfbuf_cpus__online(o->cpus, MAX_CPUS);
		if (o->n_cpus <= 0) {
			cli_say("perfbuf stress", "cannot read the online CPUs\n");
			return -1;
		}
	}
	loaderr_capture(false);
	run->st.size = (__u64)o->size;
	run->st.seen = calloc(MAX_CPUS, sizeof(*run->st.seen));
	run->prod = calloc((size_t)o->n_cpus, sizeof(*run->prod));
	run->res = calloc((size_t)o->n_cpus, sizeof(*run->res));
	if (!run->st.seen || !run->prod || !run->res) {
		cli_say("perfbuf stress", "out of memory\n");
		return -1;
	}
	run->skel = emit_open_load(false, 0);
	if (!run->skel) {
		loaderr_say("perfbuf stress", "the BPF program", -errno);
		return -1;
	}
	{
		PERFBUF_OPTS(perfbuf_opts, po, .page_cnt = (size_t)o->pages,
			     .cpus = o->cpus, .cpu_cnt = (size_t)o->n_cpus,
			     .latency_ms = (int)o->latency, .ordered = o->ordered,
			     .max_record_size = (size_t)o->size);

		run->pb = cli_perfbuf_new("perfbuf stress",
					  bpf_map__fd(run->skel->maps.events),
					  on_record, &run->st, &po, "--pages");
	}
	return run->pb ? 0 : -1;
}

/* Poll until @t_end or a signal; with --consumer-delay, sleep after each
 * round: the producers overrun the rings meanwhile, which is what the
 * LOST accounting is checked against. 0 or -errno (said). */
static int consume(struct stress_run *run, __u64 t_end)
{
	while (!exiting && perfbuf_now_ns() < t_end) {
		__u64 left_ms = (t_end - perfbuf_now_ns()) / 1000000 + 1;
		__u64 now, ns = (__u64)run->o.delay_us * 1000;
		struct timespec ts;
		int err;

		err = perfbuf__poll(run->pb, left_ms < 100 ? (int)left_ms : 100);
		if (err == -EINTR)
			continue;
		if (err < 0) {
			cli_say("perfbuf stress", "poll: %s\n", strerror(-err));
			return err;
		}
		if (!ns)
			continue;
		now = perfbuf_now_ns();
		if (now >= t_end)
			break;
		if (ns > t_end - now)
			ns = t_end - now;
		ts.tv_sec = (time_t)(ns / 1000000000ULL);
		ts.tv_nsec = (long)(ns % 1000000000ULL);
		nanosleep(&ts, NULL);	/* a signal cuts it short: fine */
	}
	return 0;
}

/* Producers on each CPU for the duration, consumed meanwhile, then
 * stopped and joined; the rest drained. 0 or -errno (said). */
int stress_run(struct stress_run *run)
{
	struct stress_opts *o = &run->o;
	__u64 t0 = perfbuf_now_ns(), t_end = t0 + (__u64)(o->duration * 1e9);
	int err = 0;

	for (int i = 0; i < o->n_cpus && !err; i++) {
		run->prod[i] = (struct producer){
			.prog_fd = emit_prog_fd(run->skel, false),
			.cpu = o->cpus[i], .size = (__u64)o->size,
			.batch = (__u64)o->batch, .rate = o->rate, .stop = &run->stop,
		};
		err = producer_start(&run->prod[i]);
		if (err)
			cli_say("perfbuf stress", "starting the producer of CPU %d: %s\n",
				o->cpus[i], strerror(-err));
	}
	if (!err)
		err = consume(run, t_end);
	__atomic_store_n(&run->stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < o->n_cpus; i++) {
		int perr = producer_join(&run->prod[i]);

		if (perr && !err) {
			cli_say("perfbuf stress", "BPF_PROG_TEST_RUN on CPU %d: %s\n",
				o->cpus[i], strerror(-perr));
			err = perr;
		}
	}
	run->secs = (double)(perfbuf_now_ns() - t0) / 1e9;
	if (err)
		return err;
	/* the rest of the records, and losses no LOST record reported */
	err = perfbuf__drain(run->pb);
	if (err < 0)
		cli_say("perfbuf stress", "drain: %s\n", strerror(-err));
	return err < 0 ? err : 0;
}
