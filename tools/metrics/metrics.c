// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf's metrics (metrics.h): the families, in the names of the table
 * in docs/metrics.md, rendered in the server's thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "server.h"
#include "common/say.h"

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static const char *const reason_names[METRICS_REASONS] = {
	[METRICS_NO_SPACE] = "no_space",
	[METRICS_NO_RING] = "no_ring",
	[METRICS_OTHER] = "other",
};

/* One CPU, as one scrape read it, over every collector */
struct cpu_row {
	int cpu;
	bool shown;
	__u64 samples, lost, wakeups, high_water, data_size;
};

struct cpus {
	size_t n;
	struct cpu_row *row;
	__u64 (*bpf)[METRICS_REASONS];	/* by CPU number */
	int nbpf;
};

static const __u64 *bpf_of(const struct cpus *c, int cpu)
{
	static const __u64 none[METRICS_REASONS];

	return c->bpf && cpu >= 0 && cpu < c->nbpf ? c->bpf[cpu] : none;
}

/* ring slot @st added to its CPU's row */
static void add_row(struct cpus *c, const struct perfbuf_cpu_stats *st)
{
	struct cpu_row *r = c->row;

	while (r < c->row + c->n && r->cpu != st->cpu)
		r++;
	if (r == c->row + c->n)
		*r = (struct cpu_row){ .cpu = st->cpu }, c->n++;
	/* a CPU that never had a ring has no series yet; one that went
	 * offline keeps its own */
	r->shown |= st->online || st->offlined || st->samples || st->lost;
	r->samples += st->samples;
	r->lost += st->lost_total;
	r->wakeups += st->wakeups;
	r->data_size += st->online ? st->data_size : 0;
	if (st->high_water > r->high_water)
		r->high_water = st->high_water;
}

static int read_cpus(const struct metrics *m, struct cpus *c)
{
	size_t slots = 0;
	int maxcpu = -1;

	for (int k = 0; k < m->npb; k++)
		slots += perfbuf__ring_cnt(m->pb[k]);
	c->row = calloc(slots ? slots : 1, sizeof(*c->row));
	if (!c->row)
		return -ENOMEM;
	for (int k = 0; k < m->npb; k++)
		for (size_t i = 0; i < perfbuf__ring_cnt(m->pb[k]); i++) {
			struct perfbuf_cpu_stats st = { .sz = sizeof(st) };

			/* safe while the event loop polls: the counters
			 * it published at the end of its last call */
			if (perfbuf__stats(m->pb[k], i, &st))
				continue;
			add_row(c, &st);
			if (st.cpu > maxcpu)
				maxcpu = st.cpu;
		}
	if (!m->bpf || maxcpu < 0)
		return 0;
	c->nbpf = maxcpu + 1;
	c->bpf = calloc(c->nbpf, sizeof(*c->bpf));
	if (c->bpf && m->bpf(m->bpf_ctx, c->nbpf, c->bpf)) {
		free(c->bpf);
		c->bpf = NULL;
	}
	return 0;
}

enum cpu_field { F_RECEIVED, F_LOST, F_SIZE, F_HIGH, F_WAKEUPS };

static const struct {
	const char *name, *type, *help;
} cpu_families[] = {
	[F_RECEIVED] = { "perfbuf_events_received_total", "counter",
			 "Samples delivered from the CPU's ring." },
	[F_LOST] = { "perfbuf_events_lost_total", "counter",
		     "Events lost to a full ring, by CPU, and by probe: each set of series adds up to the summary's lost." },
	[F_SIZE] = { "perfbuf_ring_size_bytes", "gauge",
		     "Data bytes of the CPU's ring (0 while offline)." },
	[F_HIGH] = { "perfbuf_ring_high_water_bytes", "gauge",
		     "Most bytes seen waiting in the CPU's ring at a drain." },
	[F_WAKEUPS] = { "perfbuf_wakeups_total", "counter",
			"Times the CPU's ring was seen ready by the poller." },
};

