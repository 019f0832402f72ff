// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * NATS subjects: the template filled in, validity, wildcard matching.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "subject.h"

/* A character a token may hold as is. */
static bool token_char(char c)
{
	return c > ' ' && c != '.' && c != '*' && c != '>' && c != 0x7f;
}

/* @v into @out (which has room) as token(s): ':' splits when @split. */
static char *put_token(char *out, const char *v, bool split)
{
	char *start = out;

	for (; *v; v++)
		*out++ = split && *v == ':' ? '.' : token_char(*v) ? *v : '_';
	if (out == start)
		*out++ = '_';
	/* an empty token between two ':' */
	for (char *p = start; p < out; p++)
		if (*p == '.' && (p == start || p[-1] == '.' || p + 1 == out))
			*p = '_';
	return out;
}

char *nats_subject_expand(const char *tmpl, const char *host,
			  const char *probe)
{
	size_t n = strlen(tmpl) + 1, hl = strlen(host) + 1, pl = strlen(probe) + 1;
	char *out, *o;

	/* each {..} at most as long as the longer value */
	out = o = malloc(n * (hl > pl ? hl : pl) + n);
	if (!out)
		return NULL;
	while (*tmpl) {
		if (!strncmp(tmpl, "{host}", 6)) {
			o = put_token(o, host, false);
			tmpl += 6;
		} else if (!strncmp(tmpl, "{probe}", 7)) {
			o = put_token(o, probe, true);
			tmpl += 7;
		} else {
			*o++ = *tmpl++;
		}
	}
	*o = 0;
	return out;
}

const char *nats_subject_invalid(const char *subj, bool filter)
{
	const char *tok = subj;

	if (!*subj)
		return "it is empty";
	for (const char *p = subj;; p++) {
		if (*p && *p != '.') {
			if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
				return "it has a blank";
			if (*p == '{' || *p == '}')
				return "only {host} and {probe} are filled in";
			continue;
		}
		if (p == tok)
			return "it has an empty token (two dots, or one at an end)";
		if ((p - tok == 1 && (*tok == '*' || *tok == '>')) ||
		    memchr(tok, '*', p - tok) || memchr(tok, '>', p - tok)) {
			if (!filter)
				return "'*' and '>' are for subscribers, not for publishing";
			if (p - tok != 1)
				return "'*' and '>' must be whole tokens";
			if (*tok == '>' && *p)
				return "'>' must be the last token";
		}
		if (!*p)
			return NULL;
		tok = p + 1;
	}
}

/* The length of the token at @s. */
static size_t tok_len(const char *s)
{
	const char *dot = strchr(s, '.');

	return dot ? (size_t)(dot - s) : strlen(s);
}

bool nats_subject_match(const char *f, const char *s)
{
	for (;;) {
		size_t fl = tok_len(f), sl = tok_len(s);

		if (fl == 1 && *f == '>')
			return true;	/* s has a token here: one or more */
		if (!(fl == 1 && *f == '*') && (fl != sl || memcmp(f, s, fl)))
			return false;
		f += fl;
		s += sl;
		if (!*f || !*s)
			return !*f && !*s;
		f++;
		s++;
	}
}

char *nats_subject_stream_default(const char *tmpl)
{
	const char *brace = strchr(tmpl, '{'), *end;
	char *out;

	if (!brace)
		return strdup(tmpl);
	/* back to the start of the token holding the brace */
	for (end = brace; end > tmpl && end[-1] != '.'; end--)
		;
	if (end == tmpl)
		return strdup("");
	out = malloc(end - tmpl + 2);
	if (!out)
		return NULL;
	memcpy(out, tmpl, end - tmpl);
	strcpy(out + (end - tmpl), ">");
	return out;
}
