// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The NATS sink (sink_nats.h): the JSON sink renders each line, this
 * one wraps it in a message with headers and a subject and hands it to
 * the publisher (pub.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perfbuf.h"
#include "pub.h"
#include "sink_nats.h"
#include "subject.h"

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
	int nsubjects;
	bool checked;			/* the stream is known to hold them */
	char host[256];
	char id_prefix[384];		/* host/boot id/pid.start/ */
	__u64 *seq;			/* per CPU (+1: CPU -1) */
	int nseq;
	__s64 real_minus_mono;		/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	__u64 next_stats;
	struct nats_pub_counts prev;
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

/* host/boot id/pid.start/: with the CPU and a sequence, unique across
 * runs and reboots, the same for a resent copy. */
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
	if (!n->subjects)
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
			fprintf(stderr, "%s: subject '%s' is not one to publish to: %s\n",
				n->o->prog, n->subjects[i], why);
			return -EINVAL;
		}
	}
	return 0;
}

static int nats_begin(struct trace_sink *s, const struct tv_schema *schema)
{
	struct nats_sink *n = nats_of(s);
	int err;

	n->schema = schema;
	err = trace_sink__begin(n->json, schema) ?: make_subjects(n, schema);
	if (err == -ENOMEM)
		fprintf(stderr, "%s: out of memory\n", n->o->prog);
	if (err)
		return err;
	err = nats_conn_open(&n->conn, n->o, nats_pub_on_ack, &n->pub);
	if (err == -EAGAIN)
		return 0;	/* --nats-wait: checked once connected */
	if (!err)
		err = nats_stream_ensure(&n->conn, n->subjects, n->nsubjects);
	n->checked = !err;
	return err;
}

/* The next sequence number of @cpu's messages. */
static __u64 next_seq(struct nats_sink *n, int cpu)
{
	int i = cpu + 1;

	if (i < 0)
		i = 0;
	if (i >= n->nseq) {
		int cnt = i + 16;
		__u64 *v = realloc(n->seq, cnt * sizeof(*v));

		if (!v)
			return ~0ULL;	/* a message id never used otherwise */
		memset(v + n->nseq, 0, (cnt - n->nseq) * sizeof(*v));
		n->seq = v;
		n->nseq = cnt;
	}
	return n->seq[i]++;
}

/* One line (newline dropped) as a message to @subj, to the publisher. */
static void publish(struct nats_sink *n, const char *subj, const char *line,
		    size_t len, int cpu, const char *probe, __u64 time_ns)
{
	natsMsg *m = NULL;
	char v[512];
	bool ok;

	ok = natsMsg_Create(&m, subj, NULL, line, len - 1) == NATS_OK;
	ok = ok && natsMsgHeader_Set(m, "Perfbuf-Host", n->host) == NATS_OK;
	snprintf(v, sizeof(v), "%d", cpu);
	ok = ok && natsMsgHeader_Set(m, "Perfbuf-Cpu", v) == NATS_OK;
	if (probe)
		ok = ok && natsMsgHeader_Set(m, "Perfbuf-Probe", probe) == NATS_OK;
	snprintf(v, sizeof(v), "%" PRId64, (int64_t)(time_ns + n->real_minus_mono));
	ok = ok && natsMsgHeader_Set(m, "Perfbuf-Time", v) == NATS_OK;
	snprintf(v, sizeof(v), "%s%d/%llu", n->id_prefix, cpu,
		 (unsigned long long)next_seq(n, cpu));
	ok = ok && natsMsgHeader_Set(m, "Nats-Msg-Id", v) == NATS_OK;
	if (!ok) {
		natsMsg_Destroy(m);
		m = NULL;	/* counted as dropped */
	}
	nats_pub_add(&n->pub, m);
	if (n->checked)
		nats_pub_send(&n->pub);
}

static void nats_event(struct trace_sink *s, const struct tv_event *e)
{
	struct nats_sink *n = nats_of(s);
	size_t len;
	const char *line = trace_sink_json_line(n->json, TRACE_LINE_EVENT, e, &len);

	publish(n, n->subjects[e->probe->id], line, len, e->cpu, e->probe->spec,
		e->time_ns);
}

