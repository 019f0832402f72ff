// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer: `perfbuf trace --aggregate` (tools/output/agg*.c). The input's
 * first line is an expression: any string is parsed (no crash, a bounded
 * error line); one that parses makes a map of at most 8 keys, fed by the
 * rest of the input, 16 bytes an event (a value, its sign, each key
 * part's kind, and a string cut from the input), then printed as text
 * and JSON. abort() when a map holds more keys than its limit or when an
 * entry's hist or lhist buckets do not add up to its count.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "output/agg.h"

#define LIMIT 8

/* The key parts of one event from @p (16 bytes) and the input @in */
static void event_parts(const struct agg_spec *s, const uint8_t *p, const uint8_t *in,
			size_t n, struct agg_part *parts)
{
	for (int k = 0; k < s->nkeys; k++) {
		uint8_t b = p[9 + k % 7];

		parts[k].kind = (enum agg_kind)(b & 3);
		memcpy(&parts[k].v, p, 8);
		parts[k].v >>= (b >> 2) & 63;	/* few values: keys repeat */
		parts[k].s = (const char *)in + (b % n);
		parts[k].len = (b >> 4) % (n - b % n + 1);
	}
}

/* Each entry's buckets add up to its count */
static void check_map(const struct agg_map *m)
{
	const struct agg_entry **v = agg_map__sorted(m);
	const struct agg_spec *s = agg_map__spec(m);

	if (agg_map__nkeys(m) > LIMIT)
		abort();
	for (size_t i = 0; v && i < agg_map__nkeys(m); i++) {
		int nb;
		const __u64 *b = agg_entry__buckets(v[i], m, &nb);
		__u64 sum = 0;

		for (int j = 0; j < nb; j++)
			sum += b[j];
		if ((s->fn == AGG_HIST || s->fn == AGG_LHIST) && sum != agg_entry__count(v[i]))
			abort();
	}
	free(v);
}

static void print_map(const struct agg_map *m, int fd)
{
	const struct agg_entry **v = agg_map__sorted(m);
	struct outbuf o;

	if (outbuf_init(&o, fd, NULL)) {
		free(v);
		return;
	}
	agg_text_map(&o, m);
	for (size_t i = 0; v && i < agg_map__nkeys(m); i++) {
		agg_json_key(&o, m, v[i]);
		if (agg_map__spec(m)->fn == AGG_HIST || agg_map__spec(m)->fn == AGG_LHIST)
			agg_json_buckets(&o, m, v[i]);
	}
	outbuf_flush(&o);
	outbuf_free(&o);
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int devnull = -1;
	const uint8_t *nl = memchr(data, '\n', size);
	size_t elen = nl ? (size_t)(nl - data) : size;
	char *expr = strndup((const char *)data, elen);
	struct agg_part parts[AGG_MAX_KEYS];
	struct agg_spec s;
	struct agg_map *m;

	if (devnull < 0)
		devnull = open("/dev/null", O_WRONLY);
	if (!expr || agg_spec_parse("fuzz", expr, &s)) {
		free(expr);
		return 0;
	}
	agg_specs_name("fuzz", &s, 1);
	m = agg_map__new(&s, LIMIT);
	for (size_t off = elen + 1; m && off + 16 <= size; off += 16) {
		__u64 v;

		memcpy(&v, data + off, 8);
		event_parts(&s, data + off, data, size, parts);
		agg_map__update(m, parts, v, data[off + 8] & 1);
	}
	if (m) {
		check_map(m);
		print_map(m, devnull);
	}
	agg_map__free(m);
	agg_spec_free(&s);
	free(expr);
	return 0;
}