static __u64 cpu_value(const struct cpu_row *r, enum cpu_field f)
{
	switch (f) {
	case F_RECEIVED: return r->samples;
	case F_LOST: return r->lost;
	case F_SIZE: return r->data_size;
	case F_HIGH: return r->high_water;
	default: return r->wakeups;
	}
}

static void bpf_family(const struct cpus *c, struct expo *e)
{
	char cpu[16];

	expo_family(e, "perfbuf_bpf_output_errors_total", "counter",
		    "bpf_perf_event_output() failures seen by the BPF side, by reason.");
	for (size_t i = 0; i < c->n; i++) {
		const __u64 *b = bpf_of(c, c->row[i].cpu);

		if (!c->row[i].shown)
			continue;
		snprintf(cpu, sizeof(cpu), "%d", c->row[i].cpu);
		for (int r = 0; r < METRICS_REASONS; r++) {
			struct expo_label l[2] = { { "cpu", cpu },
						   { "reason", reason_names[r] } };

			expo_u64(e, "perfbuf_bpf_output_errors_total", l, 2, b[r]);
		}
	}
}

/* The ring memory of all CPUs together: what --buffer-size bounds */
static void mapped_family(const struct cpus *c, struct expo *e)
{
	__u64 sum = 0;

	for (size_t i = 0; i < c->n; i++)
		sum += c->row[i].data_size;
	expo_family(e, "perfbuf_ring_mapped_bytes", "gauge",
		    "Ring data bytes mapped now, all CPUs together (a header page more per ring).");
	expo_u64(e, "perfbuf_ring_mapped_bytes", NULL, 0, sum);
}

/* The ledger's kinds: offered in a family of its own, lost as series of
 * perfbuf_events_lost_total (whose family is open) */
