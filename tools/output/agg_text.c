// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A map as bpftrace 0.17 prints it (its src/output.cpp), so that eyes and
 * scripts used to bpftrace read ours the same: "@[bash, 12]: 3", a keyed
 * hist as "@[bash]: " and bucket lines "[2K, 4K)   20 |@@@@   |" (label
 * 16 wide, count 8, a bar of 52 scaled to the largest bucket), the same
 * labels and the same blank lines. The buckets in JSON as bpftrace's
 * JSON has them: {"min":2048,"max":4095,"count":20}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"

#define BAR_WIDTH 52

static void out_str(struct outbuf *o, const char *s)
{
	out_mem(o, s, strlen(s));
}

/* Where the frame of stack @p starting at @i ends (its '\n') */
static size_t frame_end(const struct agg_part *p, size_t i)
{
	while (i < p->len && p->s[i] != '\n')
		i++;
	return i;
}

static void part_text(struct outbuf *o, const struct agg_part *p)
{
	switch (p->kind) {
	case AGG_K_U:
		out_u64(o, p->v);
		break;
	case AGG_K_S:
		out_s64(o, (__s64)p->v);
		break;
	case AGG_K_HEX:
		out_hex(o, p->v);
		break;
	case AGG_K_STR:
		out_text_str(o, p->s, p->len);
		break;
	case AGG_K_STACK:	/* bpftrace's: a line per frame, indented */
		out_c(o, '\n');
		for (size_t i = 0, j; i < p->len; i = j + 1) {
			j = frame_end(p, i);
			out_lit(o, "    ");
			out_text_str(o, p->s + i, j - i);
			out_c(o, '\n');
		}
		break;
	}
}

/* A stack as a JSON array of its frames' names, as trace --json's */
static void stack_json(struct outbuf *o, const struct agg_part *p)
{
	out_c(o, '[');
	for (size_t i = 0, j; i < p->len; i = j + 1) {
		j = frame_end(p, i);
		if (i)
			out_c(o, ',');
		out_json_str(o, p->s + i, j - i);
	}
	out_c(o, ']');
}

/* @name[k1, k2] */
static void key_text(struct outbuf *o, const struct agg_map *m, const struct agg_entry *e)
{
	const struct agg_spec *s = agg_map__spec(m);

	out_str(o, s->name);
	if (!s->nkeys)
		return;
	out_c(o, '[');
	for (int i = 0; i < s->nkeys; i++) {
		struct agg_part p;

		if (i)
			out_lit(o, ", ");
		agg_entry__part(e, i, &p);
		part_text(o, &p);
	}
	out_c(o, ']');
}

/* hist_index_label(): 1, 2, ..., 512, 1K, ..., 512K, 1M, ... T */
static void pow_label(char *buf, size_t sz, int power)
{
	static const char suffix[] = "\0KMGT";
	int k = power >= 40 ? 4 : power / 10;

	snprintf(buf, sz, "%llu%.1s", 1ULL << (power - 10 * k), &suffix[k]);
}

/* lhist_index_label(): 0, 1M, 1K multiples as such, else the number */
static void lin_label(char *buf, size_t sz, long long n)
{
	if (n && n % 1048576 == 0)
		snprintf(buf, sz, "%lldM", n / 1048576);
	else if (n && n % 1024 == 0)
		snprintf(buf, sz, "%lldK", n / 1024);
	else
		snprintf(buf, sz, "%lld", n);
}

/* The label of bucket @i: "[0]", "[2K, 4K)", "(..., 10)", "[100, ...)" */
static void bucket_label(char *buf, size_t sz, const struct agg_spec *s, int i)
{
	char lo[32], hi[32];
	int n = s->fn == AGG_LHIST ? agg_lhist_buckets(s) : 0;

	if (s->fn == AGG_HIST) {
		if (i <= 2) {
			snprintf(buf, sz, "%s", i == 0 ? "(..., 0)" : i == 1 ? "[0]" : "[1]");
			return;
		}
		pow_label(lo, sizeof(lo), i - 2);
		pow_label(hi, sizeof(hi), i - 1);
		snprintf(buf, sz, "[%s, %s)", lo, hi);
	} else if (i == 0) {
		lin_label(lo, sizeof(lo), s->min);
		snprintf(buf, sz, "(..., %s)", lo);
	} else if (i == n + 1) {
		lin_label(hi, sizeof(hi), s->max);
		snprintf(buf, sz, "[%s, ...)", hi);
	} else {	/* within [MIN, MAX]: no overflow */
		lin_label(lo, sizeof(lo), (long long)((__u64)(i - 1) * (__u64)s->step + (__u64)s->min));
		lin_label(hi, sizeof(hi), (long long)((__u64)i * (__u64)s->step + (__u64)s->min));
		snprintf(buf, sz, "[%s, %s)", lo, hi);
	}
}

