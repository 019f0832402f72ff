// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfbuf trace --filter`: parse each expression once, compile it for
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

#include "filter.h"
#include "format.h"
#include "probe.h"
#include "syscalls.h"

#define err_line(fmt, ...) fprintf(stderr, "%s: " fmt, PROG, ##__VA_ARGS__)

enum fx_kind { FX_AND, FX_OR, FX_NOT, FX_CMP, FX_TRUTH };

enum tok_kind {
	T_END, T_NAME, T_NUM, T_STR, T_LPAREN, T_RPAREN, T_NOT, T_AND, T_OR,
	T_CMP, T_OTHER,
};

struct fx_node {
	enum fx_kind kind;
	struct fx_node *l, *r;
	/* FX_CMP / FX_TRUTH: l_name / the literal; the field is on the left */
	char *name;
	enum trace_filter_cmp cmp;
	bool is_str, prefix;
	char *str;		/* decoded, NUL-free */
	size_t len;
	__u64 num;
	bool neg;		/* num came from a literal with '-' */
	int at, span;		/* the part of the expression, for messages */
};

struct filter {
	char *arg;		/* as given: [PROBE:]EXPR */
	char *probe;		/* NULL: every probe */
	const char *expr;	/* into arg */
	struct fx_node *root;
};

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

static struct filter *filters;
static int nfilters;

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
static void say(const struct filter *f, int *err, const char *fmt, va_list ap)
{
	char msg[300];
	int alen = strlen(f->arg), n;

	if (*err)
		return;
	*err = -EINVAL;
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "%s: --filter '%.*s%s': %s%s\n", PROG, alen > 100 ? 100 : alen,
		f->arg, alen > 100 ? "..." : "", msg,
		n >= (int)sizeof(msg) ? "..." : "");
}

__attribute__((format(printf, 2, 3)))
static void perr(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(ps->f, &ps->err, fmt, ap);
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
		while (name_char(s[i + t->len], false))
			t->len++;
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
		err_line("out of memory\n");
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
	err_line("--filter '%s': ':' outside a string; per probe, write --filter 'PROBE:EXPR', e.g. 'tracepoint:syscalls:sys_enter_openat:filename == \"/etc/*\"'\n",
		 f->arg);
	return -EINVAL;
}

