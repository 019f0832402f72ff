// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The trace engine's session: its steps in the order session.h gives. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>

#include "common/cli.h"
#include "common/kfeat.h"
#include "common/loaderr.h"
#include "common/rings.h"
#include "filter.h"
#include "output/ledger.h"
#include "session.h"
#include "stop.h"
#include "tracefs.h"
#include "trace.skel.h"

void trace_session__init(struct trace_session *s, const char *prog,
			 const struct trace_session_opts *o)
{
	memset(s, 0, sizeof(*s));
	s->prog = prog;
	s->o = *o;
	s->set.prog = prog;
	s->filters.prog = prog;
	s->set.filter = o->filter;
	s->set.read = o->read;
	s->pid.fd = -1;
}

/* The filters' syntax first: a typo costs nothing. */
int trace_session__add_filters(struct trace_session *s)
{
	for (int i = 0; i < s->o.nfilters; i++)
		if (filter_add(&s->filters, s->o.filters[i]))
			return -EINVAL;
	return 0;
}

/* Privileges, tracefs, the probes parsed and their cost said. */
int trace_session__prepare(struct trace_session *s, int nprobes, char **probes)
{
	if (cli_need_privileges(s->prog, CLI_BPF | CLI_TRACEFS))
		return -EPERM;
	loaderr_capture(s->o.verbose);
	if (tracefs_ensure(s->prog))
		return -ENOENT;
	for (int i = 0; i < nprobes; i++)
		if (probes_parse(&s->set, probes[i]))
			return -EINVAL;
	if (probes_pair_latency(&s->set))
		return -ENOMEM;
	if (probes_add_members(&s->set, &s->filters, s->o.members, s->o.nmembers))
		return -EINVAL;
	probes_warn_cost(&s->set);
	s->max_rec = probes_record_max(&s->set);
	return 0;
}

/* per probe: a link and a perf event, or a program, link and BTF; without
 * attach cookies an object of its own too (its maps, the shared ones
 * duplicated: 16 fds in all) */
int trace_session__need_fds(struct trace_session *s, unsigned int extra)
{
	unsigned int per = kfeat_has(KFEAT_COOKIE) ? 3 : 16;

	return cli_need_fds(s->prog, per * s->set.n + extra) ? -EMFILE : 0;
}

/* The kinds of @set's probes, a bit each */
static unsigned int probe_kinds(const struct probe_set *set)
{
	unsigned int kinds = 0;

	for (int i = 0; i < set->n; i++)
		kinds |= 1u << set->v[i].kind;
	return kinds;
}

/* Only the shared programs @s's probes can use: the verifier takes
 * 0.1-0.2 s for each (0.5 s of 0.75 for a tracepoint alone). fentry and
 * fexit fall back to kprobes, so they keep those. Without attach cookies
 * (before 5.15) only kprobes share one (by address); every other probe
 * loads its own (probe_prog()). */
static void autoload_used(struct trace_session *s)
{
	unsigned int kinds = probe_kinds(&s->set);
	bool cookies = kfeat_has(KFEAT_COOKIE);
	bool kfunc = kinds & (1u << PK_KPROBE | 1u << PK_KRETPROBE |
			      1u << PK_FENTRY | 1u << PK_FEXIT);
	bool uprobe = cookies && kinds & (1u << PK_UPROBE | 1u << PK_URETPROBE);

	bpf_program__set_autoload(s->skel->progs.trace_tp,
				  cookies && kinds & 1u << PK_TRACEPOINT);
	bpf_program__set_autoload(s->skel->progs.trace_kprobe, kfunc);
	bpf_program__set_autoload(s->skel->progs.trace_kretprobe, cookies && kfunc);
	bpf_program__set_autoload(s->skel->progs.trace_uprobe, uprobe);
	bpf_program__set_autoload(s->skel->progs.trace_uretprobe, uprobe);
}

/* The BPF object, loaded: the programs attached per probe, with their
 * own target, are loaded later (probe.c). */
static int load_bpf(struct trace_session *s)
{
	struct trace *skel;
	int err;

	s->skel = skel = trace_obj_open(&s->set);
	if (!skel) {
		err = -errno;
		cli_say(s->prog, "opening the BPF object failed: %s%s\n", cli_strerror(errno), cli_hint(errno));
		return err;
	}
	skel->rodata->any_filter = s->filters.n > 0;
	bpf_program__set_autoload(skel->progs.trace_tp_btf, false);
	bpf_program__set_autoload(skel->progs.trace_raw_tp, false);
	bpf_program__set_autoload(skel->progs.trace_fentry, false);
	bpf_program__set_autoload(skel->progs.trace_fexit, false);
	bpf_program__set_autoload(skel->progs.trace_sys_enter_btf, false);
	bpf_program__set_autoload(skel->progs.trace_sys_exit_btf, false);
	bpf_program__set_autoload(skel->progs.trace_sys_enter, false);
	bpf_program__set_autoload(skel->progs.trace_sys_exit, false);
	bpf_program__set_autoload(skel->progs.trace_uprobe_multi, false);
	bpf_program__set_autoload(skel->progs.trace_uretprobe_multi, false);
	bpf_program__set_autoload(skel->progs.trace_kprobe_multi,
				  kfunc_wants_multi(&s->set, PK_KPROBE));
	bpf_program__set_autoload(skel->progs.trace_kretprobe_multi,
				  kfunc_wants_multi(&s->set, PK_KRETPROBE));
	autoload_used(s);
	err = kfeat_prepare(skel->obj, s->prog);	/* said */
	if (err)
		return err;
	err = trace__load(skel);
	if (err)
		loaderr_say(s->prog, "the BPF programs", err);
	return err;
}

