// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The "print fmt:" line of a tracefs format file, read for what it says
 * about fields beyond their C type: an argument printed with %pI4, %pI6
 * or %pIS is an address; __print_symbolic(REC->f, { 1, "NAME" }, ...) and
 * __print_flags(REC->f, "|", { 1, "A" }, ...) give names for its values.
 * What is not understood is left alone: the field prints as its type.
 *
 *   print fmt: "family=%s saddr=%pI4 ...", __print_symbolic(REC->family,
 *              { 2, "AF_INET" }, { 10, "AF_INET6" }), REC->saddr, ...
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "printfmt.h"
#include "probe.h"

#define MAX_ARGS 64

/* The end of the C string literal starting at @s (on its quote), or NULL. */
static const char *str_end(const char *s)
{
	for (s++; *s; s++) {
		if (*s == '\\' && s[1])
			s++;
		else if (*s == '"')
			return s + 1;
	}
	return NULL;
}

/* The top-level comma-separated expressions of @s, as [start, end) pairs. */
static int split_args(const char *s, const char *v[][2], int max)
{
	int n = 0, depth = 0;
	const char *start = s;

	for (; *s; s++) {
		if (*s == '"') {
			s = str_end(s);
			if (!s)
				return -1;
			s--;
		} else if (strchr("({[", *s)) {
			depth++;
		} else if (strchr(")}]", *s)) {
			depth--;
		} else if (*s == ',' && !depth) {
			if (n == max)
				return n;
			v[n][0] = start;
			v[n++][1] = s;
			start = s + 1;
		}
	}
	if (n < max && s > start) {
		v[n][0] = start;
		v[n++][1] = s;
	}
	return n;
}

static const char *skip_ws(const char *s, const char *end)
{
	while (s < end && isspace((unsigned char)*s))
		s++;
	return s;
}

/* The field @p names in "REC->name", "&REC->name" or "(cast)REC->name". */
static struct tp_field *rec_field(struct trace_probe *p, const char *s,
				  const char *end)
{
	size_t n;

	s = skip_ws(s, end);
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	if (s < end && *s == '&')
		s++;
	if (s < end && *s == '(') {	/* a cast: letters, spaces, '*' */
		const char *c = s + 1;

		while (c < end && (isalnum((unsigned char)*c) || *c == '_' ||
				   *c == ' ' || *c == '*'))
			c++;
		if (c == end || *c != ')')
			return NULL;
		s = skip_ws(c + 1, end);
	}
	if (end - s < 6 || strncmp(s, "REC->", 5))
		return NULL;
	s += 5;
	n = end - s;
	for (int i = 0; i < p->nfields; i++)
		if (strlen(p->fields[i].name) == n &&
		    !strncmp(p->fields[i].name, s, n))
			return &p->fields[i];
	return NULL;
}

/* A constant: numbers (any base, U/L suffixes), ( ), - ~ << | ; false
 * for anything else (an enum name tracefs did not replace). */
static bool const_or(const char **s, const char *end, __u64 *v);

static bool const_unary(const char **s, const char *end, __u64 *v)
{
	char *e;

	*s = skip_ws(*s, end);
	if (*s >= end)
		return false;
	if (**s == '-' || **s == '~') {
		char op = *(*s)++;

		if (!const_unary(s, end, v))
			return false;
		*v = op == '-' ? -*v : ~*v;
		return true;
	}
	if (**s == '(') {
		(*s)++;
		if (!const_or(s, end, v))
			return false;
		*s = skip_ws(*s, end);
		if (*s >= end || **s != ')')
			return false;
		(*s)++;
		return true;
	}
	if (!isdigit((unsigned char)**s))
		return false;
	*v = strtoull(*s, &e, 0);
	while (e < end && strchr("uUlL", *e))
		e++;
	*s = e;
	return true;
}

static bool const_shift(const char **s, const char *end, __u64 *v)
{
	__u64 r;

	if (!const_unary(s, end, v))
		return false;
	for (;;) {
		*s = skip_ws(*s, end);
		if (end - *s < 2 || strncmp(*s, "<<", 2))
			return true;
		*s += 2;
		if (!const_unary(s, end, &r) || r >= 64)
			return false;
		*v <<= r;
	}
}

static bool const_or(const char **s, const char *end, __u64 *v)
{
	__u64 r;

	if (!const_shift(s, end, v))
		return false;
	for (;;) {
		*s = skip_ws(*s, end);
		if (*s >= end || **s != '|' || (*s + 1 < end && (*s)[1] == '|'))
			return true;
		(*s)++;
		if (!const_shift(s, end, &r))
			return false;
		*v |= r;
	}
}

