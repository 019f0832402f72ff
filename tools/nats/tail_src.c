// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * nats-tail's hosts as sources of perfbuf_merge (tail_src.h). A message's
 * payload is copied once, its lines NUL-terminated in place; a host keeps
 * its waiting lines in a min-heap on (time, arrival) and shows the merge
 * the oldest. A message's copy is freed with its last line.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perfbuf.h"
#include "tail_src.h"

struct batch {
	size_t refs;		/* its lines not handed out yet */
	char *args;		/* Perfbuf-Args */
	char buf[];		/* args, NUL, the lines, each NUL-ended */
};

struct wait_line {
	__s64 time;
	__u64 seq;		/* arrival: ties keep it */
	struct batch *b;
	const char *data;
	size_t len;
};

struct host_src {
	char *host;
	struct wait_line *v;	/* the min-heap */
	size_t n, cap;
	struct batch *cur;	/* the line handed to the merge: its batch */
	struct tail_line out;	/* and the line */
	size_t *waiting;	/* the merge's count */
};

struct tail_src {
	struct perfbuf_merge *m;
	struct host_src **src;
	size_t n_src;
	struct host_src **tab;	/* by host: open addressing, half full */
	size_t tab_cap;
	size_t seed;		/* hosts are anyone's: a hash of our own */
	size_t waiting;
	__u64 seq, late;
	__s64 newest;		/* the newest time added */
	bool any;
};

static void unref(struct batch *b)
{
	if (b && !--b->refs)
		free(b);
}

static bool before(const struct wait_line *a, const struct wait_line *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static int push(struct host_src *s, const struct wait_line *l)
{
	size_t i;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct wait_line *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	for (i = s->n++; i && before(l, &s->v[(i - 1) / 2]); i = (i - 1) / 2)
		s->v[i] = s->v[(i - 1) / 2];
	s->v[i] = *l;
	return 0;
}

static struct wait_line pop(struct host_src *s)
{
	struct wait_line top = s->v[0], last = s->v[--s->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= s->n)
			break;
		if (c + 1 < s->n && before(&s->v[c + 1], &s->v[c]))
			c++;
		if (!before(&s->v[c], &last))
			break;
		s->v[i] = s->v[c];
		i = c;
	}
	if (s->n)
		s->v[i] = last;
	return top;
}

/* The merge orders by time_ns, 0 the earliest: a forged time before 1970
 * goes first, as the oldest. */
static __u64 key_of(__s64 t)
{
	return t > 0 ? (__u64)t : 0;
}

/* perfbuf_source_ops: the line handed out before is done with */
static bool src_peek(void *ctx, __u64 *time_ns)
{
	struct host_src *s = ctx;

	unref(s->cur);
	s->cur = NULL;
	if (!s->n)
		return false;
	*time_ns = key_of(s->v[0].time);
	return true;
}

static bool src_next(void *ctx, struct perfbuf_record *rec)
{
	struct host_src *s = ctx;
	struct wait_line l;

	unref(s->cur);
	l = pop(s);
	--*s->waiting;
	s->cur = l.b;
	s->out = (struct tail_line){ .time = l.time, .host = s->host,
				     .args = l.b->args, .data = l.data,
				     .len = l.len };
	memset(rec, 0, sizeof(*rec));
	rec->kind = PERFBUF_REC_SAMPLE;
	rec->cpu = -1;
	rec->time_ns = key_of(l.time);
	rec->data = &s->out;
	rec->data_sz = sizeof(s->out);
	return true;
}

static const struct perfbuf_source_ops src_ops = {
	.sz = sizeof(src_ops), .peek = src_peek, .next = src_next,
};

struct tail_src *tail_src_new(void)
{
	struct tail_src *ts = calloc(1, sizeof(*ts));

	if (ts && !(ts->m = perfbuf_merge__new())) {
		free(ts);
		return NULL;
	}
	if (ts)
		ts->seed = (size_t)ts ^ (size_t)time(NULL) * 2654435761u;
	return ts;
}

static void src_free(struct host_src *s)
{
	unref(s->cur);
	for (size_t i = 0; i < s->n; i++)
		unref(s->v[i].b);
	free(s->v);
	free(s->host);
	free(s);
}

void tail_src_free(struct tail_src *ts)
{
	if (!ts)
		return;
	for (size_t i = 0; i < ts->n_src; i++)
		src_free(ts->src[i]);
	free(ts->src);
	free(ts->tab);
	perfbuf_merge__free(ts->m);
	free(ts);
}

/* @host's place in @tab (@cap slots): its source, or the empty slot it
 * would take (FNV-1a from @seed, probing on). */
