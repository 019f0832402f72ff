/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A parsed --filter expression, between filter_parse.c (which builds it)
 * and filter.c (which compiles it per probe). Private to the two.
 */
#ifndef PERFBUF_TRACE_FILTER_AST_H
#define PERFBUF_TRACE_FILTER_AST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "trace_filter.h"
#include "filter.h"

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
	const char *prog;	/* its trace_filters' */
};

/* One line about filter @f, unless *@err says one was printed. */
void filter_say(const struct filter *f, int *err, const char *fmt, va_list ap);

#endif
