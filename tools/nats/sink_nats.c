// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The NATS sink (sink_nats.h): the JSON sink renders each line, this
 * one adds it to its subject's batch (batch.c) and hands full or aged
 * batches to the publisher (pub.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perfbuf.h"
#include "metrics/metrics.h"
#include "batch.h"
#include "pub.h"
#include "sink_nats.h"
#include "subject.h"
#include "common/say.h"

/* Subjects of what is not an event: {probe} is this word. */
enum { SUBJ_LOST, SUBJ_CPU, SUBJ_SUMMARY, SUBJ_EXTRA };
static const char *const extra_names[SUBJ_EXTRA] = { "lost", "cpu", "summary" };

struct nats_sink {
	struct trace_sink base;
	const struct nats_opts *o;
	struct trace_sink *json;	/* renders the lines */
	struct nats_conn conn;
	struct nats_pub pub;
	const struct tv_schema *schema;
	char **subjects;		/* per probe, then SUBJ_EXTRA */
	struct nats_batch *batches;	/* per subject */
	int nsubjects;
	bool checked;			/* the stream is known to hold them */
	char host[256];
	char id_prefix[384];		/* host/boot id/pid.start/ */
	__u64 max_events;		/* a batch's bounds */
	size_t max_bytes;
	__u64 wait_ns;			/* a batch waits this long, at most */
	__s64 real_minus_mono;		/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	__u64 next_stats;
	struct nats_pub_counts prev;
	char args[NATS_ARGS_MAX + 1];	/* the event's Perfbuf-Args */
};

static struct nats_sink *nats_of(struct trace_sink *s)
{
	return (struct nats_sink *)s;
}

static void update_clock(struct nats_sink *n)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	n->real_minus_mono = (__s64)ts.tv_sec * 1000000000 + ts.tv_nsec -
			     (__s64)perfbuf_now_ns();
}

/* host/boot id/pid.start/: with the subject and its batch's first line
 * number, unique across runs and reboots, the same for a resent copy. */
static void make_id_prefix(struct nats_sink *n)
{
	char boot[64] = "noboot";
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	if (f) {
		if (fgets(boot, sizeof(boot), f))
			boot[strcspn(boot, "\n")] = 0;
		fclose(f);
	}
	snprintf(n->id_prefix, sizeof(n->id_prefix), "%s/%s/%d.%llu/", n->host,
		 boot, (int)getpid(), (unsigned long long)perfbuf_now_ns());
}

static int make_subjects(struct nats_sink *n, const struct tv_schema *schema)
{
	n->nsubjects = schema->nprobes + SUBJ_EXTRA;
	n->subjects = calloc(n->nsubjects, sizeof(char *));
	n->batches = calloc(n->nsubjects, sizeof(*n->batches));
	if (!n->subjects || !n->batches)
		return -ENOMEM;
	for (int i = 0; i < n->nsubjects; i++) {
		const char *probe = i < schema->nprobes ? schema->probes[i].spec :
				    extra_names[i - schema->nprobes];
		const char *why;

		n->subjects[i] = nats_subject_expand(n->o->subject, n->host, probe);
		if (!n->subjects[i])
			return -ENOMEM;
		why = nats_subject_invalid(n->subjects[i], false);
		if (why) {
			cli_say(n->o->prog, "subject '%s' is not one to publish to: %s\n",
				n->subjects[i], why);
			return -EINVAL;
		}
	}
	return 0;
}

/* A batch's bytes: --nats-batch's, or what the server takes (its
 * max_payload less room for the headers), and at most half the buffer
 * (else one batch would not fit it). */
static void set_max_bytes(struct nats_sink *n)
{
	__s64 payload = n->conn.nc ? natsConnection_GetMaxPayload(n->conn.nc) : 0;
	size_t max = n->o->batch_bytes ? (size_t)n->o->batch_bytes : SIZE_MAX;

	if (payload <= 0)
		payload = 1 << 20;	/* nats-server's default */
	payload = payload > 8192 ? payload - 4096 : payload / 2;
	if (max > (size_t)payload)
		max = payload;
	if (max > (size_t)n->o->buffer / 2)
		max = n->o->buffer / 2;
	n->max_bytes = max;
}

static int nats_begin(struct trace_sink *s, const struct tv_schema *schema)
{
	struct nats_sink *n = nats_of(s);
	int err;

	n->schema = schema;
	err = trace_sink__begin(n->json, schema) ?: make_subjects(n, schema);
	if (err == -ENOMEM)
		cli_say(n->o->prog, "out of memory\n");
	if (!err && n->o->spool)
		err = nats_pub_spool(&n->pub, n->o->spool, n->o->spool_size);
	if (err)
		return err;
	err = nats_conn_open(&n->conn, n->o, nats_pub_on_ack, &n->pub);
	set_max_bytes(n);
	if (err == -EAGAIN)
		return 0;	/* --nats-wait: checked once connected */
	if (!err)
		err = nats_stream_ensure(&n->conn, n->subjects, n->nsubjects);
	n->checked = !err;
	return err;
}