static void nats_lost(struct trace_sink *s, const struct tv_lost *l)
{
	struct nats_sink *n = nats_of(s);
	size_t len;
	const char *line = trace_sink_json_line(n->json, TRACE_LINE_LOST, l, &len);

	publish(n, n->subjects[n->schema->nprobes + SUBJ_LOST], line, len, l->cpu,
		NULL, l->time_ns ? l->time_ns : perfbuf_now_ns());
}

static void nats_notice(struct trace_sink *s, const struct tv_notice *c)
{
	struct nats_sink *n = nats_of(s);
	size_t len;
	const char *line = trace_sink_json_line(n->json, TRACE_LINE_NOTICE, c, &len);

	publish(n, n->subjects[n->schema->nprobes + SUBJ_CPU], line, len, c->cpu,
		NULL, c->time_ns);
}

/* --stats: a line a second on stderr */
static void print_stats(struct nats_sink *n)
{
	struct nats_pub_counts c;
	__u64 now = perfbuf_now_ns();

	if (now < n->next_stats)
		return;
	nats_pub_counts(&n->pub, &c);
	if (n->next_stats)
		fprintf(stderr, "nats: %llu published/s, %llu acknowledged/s, %llu retried, %llu dropped, %llu waiting (%llu KiB), %llu in flight%s\n",
			(unsigned long long)(c.published - n->prev.published),
			(unsigned long long)(c.acknowledged - n->prev.acknowledged),
			(unsigned long long)c.retried,
			(unsigned long long)(c.buffer_full + c.rejected),
			(unsigned long long)c.queued,
			(unsigned long long)(c.bytes >> 10),
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
	}
	if (n->checked)
		nats_pub_send(&n->pub);
	if (n->o->stats)
		print_stats(n);
	nats_pub_counts(&n->pub, &c);
	s->written = c.acknowledged;
	return s->err;
}

static void say_summary(struct nats_sink *n, const struct tv_summary *sum)
{
	struct nats_pub_counts c;

	nats_pub_counts(&n->pub, &c);
	fprintf(stderr, "%s: %llu events received, %llu lost\n", n->o->prog,
		(unsigned long long)sum->received, (unsigned long long)sum->lost);
	fprintf(stderr, "NATS: %llu published, %llu acknowledged (%llu duplicates), %llu retried, %llu dropped (%llu buffer full, %llu refused, %llu unacknowledged at the end)\n",
		(unsigned long long)c.published, (unsigned long long)c.acknowledged,
		(unsigned long long)c.duplicates, (unsigned long long)c.retried,
		(unsigned long long)(c.buffer_full + c.rejected + c.unacked),
		(unsigned long long)c.buffer_full, (unsigned long long)c.rejected,
		(unsigned long long)c.unacked);
}

/* The summary published too, then everything acknowledged (or given
 * up on after a quiet while), then the counts on stderr. */
static int nats_summary(struct trace_sink *s, const struct tv_summary *sum)
{
	struct nats_sink *n = nats_of(s);
	/* a cluster electing a stream leader under load takes seconds */
	int idle = n->o->ack_wait_ms * 5 > 10000 ? n->o->ack_wait_ms * 5 : 10000;
	size_t len;
	const char *line = trace_sink_json_line(n->json, TRACE_LINE_SUMMARY, sum, &len);

	publish(n, n->subjects[n->schema->nprobes + SUBJ_SUMMARY], line, len, -1,
		NULL, perfbuf_now_ns());
	if (n->checked)
		nats_pub_finish(&n->pub, idle);
	else
		nats_pub_finish(&n->pub, 0);	/* never connected: all dropped */
	s->written = n->pub.n.acknowledged;
	say_summary(n, sum);
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
	free(n->subjects);
	free(n->seq);
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
	nats_pub_init(&n->pub, &n->conn, o);
	n->conn.o = o;
	return &n->base;
}
