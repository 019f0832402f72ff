// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One --aggregate map: a hash table of keys, each an entry with the
 * value of its function. A key is its parts encoded one after another
 * (a kind byte, then 8 bytes of integer or a 2-byte length and the
 * bytes of a string or a stack's names), so any mix of fields makes a key without a type per
 * map. The number of keys is bounded: past the limit an event with a new
 * key is counted apart (agg_map__other()), never dropped unsaid.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"

#define KEY_MAX (AGG_MAX_KEYS * (3 + AGG_STACK_MAX))

struct agg_entry {
	struct agg_entry *next;	/* in its hash chain */
	__u64 hash;
	__u32 klen;
	bool sgn;		/* the values are __s64 */
	__u64 count;		/* events (every function's) */
	__u64 v;		/* sum, min, max; avg's sum */
	const unsigned char *key;	/* klen bytes, after the slots */
	__u64 slots[];		/* hist, lhist; then the key's bytes */
};

struct agg_map {
	const struct agg_spec *spec;
	size_t max_keys, nkeys, nslots;
	size_t nbuckets;	/* a power of two */
	struct agg_entry **buckets;
	struct agg_entry **all;	/* nkeys of them, for printing and reset */
	size_t all_cap;
	__u64 other;		/* events whose key the limit kept out */
	bool full_said;
	unsigned char key[KEY_MAX];	/* the key being looked up */
};

struct agg_map *agg_map__new(const struct agg_spec *spec, size_t max_keys)
{
	struct agg_map *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->spec = spec;
	m->max_keys = max_keys;
	m->nslots = spec->fn == AGG_HIST ? AGG_HIST_SLOTS :
		    spec->fn == AGG_LHIST ? (size_t)agg_lhist_buckets(spec) + 2 : 0;
	m->nbuckets = 64;
	m->buckets = calloc(m->nbuckets, sizeof(*m->buckets));
	if (!m->buckets) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

void agg_map__reset(struct agg_map *m)
{
	for (size_t i = 0; i < m->nkeys; i++)
		free(m->all[i]);
	m->nkeys = 0;
	m->other = 0;
	m->full_said = false;
	memset(m->buckets, 0, m->nbuckets * sizeof(*m->buckets));
}

void agg_map__free(struct agg_map *m)
{
	if (!m)
		return;
	agg_map__reset(m);
	free(m->buckets);
	free(m->all);
	free(m);
}

size_t agg_map__nkeys(const struct agg_map *m)
{
	return m->nkeys;
}

__u64 agg_map__other(const struct agg_map *m)
{
	return m->other;
}

const struct agg_spec *agg_map__spec(const struct agg_map *m)
{
	return m->spec;
}

/* @parts into m->key: its length */
static size_t encode_key(struct agg_map *m, const struct agg_part *parts)
{
	unsigned char *k = m->key;

	for (int i = 0; i < m->spec->nkeys; i++) {
		const struct agg_part *p = &parts[i];
		size_t max = p->kind == AGG_K_STACK ? AGG_STACK_MAX : AGG_STR_MAX;
		__u16 len = (__u16)(p->len > max ? max : p->len);

		*k++ = (unsigned char)p->kind;
		if (p->kind != AGG_K_STR && p->kind != AGG_K_STACK) {
			memcpy(k, &p->v, 8);
			k += 8;
			continue;
		}
		memcpy(k, &len, 2);
		memcpy(k + 2, p->s, len);
		k += 2 + len;
	}
	return (size_t)(k - m->key);
}

/* Part @i of the key at @k, into @p; where the next part starts */
static const unsigned char *decode_part(const unsigned char *k, struct agg_part *p)
{
	__u16 len;

	p->kind = *k++;
	if (p->kind != AGG_K_STR && p->kind != AGG_K_STACK) {
		memcpy(&p->v, k, 8);
		p->s = NULL;
		p->len = 0;
		return k + 8;
	}
	memcpy(&len, k, 2);
	p->s = (const char *)k + 2;
	p->len = len;
	p->v = 0;
	return k + 2 + len;
}

void agg_entry__part(const struct agg_entry *e, int i, struct agg_part *p)
{
	const unsigned char *k = e->key;

	for (k = decode_part(k, p); i > 0; i--)
		k = decode_part(k, p);
}

/* FNV-1a */
static __u64 hash_key(const unsigned char *k, size_t n)
{
	__u64 h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ k[i]) * 0x100000001b3ULL;
	return h;
}

/* Twice the buckets, when there are as many keys as buckets */
static int grow(struct agg_map *m)
{
	size_t n = m->nbuckets * 2;
	struct agg_entry **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < m->nkeys; i++) {
		struct agg_entry *e = m->all[i];

		e->next = b[e->hash & (n - 1)];
		b[e->hash & (n - 1)] = e;
	}
	free(m->buckets);
	m->buckets = b;
	m->nbuckets = n;
	return 0;
}

