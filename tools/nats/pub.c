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
#include "batch.h"
#include "pub.h"
#include "common/say.h"

/* What a message holds of the buffer: its bytes and a guess at the rest
 * (subject, headers, libnats's own). The same at add and at release. */
static __u64 cost(natsMsg *m)
{
	return natsMsg_GetDataLength(m) + strlen(natsMsg_GetSubject(m)) + 512;
}

/* The counts change under the mutex, read without it: atomics. */
static void add(__u64 *v, __s64 d)
{
	__atomic_fetch_add(v, (__u64)d, __ATOMIC_RELAXED);
}

static void count(struct nats_n *c, __u64 events)
{
	add(&c->events, events);
	add(&c->batches, 1);
}

static __u64 get(const __u64 *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

void nats_pub_init(struct nats_pub *p, struct nats_conn *c,
		   const struct nats_opts *o)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->wake, NULL);
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
	add(&p->n.queued, 1);
	return true;
}

static natsMsg *pop(struct nats_pub *p)
{
	natsMsg *m = p->q[p->head];

	p->head = (p->head + 1) % p->cap;
	p->len--;
	add(&p->n.queued, -1);
	return m;
}

/* Locked: the spool's size, for nats_pub_counts() */
static void spool_mirror(struct nats_pub *p)
{
	__atomic_store_n(&p->n.spool_bytes, p->spool->used, __ATOMIC_RELAXED);
}

int nats_pub_spool(struct nats_pub *p, const char *dir, __u64 budget)
{
	struct nats_spool *s = &p->spool_;
	int err = nats_spool_open(s, p->c->o->prog, dir, budget);

	if (err)
		return err;
	p->spool = s;
	add(&p->n.published.events, s->backlog.events);
	add(&p->n.published.batches, s->backlog.batches);
	add(&p->n.queued, s->backlog.batches);
	spool_mirror(p);
	return 0;
}

enum { DROPPED, IN_MEMORY, ON_DISK };

/* Locked: @m (@events, @c bytes) into the memory queue when it fits and
 * nothing waits on disk before it; into the spool too, or only there. */
static int queue(struct nats_pub *p, natsMsg *m, __u64 events, __u64 c)
{
	struct nats_spool *s = p->spool;
	bool mem = (!s || !nats_spool_backlog(s)) &&
		   get(&p->n.bytes) + c <= p->max_bytes && grow(p);
	int err = s ? nats_spool_append(s, m, events, mem) : -ENOENT;

	if (s)
		spool_mirror(p);
	if (!err && !mem) {
		add(&p->n.queued, 1);
		return ON_DISK;
	}
	if (!mem)
		return DROPPED;
	push(p, m, false);	/* room: grown above */
	add(&p->n.bytes, c);
	return IN_MEMORY;
}

void nats_pub_add(struct nats_pub *p, natsMsg *m, __u64 events)
{
	int where;

	pthread_mutex_lock(&p->mu);
	count(&p->n.published, events);
	where = m ? queue(p, m, events, cost(m)) : DROPPED;
	if (where == DROPPED)
		count(&p->n.buffer_full, events);
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->mu);
	if (where != IN_MEMORY)
		natsMsg_Destroy(m);
}

/* Locked: @m acknowledged or dropped for good: its record done with. */
static void done(struct nats_pub *p, natsMsg *m)
{
	if (p->spool && nats_spool_done(p->spool, m))
		spool_mirror(p);
}

/* Locked: the backlog's front read into memory while it fits (one at
 * least when nothing is in memory); records that could not be read back
 * counted dropped. */
static void load_backlog(struct nats_pub *p)
{
	struct nats_spool *s = p->spool;
	natsMsg *m;
	__u64 events, bytes;
	int r = 1;

	while (r && nats_spool_backlog(s) && grow(p)) {
		bytes = get(&p->n.bytes);
		r = nats_spool_load(s, !p->len && !get(&p->n.in_flight) ? ~0ULL :
				    bytes < p->max_bytes ? p->max_bytes - bytes : 0,
				    &m, &events);
		if (r > 0) {
			push(p, m, false);
			add(&p->n.queued, -1);	/* counted when spooled */
			add(&p->n.bytes, cost(m));
		}
	}
	if (s->lost.batches) {
		add(&p->n.buffer_full.events, s->lost.events);
		add(&p->n.buffer_full.batches, s->lost.batches);
		add(&p->n.queued, -(__s64)s->lost.batches);
		s->lost.events = s->lost.batches = 0;
	}
}

/* Locked: the spool's part of the sending thread's round: the backlog
 * read back, segments done with removed, full ones synced (unlocked). */
