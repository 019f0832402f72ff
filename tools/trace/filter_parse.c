// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfbuf trace --filter`, parsed (this file; filter.c compiles): each
 * expression once, into a tree (filter_ast.h), compiled by filter.c for
 * every probe it applies to (names resolve to that probe's fields) into
 * the ops of bpf/trace_filter.h, and hand the compiled programs to the
 * BPF side, which runs them before anything is copied into the ring.
 * What the BPF side cannot run is refused here, naming the part.
 *
 *   expr  := and ('||' and)*          and := unary ('&&' unary)*
 *   unary := '!' unary | '(' expr ')' | value [cmp value]
 *   value := NAME | args.NAME | NUMBER | "STRING"     cmp := == != < <= > >=
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "common/say.h"
#include "filter.h"
#include "filter_ast.h"
#include "format.h"
#include "probe.h"
#include "syscalls.h"

struct tok {
	enum tok_kind kind;
	int at, len;
	enum trace_filter_cmp cmp;
	bool open;		/* T_STR: no closing '"' */
};

/* Bounds met while parsing, before the recursion or the tree can grow
 * with the input: nesting, and nodes (each compiles to one op or more) */
#define FILTER_MAX_DEPTH 64
#define FILTER_MAX_NAME 64

struct parser {
	const char *s;
	struct tok t;		/* the current token */
	const struct filter *f;
	int err;
	int depth, nodes;
};

static void fx_free(struct fx_node *n)
{
	if (!n)
		return;
	fx_free(n->l);
	fx_free(n->r);
	free(n->name);
	free(n->str);
	free(n);
}

/* One line about filter @f, unless *@err says one was printed: the
 * first error is the one to fix. A short line whatever the input: the
 * filter and the message cut, marked "...". */
void filter_say(const struct filter *f, int *err, const char *fmt, va_list ap)
{
	char msg[300];
	int alen = strlen(f->arg), n;

	if (*err)
		return;
	*err = -EINVAL;
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	cli_say(f->prog, "--filter '%.*s%s': %s%s\n", alen > 100 ? 100 : alen,
		f->arg, alen > 100 ? "..." : "", msg,
		n >= (int)sizeof(msg) ? "..." : "");
}

__attribute__((format(printf, 2, 3)))
static void perr(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	filter_say(ps->f, &ps->err, fmt, ap);
	va_end(ap);
}

static bool name_char(char c, bool first)
{
	return isalpha((unsigned char)c) || c == '_' ||
	       (!first && (isdigit((unsigned char)c) || c == '.'));
}

/* The next token of ps->s from @at. */
static void lex(struct parser *ps, int at)
{
	static const struct { const char *op; enum tok_kind k; enum trace_filter_cmp c; } ops[] = {
		{ "==", T_CMP, TF_EQ }, { "!=", T_CMP, TF_NE }, { "<=", T_CMP, TF_LE },
		{ ">=", T_CMP, TF_GE }, { "&&", T_AND }, { "||", T_OR },
		{ "<", T_CMP, TF_LT }, { ">", T_CMP, TF_GT }, { "!", T_NOT },
		{ "(", T_LPAREN }, { ")", T_RPAREN },
	};
	const char *s = ps->s;
	struct tok *t = &ps->t;
	int i = at;

	while (isspace((unsigned char)s[i]))
		i++;
	t->at = i;
	t->kind = T_OTHER;
	t->len = 1;
	if (!s[i]) {
		t->kind = T_END;
		t->len = 0;
	} else if (name_char(s[i], true)) {
		/* p->x, a->b.c: a struct member is one name */
		while (name_char(s[i + t->len], false) ||
		       (!strncmp(s + i + t->len, "->", 2) &&
			name_char(s[i + t->len + 2], true)))
			t->len += s[i + t->len] == '-' ? 2 : 1;
		t->kind = T_NAME;
	} else if (isdigit((unsigned char)s[i]) ||
		   (s[i] == '-' && isdigit((unsigned char)s[i + 1]))) {
		while (isalnum((unsigned char)s[i + t->len]))
			t->len++;
		t->kind = T_NUM;
	} else if (s[i] == '"') {
		while (s[i + t->len] && s[i + t->len] != '"')
			t->len += s[i + t->len] == '\\' && s[i + t->len + 1] ? 2 : 1;
		/* "ab\" ends with an escaped '"': still open */
		t->open = s[i + t->len] != '"';
		if (!t->open)
			t->len++;
		t->kind = T_STR;
	} else {
		for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
			size_t n = strlen(ops[k].op);

			if (!strncmp(s + i, ops[k].op, n)) {
				t->kind = ops[k].k;
				t->cmp = ops[k].c;
				t->len = n;
				break;
			}
		}
	}
}