static struct host_src **slot(struct host_src **tab, size_t cap, size_t seed,
			      const char *host)
{
	size_t h = seed ^ 14695981039346656037ULL, i;

	for (const char *p = host; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	for (i = h & (cap - 1); tab[i] && strcmp(tab[i]->host, host);)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static int tab_grow(struct tail_src *ts)
{
	size_t cap = ts->tab_cap ? 2 * ts->tab_cap : 64;
	struct host_src **tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (size_t i = 0; i < ts->n_src; i++)
		*slot(tab, cap, ts->seed, ts->src[i]->host) = ts->src[i];
	free(ts->tab);
	ts->tab = tab;
	ts->tab_cap = cap;
	return 0;
}

/* @host's source, added to the merge on first sight; NULL: no memory. */
static struct host_src *host_of(struct tail_src *ts, const char *host)
{
	struct host_src *s, **v, **at;

	if (2 * (ts->n_src + 1) > ts->tab_cap && tab_grow(ts))
		return NULL;
	at = slot(ts->tab, ts->tab_cap, ts->seed, host);
	if (*at)
		return *at;
	v = realloc(ts->src, (ts->n_src + 1) * sizeof(*v));
	if (!v)
		return NULL;
	ts->src = v;
	s = calloc(1, sizeof(*s));
	if (s && (s->host = strdup(host)) &&
	    !perfbuf_merge__add_source(ts->m, &src_ops, s)) {
		s->waiting = &ts->waiting;
		return *at = ts->src[ts->n_src++] = s;
	}
	if (s)
		free(s->host);
	free(s);
	return NULL;
}

/* The non-empty lines of @data (@len bytes). */
static size_t count_lines(const char *data, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += data[i] != '\n' && (i + 1 == len || data[i + 1] == '\n');
	return n;
}

/* The Unix time of each line of a batch: the batch's Perfbuf-Time is
 * its first line's, and the lines' time_ns (on one clock, whatever
 * --time was) give the rest; a line without one takes its elder's. */
struct line_clock {
	__s64 first_real, offset, prev;
	bool have_offset;
};

static __s64 line_time(struct line_clock *lc, const char *line)
{
	__s64 t;

	if (!tail_line_time(line, &t))
		return lc->prev;
	if (!lc->have_offset) {
		lc->offset = lc->first_real - t;
		lc->have_offset = true;
	}
	return lc->prev = t + lc->offset;
}

/* Line @p (@n bytes, NUL-ended) of @b into @s: false when skipped. */
static bool add_line(struct tail_src *ts, struct host_src *s, struct batch *b,
		     struct line_clock *lc, const char *p, size_t n)
{
	struct wait_line l = { .seq = ts->seq, .b = b, .data = p, .len = n };

	if (!tail_json_ok(p, n))
		return false;	/* not perfbuf's, or forged */
	l.time = line_time(lc, p);
	if (push(s, &l))
		return false;
	ts->seq++;
	ts->waiting++;
	b->refs++;
	if (!ts->any || l.time > ts->newest)
		ts->newest = l.time;
	ts->any = true;
	return true;
}

size_t tail_src_add(struct tail_src *ts, const char *host, const char *args,
		    __s64 first_real, const char *data, size_t len)
{
	struct line_clock lc = { .first_real = first_real, .prev = first_real };
	struct host_src *s = host_of(ts, host);
	size_t al = strlen(args) + 1, skipped = 0;
	struct batch *b = s ? malloc(sizeof(*b) + al + len + 1) : NULL;
	char *p, *end;

	if (!b)
		return count_lines(data, len);
	b->refs = 0;
	b->args = memcpy(b->buf, args, al);
	p = memcpy(b->buf + al, data, len);
	end = p + len;
	*end = 0;
	while (p < end) {
		char *nl = memchr(p, '\n', end - p);
		size_t n = (nl ? nl : end) - p;

		p[n] = 0;
		if (n && !add_line(ts, s, b, &lc, p, n))
			skipped++;
		p += n + 1;
	}
	if (!b->refs)
		free(b);
	return skipped;
}

struct emit {
	struct tail_src *ts;
	tail_line_fn fn;
	void *ctx;
};

static int hand_out(void *ctx, const struct perfbuf_record *rec)
{
	struct emit *e = ctx;
	struct tail_line l = *(const struct tail_line *)rec->data;

	if (rec->flags & PERFBUF_RECF_LATE) {
		l.late = true;
		e->ts->late++;
	}
	return e->fn(e->ctx, &l);
}

int tail_src_emit(struct tail_src *ts, __s64 window_ns, bool all,
		  tail_line_fn fn, void *ctx)
{
	struct emit e = { .ts = ts, .fn = fn, .ctx = ctx };
	__u64 horizon = UINT64_MAX;

	if (!ts->waiting)
		return 0;
	if (!all)
		horizon = ts->newest > window_ns ? key_of(ts->newest - window_ns) : 0;
	return perfbuf_merge__fold(ts->m, horizon, 0, hand_out, &e);
}

size_t tail_src_waiting(const struct tail_src *ts)
{
	return ts->waiting;
}

__u64 tail_src_late(const struct tail_src *ts)
{
	return ts->late;
}
