/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The NATS options of `perfbuf trace` (--nats and the --nats-* family)
 * and of `perfbuf nats-tail`: one struct, parsed here (options.c), so
 * trace's option table only lists them (NATS_TRACE_LONGOPTS) and hands
 * each to nats_opts_set().
 *
 * No secret is ever an option's value: credentials and CA certificates
 * are files (--nats-creds, --nats-tls-ca); a user and password in a URL
 * work as libnats reads them, but show in `ps`.
 */
#ifndef PERFBUF_NATS_OPTIONS_H
#define PERFBUF_NATS_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/clock.h"	/* struct trace_clock */

#define NATS_DEFAULT_SUBJECT "perfbuf.{host}.{probe}"
#define NATS_MAX_URLS 32
/* --nats-batch's default, chosen by measurement (perfbuf-bench --only
 * nats): bytes, and events without a limit of their own. From 64K to
 * 256K the server's CPU per event fell by a third, beyond it no more. */
#define NATS_DEFAULT_BATCH_BYTES (256 << 10)
#define NATS_DEFAULT_BATCH_TEXT "256K"
/* trace's --latency default (the library's) */
#define NATS_DEFAULT_LATENCY_MS 10

struct nats_opts {
	const char *prog;		/* for messages: "perfbuf trace" */
	const char *urls[NATS_MAX_URLS];	/* --nats, split at commas */
	int nurls;
	char *urls_copy;		/* what urls[] point into */
	const char *subject;		/* --subject: a template */
	const char *host;		/* --nats-host: {host}; default hostname */
	const char *stream;		/* --nats-stream: used, or created */
	const char *stream_subjects;	/* --nats-stream-subjects: for a new one */
	int64_t max_age_ns;		/* --nats-max-age: a new stream's, 0: none */
	int64_t max_bytes;		/* --nats-max-bytes: a new stream's, 0: none */
	int replicas;			/* --nats-replicas: a new stream's */
	int64_t buffer;			/* --nats-buffer: bytes not yet acknowledged */
	const char *spool;		/* --nats-spool DIR: on disk too (spool.h) */
	int64_t spool_size;		/* --nats-spool-size: its bytes at most */
	bool spool_size_set;		/* given: needs --nats-spool */
	int window;			/* --nats-window: messages in flight */
	long batch_events;		/* --nats-batch N: events per message */
	int64_t batch_bytes;		/* --nats-batch SIZE: bytes per message */
	int latency_ms;			/* trace --latency: a batch waits at most */
	int ack_wait_ms;		/* --nats-ack-wait: then retried */
	const char *creds;		/* --nats-creds FILE */
	const char *tls_ca;		/* --nats-tls-ca FILE */
	bool wait;			/* --nats-wait: no server yet is fine */
	bool stats;			/* trace --stats: a line a second */
	struct trace_clock clock;	/* trace --time: the lines' time_ns */
	int other;			/* a NATS option other than --nats given */
};

enum {
	NATS_OPT_URLS = 1000, NATS_OPT_SUBJECT, NATS_OPT_HOST, NATS_OPT_STREAM,
	NATS_OPT_STREAM_SUBJECTS, NATS_OPT_MAX_AGE, NATS_OPT_MAX_BYTES,
	NATS_OPT_REPLICAS, NATS_OPT_BUFFER, NATS_OPT_WINDOW, NATS_OPT_ACK_WAIT,
	NATS_OPT_CREDS, NATS_OPT_TLS_CA, NATS_OPT_WAIT, NATS_OPT_BATCH,
	NATS_OPT_SPOOL, NATS_OPT_SPOOL_SIZE, NATS_OPT_END
};