static void next(struct parser *ps)
{
	lex(ps, ps->t.at + ps->t.len);
}

/* Why a token that cannot start or continue an expression is there. */
static void unexpected(struct parser *ps, const char *want)
{
	const struct tok *t = &ps->t;
	const char *s = ps->s + t->at;

	if (t->kind == T_END)
		perr(ps, "the expression ends where %s was expected", want);
	else if ((t->kind == T_OTHER && strchr("+-*/%&|^~", *s)) ||
		 !strncmp(s, "<<", 2) || !strncmp(s, ">>", 2))
		perr(ps, "arithmetic and bit operators are not supported in the kernel filter ('%.*s' at column %d); compare a field with a constant",
		     s[1] == *s ? 2 : 1, s, t->at + 1);
	else if (*s == '=')
		perr(ps, "'=' at column %d: write == to compare", t->at + 1);
	else if (t->kind == T_LPAREN && strcmp(want, "a value"))
		perr(ps, "function calls are not supported in the kernel filter (column %d)",
		     t->at + 1);
	else
		perr(ps, "'%.*s' at column %d: %s expected", t->len ? t->len : 1,
		     s, t->at + 1, want);
}

/* "..." -> bytes; \\ \" \* \n \t \xHH; a final unescaped '*': prefix. */
static int parse_str(struct parser *ps, struct fx_node *n)
{
	const char *s = ps->s + ps->t.at + 1, *end = ps->s + ps->t.at + ps->t.len - 1;
	char *out = malloc(ps->t.len + 1);
	size_t k = 0;

	if (!out)
		return -ENOMEM;
	if (ps->t.len < 2 || ps->t.open) {
		free(out);
		perr(ps, "the string at column %d has no closing '\"'", ps->t.at + 1);
		return -EINVAL;
	}
	for (; s < end; s++) {
		char c = *s;

		if (c == '*' && s + 1 == end) {
			n->prefix = true;
			break;
		}
		if (c == '*') {
			perr(ps, "'*' inside %.*s: only a trailing '*' (a prefix match) is supported; write \\* for a '*' itself",
			     ps->t.len, ps->s + ps->t.at);
			break;
		}
		if (c == '\\') {
			unsigned int x;

			c = *++s;
			if (c == 'n')
				c = '\n';
			else if (c == 't')
				c = '\t';
			else if (c == 'x' && sscanf(s + 1, "%2x", &x) == 1 &&
				 isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2])) {
				c = (char)x;
				s += 2;
			} else if (c != '\\' && c != '"' && c != '*') {
				perr(ps, "unknown escape '\\%c' in %.*s (known: \\\\ \\\" \\* \\n \\t \\xHH)",
				     c, ps->t.len, ps->s + ps->t.at);
				break;
			}
		}
		if (!c) {
			perr(ps, "a string constant cannot hold a NUL byte: %.*s",
			     ps->t.len, ps->s + ps->t.at);
			break;
		}
		out[k++] = c;
	}
	out[k] = '\0';
	n->str = out;
	n->len = k;
	n->is_str = true;
	return ps->err;
}

