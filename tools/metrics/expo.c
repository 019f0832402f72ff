// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The Prometheus text format 0.0.4 (expo.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expo.h"

static bool room(struct expo *e, size_t n)
{
	size_t cap;
	char *p;

	if (e->oom)
		return false;
	if (e->len + n <= e->cap)
		return true;
	cap = e->cap ? e->cap : 4096;
	while (cap < e->len + n)
		cap *= 2;
	p = realloc(e->buf, cap);
	if (!p) {
		e->oom = true;
		return false;
	}
	e->buf = p;
	e->cap = cap;
	return true;
}

static void put(struct expo *e, const char *s, size_t n)
{
	if (room(e, n)) {
		memcpy(e->buf + e->len, s, n);
		e->len += n;
	}
}

static void puts_(struct expo *e, const char *s)
{
	put(e, s, strlen(s));
}

static void __attribute__((format(printf, 2, 3))) putf(struct expo *e,
							const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(e, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* @s escaped: '\\' and '\n' always, '"' in label values */
static void put_escaped(struct expo *e, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			puts_(e, "\\\\");
		else if (*s == '\n')
			puts_(e, "\\n");
		else if (*s == '"' && quote)
			puts_(e, "\\\"");
		else
			put(e, s, 1);
	}
}

void expo_family(struct expo *e, const char *name, const char *type,
		 const char *help)
{
	puts_(e, "# HELP ");
	puts_(e, name);
	puts_(e, " ");
	put_escaped(e, help, false);
	puts_(e, "\n# TYPE ");
	puts_(e, name);
	puts_(e, " ");
	puts_(e, type);
	puts_(e, "\n");
}

static void sample_head(struct expo *e, const char *name,
			const struct expo_label *labels, int n)
{
	puts_(e, name);
	for (int i = 0; i < n; i++) {
		puts_(e, i ? "," : "{");
		puts_(e, labels[i].name);
		puts_(e, "=\"");
		put_escaped(e, labels[i].value, true);
		puts_(e, "\"");
	}
	puts_(e, n ? "} " : " ");
}

void expo_u64(struct expo *e, const char *name, const struct expo_label *labels,
	      int n, __u64 v)
{
	sample_head(e, name, labels, n);
	putf(e, "%llu\n", (unsigned long long)v);
}

void expo_double(struct expo *e, const char *name,
		 const struct expo_label *labels, int n, double v)
{
	sample_head(e, name, labels, n);
	if (isnan(v))
		puts_(e, "NaN\n");
	else if (isinf(v))
		puts_(e, v > 0 ? "+Inf\n" : "-Inf\n");
	else
		putf(e, "%.15g\n", v);
}

void expo_one_u64(struct expo *e, const char *name, const char *type,
		  const char *help, __u64 v)
{
	expo_family(e, name, type, help);
	expo_u64(e, name, NULL, 0, v);
}

void expo_one_double(struct expo *e, const char *name, const char *type,
		     const char *help, double v)
{
	expo_family(e, name, type, help);
	expo_double(e, name, NULL, 0, v);
}

void expo_reset(struct expo *e)
{
	e->len = 0;
	e->oom = false;
}

void expo_free(struct expo *e)
{
	free(e->buf);
	*e = (struct expo){};
}