/* The first and last buckets with a count, and the largest count */
static void bucket_range(const __u64 *b, int n, int *first, int *last, __u64 *max)
{
	*first = -1;
	*last = -1;
	*max = 0;
	for (int i = 0; i < n; i++) {
		if (b[i] && *first < 0)
			*first = i;
		if (b[i])
			*last = i;
		if (b[i] > *max)
			*max = b[i];
	}
}

static void hist_text(struct outbuf *o, const struct agg_map *m, const struct agg_entry *e)
{
	int n, first, last;
	const __u64 *b = agg_entry__buckets(e, m, &n);
	char label[80], line[160];
	__u64 max;

	bucket_range(b, n, &first, &last, &max);
	for (int i = first; first >= 0 && i <= last; i++) {
		/* bpftrace's int(count / (float)max * 52) */
		int w = (int)((float)b[i] / (float)max * BAR_WIDTH), len;

		bucket_label(label, sizeof(label), agg_map__spec(m), i);
		len = snprintf(line, sizeof(line), "%-16s%8llu |%-*.*s|\n", label,
			       (unsigned long long)b[i], BAR_WIDTH, w,
			       "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@");
		out_mem(o, line, (size_t)len);
	}
}

void agg_text_map(struct outbuf *o, const struct agg_map *m)
{
	const struct agg_spec *s = agg_map__spec(m);
	const struct agg_entry **v = agg_map__sorted(m);
	size_t n = agg_map__nkeys(m);
	bool sgn;

	if (!v || !n) {
		free(v);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		key_text(o, m, v[i]);
		if (s->fn == AGG_HIST || s->fn == AGG_LHIST) {
			out_lit(o, ": \n");
			hist_text(o, m, v[i]);
			out_c(o, '\n');
			continue;
		}
		out_lit(o, ": ");
		__u64 val = agg_entry__value(v[i], m, &sgn);
		if (sgn)
			out_s64(o, (__s64)val);
		else
			out_u64(o, val);
		out_c(o, '\n');
	}
	if (s->fn == AGG_AVG)	/* bpftrace ends a stats map with a blank line */
		out_c(o, '\n');
	free(v);
}

void agg_json_key(struct outbuf *o, const struct agg_map *m, const struct agg_entry *e)
{
	const struct agg_spec *s = agg_map__spec(m);

	for (int i = 0; i < s->nkeys; i++) {
		struct agg_part p;

		if (i)
			out_c(o, ',');
		out_json_str(o, s->keys[i].name, strlen(s->keys[i].name));
		out_c(o, ':');
		agg_entry__part(e, i, &p);
		if (p.kind == AGG_K_STR) {
			out_json_str(o, p.s, p.len);
		} else if (p.kind == AGG_K_STACK) {
			stack_json(o, &p);
		} else if (p.kind == AGG_K_HEX) {
			out_c(o, '"');
			out_hex(o, p.v);
			out_c(o, '"');
		} else {
			out_int(o, p.v, p.kind == AGG_K_S, true);
		}
	}
}

/* Bucket @i's bounds as bpftrace's JSON: "min":L,"max":H, (one of them
 * for the open ends) */
static void bucket_bounds(struct outbuf *o, const struct agg_spec *s, int i)
{
	bool hist = s->fn == AGG_HIST;
	bool has_lo = i > 0, has_hi = hist || i <= agg_lhist_buckets(s);
	__u64 lo, hi;

	if (hist) {
		lo = i <= 2 ? (__u64)(i - 1) : 1ULL << (i - 2);
		hi = i <= 2 ? (__u64)(i - 1) : i - 1 >= 64 ? ~0ULL : (1ULL << (i - 1)) - 1;
	} else {	/* unsigned: MIN - 1 may wrap, as the printed -1 does */
		lo = has_hi ? (__u64)(i - 1) * (__u64)s->step + (__u64)s->min : (__u64)s->max;
		hi = (__u64)i * (__u64)s->step + (__u64)s->min - 1;
	}
	if (has_lo) {
		out_lit(o, "\"min\":");
		out_int(o, lo, !hist, true);
		out_c(o, ',');
	}
	if (has_hi) {
		out_lit(o, "\"max\":");
		out_int(o, hi, !hist || i == 0, true);
		out_c(o, ',');
	}
}

void agg_json_buckets(struct outbuf *o, const struct agg_map *m, const struct agg_entry *e)
{
	int n, first, last;
	const __u64 *b = agg_entry__buckets(e, m, &n);
	__u64 max;

	bucket_range(b, n, &first, &last, &max);
	out_c(o, '[');
	for (int i = first; first >= 0 && i <= last; i++) {
		if (i > first)
			out_c(o, ',');
		out_c(o, '{');
		bucket_bounds(o, agg_map__spec(m), i);
		out_lit(o, "\"count\":");
		out_int(o, b[i], false, true);
		out_c(o, '}');
	}
	out_c(o, ']');
}
