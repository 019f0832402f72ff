// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfbuf trace --filter`, compiled: each parsed expression
 * (filter_parse.c) for every probe it applies to (names resolve to that
 * probe's fields) into the ops of bpf/trace_filter.h, and the compiled
 * programs handed to the BPF side, which runs them before anything is
 * copied into the ring. What the BPF side cannot run is refused here,
 * naming the part.
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

/* ---- compiling one probe's filters ---- */

/* What a name is for one probe. */
struct fx_field {
	enum trace_filter_src src;
	unsigned short off, size;	/* size: chars of TFS_CHARS/TFS_COMM */
	bool sgn, str, ptr;
	bool unknown0;			/* 0 is no value: comparisons false */
	bool never;			/* duration_ns of a probe without one */
	unsigned short fault;		/* a member's fault byte: comparisons
					 * false when set (unreadable) */
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
	filter_say(c->f, &c->err, fmt, ap);
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
	out->fault = tf->fault;
	switch (tf->kind) {
	case FK_INT:
	case FK_BOOL:
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
		switch (p->cfg.str[tf->slot].kind) {
		case TRACE_STR_USER_PTR: out->src = TFS_USER_PTR; break;
		case TRACE_STR_ANY_PTR: out->src = TFS_ANY_PTR; break;
		case TRACE_STR_REL_LOC: out->src = TFS_REL_LOC; break;
		default: out->src = TFS_DATA_LOC; break;
		}
		break;
	case FK_BUF:
		out->why_not = "a buffer (bytes, with --buffers): filters compare integers and strings";
		break;
	case FK_ARGV:
		out->why_not = "a list of strings: filters compare integers and strings";
		break;
	case FK_DURATION:
		out->src = TFS_FIELD;
		out->unknown0 = true;
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
	if (p->kind == PK_TRACEPOINT || p->typed) {
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

/* argN of a probe typed from BTF: its parameter N's offset (fexit: after
 * ret), as the untyped probe had it; -1 when @n is not argN */
static int typed_arg(const struct trace_probe *p, const char *n)
{
	if (p->kind == PK_KRETPROBE || p->kind == PK_URETPROBE || strncmp(n, "arg", 3) ||
	    !isdigit((unsigned char)n[3]) || n[4])
		return -1;
	return (n[3] - '0') * 8 + (p->kind == PK_FEXIT ? 8 : 0);
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
	if (p->kind == PK_TRACEPOINT || p->typed) {
		for (int i = 0; i < p->nfields; i++) {
			if (!strcmp(p->fields[i].name, n) ||
			    (p->typed && typed_arg(p, n) == p->fields[i].off)) {
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
	if (!args && !strcmp(n, "duration_ns")) {
		/* an entry, or a return without its entry: no duration, so
		 * a comparison of it is false, as an unknown one is */
		out->never = true;
		out->src = TFS_FIELD;
		out->size = 8;
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

/* One TF_CMP; a field whose 0 means "no value" (duration_ns), or that
 * may be unreadable (a struct member), first checked for one, the
 * comparison false without; none at all: false */
static void compile_int(struct cc *c, const struct fx_node *n,
			const struct fx_field *fl, __u64 v)
{
	struct trace_filter_op *op, *jmp = NULL;

	if (fl->unknown0 || fl->never || fl->fault) {
		op = emit(c, TF_CMP);
		if (!op)
			return;
		op->src = fl->never ? TFS_CPU : fl->src;
		op->off = fl->fault ? fl->fault : fl->off;
		op->size = fl->fault ? 1 : fl->size;
		/* unsigned < 0: false; a fault byte 0: readable */
		op->cmp = fl->never ? TF_LT : fl->fault ? TF_EQ : TF_NE;
		if (fl->never)
			return;
		jmp = emit(c, TF_JMP_FALSE);
	}
	op = emit(c, TF_CMP);
	if (!op)
		return;
	op->src = fl->src;
	op->off = fl->off;
	op->size = fl->size;
	op->flags = fl->sgn ? TF_SIGNED : 0;
	op->cmp = n->kind == FX_TRUTH ? TF_NE : n->cmp;
	op->val = v;		/* FX_TRUTH: != 0 */
	if (jmp)
		jmp->arg = c->prog->n;
}

static void compile_cmp(struct cc *c, const struct fx_node *n)
{
	struct fx_field fl;
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
	compile_int(c, n, &fl, v);
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
static int compile_probe(const struct trace_filters *fs,
			 const struct trace_probe *p, struct trace_filter_prog *prog)
{
	struct trace_filter_op *jmp[64];
	int njmp = 0;
	struct cc c = { .prog = prog, .p = p };

	memset(prog, 0, sizeof(*prog));
	for (int i = 0; i < fs->n && !c.err; i++) {
		if (fs->v[i].probe && !probe_matches(&fs->v[i], p))
			continue;
		c.f = &fs->v[i];
		if (prog->n && njmp < 64)
			jmp[njmp++] = emit(&c, TF_JMP_FALSE);
		compile(&c, fs->v[i].root);
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
int filters_load(const struct trace_filters *fs, const struct probe_set *set,
		 int filter_of_fd, int filters_fd)
{
	struct trace_filter_prog *progs = NULL, prog;
	int nprogs = 0, err = 0;

	for (int i = 0; i < fs->n; i++) {
		bool any = !fs->v[i].probe;

		for (int j = 0; j < set->n && !any; j++)
			any = probe_matches(&fs->v[i], &set->v[j]);
		if (!any) {
			cli_say(fs->prog, "--filter '%s': no probe matches '%s'; give it as on the command line or as the probe's full name\n",
				 fs->v[i].arg, fs->v[i].probe);
			return -ENOENT;
		}
	}
	for (int i = 0; i < set->n && !err && fs->n; i++) {
		__u32 key = i, idx;
		int k;

		err = compile_probe(fs, &set->v[i], &prog);
		if (err || !prog.n)
			continue;
		for (k = 0; k < nprogs; k++)
			if (!memcmp(&progs[k], &prog, sizeof(prog)))
				break;
		if (k == nprogs) {
			struct trace_filter_prog *v;

			if (nprogs == TRACE_MAX_FILTERS) {
				cli_say(fs->prog, "the filters compile to more than %d different programs; give fewer per-probe filters or narrow the globs\n",
					 TRACE_MAX_FILTERS);
				err = -E2BIG;
				break;
			}
			v = realloc(progs, (nprogs + 1) * sizeof(*v));
			if (!v) {
				cli_say(fs->prog, "out of memory\n");
				err = -ENOMEM;
				break;
			}
			progs = v;
			progs[nprogs++] = prog;
			if (bpf_map_update_elem(filters_fd, &k, &prog, BPF_ANY)) {
				err = -errno;
				cli_say(fs->prog, "storing the filter of %s failed: %s\n",
					 set->v[i].spec, strerror(errno));
				break;
			}
		}
		idx = k + 1;
		if (bpf_map_update_elem(filter_of_fd, &key, &idx, BPF_ANY)) {
			err = -errno;
			cli_say(fs->prog, "storing the filter of %s failed: %s\n",
				 set->v[i].spec, strerror(errno));
		}
	}
	free(progs);
	return err;
}