/* The programs' ledger: every probe's outputs by outcome (the object's
 * BTF is at hand: the map's is not read back from the kernel) */
static int open_ledger(struct trace_session *s)
{
	PERFBUF_OPTS(perfbuf_ledger_opts, o, .btf = bpf_object__btf(s->skel->obj));

	s->ledger = perfbuf_ledger__new(bpf_map__fd(s->skel->maps.perfbuf_ledger),
					&o);
	if (!s->ledger)
		cli_say(s->prog, "the BPF programs' ledger: %s\n", strerror(errno));
	return s->ledger ? 0 : -errno;
}

int trace_session__ledger_fd(const struct trace_session *s)
{
	return s->skel ? bpf_map__fd(s->skel->maps.perfbuf_ledger) : -ENOENT;
}

int trace_session__load(struct trace_session *s)
{
	return load_bpf(s) ?:
	       filters_load(&s->filters, &s->set,
			    bpf_map__fd(s->skel->maps.filter_of),
			    bpf_map__fd(s->skel->maps.filters)) ?:
	       open_ledger(s);
}

int trace_session__open_rings(struct trace_session *s, struct perfbuf_opts *po,
			      perfbuf_record_fn fn, void *ctx)
{
	if (!po->page_cnt)
		po->page_cnt = (size_t)s->o.pages;
	if (!po->latency_ms)
		po->latency_ms = (int)s->o.latency;
	if (!po->max_record_size)
		po->max_record_size = s->max_rec;
	s->pb = cli_perfbuf_new(s->prog, bpf_map__fd(s->skel->maps.events),
				fn, ctx, po, "--buffer-size");
	return s->pb ? 0 : -errno;
}

/* "Attached N probes." on stderr (what the tests wait for) */
static void say_attached(const struct probe_set *set)
{
	int attached = probes_attached(set);

	fprintf(stderr, "Attached %d probe%s. Hit Ctrl-C to end.\n", attached,
		attached == 1 ? "" : "s");
}

/* Attaching hundreds of tracepoints takes a while: @between reads
 * meanwhile (see probes_attach()). */
int trace_session__attach(struct trace_session *s, bool (*between)(void *ctx),
			  void *ctx)
{
	int err = probes_attach(&s->set, s->skel, between, ctx);

	if (!err)
		say_attached(&s->set);
	return err;	/* the message is printed; nothing stays attached */
}

size_t trace_pages_needed(size_t max_rec)
{
	size_t page = sysconf(_SC_PAGESIZE), n = 1;
	size_t rec = perfbuf_record__sample_size(max_rec, PERF_SAMPLE_RAW | PERF_SAMPLE_TIME);

	while (n * page - 8 < rec + 32)
		n *= 2;
	return n;
}

void trace_totals(struct perfbuf *pb, struct trace_totals *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < perfbuf__ring_cnt(pb); i++) {
		struct perfbuf_cpu_stats st = { .sz = sizeof(st) };
		double fill;

		if (perfbuf__stats(pb, i, &st))
			continue;
		t->samples += st.samples;
		t->lost += st.lost > st.lost_kernel ? st.lost : st.lost_kernel;
		fill = st.data_size ? (double)st.avail / st.data_size : 0;
		if (fill > t->fill)
			t->fill = fill;
		if ((double)st.high_water / st.data_size > t->peak)
			t->peak = (double)st.high_water / st.data_size;
	}
}

/* --stats: each probe that offered events in the last second, its rates
 * (@prev: the counts a second ago, per kind) */
static void print_probe_stats(struct trace_session *s, struct tv_kind_summary *prev)
{
	struct ledger_view v;

	if (ledger_view_read(&v, s->ledger, NULL, s->prog, s->set.n,
			     probe_spec_of, &s->set))
		return;
	for (size_t k = 0; k < v.nkinds && k < (size_t)s->set.n; k++) {
		const struct tv_kind_summary *c = &v.kinds[k];

		if (c->offered != prev[k].offered)
			fprintf(stderr, "stats:   %llu offered/s, %llu lost/s, %llu no reader/s: %s\n",
				(unsigned long long)(c->offered - prev[k].offered),
				(unsigned long long)(c->lost - prev[k].lost),
				(unsigned long long)(c->no_reader - prev[k].no_reader),
				c->name);
		prev[k] = *c;
		prev[k].name = NULL;
	}
	ledger_view_free(&v);
}

