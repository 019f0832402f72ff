// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf nats-tail: what `perfbuf trace --nats` published, read back
 * from the stream with an ordered JetStream consumer (no acks, no state
 * on the server beyond the consumer's life), each batch split into its
 * lines, merged across hosts by the lines' Unix time (tail_src.h: each
 * host a source of the library's merge) and printed as trace prints,
 * with the host.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perfbuf.h"
#include "common/cli.h"
#include "common/commands.h"
#include "nats/conn.h"
#include "nats/subject.h"
#include "nats/tail_src.h"

#define PROG "perfbuf nats-tail"

static volatile sig_atomic_t exiting;

static const char usage_text[] =
"Usage: perfbuf nats-tail --nats URL[,URL...] [OPTIONS]\n"
"\n"
"Print the events `perfbuf trace --nats` published, from every host,\n"
"merged by time: a line per event as trace prints it, with the host.\n"
"\n"
"Options:\n"
"      --nats URL[,URL...]   the servers (nats://HOST:PORT)\n"
"      --subject FILTER      what to read ('*' a token, '>' the rest;\n"
"                            default perfbuf.>)\n"
"      --nats-stream NAME    the stream (default: the one holding FILTER)\n"
"      --since DURATION      start that long ago (30s, 5m, 2h, 7d), or 'all';\n"
"                            default: only events published from now on\n"
"      --no-follow           stop at the end of the stream\n"
"      --json                JSON Lines: each --json object with \"host\" and\n"
"                            \"realtime_ns\" (Unix time) first\n"
"      --latency MS          hold events this long to merge hosts (default 500)\n"
"  -n, --count N            stop after N events\n"
"  -d, --duration SEC       stop after SEC seconds\n"
"      --nats-creds FILE     NATS credentials\n"
"      --nats-tls-ca FILE    TLS, trusting the CA certificates in FILE\n"
"  -h, --help               this help\n"
"\n"
"Lost records, CPU notices and each tracer's summary go to stderr in text,\n"
"into the JSON Lines with --json.\n"
"\n"
"Examples:\n"
"  perfbuf nats-tail --nats nats://nats1:4222,nats://nats2:4222\n"
"  perfbuf nats-tail --nats nats://nats1:4222 --subject 'perfbuf.web*.>' --since 10m\n";

struct tail_opts {
	struct nats_opts n;
	bool json, follow;
	bool since_all;
	int64_t since_ns;	/* 0: from now */
	long latency_ms, count;
	unsigned long long duration_ns;
};

enum { OPT_SINCE = 300, OPT_NO_FOLLOW, OPT_JSON, OPT_LATENCY };

static bool set_option(int opt, char *arg, void *ctx)
{
	struct tail_opts *o = ctx;
	unsigned long long since;

	switch (opt) {
	case NATS_OPT_SUBJECT:
		if (nats_subject_invalid(arg, true)) {
			cli_say(PROG, "--subject '%s' is not a subject filter: %s\n",
				arg, nats_subject_invalid(arg, true));
			return false;
		}
		o->n.subject = arg;
		return true;
	case OPT_SINCE:
		if (!strcmp(arg, "all")) {
			o->since_all = true;
			return true;
		}
		if (!units_duration(arg, &since) && since > 0 && since <= CLI_DURATION_MAX) {
			o->since_ns = (int64_t)since;
			return true;
		}
		cli_say(PROG, "--since wants a duration (30s, 5m, 2h, 7d) or 'all', not '%s'\n",
			arg);
		return false;
	case OPT_NO_FOLLOW:
		o->follow = false;
		return true;
	case OPT_JSON:
		o->json = true;
		return true;
	case OPT_LATENCY:
		return cli_parse_num(PROG, "--latency", arg, 0, 60000, &o->latency_ms);
	case 'n':
		return cli_parse_num(PROG, "-n", arg, 1, 0x7fffffffffffffffL, &o->count);
	case 'd':
		return cli_parse_duration(PROG, "-d", arg, CLI_DURATION_MIN,
					  CLI_DURATION_MAX, &o->duration_ns);
	default:
		return nats_opts_set(&o->n, opt, arg);
	}
}

/* -1: exit 1 (said why); 1: exit 0 (--help); 0: go. */
static int parse_options(int argc, char **argv, struct tail_opts *o)
{
	static const struct option longopts[] = {
		{ "nats", required_argument, NULL, NATS_OPT_URLS },
		{ "subject", required_argument, NULL, NATS_OPT_SUBJECT },
		{ "nats-stream", required_argument, NULL, NATS_OPT_STREAM },
		{ "nats-creds", required_argument, NULL, NATS_OPT_CREDS },
		{ "nats-tls-ca", required_argument, NULL, NATS_OPT_TLS_CA },
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "no-follow", no_argument, NULL, OPT_NO_FOLLOW },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "latency", required_argument, NULL, OPT_LATENCY },
		{ "count", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct cli_opts c = { .cmd = "nats-tail", .shortopts = ":n:d:h",
			      .longopts = longopts, .usage = usage_text,
			      .set = set_option, .no_operands = true };
	int err;

	nats_opts_init(&o->n, PROG);
	o->n.subject = "perfbuf.>";
	o->follow = true;
	o->latency_ms = 500;
	optind = 1;
	err = cli_options(&c, argc, argv, o);
	if (err)
		return err;
	if (!o->n.nurls) {
		cli_say(PROG, "which servers? e.g. --nats nats://127.0.0.1:4222\n");
		return -1;
	}
	return 0;
}

static __s64 now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__s64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* An ordered consumer on the filter. 0 or -errno after one line. */
static int subscribe(struct nats_conn *c, const struct tail_opts *o,
		     natsSubscription **sub)
{
	jsErrCode jerr = 0;
	jsSubOptions so;
	natsStatus s;
	char url[256];

	jsSubOptions_Init(&so);
	so.Ordered = true;
	so.Stream = o->n.stream;
	so.Config.DeliverPolicy = o->since_all ? js_DeliverAll :
				  o->since_ns ? js_DeliverByStartTime : js_DeliverNew;
	if (o->since_ns)
		so.Config.OptStartTime = now_real() - o->since_ns;
	s = js_SubscribeSync(sub, c->js, o->n.subject, NULL, &so, &jerr);
	if (s != NATS_OK) {
		nats_conn_url(c, url, sizeof(url));
		if (s == NATS_NO_RESPONDERS || jerr == JSNotEnabledErr)
			cli_say(PROG, "NATS at %s has no JetStream: start nats-server with -js\n",
				url);
		else
			cli_say(PROG, "reading '%s' at %s failed: %s%s\n",
				o->n.subject, url, nats_reason(s),
				o->n.stream ? "" : "; is there a stream holding it? (--nats-stream NAME)");
		return -EIO;
	}
	return 0;
}

/* --no-follow, nothing came for a while: has the consumer delivered all?
 * (A filtered consumer's count is not known at once: asked again.) */
static bool nothing_pending(natsSubscription *sub)
{
	jsConsumerInfo *ci = NULL;
	bool none;

	if (natsSubscription_GetConsumerInfo(&ci, sub, NULL, NULL) != NATS_OK)
		return false;
	none = !ci->NumPending && !ci->NumAckPending;
	jsConsumerInfo_Destroy(ci);
	return none;
}

struct tail {
	struct tail_opts *o;
	struct tail_src *src;
	__u64 events, skipped;
	bool caught_up;		/* --no-follow: the stream's end reached */
};

/* @msg's lines into the merge; with --no-follow, is it the stream's last? */
static void take(struct tail *t, natsMsg *msg)
{
	const char *host = NULL, *time = NULL, *args = NULL;
	jsMsgMetaData *meta = NULL;
	__s64 first_real = 0;

	natsMsg_GetMetaData(&meta, msg);
	if (natsMsgHeader_Get(msg, "Perfbuf-Host", &host) != NATS_OK)
		host = "?";
	if (natsMsgHeader_Get(msg, "Perfbuf-Args", &args) != NATS_OK)
		args = "";
	if (natsMsgHeader_Get(msg, "Perfbuf-Time", &time) == NATS_OK)
		first_real = strtoll(time, NULL, 10);
	else if (meta)
		first_real = meta->Timestamp;	/* when the stream stored it */
	t->skipped += tail_src_add(t->src, host, args, first_real,
				   natsMsg_GetData(msg),
				   natsMsg_GetDataLength(msg));
	if (!t->o->follow && meta && !meta->NumPending)
		t->caught_up = true;
	jsMsgMetaData_Destroy(meta);
}

static int print_line(void *ctx, const struct tail_line *l)
{
	struct tail *t = ctx;
	bool ev = !strncmp(l->data, "{\"type\":\"event\"", 15);

	tail_print(stdout, l, t->o->json);
	if (ev && t->o->count && ++t->events >= (__u64)t->o->count)
		return PERFBUF_STOP;
	return PERFBUF_CONTINUE;
}

/* Print what is due (everything when @all): false when -n is reached. */
static bool emit(struct tail *t, bool all)
{
	tail_src_emit(t->src, t->o->latency_ms * 1000000LL, all, print_line, t);
	return !t->o->count || t->events < (__u64)t->o->count;
}

/* A fold asks every host's source (perfbuf_merge): once per FOLD_MS, not
 * per message, so that a thousand hosts cost a thousand peeks 100 times a
 * second, whatever the rate; a line goes out at most FOLD_MS after it is
 * due. */
#define FOLD_MS 10

/* Read until Ctrl-C, -n, -d, the stream's end (--no-follow) or a closed
 * stdout. 0 or -errno (said). */
static int tail_loop(struct tail *t, natsSubscription *sub)
{
	__u64 now = perfbuf_now_ns(), last = now, folded = 0;
	__u64 deadline = t->o->duration_ns ? now + t->o->duration_ns : 0;
	__u64 idle = t->o->latency_ms * 1000000ULL;
	bool more = true, all;
	int err;

	while (more && !exiting) {
		natsMsg *msg = NULL;
		/* lines waiting: back within a fold's period */
		int wait_ms = tail_src_waiting(t->src) ? FOLD_MS : 100;
		natsStatus s = t->caught_up ? NATS_TIMEOUT :
			       natsSubscription_NextMsg(&msg, sub, wait_ms);

		now = perfbuf_now_ns();
		if (s == NATS_OK) {
			take(t, msg);
			natsMsg_Destroy(msg);
			last = now;
		} else if (s != NATS_TIMEOUT) {
			cli_say(PROG, "reading the stream failed: %s\n",
				nats_reason(s));
			return -EIO;
		} else if (!t->o->follow && now - last >= idle) {
			t->caught_up = t->caught_up || nothing_pending(sub);
		}
		all = t->caught_up || now - last >= idle;
		if (all || now - folded >= FOLD_MS * 1000000ULL) {
			more = emit(t, all);
			folded = now;
		}
		if ((err = cli_flush_stdout(PROG)))	/* a full disk: said */
			return err == -EPIPE ? 0 : err;	/* the reader went away */
		if ((t->caught_up && !tail_src_waiting(t->src)) || (deadline && now >= deadline))
			break;
	}
	if (more)
		emit(t, true);
	err = cli_flush_stdout(PROG);
	return err == -EPIPE ? 0 : err;
}

int cmd_nats_tail(int argc, char **argv)
{
	struct tail_opts o = {};
	struct tail t = { .o = &o };
	struct nats_conn c = {};
	natsSubscription *sub = NULL;
	int err;

	err = parse_options(argc, argv, &o);
	if (!err && cli_need_stdout(PROG))
		err = -1;
	if (err) {
		nats_opts_free(&o.n);
		return err < 0 ? 1 : 0;
	}
	/* before the connection (seconds with a slow server): the first
	 * signal ends the run, even one sent to a background job */
	cli_stop_on_signals(&exiting, false);
	signal(SIGPIPE, SIG_IGN);
	t.src = tail_src_new();
	if (!t.src) {
		cli_say(PROG, "out of memory\n");
		err = -ENOMEM;
	}
	err = err ?: nats_conn_open(&c, &o.n, NULL, NULL) ?: subscribe(&c, &o, &sub);
	if (!err) {
		if (!o.json)
			tail_print_header(stdout);
		err = tail_loop(&t, sub);
	}
	if (t.skipped)
		cli_say(PROG, "%llu lines skipped: not perfbuf's JSON objects\n",
			(unsigned long long)t.skipped);
	if (t.src && tail_src_late(t.src))
		cli_say(PROG, "%llu lines came more than --latency after newer ones: printed late%s\n",
			(unsigned long long)tail_src_late(t.src),
			o.json ? "" : " ('*' after the time)");
	natsSubscription_Destroy(sub);
	tail_src_free(t.src);
	nats_conn_close(&c);
	nats_CloseAndWait(2000);
	nats_opts_free(&o.n);
	return err ? 1 : 0;
}
