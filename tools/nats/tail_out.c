// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * nats-tail's output: a message's --json object printed with its host
 * added, as JSON (host and realtime_ns first) or as a line in the
 * columns of `perfbuf trace`, with HOST after the time. The JSON is
 * perfbuf's own, so a small scanner finds the members. Argument values
 * print as trace's text prints them, as the batch's Perfbuf-Args says
 * (batch.h): strings quoted and escaped as text, addresses, pointers and
 * bytes bare, a number's name after it, "..." after what was cut;
 * without the header, as the JSON has them.
 */
#define _GNU_SOURCE	/* memmem() */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"
#include "json_str.h"	/* the escaper of every JSON output */

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

static void put_file(void *f, const char *p, size_t len)
{
	fwrite(p, 1, len, f);
}

/* A JSON string by the escaper of every JSON output (lib/json_str.h): a
 * host name's bytes that are not UTF-8 as \udcXX, as trace writes them */
static void put_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	json_str_escape(s, strlen(s), put_file, f);
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

/* HH:MM:SS.uuuuuu local time, '*' after it when late (as trace's) */
static void put_time(FILE *f, __s64 ns, bool late)
{
	time_t sec = ns / 1000000000;
	struct tm tm;

	localtime_r(&sec, &tm);
	fprintf(f, "%02d:%02d:%02d.%06lld%s ", tm.tm_hour, tm.tm_min, tm.tm_sec,
		(long long)(ns % 1000000000 / 1000), late ? "*" : "");
}

/* The bytes JSON string @v (quoted, @n bytes) holds, into @out (room for
 * @n): \udcXX is byte XX (output.c's surrogateescape), another \uXXXX
 * its UTF-8. The count. */
static size_t json_bytes(const char *v, size_t n, char *out)
{
	const char *p = v + 1, *end = v + n - 1;
	size_t k = 0;
	unsigned int cp;
	char h[5] = "";

	for (; p < end; p++) {
		if (*p != '\\' || p + 1 >= end) {
			out[k++] = *p;
			continue;
		}
		switch (*++p) {
		case 'n': out[k++] = '\n'; break;
		case 't': out[k++] = '\t'; break;
		case 'r': out[k++] = '\r'; break;
		case 'b': out[k++] = '\b'; break;
		case 'f': out[k++] = '\f'; break;
		case 'u':
			if (end - p < 5)
				break;
			memcpy(h, p + 1, 4);
			cp = (unsigned int)strtoul(h, NULL, 16);
			p += 4;
			if (cp >= 0xdc80 && cp <= 0xdcff) {
				out[k++] = cp & 0xff;
			} else if (cp < 0x80) {
				out[k++] = cp;
			} else if (cp < 0x800) {
				out[k++] = 0xc0 | cp >> 6;
				out[k++] = 0x80 | (cp & 0x3f);
			} else {
				out[k++] = 0xe0 | cp >> 12;
				out[k++] = 0x80 | ((cp >> 6) & 0x3f);
				out[k++] = 0x80 | (cp & 0x3f);
			}
			break;
		default: out[k++] = *p; break;	/* \" \\ \/ */
		}
	}
	return k;
}

/* @n bytes as trace's text has them, into @out (room for 4 @n):
 * printable ASCII as is (\ and " escaped), \n, \t, else \xXX (output.c's
 * out_text_str). The count. */
static size_t text_bytes(const char *s, size_t n, char *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"') {
			out[k++] = c;
		} else if (c == '\\' || c == '"' || c == '\n' || c == '\t') {
			out[k++] = '\\';
			out[k++] = c == '\n' ? 'n' : c == '\t' ? 't' : c;
		} else {
			out[k++] = '\\';
			out[k++] = 'x';
			out[k++] = "0123456789abcdef"[c >> 4];
			out[k++] = "0123456789abcdef"[c & 15];
		}
	}
	return k;
}

/* JSON string @v (@n bytes) as text (escaped as trace's, @text) or its
 * bytes as they are: a scratch buffer of the caller's (free it), NULL
 * (nothing) when @v is not a string. */
static char *json_text(const char *v, size_t n, bool text, size_t *len)
{
	char *raw, *out;

	if (n < 2 || *v != '"' || !(raw = malloc(n * 5)))
		return NULL;
	*len = json_bytes(v, n, raw);
	if (!text)
		return raw;
	out = raw + n;	/* room for 4 n */
	*len = text_bytes(raw, *len, out);
	memmove(raw, out, *len);
	return raw;
}

/* A JSON string as text: quoted (@quote) or bare, padded to @width;
 * anything else as the JSON has it. */
static void put_str(FILE *f, const char *v, size_t n, bool quote, bool text,
		    int width)
{
	size_t len;
	char *s = json_text(v, n, text, &len);

	if (!s)
		fprintf(f, "%-*.*s", width, (int)n, v);
	else if (quote)
		fprintf(f, "\"%.*s\"", (int)len, s);
	else
		fprintf(f, "%-*.*s", width, (int)len, s);
	free(s);
}