/* The entries of `perfbuf trace`'s getopt_long() table. */
#define NATS_TRACE_LONGOPTS \
	{ "nats", required_argument, NULL, NATS_OPT_URLS }, \
	{ "subject", required_argument, NULL, NATS_OPT_SUBJECT }, \
	{ "nats-host", required_argument, NULL, NATS_OPT_HOST }, \
	{ "nats-stream", required_argument, NULL, NATS_OPT_STREAM }, \
	{ "nats-stream-subjects", required_argument, NULL, NATS_OPT_STREAM_SUBJECTS }, \
	{ "nats-max-age", required_argument, NULL, NATS_OPT_MAX_AGE }, \
	{ "nats-max-bytes", required_argument, NULL, NATS_OPT_MAX_BYTES }, \
	{ "nats-replicas", required_argument, NULL, NATS_OPT_REPLICAS }, \
	{ "nats-buffer", required_argument, NULL, NATS_OPT_BUFFER }, \
	{ "nats-spool", required_argument, NULL, NATS_OPT_SPOOL }, \
	{ "nats-spool-size", required_argument, NULL, NATS_OPT_SPOOL_SIZE }, \
	{ "nats-window", required_argument, NULL, NATS_OPT_WINDOW }, \
	{ "nats-batch", required_argument, NULL, NATS_OPT_BATCH }, \
	{ "nats-ack-wait", required_argument, NULL, NATS_OPT_ACK_WAIT }, \
	{ "nats-creds", required_argument, NULL, NATS_OPT_CREDS }, \
	{ "nats-tls-ca", required_argument, NULL, NATS_OPT_TLS_CA }, \
	{ "nats-wait", no_argument, NULL, NATS_OPT_WAIT }

#define NATS_TRACE_USAGE \
"\n" \
"Fleet (NATS JetStream): events published as their --json objects, in\n" \
"batches: a message holds JSON Lines, --nats-batch of them\n" \
"      --nats URL[,URL...]   publish to these servers (nats://HOST:PORT)\n" \
"      --subject TEMPLATE    subject, {host} and {probe} filled in\n" \
"                            (default " NATS_DEFAULT_SUBJECT ")\n" \
"      --nats-host NAME      {host} and the Perfbuf-Host header (default: hostname)\n" \
"      --nats-stream NAME    the stream; created if absent (default: the\n" \
"                            stream whose subjects cover the subject)\n" \
"      --nats-stream-subjects S[,S...]  a new stream's subjects (default PREFIX.>)\n" \
"      --nats-max-age DURATION       a new stream keeps events this long (e.g. 7d)\n" \
"      --nats-max-bytes SIZE         a new stream keeps this much (e.g. 10G)\n" \
"      --nats-replicas N             a new stream's replicas (default 1)\n" \
"      --nats-buffer SIZE    events not yet acknowledged kept up to SIZE\n" \
"                            (default 64M), then counted as dropped\n" \
"      --nats-spool DIR      also keep them on disk in DIR until acknowledged:\n" \
"                            a server away longer, or a killed run (the next\n" \
"                            run with DIR sends them), loses none\n" \
"      --nats-spool-size SIZE  the spool's size at most (default 1G)\n" \
"      --nats-batch N|SIZE   events per message (N), or bytes (SIZE: 64K, 1M,\n" \
"                            4096B); default " NATS_DEFAULT_BATCH_TEXT "; a batch waits at\n" \
"                            most --latency before it is sent\n" \
"      --nats-window N       messages awaiting acknowledgement (default 1024)\n" \
"      --nats-ack-wait MS    resend a message unacknowledged this long (2000)\n" \
"      --nats-creds FILE     NATS credentials (JWT and NKey seed)\n" \
"      --nats-tls-ca FILE    TLS, trusting the CA certificates in FILE\n" \
"      --nats-wait           no server answering yet is no error: events\n" \
"                            wait in the buffer until one does\n"

/* Defaults in @o (prog: for messages). */
void nats_opts_init(struct nats_opts *o, const char *prog);
void nats_opts_free(struct nats_opts *o);
/* One option (NATS_OPT_*) into @o: false after one line on stderr. */
bool nats_opts_set(struct nats_opts *o, int opt, const char *arg);
/* After all options: false after one line (--subject without --nats). */
bool nats_opts_check(const struct nats_opts *o);

#endif
