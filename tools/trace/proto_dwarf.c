// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A binary's functions with their prototypes from its DWARF, as C reads
 * them ("int pb_target_str(const char *path, unsigned int n, ...)"), for
 * `perfbuf list -v 'uprobe:BIN:GLOB'`: what kfunc_proto() is to a kernel
 * function, the names and types a uprobe's arguments are traced with
 * (args_dwarf.c).
 */
#include <dwarf.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "dwarf_walk.h"
#include "args.h"

struct text {
	char *buf;
	size_t sz, len;
};

static void put(struct text *t, const char *s)
{
	int n = snprintf(t->buf + t->len, t->sz - t->len, "%s", s);

	if (n > 0)
		t->len += (size_t)n < t->sz - t->len ? (size_t)n : t->sz - t->len - 1;
}

/* Type @die (NULL: void) as C text before a declarator: "const char *",
 * "struct point *", "enum pb_color"; @depth bounds a malformed chain */
static void type_text(struct text *t, Dwarf_Die *die, int depth)
{
	Dwarf_Die in, *inp = die && die_type(die, &in) ? &in : NULL;
	const char *name = die ? dwarf_diename(die) : NULL;

	if (!die || depth > 16) {
		put(t, die ? "?" : "void");
		return;
	}
	switch (dwarf_tag(die)) {
	case DW_TAG_pointer_type:
		if (inp && dwarf_tag(inp) == DW_TAG_subroutine_type) {
			put(t, "void (*)()");	/* a function pointer, its type left out */
			return;
		}
		type_text(t, inp, depth + 1);
		put(t, t->len && t->buf[t->len - 1] == '*' ? "*" : " *");
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		if (inp && dwarf_tag(inp) == DW_TAG_pointer_type) {
			type_text(t, inp, depth + 1);	/* char *const */
			put(t, dwarf_tag(die) == DW_TAG_const_type ? "const" : "volatile");
			return;
		}
		put(t, dwarf_tag(die) == DW_TAG_const_type ? "const " : "volatile ");
		type_text(t, inp, depth + 1);
		return;
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		type_text(t, inp, depth + 1);
		return;
	case DW_TAG_array_type:	/* a parameter never is one: for completeness */
		type_text(t, inp, depth + 1);
		put(t, "[]");
		return;
	case DW_TAG_structure_type: put(t, "struct "); break;
	case DW_TAG_union_type: put(t, "union "); break;
	case DW_TAG_enumeration_type: put(t, "enum "); break;
	default: break;
	}
	put(t, name ? name : "(anonymous)");
}

/* @type then @name, joined as C joins them ("char *p", "int n") */
static void decl_text(struct text *t, Dwarf_Die *type, const char *name)
{
	type_text(t, type, 0);
	if (name && *name) {
		if (t->len && t->buf[t->len - 1] != '*')
			put(t, " ");
		put(t, name);
	}
}

/* "long int f(long int a, const char *s, ...)" into @t */
static void proto_text(struct text *t, Dwarf_Die *fn)
{
	Dwarf_Die ret, c;
	bool first = true;

	decl_text(t, die_type(fn, &ret) ? &ret : NULL, dwarf_diename(fn));
	put(t, "(");
	if (dwarf_child(fn, &c) == 0) {
		do {
			Dwarf_Die pt;
			int tag = dwarf_tag(&c);

			if (tag != DW_TAG_formal_parameter &&
			    tag != DW_TAG_unspecified_parameters)
				continue;
			put(t, first ? "" : ", ");
			first = false;
			if (tag == DW_TAG_unspecified_parameters)
				put(t, "...");
			else
				decl_text(t, die_type(&c, &pt) ? &pt : NULL, dwarf_diename(&c));
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	put(t, first && dwarf_hasattr(fn, DW_AT_prototyped) ? "void)" : ")");
}

struct each_ctx {
	const char *glob;
	int (*fn)(const char *name, const char *proto, void *ctx);
	void *ctx;
	long found;
};

/* A function with code whose name the glob matches */
static bool wanted(Dwarf_Die *die, void *ctx)
{
	const struct each_ctx *e = ctx;
	const char *name = dwarf_diename(die);

	return dwarf_tag(die) == DW_TAG_subprogram && name &&
	       (dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges)) &&
	       !fnmatch(e->glob, name, 0);
}

static int give(Dwarf_Die *die, void *ctx)
{
	struct each_ctx *e = ctx;
	char buf[1024];
	struct text t = { .buf = buf, .sz = sizeof(buf) };

	buf[0] = '\0';
	proto_text(&t, die);
	e->found++;
	return e->fn(dwarf_diename(die), buf, e->ctx);
}

long ufunc_each_proto(const char *path, const char *glob,
		      int (*fn)(const char *name, const char *proto, void *ctx),
		      void *ctx)
{
	struct each_ctx e = { glob, fn, ctx, 0 };
	int err = die_each(path, wanted, give, &e);

	return err == -ENOENT ? -ENOENT : e.found;
}