static int parse_num(struct parser *ps, struct fx_node *n)
{
	const char *s = ps->s + ps->t.at;
	char buf[64], *end;
	bool neg = *s == '-';

	if (ps->t.len >= (int)sizeof(buf)) {
		perr(ps, "number too long at column %d", ps->t.at + 1);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%.*s", ps->t.len - neg, s + neg);
	errno = 0;
	n->num = strtoull(buf, &end, 0);
	if (errno || *end || (neg && n->num > (__u64)1 << 63)) {
		perr(ps, "'%.*s' at column %d is not a 64-bit integer (decimal, 0x hex or 0 octal)",
		     ps->t.len, s, ps->t.at + 1);
		return -EINVAL;
	}
	if (neg)
		n->num = -n->num;
	n->neg = neg;
	return 0;
}

static struct fx_node *node(struct parser *ps, enum fx_kind kind, int at)
{
	struct fx_node *n;

	if (++ps->nodes > TRACE_FILTER_OPS) {
		perr(ps, "too long for the kernel filter: more than %d operations (comparisons, !, && and ||)",
		     TRACE_FILTER_OPS);
		return NULL;
	}
	n = calloc(1, sizeof(*n));
	if (!n && !ps->err) {
		cli_say(ps->f->prog, "out of memory\n");
		ps->err = -ENOMEM;
	}
	if (n) {
		n->kind = kind;
		n->at = at;
	}
	return n;
}

/* One operand into @n: the field name, or the constant. */
static bool operand(struct parser *ps, struct fx_node *n, bool *is_name)
{
	*is_name = ps->t.kind == T_NAME;
	if (ps->t.kind == T_NAME && ps->t.len > FILTER_MAX_NAME) {
		perr(ps, "a name of %d characters at column %d: no field's name is that long",
		     ps->t.len, ps->t.at + 1);
		return false;
	}
	if (ps->t.kind == T_NAME) {
		n->name = strndup(ps->s + ps->t.at, ps->t.len);
		if (!n->name) {
			perr(ps, "out of memory");
			return false;
		}
		next(ps);
		if (ps->t.kind == T_LPAREN) {
			unexpected(ps, "an operator");
			return false;
		}
		return true;
	}
	if (ps->t.kind == T_NUM ? parse_num(ps, n) :
	    ps->t.kind == T_STR ? parse_str(ps, n) : (unexpected(ps, "a value"), -1))
		return false;
	next(ps);
	return true;
}

static enum trace_filter_cmp flip(enum trace_filter_cmp c)
{
	switch (c) {
	case TF_LT: return TF_GT;
	case TF_LE: return TF_GE;
	case TF_GT: return TF_LT;
	case TF_GE: return TF_LE;
	default: return c;
	}
}

/* value [cmp value], the field on one side and a constant on the other */
static struct fx_node *comparison(struct parser *ps)
{
	struct fx_node *n = node(ps, FX_TRUTH, ps->t.at), tmp = {};
	bool lname, rname;

	if (!n || !operand(ps, n, &lname))
		return n;
	if (ps->t.kind != T_CMP) {
		if (!lname)
			perr(ps, "a constant alone at column %d: compare a field with it",
			     n->at + 1);
		n->span = ps->t.at - n->at;
		return n;
	}
	n->kind = FX_CMP;
	n->cmp = ps->t.cmp;
	next(ps);
	if (!operand(ps, &tmp, &rname))
		goto out;
	n->span = ps->t.at - n->at;
	while (n->span > 0 && isspace((unsigned char)ps->s[n->at + n->span - 1]))
		n->span--;
	if (lname == rname) {
		perr(ps, "'%.*s' compares %s: the kernel filter compares a field with a constant",
		     n->span, ps->s + n->at, lname ? "two fields" : "two constants");
	} else if (!lname) {	/* constant OP field: field flip(OP) constant */
		n->name = tmp.name;
		tmp.name = NULL;
		n->cmp = flip(n->cmp);
	} else {
		n->is_str = tmp.is_str;
		n->prefix = tmp.prefix;
		n->str = tmp.str;
		n->len = tmp.len;
		n->num = tmp.num;
		n->neg = tmp.neg;
		tmp.str = NULL;
	}
out:
	free(tmp.name);
	free(tmp.str);
	return n;
}

static struct fx_node *expr(struct parser *ps);

static struct fx_node *unary(struct parser *ps)
{
	struct fx_node *n = NULL;
	int at = ps->t.at;

	if (ps->t.kind != T_NOT && ps->t.kind != T_LPAREN)
		return comparison(ps);
	if (ps->depth >= FILTER_MAX_DEPTH) {	/* the C stack is the bound */
		perr(ps, "nested more than %d deep at column %d", FILTER_MAX_DEPTH, at + 1);
		return NULL;
	}
	ps->depth++;
	if (ps->t.kind == T_NOT) {
		next(ps);
		n = node(ps, FX_NOT, at);
		if (n)
			n->l = unary(ps);
	} else {
		next(ps);
		n = expr(ps);
		if (ps->t.kind != T_RPAREN)
			unexpected(ps, "')'");
		else
			next(ps);
	}
	ps->depth--;
	return n;
}

static struct fx_node *binary(struct parser *ps, enum tok_kind op)
{
	struct fx_node *l = op == T_OR ? binary(ps, T_AND) : unary(ps), *n;

	while (!ps->err && ps->t.kind == op) {
		n = node(ps, op == T_OR ? FX_OR : FX_AND, ps->t.at);
		next(ps);
		if (!n)
			break;
		n->l = l;
		n->r = op == T_OR ? binary(ps, T_AND) : unary(ps);
		l = n;
	}
	return l;
}

static struct fx_node *expr(struct parser *ps)
{
	return binary(ps, T_OR);
}

/* The PROBE of PROBE:EXPR: up to the last ':' before any '"'. An
 * expression has no ':' outside strings, and starts with no probe kind. */
static int split_probe(struct filter *f)
{
	static const char *const kinds[] = { "tracepoint", "t", "rawtracepoint",
		"rt", "kprobe", "k", "kretprobe", "kr", "fentry", "f", "fexit",
		"fr", "uprobe", "u", "uretprobe", "ur" };
	size_t q = strcspn(f->arg, "\""), kl = strcspn(f->arg, ":");
	char *colon = NULL;

	for (size_t i = 0; i < q; i++)
		if (f->arg[i] == ':')
			colon = f->arg + i;
	f->expr = f->arg;
	if (!colon)
		return 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strlen(kinds[i]) == kl && !strncmp(f->arg, kinds[i], kl)) {
			f->probe = strndup(f->arg, colon - f->arg);
			f->expr = colon + 1;
			return f->probe ? 0 : -ENOMEM;
		}
	}
	cli_say(f->prog, "--filter '%s': ':' outside a string; per probe, write --filter 'PROBE:EXPR', e.g. 'tracepoint:syscalls:sys_enter_openat:filename == \"/etc/*\"'\n",
		 f->arg);
	return -EINVAL;
}

