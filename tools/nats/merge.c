// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A binary min-heap on (time, arrival) of held messages (merge.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

static bool before(const struct merge_item *a, const struct merge_item *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void swap(struct merge_item *a, struct merge_item *b)
{
	struct merge_item t = *a;

	*a = *b;
	*b = t;
}

int merge_push(struct merge *m, __s64 time, const char *host,
	       const char *args, const char *data, size_t len)
{
	size_t hl = strlen(host) + 1, al = strlen(args) + 1, i;
	struct merge_item it = { .time = time, .seq = m->seq++, .len = len };

	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct merge_item *v = realloc(m->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->v = v;
		m->cap = cap;
	}
	/* one allocation: host, NUL, args, NUL, data, NUL */
	it.host = malloc(hl + al + len + 1);
	if (!it.host)
		return -ENOMEM;
	memcpy(it.host, host, hl);
	it.args = it.host + hl;
	memcpy(it.args, args, al);
	it.data = it.args + al;
	memcpy(it.data, data, len);
	it.data[len] = 0;
	if (!m->n || time > m->newest)
		m->newest = time;
	i = m->n++;
	m->v[i] = it;
	while (i && before(&m->v[i], &m->v[(i - 1) / 2])) {
		swap(&m->v[i], &m->v[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	return 0;
}

bool merge_pop(struct merge *m, __s64 window_ns, bool all,
	       struct merge_item *out)
{
	size_t i = 0;

	if (!m->n || (!all && m->v[0].time > m->newest - window_ns))
		return false;
	*out = m->v[0];
	m->v[0] = m->v[--m->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i;

		if (l < m->n && before(&m->v[l], &m->v[min]))
			min = l;
		if (r < m->n && before(&m->v[r], &m->v[min]))
			min = r;
		if (min == i)
			return true;
		swap(&m->v[i], &m->v[min]);
		i = min;
	}
}

void merge_free(struct merge *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].host);
	free(m->v);
	memset(m, 0, sizeof(*m));
}
