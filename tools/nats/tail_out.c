// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * nats-tail's output: a message's --json object printed with its host
 * added, as JSON (host and realtime_ns first) or as a line in the
 * columns of `perfbuf trace`, with HOST after the time. The JSON is
 * perfbuf's own, so a small scanner finds the members; argument values
 * are printed as the JSON has them (strings quoted).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tail.h"

/* Past the JSON value at @p: a string, an object or list (nesting and
 * strings followed, nothing validated), or a number or literal up to
 * the next ',', ':', '}' or ']'. */
static const char *skip_value(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return p;
			if (!depth)
				return p + 1;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			if (!depth)
				return p;
			if (!--depth)
				return p + 1;
		} else if (!depth && (*p == ',' || *p == ':')) {
			return p;
		}
	}
	return p;
}

/* The next member of the object whose members start at *@p: its key
 * (quoted, *@kn bytes) and value (*@vn bytes); false at the end. */
static bool next_member(const char **p, const char **k, size_t *kn,
			const char **v, size_t *vn)
{
	const char *s = *p;

	if (*s == ',' || *s == '{')
		s++;
	if (*s != '"')
		return false;
	*k = s;
	s = skip_value(s);
	*kn = s - *k;
	if (*s != ':')
		return false;
	*v = ++s;
	s = skip_value(s);
	*vn = s - *v;
	*p = s;
	return true;
}

/* The raw value of top-level member "@key" of @obj: "" when absent. */
static const char *member(const char *obj, const char *key, size_t *vn)
{
	const char *p = obj, *k, *v;
	size_t kn, klen = strlen(key);

	while (next_member(&p, &k, &kn, &v, vn))
		if (kn == klen + 2 && !memcmp(k + 1, key, klen))
			return v;
	*vn = 0;
	return "";
}

/* Member @key of @obj in a column of @width; a string without its
 * quotes (escapes left as they are). */
static void put_member(FILE *f, const char *obj, const char *key, int width)
{
	size_t n;
	const char *v = member(obj, key, &n);

	if (n >= 2 && *v == '"') {
		v++;
		n -= 2;
	}
	fprintf(f, "%-*.*s ", width, (int)n, v);
}

/* (DEL too: valid JSON, but escaped it cannot upset a terminal) */
static void put_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The Perfbuf-Host header as trace's text prints a string: control
 * bytes, DEL and '\\' as \\xNN (a header is anyone's). Its width. */
static int put_host(FILE *f, const char *s)
{
	int n = 0;

	for (; *s; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			n += fprintf(f, "\\x%02x", c);
		else
			n += fputc(c, f) != EOF;
	}
	return n;
}

void tail_print_header(FILE *f)
{
	fprintf(f, "%-15s %-12s %-3s %-7s %-7s %-16s %s\n", "TIME", "HOST", "CPU",
		"PID", "TID", "COMM", "PROBE ARGS");
}

/* HH:MM:SS.uuuuuu local time */
static void put_time(FILE *f, __s64 ns)
{
	time_t sec = ns / 1000000000;
	struct tm tm;

	localtime_r(&sec, &tm);
	fprintf(f, "%02d:%02d:%02d.%06lld ", tm.tm_hour, tm.tm_min, tm.tm_sec,
		(long long)(ns % 1000000000 / 1000));
}

/* An event in trace's columns; its probe by the last part of its spec. */
static void print_event(FILE *f, const struct merge_item *it)
{
	const char *d = it->data, *v, *args, *label, *k;
	size_t n = 0, an = 0, kn = 0;
	int w;

	put_time(f, it->time);
	w = put_host(f, it->host);
	fprintf(f, "%*s", w < 12 ? 13 - w : 1, " ");
	put_member(f, d, "cpu", 3);
	put_member(f, d, "pid", 7);
	put_member(f, d, "tid", 7);
	put_member(f, d, "comm", 16);
	v = member(d, "probe", &n);
	for (label = v + n; label > v && label[-1] != ':'; label--)
		;
	fprintf(f, "%.*s", (int)(v + n - label - (n && v[n - 1] == '"')), label);
	args = member(d, "args", &an);
	while (next_member(&args, &k, &kn, &v, &n))
		fprintf(f, " %.*s=%.*s", (int)kn - 2, k + 1, (int)n, v);
	fputc('\n', f);
}

/* lost, cpu and summary objects: a line on stderr, as trace says them */
static void print_other(const struct merge_item *it, const char *type, size_t tn)
{
	const char *d = it->data, *a, *b;
	size_t an, bn;

	if (tn == 6 && !memcmp(type, "\"lost\"", 6)) {
		a = member(d, "count", &an);
		b = member(d, "cpu", &bn);
		put_host(stderr, it->host);
		fprintf(stderr, ": lost %.*s events on CPU #%.*s\n", (int)an, a, (int)bn, b);
	} else if (tn == 5 && !memcmp(type, "\"cpu\"", 5)) {
		a = member(d, "cpu", &an);
		member(d, "online", &bn);
		put_host(stderr, it->host);
		fprintf(stderr, ": CPU %.*s %s\n", (int)an, a,
			bn == 4 ? "came online: traced" : "went offline");
	} else if (tn == 9 && !memcmp(type, "\"summary\"", 9)) {
		a = member(d, "received", &an);
		b = member(d, "lost", &bn);
		put_host(stderr, it->host);
		fprintf(stderr, ": ended: %.*s events received, %.*s lost\n",
			(int)an, a, (int)bn, b);
	}
}

void tail_print(FILE *f, const struct merge_item *it, bool json)
{
	const char *type;
	size_t tn;

	if (json) {
		fputs("{\"host\":", f);
		put_json_str(f, it->host);
		fprintf(f, ",\"realtime_ns\":%lld,%s\n", (long long)it->time,
			it->data + 1);
		return;
	}
	type = member(it->data, "type", &tn);
	if (tn == 7 && !memcmp(type, "\"event\"", 7))
		print_event(f, it);
	else
		print_other(it, type, tn);
}