static void kinds_lost(const struct metrics *m, struct expo *e)
{
	struct metrics_kind *k = NULL;
	size_t n = 0;

	if (!m->kinds || m->kinds(m->kinds_ctx, &k, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		struct expo_label l = { m->kind_label, k[i].name };

		expo_u64(e, "perfbuf_events_lost_total", &l, 1, k[i].lost);
	}
	expo_family(e, "perfbuf_events_offered_total", "counter",
		    "Events the BPF programs offered to the rings, by probe: received, lost, or not written (no reader, failed).");
	for (size_t i = 0; i < n; i++) {
		struct expo_label l = { m->kind_label, k[i].name };

		expo_u64(e, "perfbuf_events_offered_total", &l, 1, k[i].offered);
		free(k[i].name);
	}
	free(k);
}

static void render_cpus(const struct metrics *m, struct expo *e)
{
	struct cpus c = {};
	char cpu[16];

	if (read_cpus(m, &c))
		return;
	for (size_t f = 0; f < sizeof(cpu_families) / sizeof(cpu_families[0]); f++) {
		expo_family(e, cpu_families[f].name, cpu_families[f].type,
			    cpu_families[f].help);
		for (size_t i = 0; i < c.n; i++) {
			struct expo_label l = { "cpu", cpu };

			if (!c.row[i].shown)
				continue;
			snprintf(cpu, sizeof(cpu), "%d", c.row[i].cpu);
			expo_u64(e, cpu_families[f].name, &l, 1,
				 cpu_value(&c.row[i], f));
		}
		if (f == F_LOST)
			kinds_lost(m, e);
		if (f == F_LOST && m->bpf)
			bpf_family(&c, e);
	}
	mapped_family(&c, e);
	free(c.row);
	free(c.bpf);
}

static void one_labelled(struct expo *e, const char *name, const char *help,
			 const char *label, const char *value, __u64 v)
{
	struct expo_label l = { label, value };

	expo_family(e, name, "counter", help);
	expo_u64(e, name, &l, 1, v);
}

static void render_counters(struct metrics *m, struct expo *e)
{
	struct metrics_counts *p = &m->pub;

	if (m->sink) {
		one_labelled(e, "perfbuf_events_written_total",
			     "Events the output (sink) wrote whole.", "sink", m->sink,
			     LOAD(p->written));
		one_labelled(e, "perfbuf_sink_errors_total",
			     "Write failures of the output (the first one ends it).",
			     "sink", m->sink, LOAD(p->sink_errors));
	}
	if (m->nats) {
		static const char *const why[] = { "buffer_full", "rejected", "unacked" };
		__u64 v[] = { LOAD(p->nats_buffer_full), LOAD(p->nats_rejected),
			      LOAD(p->nats_unacked) };

		expo_one_u64(e, "perfbuf_nats_published_total", "counter",
			     "Messages given to the NATS publisher.", LOAD(p->nats_published));
		expo_one_u64(e, "perfbuf_nats_acknowledged_total", "counter",
			     "Messages the JetStream stream acknowledged.",
			     LOAD(p->nats_acknowledged));
		expo_family(e, "perfbuf_nats_dropped_total", "counter",
			    "Messages dropped, by reason.");
		for (int i = 0; i < 3; i++) {
			struct expo_label l = { "reason", why[i] };

			expo_u64(e, "perfbuf_nats_dropped_total", &l, 1, v[i]);
		}
	}
	if (m->profile) {
		expo_one_u64(e, "perfbuf_profile_samples_total", "counter",
			     "Stack samples received.", LOAD(p->profile_samples));
		expo_one_u64(e, "perfbuf_profile_lost_total", "counter",
			     "Sample records lost in the rings.", LOAD(p->profile_lost));
	}
}

static void render(void *ctx, struct expo *e)
{
	struct metrics *m = ctx;
	struct expo_label v = { "version", perfbuf_version() };

	expo_family(e, "perfbuf_build_info", "gauge",
		    "perfbuf's version, as a label; the value is 1.");
	expo_u64(e, "perfbuf_build_info", &v, 1, 1);
	if (__atomic_load_n(&m->ready, __ATOMIC_ACQUIRE)) {
		if (m->npb)
			render_cpus(m, e);
		render_counters(m, e);
	}
	metrics_process(e);
}

int metrics_check_addr(const char *prog, const char *arg)
{
	struct sockaddr_storage ss;
	socklen_t len;
	const char *why;

	if (!metrics_addr_parse(arg, &ss, &len, &why))
		return 0;
	cli_say(prog, "--metrics wants [ADDR:]PORT (e.g. 9464 or 0.0.0.0:9464), not '%s': %s\n",
		arg, why);
	return -EINVAL;
}

int metrics_start(struct metrics *m, const char *prog, const char *arg)
{
	char url[128];
	int err;

	if (metrics_check_addr(prog, arg))
		return -EINVAL;
	m->srv = metrics_server__new(arg, render, m, NULL);
	if (!m->srv) {
		err = -errno;
		cli_say(prog, "--metrics %s: cannot listen there: %s%s\n", arg,
			strerror(-err), err == -EADDRINUSE ? "; give another port" : "");
		return err;
	}
	/* the port chosen, for PORT 0: what a test or a script reads */
	if (!metrics_server__url(m->srv, url, sizeof(url)))
		fprintf(stderr, "Metrics at %s\n", url);
	return 0;
}

void metrics_ready(struct metrics *m)
{
	__atomic_store_n(&m->ready, true, __ATOMIC_RELEASE);
}

void metrics_publish(struct metrics *m, const struct metrics_counts *c)
{
	struct metrics_counts *p = &m->pub;

	if (!m->srv)
		return;
	STORE(p->written, c->written);
	STORE(p->sink_errors, c->sink_errors);
	STORE(p->nats_published, c->nats_published);
	STORE(p->nats_acknowledged, c->nats_acknowledged);
	STORE(p->nats_buffer_full, c->nats_buffer_full);
	STORE(p->nats_rejected, c->nats_rejected);
	STORE(p->nats_unacked, c->nats_unacked);
	STORE(p->profile_samples, c->profile_samples);
	STORE(p->profile_lost, c->profile_lost);
}

void metrics_stop(struct metrics *m)
{
	metrics_server__free(m->srv);
	m->srv = NULL;
}