/* The C string literal's body [s, end), its \" \\ \n \t resolved. */
static char *unquote(const char *s, const char *end)
{
	char *r = malloc(end - s + 1), *o = r;

	for (; r && s < end; s++) {
		if (*s == '\\' && s + 1 < end) {
			s++;
			*o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
		} else {
			*o++ = *s;
		}
	}
	if (r)
		*o = '\0';
	return r;
}

/* { VALUE, "NAME" } into @n; false when it is not one we can read. */
static bool name_pair(const char *s, const char *end, struct tv_name *n)
{
	const char *q, *qe;
	__u64 v;

	s = skip_ws(s, end);
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	if (end - s < 2 || *s != '{' || end[-1] != '}')
		return false;
	s++;
	if (!const_or(&s, end - 1, &v))
		return false;
	s = skip_ws(s, end);
	if (*s != ',')
		return false;
	q = skip_ws(s + 1, end);
	if (*q != '"' || !(qe = str_end(q)) || qe > end)
		return false;
	n->value = v;
	n->name = unquote(q + 1, qe - 1);
	return n->name != NULL;
}

/* __print_symbolic(REC->f, {..}, ...) / __print_flags(REC->f, "|", ...) */
static void print_names(struct trace_probe *p, const char *s, const char *end)
{
	bool flags = !strncmp(s, "__print_flags", 13);
	const char *open = memchr(s, '(', end - s), *v[MAX_ARGS][2];
	struct tp_field *f;
	char body[4096];
	int n, first;

	if (!open || end[-1] != ')' || end - open - 2 >= (long)sizeof(body))
		return;
	memcpy(body, open + 1, end - open - 2);
	body[end - open - 2] = '\0';
	n = split_args(body, v, MAX_ARGS);
	first = flags ? 2 : 1;
	if (n <= first || !(f = rec_field(p, v[0][0], v[0][1])) ||
	    f->kind != FK_INT || f->names)
		return;
	f->names = calloc(n - first, sizeof(*f->names));
	if (!f->names)
		return;
	for (int i = first; i < n; i++)
		if (name_pair(v[i][0], v[i][1], &f->names[f->nnames]))
			f->nnames++;
	f->hint = flags ? TV_HINT_FLAGS : TV_HINT_SYMBOLIC;
}

/* The conversions of printf format @fmt (the string's body): for each,
 * the letters after %p ("I4"), or "" for any other. */
static int conversions(const char *fmt, const char *end, char conv[][8], int max)
{
	int n = 0;

	for (const char *s = fmt; s < end && n < max; s++) {
		if (*s != '%')
			continue;
		if (s + 1 < end && s[1] == '%') {
			s++;
			continue;
		}
		s++;
		while (s < end && strchr("-+ #0123456789.*hlLzjt", *s))
			s++;
		conv[n][0] = '\0';
		if (s < end && *s == 'p') {
			int k = 0;

			while (s + 1 < end && isalnum((unsigned char)s[1]) && k < 7)
				conv[n][k++] = *++s;
			conv[n][k] = '\0';
		}
		n++;
	}
	return n;
}

static void address_hint(struct tp_field *f, const char *conv)
{
	unsigned int bytes = f->kind == FK_INT ? f->size :
			     f->kind == FK_ARRAY && f->elem == 1 ? f->size : 0;

	if (!strncmp(conv, "I4", 2) && bytes == 4)
		f->hint = TV_HINT_IPV4;
	else if (!strncmp(conv, "I6", 2) && bytes == 16 && f->kind == FK_ARRAY)
		f->hint = TV_HINT_IPV6;
	else if (!strncmp(conv, "IS", 2) && f->kind == FK_ARRAY && bytes >= 16)
		f->hint = TV_HINT_SOCKADDR;
}

void tp_printfmt_parse(struct trace_probe *p, const char *line)
{
	const char *q = strchr(line, '"'), *qe, *v[MAX_ARGS][2];
	char conv[MAX_ARGS][8];
	int nconv, nargs;

	if (!q || !(qe = str_end(q)))
		return;
	nconv = conversions(q + 1, qe - 1, conv, MAX_ARGS);
	qe = skip_ws(qe, qe + strlen(qe));
	if (*qe != ',')
		return;
	nargs = split_args(qe + 1, v, MAX_ARGS);
	for (int i = 0; i < nargs; i++) {
		const char *s = skip_ws(v[i][0], v[i][1]);
		struct tp_field *f;

		if (!strncmp(s, "__print_symbolic", 16) ||
		    !strncmp(s, "__print_flags", 13)) {
			const char *e = v[i][1];

			while (e > s && isspace((unsigned char)e[-1]))
				e--;
			print_names(p, s, e);
		}
		if (i < nconv && conv[i][0] == 'I' && (f = rec_field(p, s, v[i][1])))
			address_hint(f, conv[i]);
	}
}