/* Member @key of @obj in a column of @width, a string as text. */
static void put_member(FILE *f, const char *obj, const char *key, int width)
{
	size_t n;
	const char *v = member(obj, key, &n);

	put_str(f, v, n, false, true, width);
	fputc(' ', f);
}

/* Is "@key" (the quoted key, @kn bytes), or "@key[@idx]" when @idx >= 0,
 * in the event's "cut" list @cut (@cn bytes)? */
static bool is_cut(const char *cut, size_t cn, const char *key, size_t kn,
		   long idx)
{
	char want[300];
	int wn;

	if (!cn || kn > 256)
		return false;
	wn = idx < 0 ? snprintf(want, sizeof(want), "%.*s", (int)kn, key) :
		       snprintf(want, sizeof(want), "%.*s[%ld]\"", (int)kn - 1, key, idx);
	for (const char *p = cut; (p = memmem(p, cut + cn - p, want, wn)); p += wn)
		if (p > cut && (p[-1] == '[' || p[-1] == ','))
			return true;
	return false;
}

/* argv: ["a", "b"...], ? for null (trace's text_strs) */
static void put_strs(FILE *f, const char *v, size_t n, const char *cut,
		     size_t cn, const char *key, size_t kn)
{
	const char *p = v + 1, *e;
	long i = 0;

	fputc('[', f);
	while (p < v + n && *p != ']') {
		if (*p == ',')
			p++;
		e = skip_value(p);
		if (i)
			fputs(", ", f);
		if (*p == '"')
			put_str(f, p, e - p, true, true, 0);
		else
			fputc('?', f);
		if (is_cut(cut, cn, key, kn, i++))
			fputs("...", f);
		p = e;
	}
	fputc(']', f);
}

/* A number, or a list of them, without the quotes of those past 2^53 */
static void put_unquoted(FILE *f, const char *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] != '"')
			fputc(v[i], f);
}

/* The "names" entry of key @k (quoted, @kn bytes) in (), as trace's
 * text puts a value's name after it. */
static void put_name(FILE *f, const char *d, const char *k, size_t kn)
{
	size_t nn, n;
	const char *names = member(d, "names", &nn), *nk, *v;

	while (nn && next_member(&names, &nk, &n, &v, &nn))
		if (n == kn && !memcmp(nk, k, kn)) {
			fputc('(', f);
			put_str(f, v, nn, false, true, 0);
			fputc(')', f);
			return;
		}
}

/* One argument, value @v of key @k, of kind @kind (NATS_ARG_*). */
static void put_arg(FILE *f, const char *d, char kind, const char *k,
		    size_t kn, const char *v, size_t n)
{
	size_t cn = 0;
	const char *cut = member(d, "cut", &cn);

	if (kind == NATS_ARG_HIDDEN)
		return;
	fprintf(f, " %.*s=", (int)kn - 2, k + 1);
	switch (kind) {
	case NATS_ARG_INT:
		put_unquoted(f, v, n);
		put_name(f, d, k, kn);
		return;
	case NATS_ARG_INTS:
		put_unquoted(f, v, n);
		return;
	case NATS_ARG_STR:
		put_str(f, v, n, true, true, 0);
		break;
	case NATS_ARG_STRS:
		put_strs(f, v, n, cut, cn, k, kn);
		break;
	case NATS_ARG_RAW:
		put_str(f, v, n, false, false, 0);
		break;
	default:	/* no Perfbuf-Args: as the JSON has it */
		fprintf(f, "%.*s", (int)n, v);
		return;
	}
	if (is_cut(cut, cn, k, kn, -1))
		fputs("...", f);
}

/* --kstack/--ustack: a line per frame after the event's, a tab first */
static void put_frames(FILE *f, const char *d, const char *key)
{
	size_t n;
	const char *v = member(d, key, &n), *p = v + 1, *e;

	while (n && p < v + n && *p != ']') {
		if (*p == ',')
			p++;
		e = skip_value(p);
		fputc('\t', f);
		put_str(f, p, e - p, false, true, 0);
		fputc('\n', f);
		p = e;
	}
}

/* An event in trace's columns; its probe by the last part of its spec. */
static void print_event(FILE *f, const struct tail_line *it)
{
	const char *d = it->data, *v, *args, *label, *k;
	size_t n = 0, an = 0, kn = 0, nargs = strlen(it->args);
	int i = 0, w;

	member(d, "late", &n);
	put_time(f, it->time, n == 4 || it->late);	/* "late":true, or here */
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
		put_arg(f, d, i < (int)nargs ? it->args[i++] : '?', k, kn, v, n);
	fputc('\n', f);
	put_frames(f, d, "kstack");
	put_frames(f, d, "ustack");
}

bool tail_line_time(const char *line, __s64 *ns)
{
	size_t n;
	const char *v = member(line, "time_ns", &n);

	if (!n)
		return false;
	*ns = strtoll(v + (*v == '"'), NULL, 10);
	return true;
}

/* lost, cpu and summary objects: a line on stderr, as trace says them */
static void print_other(const struct tail_line *it, const char *type, size_t tn)
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

void tail_print(FILE *f, const struct tail_line *it, bool json)
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