/* --stats: the last second's rates and the ring fill, on stderr; then
 * the probes' */
static void print_stats(struct trace_session *s, struct trace_totals *prev,
			struct tv_kind_summary *kprev)
{
	struct trace_totals tot;

	trace_totals(s->pb, &tot);
	fprintf(stderr, "stats: %llu events/s, %llu lost/s, ring fill %.0f%% (peak %.0f%%)\n",
		(unsigned long long)(tot.samples - prev->samples),
		(unsigned long long)(tot.lost - prev->lost),
		tot.fill * 100, tot.peak * 100);
	*prev = tot;
	if (kprev)
		print_probe_stats(s, kprev);
}

/* -p's process exited: said, and the run ends as after Ctrl-C (the
 * programs stopped, then what the rings hold drained) */
static bool pid_exited(struct trace_session *s)
{
	if (!pidwatch_gone(&s->pid))
		return false;
	cli_say(s->prog, "process %d exited\n", (int)s->pid.pid);
	return true;
}

/* Poll until a signal, the duration, the exit of -p's process, l->stop or
 * l->done(). 0 or -errno (said). */
int trace_session__loop(struct trace_session *s, const struct trace_loop *l)
{
	__u64 now = perfbuf_now_ns(), next_stats = now + 1000000000ULL;
	__u64 deadline = s->o.duration_ns ? now + s->o.duration_ns : 0;
	struct trace_totals prev = {};
	/* --stats: the probes' counts a second ago */
	struct tv_kind_summary *kprev = s->o.stats ?
		calloc(s->set.n ? s->set.n : 1, sizeof(*kprev)) : NULL;
	int err = 0;

	pidwatch_open(&s->pid, (pid_t)s->o.filter.pid, s->pb);
	while (!*l->exiting && !(l->stop && *l->stop) && !pid_exited(s)) {
		err = perfbuf__poll(s->pb, 100);
		if (err < 0 && err != -EINTR) {
			cli_say(s->prog, "reading the perf buffer failed: %s\n", strerror(-err));
			break;
		}
		err = 0;
		if (l->done && l->done(l->ctx))
			break;
		now = perfbuf_now_ns();
		if (deadline && now >= deadline)
			break;
		if (s->o.stats && now >= next_stats) {
			print_stats(s, &prev, kprev);
			next_stats += 1000000000ULL;
			if (next_stats < now)
				next_stats = now + 1000000000ULL;
		}
	}
	free(kprev);
	return err;
}

/* Stop every program writing: a drain after it sees every record. */
int trace_session__stop(struct trace_session *s)
{
	int err = trace_stop(s->skel);

	if (err)
		cli_say(s->prog, "stopping the probes failed (%s): events written after the drain are not counted\n", strerror(-err));
	return err;
}

void trace_session__summary(struct trace_session *s, struct tv_summary *sum,
			    struct tv_cpu_summary *cpus)
{
	size_t n = perfbuf__ring_cnt(s->pb);

	sum->ncpus = n;
	sum->cpus = cpus;
	for (size_t i = 0; i < n; i++) {
		struct perfbuf_cpu_stats st = { .sz = sizeof(st) };

		perfbuf__stats(s->pb, i, &st);
		cpus[i] = (struct tv_cpu_summary){ .cpu = st.cpu,
			.received = st.samples, .lost = st.lost_total };
		sum->received += st.samples;
		sum->lost += cpus[i].lost;
	}
	/* per probe, checked against the rings: the view lives until
	 * trace_session__free(), the sink's summary reads it */
	ledger_view_free(&s->view);
	if (!ledger_view_read(&s->view, s->ledger, s->pb, s->prog, s->set.n,
			      probe_spec_of, &s->set))
		ledger_view_summary(&s->view, sum, "probe");
	rings_mapped(s->pb, &sum->ring_bytes, &sum->rings);
}

/* Slow with many probes (stop.c); see probes_detach() for @signals. */
int trace_session__detach(struct trace_session *s, volatile sig_atomic_t *signals)
{
	return probes_detach(&s->set, signals);
}

void trace_session__free(struct trace_session *s)
{
	pidwatch_close(&s->pid);
	probes_free(&s->set);
	filters_free(&s->filters);
	ledger_view_free(&s->view);
	perfbuf_ledger__free(s->ledger);
	s->ledger = NULL;
	perfbuf__free(s->pb);
	trace__destroy(s->skel);
	s->pb = NULL;
	s->skel = NULL;
}