/* Subject @i's batch, as a message, to the publisher. */
static void send_batch(struct nats_sink *n, int i)
{
	struct nats_batch *b = &n->batches[i];
	char id[sizeof(n->id_prefix) + 16];
	struct nats_batch_hdr h = {
		.subject = n->subjects[i], .host = n->host, .id = id,
		.probe = i < n->schema->nprobes ? n->schema->probes[i].spec : NULL,
	};
	__u64 events = b->count;

	snprintf(id, sizeof(id), "%s%d/", n->id_prefix, i);
	nats_pub_add(&n->pub, nats_batch_msg(b, &h), events);
}

/* One line (its '\n' included) of Unix time @real into subject @i's
 * batch; @args: an event's Perfbuf-Args (a batch holds one kind). */
static void add_line(struct nats_sink *n, int i, const char *line, size_t len,
		     __s64 real, const char *args)
{
	struct nats_batch *b = &n->batches[i];

	if (b->count && (b->len + len > n->max_bytes ||
			 (args && strcmp(args, b->args))))
		send_batch(n, i);
	if (!b->count && args)
		strcpy(b->args, args);
	if (nats_batch_add(b, line, len, real)) {
		nats_pub_add(&n->pub, NULL, 1);	/* out of memory: dropped */
		return;
	}
	if (b->count >= n->max_events || b->len >= n->max_bytes)
		send_batch(n, i);
}

static void nats_event(struct trace_sink *s, const struct tv_event *e)
{
	struct nats_sink *n = nats_of(s);
	size_t len;
	const char *line = trace_sink_json_line(n->json, TRACE_LINE_EVENT, e, &len);

	nats_args_kinds(e, n->args);
	add_line(n, e->probe->id, line, len, e->time_ns + n->real_minus_mono,
		 n->args);
}

static void nats_lost(struct trace_sink *s, const struct tv_lost *l)
{
	struct nats_sink *n = nats_of(s);
	size_t len;
	const char *line = trace_sink_json_line(n->json, TRACE_LINE_LOST, l, &len);
	__u64 t = l->time_ns ? l->time_ns : perfbuf_now_ns();

	add_line(n, n->schema->nprobes + SUBJ_LOST, line, len,
		 t + n->real_minus_mono, NULL);
}

static void nats_notice(struct trace_sink *s, const struct tv_notice *c)
{
	struct nats_sink *n = nats_of(s);
	size_t len;
	const char *line = trace_sink_json_line(n->json, TRACE_LINE_NOTICE, c, &len);

	add_line(n, n->schema->nprobes + SUBJ_CPU, line, len,
		 c->time_ns + n->real_minus_mono, NULL);
}

/* Batches that have waited long enough (all: every one) sent. */
static void send_due(struct nats_sink *n, bool all)
{
	__u64 now = perfbuf_now_ns();

	for (int i = 0; i < n->nsubjects && n->batches; i++)
		if (n->batches[i].count &&
		    (all || now - n->batches[i].opened_ns >= n->wait_ns))
			send_batch(n, i);
}

/* --stats: a line a second on stderr, in events (and batches) */
static void print_stats(struct nats_sink *n)
{
	struct nats_pub_counts c;
	__u64 now = perfbuf_now_ns();

	if (now < n->next_stats)
		return;
	nats_pub_counts(&n->pub, &c);
	if (n->next_stats)
		fprintf(stderr, "nats: %llu published/s, %llu acknowledged/s (%llu batches/s), %llu retried, %llu dropped, %llu batches waiting (%llu KiB in memory, %llu KiB spooled), %llu in flight%s\n",
			(unsigned long long)(c.published.events - n->prev.published.events),
			(unsigned long long)(c.acknowledged.events - n->prev.acknowledged.events),
			(unsigned long long)(c.acknowledged.batches - n->prev.acknowledged.batches),
			(unsigned long long)c.retried.events,
			(unsigned long long)(c.buffer_full.events + c.rejected.events),
			(unsigned long long)c.queued,
			(unsigned long long)(c.bytes >> 10),
			(unsigned long long)(c.spool_bytes >> 10),
			(unsigned long long)c.in_flight,
			nats_conn_up(&n->conn) ? "" : ", disconnected");
	n->prev = c;
	n->next_stats = now + 1000000000ULL;
}

static int nats_flush(struct trace_sink *s)
{
	struct nats_sink *n = nats_of(s);
	struct nats_pub_counts c;

	update_clock(n);
	if (!n->checked && !s->err && nats_conn_up(&n->conn)) {
		s->err = nats_stream_ensure(&n->conn, n->subjects, n->nsubjects);
		n->checked = !s->err;
		set_max_bytes(n);	/* this server's max_payload */
	}
	send_due(n, false);
	if (n->checked)
		nats_pub_send(&n->pub);
	if (n->o->stats)
		print_stats(n);
	nats_pub_counts(&n->pub, &c);
	s->written = c.acknowledged.events;
	return s->err;
}