int filter_add(const char *arg)
{
	struct filter *v = realloc(filters, (nfilters + 1) * sizeof(*v)), *f;
	struct parser ps = {};

	if (!v) {
		err_line("out of memory\n");
		return -ENOMEM;
	}
	filters = v;
	f = &filters[nfilters];
	memset(f, 0, sizeof(*f));
	f->arg = strdup(arg);
	if (!f->arg) {
		err_line("out of memory\n");
		return -ENOMEM;
	}
	nfilters++;
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

void filters_free(void)
{
	for (int i = 0; i < nfilters; i++) {
		fx_free(filters[i].root);
		free(filters[i].arg);
		free(filters[i].probe);
	}
	free(filters);
	filters = NULL;
	nfilters = 0;
}

/* ---- compiling one probe's filters ---- */

/* What a name is for one probe. */
struct fx_field {
	enum trace_filter_src src;
	unsigned short off, size;	/* size: chars of TFS_CHARS/TFS_COMM */
	bool sgn, str, ptr;
	const char *why_not;		/* set: cannot be filtered on */
};

struct cc {
	struct trace_filter_prog *prog;
	const struct trace_probe *p;
	const struct filter *f;
	int err;
};

__attribute__((format(printf, 2, 3)))
static void cerr(struct cc *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(c->f, &c->err, fmt, ap);
	va_end(ap);
}

/* "'PART': " naming the comparison at fault, or "" when it is all of
 * the expression (the message starts with that already) */
static const char *part(const struct cc *c, const struct fx_node *n)
{
	static char buf[600];

	if (n->at == 0 && !c->f->expr[n->span + strspn(c->f->expr + n->span, " \t")])
		return "";
	snprintf(buf, sizeof(buf), "'%.*s': ", n->span, c->f->expr + n->at);
	return buf;
}

static bool is_ret_kind(enum probe_kind k)
{
	return k == PK_KRETPROBE || k == PK_URETPROBE || k == PK_FEXIT;
}

/* arg0.. of the probes that have arguments (raw tracepoints: from BTF) */
static int arg_cnt(const struct trace_probe *p)
{
	return p->kind == PK_RAWTP && p->nargs >= 0 ? p->nargs : TRACE_MAX_ARGS;
}

static void tp_field(const struct trace_probe *p, const struct tp_field *tf,
		     struct fx_field *out)
{
	out->off = tf->off;
	out->size = tf->size;
	out->sgn = tf->is_signed;
	switch (tf->kind) {
	case FK_INT:
		out->src = TFS_FIELD;
		break;
	case FK_PTR:
		out->src = TFS_FIELD;
		out->sgn = false;
		out->ptr = true;
		break;
	case FK_CHARS:
		out->src = TFS_CHARS;
		out->str = true;
		if (tf->size >= TRACE_FILTER_STR)
			out->why_not = "a char array longer than the filter's 255 bytes";
		break;
	case FK_STR:
		out->str = true;
		out->src = tf->user_ptr ? TFS_USER_PTR :
			   p->cfg.str[tf->slot].kind == TRACE_STR_REL_LOC ? TFS_REL_LOC :
			   TFS_DATA_LOC;
		break;
	case FK_BUF:
		out->why_not = "a buffer (bytes, with --buffers): filters compare integers and strings";
		break;
	case FK_ARGV:
		out->why_not = "a list of strings: filters compare integers and strings";
		break;
	default:
		out->why_not = "an array or raw bytes: filters compare integers and strings";
		break;
	}
}

/* The names @p offers, for a "no field" message. */
static void names_of(const struct trace_probe *p, char *buf, size_t sz)
{
	size_t len = 0;

	buf[0] = '\0';
	if (p->kind == PK_TRACEPOINT) {
		for (int i = 0; i < p->nfields && len < sz; i++)
			len += snprintf(buf + len, sz - len, "%s ", p->fields[i].name);
	} else if (is_ret_kind(p->kind)) {
		len = snprintf(buf, sz, "ret ");
	} else {
		for (int i = 0; i < arg_cnt(p) && len < sz; i++)
			len += snprintf(buf + len, sz - len, "arg%d ", i);
	}
	if (len < sz)
		snprintf(buf + len, sz - len, "pid tid comm cpu");
}

/* @name for probe @p: pid, tid, comm and cpu are the task's and CPU's;
 * args.NAME or another NAME is the probe's own. */
static int resolve(struct cc *c, const char *name, struct fx_field *out)
{
	static const struct { const char *name; enum trace_filter_src src; } common[] = {
		{ "pid", TFS_PID }, { "tid", TFS_TID }, { "cpu", TFS_CPU }, { "comm", TFS_COMM },
	};
	const struct trace_probe *p = c->p;
	bool args = !strncmp(name, "args.", 5);
	const char *n = args ? name + 5 : name;
	char names[512];

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; !args && i < sizeof(common) / sizeof(common[0]); i++) {
		if (!strcmp(n, common[i].name)) {
			out->src = common[i].src;
			out->size = out->src == TFS_COMM ? TRACE_COMM_LEN : 4;
			out->str = out->src == TFS_COMM;
			return 0;
		}
	}
	if (p->kind == PK_TRACEPOINT) {
		for (int i = 0; i < p->nfields; i++) {
			if (!strcmp(p->fields[i].name, n)) {
				tp_field(p, &p->fields[i], out);
				return 0;
			}
		}
	} else if (is_ret_kind(p->kind) ? !strcmp(n, "ret") :
		   (!strncmp(n, "arg", 3) && isdigit((unsigned char)n[3]) && !n[4] &&
		    n[3] - '0' < arg_cnt(p))) {
		out->src = TFS_FIELD;
		out->off = is_ret_kind(p->kind) ? 0 : (n[3] - '0') * 8;
		out->size = 8;
		out->sgn = is_ret_kind(p->kind);	/* as printed: ret signed, args not */
		return 0;
	}
	names_of(p, names, sizeof(names));
	cerr(c, "%s has no field '%s' (its names: %s)", p->spec, n, names);
	return -ENOENT;
}

static struct trace_filter_op *emit(struct cc *c, enum trace_filter_code code)
{
	struct trace_filter_op *op;

	if (c->prog->n >= TRACE_FILTER_OPS) {
		cerr(c, "too long for the kernel filter of %s: more than %d operations (comparisons, !, && and ||)",
		     c->p->spec, TRACE_FILTER_OPS);
		return NULL;
	}
	op = &c->prog->op[c->prog->n++];
	op->code = code;
	return op;
}