/* A new entry for m->key (@klen bytes), @h its hash: NULL when out of
 * memory */
static struct agg_entry *add_entry(struct agg_map *m, size_t klen, __u64 h)
{
	size_t slots = m->nslots * sizeof(__u64);
	struct agg_entry *e;

	if (m->nkeys == m->all_cap) {
		size_t cap = m->all_cap ? m->all_cap * 2 : 64;
		struct agg_entry **all = realloc(m->all, cap * sizeof(*all));

		if (!all)
			return NULL;
		m->all = all;
		m->all_cap = cap;
	}
	if (m->nkeys >= m->nbuckets && grow(m))
		return NULL;
	e = calloc(1, sizeof(*e) + slots + klen);
	if (!e)
		return NULL;
	e->hash = h;
	e->klen = (__u32)klen;
	e->key = (const unsigned char *)e + sizeof(*e) + slots;
	memcpy((unsigned char *)e + sizeof(*e) + slots, m->key, klen);
	e->next = m->buckets[h & (m->nbuckets - 1)];
	m->buckets[h & (m->nbuckets - 1)] = e;
	m->all[m->nkeys++] = e;
	return e;
}

static bool less(__u64 a, __u64 b, bool sgn)
{
	return sgn ? (__s64)a < (__s64)b : a < b;
}

/* The value @v into @e, as the map's function wants it */
static void add_value(const struct agg_map *m, struct agg_entry *e, __u64 v, bool sgn)
{
	bool first = !e->count++;

	if (first)
		e->sgn = sgn;
	switch (m->spec->fn) {
	case AGG_COUNT:
		break;
	case AGG_SUM:
	case AGG_AVG:
		e->v += v;	/* two's complement: the same for __s64 */
		break;
	case AGG_MIN:
		if (first || less(v, e->v, e->sgn))
			e->v = v;
		break;
	case AGG_MAX:
		if (first || less(e->v, v, e->sgn))
			e->v = v;
		break;
	case AGG_HIST:
		e->slots[agg_hist_slot(v, sgn)]++;
		break;
	case AGG_LHIST:
		e->slots[agg_lhist_slot(m->spec, v, sgn)]++;
		break;
	}
}

int agg_map__update(struct agg_map *m, const struct agg_part *parts, __u64 v, bool sgn)
{
	size_t klen = encode_key(m, parts);
	__u64 h = hash_key(m->key, klen);
	struct agg_entry *e = m->buckets[h & (m->nbuckets - 1)];

	while (e && (e->hash != h || e->klen != klen || memcmp(e->key, m->key, klen)))
		e = e->next;
	if (!e) {
		if (m->nkeys >= m->max_keys) {
			m->other++;
			if (m->full_said)
				return 0;
			m->full_said = true;
			return 1;
		}
		e = add_entry(m, klen, h);
		if (!e)
			return -ENOMEM;
	}
	add_value(m, e, v, sgn);
	return 0;
}