static void spool_round(struct nats_pub *p)
{
	int fds[SPOOL_UNSYNCED_MAX], n;

	load_backlog(p);
	n = nats_spool_tick(p->spool, fds);
	spool_mirror(p);
	if (!n)
		return;
	pthread_mutex_unlock(&p->mu);
	nats_spool_sync(fds, n);
	pthread_mutex_lock(&p->mu);
}

/* A refusal that comes back at once (no responders while a stream has
 * no leader) would be resent at once, and again: sending waits this long. */
#define RETRY_HOLD_NS 100000000ULL

/* Locked: may one more go now? */
static bool may_send(struct nats_pub *p)
{
	return p->go && p->len &&
	       get(&p->n.in_flight) < (p->probing ? 1 : p->window) &&
	       !(p->hold_until && perfbuf_now_ns() < p->hold_until);
}

/* Locked: @m, dropped for good (the stream refused it, or it can never
 * be sent); true for the first such, to be said. */
static bool drop_rejected(struct nats_pub *p, natsMsg *m)
{
	bool first = !p->said_rejected;

	add(&p->n.bytes, -(__s64)cost(m));
	count(&p->n.rejected, nats_msg_events(m));
	p->said_rejected = true;
	return first;
}

static void say_rejected(struct nats_pub *p, const char *why)
{
	cli_say(p->c->o->prog, "NATS: the stream refused a batch of events: %s; such events are counted as dropped\n",
		why ? why : "no reason given");
}

/* Locked: wait for more to do, at most @ms (a connection coming back,
 * a hold running out wake no one). */
static void wait_wake(struct nats_pub *p, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += ms * 1000000L;
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	pthread_cond_timedwait(&p->wake, &p->mu, &ts);
}

/* Locked: @m sent, the lock dropped meanwhile. False when it was not
 * taken (disconnected meanwhile): first again. */
static bool send_one(struct nats_pub *p, natsMsg *m)
{
	natsStatus s;
	bool say;

	add(&p->n.in_flight, 1);
	p->sent = true;
	pthread_mutex_unlock(&p->mu);
	s = js_PublishMsgAsync(p->c->js, &m, &p->po);
	pthread_mutex_lock(&p->mu);
	if (s == NATS_OK)
		return true;
	add(&p->n.in_flight, -1);
	if (s != NATS_MAX_PAYLOAD) {
		push(p, m, true);	/* room: it was just taken out */
		return false;
	}
	say = drop_rejected(p, m);	/* larger than the server takes */
	done(p, m);
	pthread_mutex_unlock(&p->mu);
	if (say)
		say_rejected(p, "larger than the server's max_payload");
	natsMsg_Destroy(m);
	pthread_mutex_lock(&p->mu);
	return true;
}

/* The sending thread: what the window allows, while connected. */
static void *send_main(void *arg)
{
	struct nats_pub *p = arg;

	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		bool up;

		pthread_mutex_unlock(&p->mu);
		up = nats_conn_up(p->c);
		pthread_mutex_lock(&p->mu);
		if (p->stop)
			break;
		if (p->spool)
			spool_round(p);
		if (!up || !may_send(p) || !send_one(p, pop(p)))
			wait_wake(p, 20);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int nats_pub_send(struct nats_pub *p)
{
	int err = 0;

	pthread_mutex_lock(&p->mu);
	p->go = true;
	if (!p->running && !p->stop) {
		err = -pthread_create(&p->thread, NULL, send_main, p);
		p->running = !err;
		p->stop = err;	/* said once; what waits is unacknowledged */
	}
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->mu);
	if (err)
		cli_say(p->c->o->prog, "NATS: starting the publishing thread failed: %s\n",
			strerror(-err));
	return err;
}

/* The sending thread stopped (it may be in a send: waited for). */
static void stop_thread(struct nats_pub *p)
{
	bool running;

	pthread_mutex_lock(&p->mu);
	p->stop = true;
	running = p->running;
	p->running = false;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->mu);
	if (running)
		pthread_join(p->thread, NULL);
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
	__u64 events = nats_msg_events(m);

	(void)js;
	pthread_mutex_lock(&p->mu);
	add(&p->n.in_flight, -1);
	/* room in the window: the sending thread woken only when something
	 * waits for it (a wake-up for nothing is two context switches) */
	if (p->len || retry)
		pthread_cond_signal(&p->wake);
	if (retry && push(p, m, true)) {
		count(&p->n.retried, events);
		if (pae->Err != NATS_TIMEOUT) {
			p->hold_until = perfbuf_now_ns() + RETRY_HOLD_NS;
			p->probing = true;
		}
		m = NULL;
	} else if (retry) {	/* out of memory */
		add(&p->n.bytes, -(__s64)cost(m));
		count(&p->n.buffer_full, events);
		done(p, m);
	} else if (pa) {
		add(&p->n.bytes, -(__s64)cost(m));
		done(p, m);
		p->probing = false;
		count(&p->n.acknowledged, events);
		if (pa->Duplicate)
			count(&p->n.duplicates, events);
	} else {
		say = drop_rejected(p, m);
		done(p, m);
	}
	pthread_mutex_unlock(&p->mu);
	if (say)
		say_rejected(p, pae ? pae->ErrText : NULL);
	natsMsg_Destroy(m);
}