/* The constant @n->num as a value of @fl's type, as C converts it; it
 * must fit the field's width, signed or unsigned. */
static int convert(struct cc *c, const struct fx_node *n,
		   const struct fx_field *fl, __u64 *out)
{
	unsigned int bits = fl->size * 8;
	__u64 v = n->num;

	if (bits < 64) {
		bool fits = n->neg ? (__s64)v >= -((__s64)1 << (bits - 1))
				   : v < (__u64)1 << bits;

		if (!fits) {
			cerr(c, "%sthe constant does not fit '%s' (%u bytes, %s)",
			     part(c, n), n->name, fl->size,
			     fl->sgn ? "signed" : "unsigned");
			return -ERANGE;
		}
		v &= ((__u64)1 << bits) - 1;
		if (fl->sgn && (v >> (bits - 1)))
			v |= ~0ULL << bits;
	}
	*out = v;
	return 0;
}

/* TF_STR, then one TF_WORD per 8 bytes compared: the constant's, and its
 * NUL for == (a longer string has another byte there). */
static void compile_str(struct cc *c, const struct fx_node *n,
			const struct fx_field *fl)
{
	unsigned int k = n->len + !n->prefix, max = fl->src == TFS_COMM ?
		TRACE_COMM_LEN - 1 : fl->src == TFS_CHARS ? fl->size : TRACE_FILTER_STR - 2;
	struct trace_filter_op *op;
	char word[8];

	if (n->cmp != TF_EQ && n->cmp != TF_NE) {
		cerr(c, "%sstrings compare only with == and != (\"text*\" for a prefix)",
		     part(c, n));
		return;
	}
	if (n->len > max) {
		cerr(c, "%s'%s' holds at most %u bytes, so this can never match",
		     part(c, n), n->name, max);
		return;
	}
	op = emit(c, TF_STR);
	if (!op)
		return;
	op->src = fl->src;
	op->off = fl->off;
	op->size = fl->size;
	op->val = k;
	for (unsigned int i = 0; i < k && !c->err; i += 8) {
		unsigned int left = k - i < 8 ? k - i : 8;

		memset(word, 0, sizeof(word));
		memcpy(word, n->str + i, i + left > n->len ? n->len - i : left);
		op = emit(c, TF_WORD);
		if (!op)
			return;
		op->arg = i / 8;
		memcpy(&op->val, word, 8);
		memset(&op->mask, 0, 8);
		memset(&op->mask, 0xff, left);	/* the first left bytes in memory */
	}
	if (n->cmp == TF_NE)
		emit(c, TF_NOT);
}

static void compile_cmp(struct cc *c, const struct fx_node *n)
{
	struct fx_field fl;
	struct trace_filter_op *op;
	__u64 v = 0;

	if (resolve(c, n->name, &fl))
		return;
	if (fl.why_not) {
		cerr(c, "'%s' of %s is %s", n->name, c->p->spec, fl.why_not);
		return;
	}
	if (n->kind == FX_TRUTH && fl.str) {
		cerr(c, "'%s' alone: it is a string; compare it with == or != \"...\"",
		     n->name);
		return;
	}
	if (n->kind == FX_CMP && fl.str != n->is_str) {
		cerr(c, "%s'%s' of %s is %s; compare it with %s",
		     part(c, n), n->name, c->p->spec,
		     fl.str ? "a string" : fl.ptr ? "a pointer (an address)" : "an integer",
		     fl.str ? "a \"string\"" : "a number");
		return;
	}
	if (fl.str) {
		compile_str(c, n, &fl);
		return;
	}
	if (n->kind == FX_CMP && convert(c, n, &fl, &v))
		return;
	op = emit(c, TF_CMP);
	if (!op)
		return;
	op->src = fl.src;
	op->off = fl.off;
	op->size = fl.size;
	op->flags = fl.sgn ? TF_SIGNED : 0;
	op->cmp = n->kind == FX_TRUTH ? TF_NE : n->cmp;
	op->val = v;		/* FX_TRUTH: != 0 */
}

static void compile(struct cc *c, const struct fx_node *n)
{
	struct trace_filter_op *jmp;

	if (!n || c->err)
		return;
	switch (n->kind) {
	case FX_AND:
	case FX_OR:
		compile(c, n->l);
		jmp = emit(c, n->kind == FX_AND ? TF_JMP_FALSE : TF_JMP_TRUE);
		compile(c, n->r);
		if (jmp)
			jmp->arg = c->prog->n;	/* forward: the loop ends */
		break;
	case FX_NOT:
		compile(c, n->l);
		emit(c, TF_NOT);
		break;
	default:
		compile_cmp(c, n);
		break;
	}
}