int agg_hist_slot(__u64 v, bool sgn)
{
	if (sgn && (__s64)v < 0)
		return 0;
	if (!v)
		return 1;
	return 2 + 63 - __builtin_clzll(v);
}

/* (MAX - MIN) and (v - MIN) in unsigned arithmetic: the distance from
 * MIN to anything up to MAX fits a __u64, not always a long long */
int agg_lhist_buckets(const struct agg_spec *s)
{
	return (int)(((__u64)s->max - (__u64)s->min) / (__u64)s->step);
}

/* bpftrace's linear(): 0 below MIN, 1 + (MAX - MIN) / STEP above MAX */
int agg_lhist_slot(const struct agg_spec *s, __u64 v, bool sgn)
{
	if (sgn ? (__s64)v < s->min : s->min >= 0 && v < (__u64)s->min)
		return 0;
	if (sgn ? (__s64)v > s->max : s->max < 0 || v > (__u64)s->max)
		return 1 + agg_lhist_buckets(s);
	return 1 + (int)((v - (__u64)s->min) / (__u64)s->step);
}

__u64 agg_entry__count(const struct agg_entry *e)
{
	return e->count;
}

__u64 agg_entry__value(const struct agg_entry *e, const struct agg_map *m, bool *sgn)
{
	*sgn = e->sgn;
	switch (m->spec->fn) {
	case AGG_COUNT:
		*sgn = false;
		return e->count;
	case AGG_AVG:
		return e->sgn ? (__u64)((__s64)e->v / (__s64)e->count) : e->v / e->count;
	default:
		return e->v;
	}
}

const __u64 *agg_entry__buckets(const struct agg_entry *e, const struct agg_map *m, int *n)
{
	*n = (int)m->nslots;
	return e->slots;
}

/* Keys in order, part by part: numbers as numbers, strings as bytes */
static int cmp_keys(const struct agg_entry *a, const struct agg_entry *b, int nkeys)
{
	const unsigned char *ka = a->key, *kb = b->key;
	struct agg_part pa, pb;

	for (int i = 0; i < nkeys; i++) {
		ka = decode_part(ka, &pa);
		kb = decode_part(kb, &pb);
		if (pa.kind != pb.kind)
			return pa.kind < pb.kind ? -1 : 1;
		if (pa.kind == AGG_K_STR) {
			int c = memcmp(pa.s, pb.s, pa.len < pb.len ? pa.len : pb.len);

			if (c || pa.len != pb.len)
				return c ? c : pa.len < pb.len ? -1 : 1;
		} else if (pa.v != pb.v) {
			return less(pa.v, pb.v, pa.kind == AGG_K_S) ? -1 : 1;
		}
	}
	return 0;
}

/* bpftrace's order: by value ascending (hist, lhist: by their total
 * count), then by key where bpftrace leaves ties to its hash order */
static int cmp_entries(const void *x, const void *y, void *ctx)
{
	const struct agg_entry *a = *(const struct agg_entry *const *)x;
	const struct agg_entry *b = *(const struct agg_entry *const *)y;
	const struct agg_map *m = ctx;
	bool sa, sb;
	__u64 va, vb;

	if (m->nslots) {
		va = a->count;
		vb = b->count;
		sa = sb = false;
	} else {
		va = agg_entry__value(a, m, &sa);
		vb = agg_entry__value(b, m, &sb);
	}
	if (va != vb)
		return less(va, vb, sa || sb) ? -1 : 1;
	return cmp_keys(a, b, m->spec->nkeys);
}

const struct agg_entry **agg_map__sorted(const struct agg_map *m)
{
	const struct agg_entry **v = malloc((m->nkeys ? m->nkeys : 1) * sizeof(*v));

	if (!v)
		return NULL;
	if (m->nkeys)
		memcpy(v, m->all, m->nkeys * sizeof(*v));
	qsort_r(v, m->nkeys, sizeof(*v), cmp_entries, (void *)m);
	return v;
}
