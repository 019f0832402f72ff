// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench: the tables, printed and written to bench.md, and the
 * rates, ratios and medians they show. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

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
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double median_double(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void paired_ratios(double *ratio, int n, struct paired *p)
{
	*p = (struct paired){ .n = n };
	p->ratio = median_double(ratio, n);
	p->lo = ratio[0];
	p->hi = ratio[n - 1];
}

struct result median_result(struct result *r, int n)
{
	qsort(r, (size_t)n, sizeof(r[0]), cmp_delivered);
	return r[n / 2];
}

/* The value of /proc/cpuinfo's first "@key<tabs>: value" line into @buf. */
static bool cpuinfo(const char *key, char *buf, size_t n)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	size_t len = strlen(key);
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v || strncmp(line, key, len) || strspn(line + len, " \t") != (size_t)(v - line - len))
			continue;
		v += 1 + strspn(v + 1, " ");
		v[strcspn(v, "\n")] = '\0';
		snprintf(buf, n, "%s", v);
		found = true;
	}
	fclose(f);
	return found;
}

/* "AMD EPYC (family 25, model 17), 2 CPUs online, VM, Linux 6.18.0":
 * the same code is ahead on one CPU and behind on another, so every
 * table says which it came from. */
const char *bench_host(void)
{
	static char host[512];
	char model[256] = "unknown CPU", fam[32] = "?", mod[32] = "?", flags[4096];
	int cpus[1024], n = perfbuf_cpus__online(cpus, 1024);
	struct utsname u = {};

	if (*host)
		return host;
	cpuinfo("model name", model, sizeof(model));
	cpuinfo("cpu family", fam, sizeof(fam));
	cpuinfo("model", mod, sizeof(mod));
	uname(&u);
	snprintf(host, sizeof(host), "%s (family %s, model %s), %d CPUs online%s, Linux %s",
		 model, fam, mod, n, cpuinfo("flags", flags, sizeof(flags)) &&
		 strstr(flags, " hypervisor") ? ", VM" : "", u.release);
	return host;
}

void emit_section(const char *title)
{
	emit_md("\n### %s\n\nHost: %s.\n\n", title, bench_host());
}
