/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A NATS connection with JetStream (conn.c): the servers of --nats
 * tried in turn, reconnection to any of them for ever, TLS and
 * credentials from files; and the stream the subjects go to (stream.c).
 * Every failure at the start is one line naming the server, what went
 * wrong and what to do.
 */
#ifndef PERFBUF_NATS_CONN_H
#define PERFBUF_NATS_CONN_H

#include <nats/nats.h>

#include "options.h"

struct nats_conn {
	const struct nats_opts *o;
	natsOptions *nopts;
	natsConnection *nc;
	jsCtx *js;
	int quiet;		/* no reconnection messages (nats-tail) */
};

/* Connect per @o; JetStream acks to @ack(@ack_ctx). 0: connected;
 * -EAGAIN: no server yet, but --nats-wait: retried in the background;
 * else -errno after one line. */
int nats_conn_open(struct nats_conn *c, const struct nats_opts *o,
		   jsPubAckHandler ack, void *ack_ctx);
void nats_conn_close(struct nats_conn *c);
/* Connected now (not reconnecting, not closed)? */
bool nats_conn_up(struct nats_conn *c);
/* The server we are connected to, for messages: "nats://h:p" or "NATS". */
const char *nats_conn_url(struct nats_conn *c, char *buf, size_t sz);

/* stream.c: the stream of subjects @subj[0..n) per @o: --nats-stream
 * NAME, created with these options when absent; without it, the stream
 * holding the first subject. Each subject must be one of its. 0 or
 * -errno after one line. */
int nats_stream_ensure(struct nats_conn *c, char *const *subj, int n);

/* libnats's text for @s and its last error, for a message. */
const char *nats_reason(natsStatus s);

#endif
