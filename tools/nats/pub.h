/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * At-least-once publishing to JetStream (pub.c). Messages (batches of
 * events, batch.h) wait in a queue of our own, bounded in bytes
 * (--nats-buffer): a message that does not fit is dropped and counted,
 * never silently. While connected, up to --nats-window of them are in
 * flight (published asynchronously, acknowledgement not yet back). A
 * message not acknowledged within --nats-ack-wait, or refused for a
 * passing reason (no stream leader during an election), goes back to the
 * front of the queue and is sent again: its Nats-Msg-Id lets the stream
 * drop the copy if the first one was stored after all; after a passing
 * refusal sending pauses, then goes on one message at a time until one
 * is acknowledged (no storm of resends while a cluster elects a leader).
 * A lasting refusal (the stream is full, the message too big) drops it,
 * counted, the first reason said.
 *
 * Threads: the caller's only queues (nats_pub_add()): a thread of the
 * publisher's own sends, since libnats writes a message larger than its
 * buffer to the socket in the sending thread, and waits there while the
 * server is slow (the tracer's thread must keep draining its rings);
 * acknowledgements arrive on a libnats thread. A mutex guards the queue,
 * never held across a send; the counts change under it, as atomics, so
 * that another thread reads them without it (nats_pub_counts()). Every count is kept in events (a message's
 * Perfbuf-Count) and in messages. At the end published == acknowledged
 * + dropped (+ spooled), in both, dropped being buffer_full + rejected +
 * unacked.
 *
 * With a spool (--nats-spool, spool.h) every message is written to disk
 * as it is queued; the memory queue holds the front of the queue, the
 * rest waits on disk (the backlog, read back in order by the sending
 * thread as room frees); what is not acknowledged at the end stays there
 * for the next run (spooled), not dropped. A message the spool cannot
 * take (its budget full, a failed write) is held in memory only, as
 * without a spool.
 */
#ifndef PERFBUF_NATS_PUB_H
#define PERFBUF_NATS_PUB_H

#include <pthread.h>
#include <linux/types.h>

#include "conn.h"
#include "spool.h"

/* A count in events and in the messages (batches) holding them. */
struct nats_n {
	__u64 events, batches;
};

struct nats_pub_counts {
	struct nats_n published;	/* given to nats_pub_add() */
	struct nats_n acknowledged;	/* stored, as the stream said */
	struct nats_n duplicates;	/* of them: a resent copy the stream had */
	struct nats_n retried;		/* sends again after no acknowledgement */
	struct nats_n buffer_full;	/* dropped: no room in --nats-buffer */
	struct nats_n rejected;		/* dropped: the stream refused them */
	struct nats_n unacked;		/* dropped: not acknowledged at the end */
	struct nats_n spooled;		/* not acknowledged at the end, kept in
					 * the spool for the next run */
	__u64 bytes;			/* in memory now (queued and in flight) */
	__u64 queued, in_flight;	/* messages (queued: on disk too) */
	__u64 spool_bytes;		/* the spool's files */
};

struct nats_pub {
	pthread_mutex_t mu;
	pthread_cond_t wake;	/* the sending thread's: more to do */
	pthread_t thread;
	bool running;		/* the sending thread is */
	bool go;		/* sending allowed (the stream checked) */
	bool stop;
	struct nats_conn *c;
	natsMsg **q;		/* ring of queued messages, oldest first */
	size_t cap, head, len;
	__u64 max_bytes;
	__u64 window;
	jsPubOptions po;
	struct nats_pub_counts n;	/* atomics: nats_pub_counts() */
	__u64 hold_until;	/* no sending before (perfbuf_now_ns()) */
	bool probing;		/* after a refusal: one in flight until an ack */
	bool said_rejected;
	bool sent;		/* js_PublishMsgAsync() called once: libnats
				 * has a pending list to take back */
	struct nats_spool *spool;	/* --nats-spool, or NULL */
	struct nats_spool spool_;
};

void nats_pub_init(struct nats_pub *p, struct nats_conn *c,
		   const struct nats_opts *o);
/* The spool in @dir (--nats-spool) opened: what an earlier run left is
 * queued first (counted published). 0 or -errno after one line. */
int nats_pub_spool(struct nats_pub *p, const char *dir, __u64 budget);
/* Takes @m, a batch of @events: queued, or dropped (counted) when the
 * buffer is full; NULL (a message that could not be made) is counted
 * dropped. */
void nats_pub_add(struct nats_pub *p, natsMsg *m, __u64 events);
/* Sending allowed from now on (the stream is checked): the sending
 * thread started, or woken. 0, or -errno (said) when it cannot start. */
int nats_pub_send(struct nats_pub *p);
/* The acknowledgement handler (jsOptions.PublishAsync.AckHandler). */
void nats_pub_on_ack(jsCtx *js, natsMsg *m, jsPubAck *pa, jsPubAckErr *pae,
		     void *closure);
/* Send the rest and wait for the acknowledgements, until none is left
 * or none came for @idle_ms; what is left is counted unacked. The
 * sending thread is stopped. */
void nats_pub_finish(struct nats_pub *p, int idle_ms);
/* The counts now, from any thread. */
void nats_pub_counts(const struct nats_pub *p, struct nats_pub_counts *out);
/* dropped: buffer_full + rejected + unacked */
struct nats_n nats_pub_dropped(const struct nats_pub_counts *c);
/* Stops the sending thread, frees what is queued; call after
 * nats_pub_finish() or on a failed start, before the connection is
 * closed. */
void nats_pub_free(struct nats_pub *p);

#endif
