// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench: the tables, printed and written to bench.md, and the
 * rates, ratios and medians they show. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

double mps(__u64 n, double secs)
{
	return secs > 0 ? n / secs / 1e6 : 0;
}

double rate_of(const struct result *r)
{
	return mps(r->received, r->secs);
}

double loss_pct(const struct result *r)
{
	return r->offered ? 100.0 * (double)(r->offered - r->received) / r->offered : 0;
}

/* The share of the offered records delivered: the producer's rate varies
 * from run to run, so rates of two runs compare through it. */
double delivered_share(const struct result *r)
{
	return r->offered ? (double)r->received / r->offered : 0;
}

const char *fmt_lat(char *buf, size_t n, __u64 ns)
{
	if (ns >= 1000000000ULL)
		snprintf(buf, n, "%.2f s", ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, n, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, n, "%.1f us", ns / 1e3);
	return buf;
}

/* Both to stdout and to the markdown file. */
FILE *md;

void __attribute__((format(printf, 1, 2))) emit_md(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (md) {
		va_start(ap, fmt);
		vfprintf(md, fmt, ap);
		va_end(ap);
	}
	fflush(stdout);
}

void ratio_line(const char *what, double a, double b, double target,
		bool lower_is_better)
{
	double r = b > 0 ? a / b : 0;
	bool met = lower_is_better ? r <= target : r >= target;

	emit_md("| %s | %.2fx | %s %.2fx | %s |\n", what, r,
		lower_is_better ? "<=" : ">=", target, met ? "met" : "**missed**");
}

/* Lower is better: met at <= @need, and the aim is lower still. */
void ratio_aim_line(const char *what, double a, double b, double need,
		    double aim)
{
	double r = b > 0 ? a / b : 0;

	emit_md("| %s | %.2fx | <= %.2fx (aim %.2fx) | %s |\n", what, r, need,
		aim, r > need ? "**missed**" : r <= aim ? "met" : "met, aim missed");
}

/* A ratio without a target. */
void info_line(const char *what, double a, double b)
{
	emit_md("| %s | %.2fx | | |\n", what, b > 0 ? a / b : 0);
}

const char *met(bool ok)
{
	return ok ? "met" : "**missed**";
}

/* failed runs first, then by delivered rate */
static int cmp_delivered(const void *a, const void *b)
{
	const struct result *x = a, *y = b;
	double dx = x->err ? -1 : rate_of(x);
	double dy = y->err ? -1 : rate_of(y);

	return dx < dy ? -1 : dx > dy;
}

/* The median of @n results by delivered rate (sorts them). */
struct result median_result(struct result *r, int n)
{
	qsort(r, (size_t)n, sizeof(r[0]), cmp_delivered);
	return r[n / 2];
}