static void load_n(struct nats_n *out, const struct nats_n *in)
{
	out->events = get(&in->events);
	out->batches = get(&in->batches);
}

void nats_pub_counts(const struct nats_pub *p, struct nats_pub_counts *out)
{
	const struct nats_pub_counts *n = &p->n;

	load_n(&out->published, &n->published);
	load_n(&out->acknowledged, &n->acknowledged);
	load_n(&out->duplicates, &n->duplicates);
	load_n(&out->retried, &n->retried);
	load_n(&out->buffer_full, &n->buffer_full);
	load_n(&out->rejected, &n->rejected);
	load_n(&out->unacked, &n->unacked);
	load_n(&out->spooled, &n->spooled);
	out->spool_bytes = get(&n->spool_bytes);
	out->bytes = get(&n->bytes);
	out->queued = get(&n->queued);
	out->in_flight = get(&n->in_flight);
}

struct nats_n nats_pub_dropped(const struct nats_pub_counts *c)
{
	return (struct nats_n){
		.events = c->buffer_full.events + c->rejected.events + c->unacked.events,
		.batches = c->buffer_full.batches + c->rejected.batches + c->unacked.batches,
	};
}

/* Locked: @m not acknowledged at the end: kept in the spool for the
 * next run, or dropped. */
static void left_over(struct nats_pub *p, natsMsg *m)
{
	bool kept = p->spool && nats_spool_holds(p->spool, m);

	count(kept ? &p->n.spooled : &p->n.unacked, nats_msg_events(m));
}

/* Messages back from libnats' pending list, counted left over: those
 * still in flight now either come back here or are being handed to
 * nats_pub_on_ack(). How many came back. */
static __u64 take_back_pending(struct nats_pub *p)
{
	natsMsgList pending = {};
	__u64 k = 0;

	/* (libnats 3.4 crashes there when nothing was ever published) */
	if (p->c->js && p->sent &&
	    js_PublishAsyncGetPendingList(&pending, p->c->js) == NATS_OK) {
		k = pending.Count;
		pthread_mutex_lock(&p->mu);
		for (int i = 0; i < pending.Count; i++)
			left_over(p, pending.Msgs[i]);
		pthread_mutex_unlock(&p->mu);
		natsMsgList_Destroy(&pending);
	}
	return k;
}

/* Send, and wait while acknowledgements come: until none is out, or
 * none came for @idle_ms. */
static void wait_acks(struct nats_pub *p, int idle_ms)
{
	__u64 last = perfbuf_now_ns(), prev = ~0ULL, done;

	for (;;) {
		struct nats_pub_counts n;

		nats_pub_counts(p, &n);
		if (!n.queued && !n.in_flight)
			return;
		done = n.acknowledged.batches + n.rejected.batches;
		if (done != prev) {
			prev = done;
			last = perfbuf_now_ns();
		} else if (perfbuf_now_ns() - last > (__u64)idle_ms * 1000000) {
			return;
		}
		usleep(5000);
	}
}

void nats_pub_finish(struct nats_pub *p, int idle_ms)
{
	__u64 k;
	bool done;

	if (p->go)
		wait_acks(p, idle_ms);
	stop_thread(p);
	k = take_back_pending(p);
	/* acknowledgements being handled now: let them finish */
	for (int i = 0; i < 200; i++) {
		pthread_mutex_lock(&p->mu);
		done = get(&p->n.in_flight) <= k;
		pthread_mutex_unlock(&p->mu);
		if (done)
			break;
		usleep(5000);
	}
	pthread_mutex_lock(&p->mu);
	while (p->len) {
		natsMsg *m = pop(p);

		left_over(p, m);
		natsMsg_Destroy(m);
	}
	if (p->spool) {		/* the backlog stays where it is */
		add(&p->n.spooled.events, p->spool->backlog.events);
		add(&p->n.spooled.batches, p->spool->backlog.batches);
	}
	__atomic_store_n(&p->n.queued, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&p->n.in_flight, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&p->n.bytes, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&p->mu);
}

void nats_pub_free(struct nats_pub *p)
{
	stop_thread(p);
	while (p->len)
		natsMsg_Destroy(pop(p));
	free(p->q);
	p->q = NULL;
	if (p->spool)
		nats_spool_close(p->spool);
	p->spool = NULL;
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->mu);
}
