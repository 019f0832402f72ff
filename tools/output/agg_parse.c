// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --aggregate's expressions: "[@NAME =] FN(ARGS) [by KEY[,KEY...]]",
 * FN one of bpftrace's count sum min max avg hist lhist. A name is a
 * builtin (comm pid tid cpu probe, as --filter has them; kstack and
 * ustack, keys only, as bpftrace's @[kstack]) or a field of
 * the event, looked up by name per probe when the schema is known:
 * whatever the decoder gives a name (an argument, a member, a duration)
 * can be aggregated and be a key.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "common/say.h"

#define AGG_SYNTAX "FN(ARGS) [by KEY[,KEY...]], FN one of count() sum(F) min(F) max(F) " \
		   "avg(F) hist(F) lhist(F, MIN, MAX, STEP)"

static const char *const fn_names[] = {
	[AGG_COUNT] = "count", [AGG_SUM] = "sum", [AGG_MIN] = "min", [AGG_MAX] = "max",
	[AGG_AVG] = "avg", [AGG_HIST] = "hist", [AGG_LHIST] = "lhist",
};

struct lexer {
	const char *prog, *text, *p;
};

static void skip_ws(struct lexer *l)
{
	while (isspace((unsigned char)*l->p))
		l->p++;
}

static int bad(struct lexer *l, const char *what)
{
	cli_say(l->prog, "--aggregate '%s': %s; write %s\n", l->text, what,
		AGG_SYNTAX);
	return -EINVAL;
}

/* An identifier ([A-Za-z_][A-Za-z0-9_]*), its length; 0 when none */
static size_t ident_len(const char *p)
{
	size_t n = 0;

	if (!isalpha((unsigned char)*p) && *p != '_')
		return 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	return n;
}

/* A name: identifiers joined by '.' or "->" (args.count, p->x, a->b.c) */
static size_t name_len(const char *p)
{
	size_t n = ident_len(p), k;

	while (n) {
		size_t sep = p[n] == '.' ? 1 : p[n] == '-' && p[n + 1] == '>' ? 2 : 0;

		if (!sep || !(k = ident_len(p + n + sep)))
			break;
		n += sep + k;
	}
	return n;
}

static int parse_ref(struct lexer *l, struct agg_ref *r, const char *what)
{
	static const char *const builtins[] = {
		[AGG_B_COMM] = "comm", [AGG_B_PID] = "pid", [AGG_B_TID] = "tid",
		[AGG_B_CPU] = "cpu", [AGG_B_PROBE] = "probe",
		[AGG_B_KSTACK] = "kstack", [AGG_B_USTACK] = "ustack",
	};
	size_t n, skip = 0;
	char msg[96];

	skip_ws(l);
	n = name_len(l->p);
	if (!n) {
		snprintf(msg, sizeof(msg), "%s expected at '%.20s'", what, l->p);
		return bad(l, msg);
	}
	r->b = AGG_B_FIELD;
	if (n > 5 && !strncmp(l->p, "args.", 5))
		skip = 5;
	else if (n > 6 && !strncmp(l->p, "args->", 6))
		skip = 6;
	for (int b = AGG_B_COMM; !skip && b <= AGG_B_USTACK; b++)
		if (strlen(builtins[b]) == n && !strncmp(l->p, builtins[b], n))
			r->b = b;
	r->name = strndup(l->p + skip, n - skip);
	if (!r->name)
		return -ENOMEM;
	l->p += n;
	return 0;
}

/* , INTEGER (lhist's MIN, MAX, STEP) */
static int parse_int(struct lexer *l, long long *v, const char *what)
{
	char *end, msg[64];

	skip_ws(l);
	if (*l->p++ != ',') {
		snprintf(msg, sizeof(msg), "lhist wants a %s after F", what);
		return bad(l, msg);
	}
	skip_ws(l);
	errno = 0;
	*v = strtoll(l->p, &end, 0);
	if (end == l->p || errno) {
		snprintf(msg, sizeof(msg), "lhist's %s is not an integer at '%.20s'", what, l->p);
		return bad(l, msg);
	}
	l->p = end;
	return 0;
}

static int check_lhist(struct lexer *l, const struct agg_spec *s)
{
	char msg[128];

	if (s->step <= 0 || s->min >= s->max) {
		snprintf(msg, sizeof(msg), "lhist wants MIN < MAX and STEP > 0, not %lld, %lld, %lld",
			 s->min, s->max, s->step);
		return bad(l, msg);
	}
	/* MAX - MIN in unsigned: it may not fit a long long */
	if (((unsigned long long)s->max - (unsigned long long)s->min) /
	    (unsigned long long)s->step > AGG_LHIST_MAX) {
		snprintf(msg, sizeof(msg), "lhist of more than %d buckets; a larger STEP",
			 AGG_LHIST_MAX);
		return bad(l, msg);
	}
	return 0;
}

/* FN(ARGS) */
static int parse_call(struct lexer *l, struct agg_spec *s)
{
	size_t n = ident_len(l->p);
	int fn = -1, err;

	for (int i = 0; i <= AGG_LHIST; i++)
		if (n == strlen(fn_names[i]) && !strncmp(l->p, fn_names[i], n))
			fn = i;
	if (fn < 0)
		return bad(l, n ? "unknown function" : "a function expected");
	s->fn = fn;
	l->p += n;
	skip_ws(l);
	if (*l->p++ != '(')
		return bad(l, "'(' expected after the function");
	if (fn != AGG_COUNT) {
		err = parse_ref(l, &s->val, "a field F");
		if (err)
			return err;
		if (s->val.b == AGG_B_KSTACK || s->val.b == AGG_B_USTACK)
			return bad(l, "a stack is no number: it is a key ('count() by kstack')");
	}
	if (fn == AGG_LHIST) {
		err = parse_int(l, &s->min, "MIN") ?: parse_int(l, &s->max, "MAX") ?:
		      parse_int(l, &s->step, "STEP") ?: check_lhist(l, s);
		if (err)
			return err;
	}
	skip_ws(l);
	if (*l->p++ != ')')
		return bad(l, fn == AGG_COUNT ? "count() takes no argument" :
			      fn == AGG_LHIST ? "lhist takes F, MIN, MAX, STEP" :
			      "')' expected after F");
	return 0;
}

/* [by KEY[,KEY...]] */
static int parse_keys(struct lexer *l, struct agg_spec *s)
{
	int err;

	skip_ws(l);
	if (!*l->p)
		return 0;
	if (strncmp(l->p, "by", 2) || (l->p[2] && !isspace((unsigned char)l->p[2])))
		return bad(l, "'by KEY' or the end expected after the function");
	l->p += 2;
	do {
		if (s->nkeys == AGG_MAX_KEYS)
			return bad(l, "more than 8 keys");
		err = parse_ref(l, &s->keys[s->nkeys], "a key");
		if (err)
			return err;
		s->nkeys++;
		skip_ws(l);
	} while (*l->p == ',' && l->p++);
	if (*l->p)
		return bad(l, "',' or the end expected after a key");
	return 0;
}

/* [@NAME =] */
static int parse_name(struct lexer *l, struct agg_spec *s)
{
	size_t n;

	skip_ws(l);
	if (*l->p != '@')
		return 0;
	n = ident_len(l->p + 1);
	if (n + 2 > sizeof(s->name))
		return bad(l, "a map name of 30 characters at most");
	memcpy(s->name, l->p, n + 1);
	s->name[n + 1] = '\0';
	s->named = true;
	l->p += n + 1;
	skip_ws(l);
	if (*l->p++ != '=')
		return bad(l, "'=' expected after the map's name");
	skip_ws(l);
	return 0;
}

int agg_spec_parse(const char *prog, const char *text, struct agg_spec *s)
{
	struct lexer l = { .prog = prog, .text = text, .p = text };
	int err;

	memset(s, 0, sizeof(*s));
	s->text = text;
	err = parse_name(&l, s) ?: parse_call(&l, s) ?: parse_keys(&l, s);
	if (err == -ENOMEM)
		cli_say(prog, "out of memory\n");
	if (err)
		agg_spec_free(s);
	return err;
}

int agg_specs_add(const char *prog, struct agg_spec *v, int *n, const char *text)
{
	int err;

	if (*n == AGG_MAX_MAPS) {
		cli_say(prog, "more than %d --aggregate options\n", AGG_MAX_MAPS);
		return -EINVAL;
	}
	err = agg_spec_parse(prog, text, &v[*n]);
	if (!err)
		(*n)++;
	return err;
}

static void task_as_field(struct agg_ref *r)
{
	if (r->b == AGG_B_COMM || r->b == AGG_B_PID || r->b == AGG_B_TID)
		r->b = AGG_B_FIELD;	/* its name is the builtin's */
}

void agg_spec_task_as_fields(struct agg_spec *s)
{
	if (s->fn != AGG_COUNT)
		task_as_field(&s->val);
	for (int i = 0; i < s->nkeys; i++)
		task_as_field(&s->keys[i]);
}

bool agg_spec_has_key(const struct agg_spec *s, enum agg_builtin b)
{
	for (int i = 0; i < s->nkeys; i++)
		if (s->keys[i].b == b)
			return true;
	return false;
}

void agg_spec_free(struct agg_spec *s)
{
	free(s->val.name);
	s->val.name = NULL;
	for (int i = 0; i < s->nkeys; i++) {
		free(s->keys[i].name);
		s->keys[i].name = NULL;
	}
	s->nkeys = 0;
}

int agg_specs_name(const char *prog, struct agg_spec *s, int n)
{
	for (int i = 0; i < n; i++) {
		int seen = 0;

		if (s[i].named)
			continue;
		if (n == 1) {
			strcpy(s[i].name, "@");
			break;
		}
		for (int k = 0; k < i; k++)
			seen += !s[k].named && s[k].fn == s[i].fn;
		snprintf(s[i].name, sizeof(s[i].name), seen ? "@%s_%d" : "@%s",
			 fn_names[s[i].fn], seen + 1);
	}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < i; k++)
			if (!strcmp(s[i].name, s[k].name)) {
				cli_say(prog, "--aggregate '%s' and '%s' both name the map %s; give each its own @NAME =\n",
					s[k].text, s[i].text, s[i].name);
				return -EINVAL;
			}
	return 0;
}
