// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * nats-tail's check of a message before it is printed: anyone allowed to
 * publish on the subjects can store anything, so a payload is printed
 * only when it is one JSON object on one line, as `perfbuf trace --json`
 * makes them: no whitespace but spaces and tabs, no raw control bytes,
 * valid UTF-8, nesting bounded, and no "host" or "realtime_ns" member of
 * its own (nats-tail puts those first: a second one would win).
 */
#include <stdbool.h>
#include <string.h>

#include "json_str.h"	/* utf8_len(), the escaper's own check */
#include "tail.h"

#define MAX_DEPTH 32

struct jv {
	const unsigned char *p, *end;
};

static void ws(struct jv *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t'))
		j->p++;
}

static bool eat(struct jv *j, char c)
{
	ws(j);
	if (j->p == j->end || *j->p != (unsigned char)c)
		return false;
	j->p++;
	return true;
}

static bool string(struct jv *j)
{
	if (!eat(j, '"'))
		return false;
	while (j->p < j->end) {
		unsigned char c = *j->p;
		size_t l;

		if (c == '"') {
			j->p++;
			return true;
		}
		if (c < 0x20 || c == 0x7f)
			return false;
		if (c == '\\') {
			if (j->end - j->p < 2 || !strchr("\"\\/bfnrtu", j->p[1]) || !j->p[1])
				return false;
			if (j->p[1] == 'u') {
				if (j->end - j->p < 6)
					return false;
				for (int i = 2; i < 6; i++)
					if (!strchr("0123456789abcdefABCDEF", j->p[i]) || !j->p[i])
						return false;
				j->p += 4;
			}
			j->p += 2;
			continue;
		}
		l = c < 0x80 ? 1 : utf8_len(j->p, j->end - j->p);
		if (!l)
			return false;
		j->p += l;
	}
	return false;
}

static size_t digits(struct jv *j)
{
	const unsigned char *s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p - s;
}

static bool number(struct jv *j)
{
	const unsigned char *s;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	s = j->p;
	if (!digits(j) || (*s == '0' && j->p - s > 1))
		return false;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!digits(j))
			return false;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!digits(j))
			return false;
	}
	return true;
}

static bool literal(struct jv *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return false;
	j->p += n;
	return true;
}

static bool value(struct jv *j, int depth);

/* An object or list after its opening bracket, to its closing one. */
static bool members(struct jv *j, int depth, bool object)
{
	if (eat(j, object ? '}' : ']'))
		return true;
	do {
		if (object && (!string(j) || !eat(j, ':')))
			return false;
		if (!value(j, depth))
			return false;
	} while (eat(j, ','));
	return eat(j, object ? '}' : ']');
}

static bool value(struct jv *j, int depth)
{
	ws(j);
	if (j->p == j->end)
		return false;
	switch (*j->p) {
	case '"':
		return string(j);
	case '{':
	case '[':
		if (depth >= MAX_DEPTH)
			return false;
		return members(j, depth + 1, *j->p++ == '{');
	case 't':
		return literal(j, "true");
	case 'f':
		return literal(j, "false");
	case 'n':
		return literal(j, "null");
	default:
		return number(j);
	}
}

/* Is the key at @k (quoted, @kn bytes) one nats-tail adds? */
static bool ours(const char *k, size_t kn)
{
	return (kn == 6 && !memcmp(k, "\"host\"", 6)) ||
	       (kn == 13 && !memcmp(k, "\"realtime_ns\"", 13));
}

bool tail_json_ok(const char *data, size_t len)
{
	struct jv j = { (const unsigned char *)data, (const unsigned char *)data + len };
	const unsigned char *k;

	if (!len || *data != '{' || !value(&j, 0) || j.p != j.end)
		return false;
	/* the top-level keys, now that the whole is known to be valid */
	j.p = (const unsigned char *)data + 1;
	if (eat(&j, '}'))
		return false;	/* {}: nothing to print after our members */
	do {
		ws(&j);
		k = j.p;
		string(&j);
		if (ours((const char *)k, j.p - k))
			return false;
		eat(&j, ':');
		value(&j, 1);
	} while (eat(&j, ','));
	return true;
}