/* "NATS events: ..." or "NATS batches: ...": the counts in one unit;
 * with a spool, what it keeps for the next run */
static void say_counts(const struct nats_pub_counts *c, bool batches,
		       bool spool)
{
#define N(f) (unsigned long long)(batches ? c->f.batches : c->f.events)
	struct nats_n d = nats_pub_dropped(c);
	char kept[64] = "";

	if (spool)
		snprintf(kept, sizeof(kept), ", %llu kept in the spool", N(spooled));
	fprintf(stderr, "NATS %s: %llu published, %llu acknowledged (%llu duplicates), %llu retried, %llu dropped (%llu buffer full, %llu refused, %llu unacknowledged at the end)%s\n",
		batches ? "batches" : "events", N(published), N(acknowledged),
		N(duplicates), N(retried),
		(unsigned long long)(batches ? d.batches : d.events),
		N(buffer_full), N(rejected), N(unacked), kept);
#undef N
}

/* The summary published too, then everything acknowledged (or given
 * up on after a quiet while), then the counts on stderr. */
static int nats_summary(struct trace_sink *s, const struct tv_summary *sum)
{
	struct nats_sink *n = nats_of(s);
	/* a cluster electing a stream leader under load takes seconds */
	int idle = n->o->ack_wait_ms * 5 > 10000 ? n->o->ack_wait_ms * 5 : 10000;
	int i = n->schema->nprobes + SUBJ_SUMMARY;
	struct nats_pub_counts c;
	size_t len;
	const char *line = trace_sink_json_line(n->json, TRACE_LINE_SUMMARY, sum, &len);

	add_line(n, i, line, len, perfbuf_now_ns() + n->real_minus_mono, NULL);
	send_due(n, true);
	/* never connected: all dropped */
	nats_pub_finish(&n->pub, n->checked ? idle : 0);
	nats_pub_counts(&n->pub, &c);
	s->written = c.acknowledged.events;
	cli_say(n->o->prog, "%llu events received, %llu lost\n", (unsigned long long)sum->received, (unsigned long long)sum->lost);
	say_counts(&c, false, n->o->spool);
	say_counts(&c, true, n->o->spool);
	return 0;
}

static void nats_end(struct trace_sink *s)
{
	struct nats_sink *n = nats_of(s);

	nats_conn_close(&n->conn);
	/* no libnats thread left to call the acknowledgement handler */
	nats_CloseAndWait(2000);
	nats_pub_free(&n->pub);
	for (int i = 0; i < n->nsubjects && n->subjects; i++)
		free(n->subjects[i]);
	for (int i = 0; i < n->nsubjects && n->batches; i++)
		nats_batch_free(&n->batches[i]);
	free(n->subjects);
	free(n->batches);
	trace_sink__end(n->json);
	free(n);
}

static const struct trace_sink_ops nats_ops = {
	.name = "nats",
	.begin = nats_begin,
	.event = nats_event,
	.lost = nats_lost,
	.notice = nats_notice,
	.flush = nats_flush,
	.summary = nats_summary,
	.end = nats_end,
};

void trace_sink_metrics(struct trace_sink *s, struct metrics_counts *m)
{
	struct nats_pub_counts c;

	m->written = s->written;
	m->sink_errors = s->err != 0;
	if (s->ops != &nats_ops)
		return;
	nats_pub_counts(&nats_of(s)->pub, &c);
	m->nats_published = c.published.events;
	m->nats_acknowledged = c.acknowledged.events;
	m->nats_buffer_full = c.buffer_full.events;
	m->nats_rejected = c.rejected.events;
	m->nats_unacked = c.unacked.events;
}

struct trace_sink *trace_sink_nats_new(const struct nats_opts *o)
{
	struct trace_sink_opts jo = { .fd = -1, .clock = o->clock };
	struct nats_sink *n = calloc(1, sizeof(*n));

	if (!n || !(n->json = trace_sink_json_new(&jo))) {
		free(n);
		errno = ENOMEM;
		return NULL;
	}
	n->base.ops = &nats_ops;
	n->o = o;
	if (o->host)
		snprintf(n->host, sizeof(n->host), "%s", o->host);
	else if (gethostname(n->host, sizeof(n->host)) || !*n->host)
		strcpy(n->host, "localhost");
	n->host[sizeof(n->host) - 1] = 0;
	make_id_prefix(n);
	update_clock(n);
	n->max_events = o->batch_events ? (__u64)o->batch_events : ~0ULL;
	n->wait_ns = (__u64)o->latency_ms * 800000;	/* 4/5: the drain grid's */
	nats_pub_init(&n->pub, &n->conn, o);
	n->conn.o = o;
	return &n->base;
}