int filter_add(struct trace_filters *fs, const char *arg)
{
	struct filter *v = realloc(fs->v, (fs->n + 1) * sizeof(*v)), *f;
	struct parser ps = {};

	if (!v) {
		cli_say(fs->prog, "out of memory\n");
		return -ENOMEM;
	}
	fs->v = v;
	f = &fs->v[fs->n];
	memset(f, 0, sizeof(*f));
	f->prog = fs->prog;
	f->arg = strdup(arg);
	if (!f->arg) {
		cli_say(fs->prog, "out of memory\n");
		return -ENOMEM;
	}
	fs->n++;
	ps.err = split_probe(f);
	if (ps.err)
		return ps.err;
	ps.s = f->expr;
	ps.f = f;
	lex(&ps, 0);
	if (ps.t.kind == T_END) {
		perr(&ps, "empty expression");
		return ps.err;
	}
	f->root = expr(&ps);
	if (!ps.err && ps.t.kind == T_RPAREN)
		perr(&ps, "the ')' at column %d closes no '('", ps.t.at + 1);
	else if (!ps.err && ps.t.kind != T_END)
		unexpected(&ps, "&&, || or the end");
	return ps.err;
}

void filters_free(struct trace_filters *fs)
{
	for (int i = 0; i < fs->n; i++) {
		fx_free(fs->v[i].root);
		free(fs->v[i].arg);
		free(fs->v[i].probe);
	}
	free(fs->v);
	fs->v = NULL;
	fs->n = 0;
}
