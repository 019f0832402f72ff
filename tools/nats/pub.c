// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * At-least-once publishing: our queue, the window, acknowledgements,
 * retries and the counts (pub.h says the rules).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perfbuf.h"
#include "pub.h"

/* What a message holds of the buffer: its bytes and a guess at the rest
 * (subject, headers, libnats's own). The same at add and at release. */
static __u64 cost(natsMsg *m)
{
	return natsMsg_GetDataLength(m) + strlen(natsMsg_GetSubject(m)) + 256;
}

void nats_pub_init(struct nats_pub *p, struct nats_conn *c,
		   const struct nats_opts *o)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->mu, NULL);
	p->c = c;
	p->max_bytes = o->buffer;
	p->window = o->window;
	jsPubOptions_Init(&p->po);
	p->po.MaxWait = o->ack_wait_ms;
}

/* Room for one more in the ring; false when out of memory. */
static bool grow(struct nats_pub *p)
{
	size_t cap = p->cap ? p->cap * 2 : 1024;
	natsMsg **q;

	if (p->len < p->cap)
		return true;
	q = malloc(cap * sizeof(*q));
	if (!q)
		return false;
	for (size_t i = 0; i < p->len; i++)
		q[i] = p->q[(p->head + i) % p->cap];
	free(p->q);
	p->q = q;
	p->cap = cap;
	p->head = 0;
	return true;
}

/* Locked. The caller has counted @m's bytes. */
static bool push(struct nats_pub *p, natsMsg *m, bool front)
{
	if (!grow(p))
		return false;
	if (front) {
		p->head = (p->head + p->cap - 1) % p->cap;
		p->q[p->head] = m;
	} else {
		p->q[(p->head + p->len) % p->cap] = m;
	}
	p->len++;
	return true;
}

static natsMsg *pop(struct nats_pub *p)
{
	natsMsg *m = p->q[p->head];

	p->head = (p->head + 1) % p->cap;
	p->len--;
	return m;
}

void nats_pub_add(struct nats_pub *p, natsMsg *m)
{
	__u64 c = m ? cost(m) : 0;
	bool ok;

	pthread_mutex_lock(&p->mu);
	p->n.published++;
	ok = m && p->n.bytes + c <= p->max_bytes && push(p, m, false);
	if (ok)
		p->n.bytes += c;
	else
		p->n.buffer_full++;
	pthread_mutex_unlock(&p->mu);
	if (!ok)
		natsMsg_Destroy(m);
}

/* A refusal that comes back at once (no responders while a stream has
 * no leader) would be resent at once, and again: sending waits this long. */
#define RETRY_HOLD_NS 100000000ULL

void nats_pub_send(struct nats_pub *p)
{
	while (nats_conn_up(p->c)) {
		natsMsg *m;
		natsStatus s;

		pthread_mutex_lock(&p->mu);
		if (!p->len || p->n.in_flight >= (p->probing ? 1 : p->window) ||
		    (p->hold_until && perfbuf_now_ns() < p->hold_until)) {
			pthread_mutex_unlock(&p->mu);
			return;
		}
		m = pop(p);
		p->n.in_flight++;
		pthread_mutex_unlock(&p->mu);
		s = js_PublishMsgAsync(p->c->js, &m, &p->po);
		if (s == NATS_OK)
			continue;
		/* not taken (disconnected meanwhile): first again */
		pthread_mutex_lock(&p->mu);
		p->n.in_flight--;
		push(p, m, true);	/* room: it was just taken out */
		pthread_mutex_unlock(&p->mu);
		return;
	}
}

/* Worth sending again: no answer, no responders (a stream without a
 * leader for now), a cluster between leaders. */
static bool passing(const jsPubAckErr *pae)
{
	return !pae->ErrCode || pae->ErrCode == JSClusterNotAvailErr ||
	       pae->ErrCode == JSClusterNotLeaderErr;
}

void nats_pub_on_ack(jsCtx *js, natsMsg *m, jsPubAck *pa, jsPubAckErr *pae,
		     void *closure)
{
	struct nats_pub *p = closure;
	bool retry = !pa && pae && passing(pae), say = false;

	(void)js;
	pthread_mutex_lock(&p->mu);
	p->n.in_flight--;
	if (retry && push(p, m, true)) {
		p->n.retried++;
		if (pae->Err != NATS_TIMEOUT) {
			p->hold_until = perfbuf_now_ns() + RETRY_HOLD_NS;
			p->probing = true;
		}
		m = NULL;
	} else if (retry) {	/* out of memory */
		p->n.bytes -= cost(m);
		p->n.buffer_full++;
	} else {
		p->n.bytes -= cost(m);
		if (pa) {
			p->probing = false;
			p->n.acknowledged++;
			p->n.duplicates += pa->Duplicate;
		} else {
			p->n.rejected++;
			say = !p->said_rejected;
			p->said_rejected = true;
		}
	}
	pthread_mutex_unlock(&p->mu);
	if (say)
		fprintf(stderr, "%s: NATS: the stream refused an event: %s; such events are counted as dropped\n",
			p->c->o->prog, pae && pae->ErrText ? pae->ErrText : "no reason given");
	natsMsg_Destroy(m);
}

void nats_pub_counts(struct nats_pub *p, struct nats_pub_counts *out)
{
	pthread_mutex_lock(&p->mu);
	*out = p->n;
	out->queued = p->len;
	pthread_mutex_unlock(&p->mu);
}

/* Messages back from libnats' pending list: those still in flight now
 * either come back here or are being handed to nats_pub_on_ack(). */
static __u64 take_back_pending(struct nats_pub *p)
{
	natsMsgList pending = {};
	__u64 k = 0;

	if (p->c->js && js_PublishAsyncGetPendingList(&pending, p->c->js) == NATS_OK) {
		k = pending.Count;
		natsMsgList_Destroy(&pending);
	}
	return k;
}

void nats_pub_finish(struct nats_pub *p, int idle_ms)
{
	__u64 last = perfbuf_now_ns(), prev = ~0ULL, k, done;

	for (;;) {
		struct nats_pub_counts n;

		nats_pub_send(p);
		nats_pub_counts(p, &n);
		if (!n.queued && !n.in_flight)
			break;
		done = n.acknowledged + n.rejected;
		if (done != prev) {
			prev = done;
			last = perfbuf_now_ns();
		} else if (perfbuf_now_ns() - last > (__u64)idle_ms * 1000000) {
			break;
		}
		usleep(5000);
	}
	k = take_back_pending(p);
	/* acknowledgements being handled now: let them finish */
	for (int i = 0; i < 200; i++) {
		pthread_mutex_lock(&p->mu);
		done = p->n.in_flight <= k;
		pthread_mutex_unlock(&p->mu);
		if (done)
			break;
		usleep(5000);
	}
	pthread_mutex_lock(&p->mu);
	p->n.unacked = p->len + k;
	p->n.in_flight = 0;
	while (p->len)
		natsMsg_Destroy(pop(p));
	p->n.bytes = 0;
	pthread_mutex_unlock(&p->mu);
}

void nats_pub_free(struct nats_pub *p)
{
	while (p->len)
		natsMsg_Destroy(pop(p));
	free(p->q);
	p->q = NULL;
	pthread_mutex_destroy(&p->mu);
}