/* "t:" -> "tracepoint:" ...: the probe pattern as the canonical spec. */
static bool probe_matches(const struct filter *f, const struct trace_probe *p)
{
	static const char *const alias[][2] = {
		{ "t:", "tracepoint:" }, { "rt:", "rawtracepoint:" }, { "k:", "kprobe:" },
		{ "kr:", "kretprobe:" }, { "f:", "fentry:" }, { "fr:", "fexit:" },
		{ "u:", "uprobe:" }, { "ur:", "uretprobe:" },
	};
	char pat[4200];

	if (p->arg && !strcmp(f->probe, p->arg))
		return true;
	snprintf(pat, sizeof(pat), "%s", f->probe);
	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++) {
		size_t n = strlen(alias[i][0]);

		if (!strncmp(f->probe, alias[i][0], n - 1) && f->probe[n - 1] == ':') {
			snprintf(pat, sizeof(pat), "%s%s", alias[i][1], f->probe + n);
			break;
		}
	}
	return !fnmatch(pat, p->spec, 0);
}

/* Probe @p's filters, ANDed, into @prog: 0 or -errno (printed). */
static int compile_probe(const struct trace_probe *p,
			 struct trace_filter_prog *prog)
{
	struct trace_filter_op *jmp[64];
	int njmp = 0;
	struct cc c = { .prog = prog, .p = p };

	memset(prog, 0, sizeof(*prog));
	for (int i = 0; i < nfilters && !c.err; i++) {
		if (filters[i].probe && !probe_matches(&filters[i], p))
			continue;
		c.f = &filters[i];
		if (prog->n && njmp < 64)
			jmp[njmp++] = emit(&c, TF_JMP_FALSE);
		compile(&c, filters[i].root);
	}
	for (int i = 0; i < njmp; i++)
		if (jmp[i])
			jmp[i]->arg = prog->n;
	return c.err;
}

/*
 * Compile the filters for every probe of @set and store them where the
 * BPF programs look them up: filter_of[i] = 1 + index into filters, the
 * same compiled program stored once.
 */
int filters_load(const struct probe_set *set, int filter_of_fd, int filters_fd)
{
	struct trace_filter_prog *progs = NULL, prog;
	int nprogs = 0, err = 0;

	for (int i = 0; i < nfilters; i++) {
		bool any = !filters[i].probe;

		for (int j = 0; j < set->n && !any; j++)
			any = probe_matches(&filters[i], &set->v[j]);
		if (!any) {
			err_line("--filter '%s': no probe matches '%s'; give it as on the command line or as the probe's full name\n",
				 filters[i].arg, filters[i].probe);
			return -ENOENT;
		}
	}
	for (int i = 0; i < set->n && !err && nfilters; i++) {
		__u32 key = i, idx;
		int k;

		err = compile_probe(&set->v[i], &prog);
		if (err || !prog.n)
			continue;
		for (k = 0; k < nprogs; k++)
			if (!memcmp(&progs[k], &prog, sizeof(prog)))
				break;
		if (k == nprogs) {
			struct trace_filter_prog *v;

			if (nprogs == TRACE_MAX_FILTERS) {
				err_line("the filters compile to more than %d different programs; give fewer per-probe filters or narrow the globs\n",
					 TRACE_MAX_FILTERS);
				err = -E2BIG;
				break;
			}
			v = realloc(progs, (nprogs + 1) * sizeof(*v));
			if (!v) {
				err_line("out of memory\n");
				err = -ENOMEM;
				break;
			}
			progs = v;
			progs[nprogs++] = prog;
			if (bpf_map_update_elem(filters_fd, &k, &prog, BPF_ANY)) {
				err = -errno;
				err_line("storing the filter of %s failed: %s\n",
					 set->v[i].spec, strerror(errno));
				break;
			}
		}
		idx = k + 1;
		if (bpf_map_update_elem(filter_of_fd, &key, &idx, BPF_ANY)) {
			err = -errno;
			err_line("storing the filter of %s failed: %s\n",
				 set->v[i].spec, strerror(errno));
		}
	}
	free(progs);
	return err;
}
