/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The type table (perfbuf/type.h) as its builders see it; not installed. */
#ifndef PERFBUF_TYPE_PRIV_H
#define PERFBUF_TYPE_PRIV_H

#include "object_priv.h"
#include "perfbuf/type.h"

#define TYPE_MAX_FIELDS 65536	/* a hostile object cannot make us build more */
#define TYPE_MAX_DEPTH 32

struct type_enum {
	__s64 value;
	char *name;
};

struct perfbuf_type {
	char *name;
	const char *source;	/* a literal: "btf", "dwarf", ... */
	struct perfbuf_field *f;
	int *efirst;		/* per field: its first enum value in e[] */
	int n, cap;
	struct type_enum *e;
	int ne, ecap;
};

struct perfbuf_type *type_new(const char *name, const char *source);
/* A new field under @parent (offset 0, no children): its index, or
 * -ENOMEM / -E2BIG (too many fields) */
int type_add(struct perfbuf_type *t, int parent, const char *name);
/* @n children of @idx, contiguous, unnamed: the first's index or -errno */
int type_add_children(struct perfbuf_type *t, int idx, int n);
int type_set_name(struct perfbuf_type *t, int idx, const char *name);
/* A name for a value of ENUM field @idx, the last field added values */
int type_add_enum(struct perfbuf_type *t, int idx, const char *name, __s64 v);
/* Field @f's place, @bits from its parent's start; a bitfield (@width
 * bits) sized to the bytes that hold it */
void type_set_bits(struct perfbuf_field *f, __u64 bits, __u32 width);
/* The root's name without "struct "/"union " */
const char *type_bare_name(const char *name);

/* type_btf.c: struct btf's type @id as a type table; NULL with errno */
struct btf;
struct perfbuf_type *type_from_btf(const struct btf *btf, __u32 id,
				   const char *source);
/* The id of the struct, union or typedef @name in @btf (NULL: "event"),
 * or of the pointee of marker variable __perfbuf_event__MAP (@map NULL:
 * any): > 0, or -ENOENT */
int type_btf_find(const struct btf *btf, const char *name);
int type_btf_marker(const struct btf *btf, const char *map);

/* type_dwarf.c: struct/union/typedef @name from the DWARF of ELF @path */
struct perfbuf_type *type_from_dwarf(const char *path, const char *name);

/* Not exported since 4.0 (the tests call them by linking the objects): */
/** @brief Where it was found: "btf", "marker", "dwarf", "kernel" or
 *  "text" (a header compiled by an earlier library: "header"). */
const char *perfbuf_type__source(const struct perfbuf_type *t);
/** @brief The name of ENUM field @idx's value @value, or NULL. */
const char *perfbuf_type__enum_name(const struct perfbuf_type *t,
						int idx, __s64 value);
/** @brief The @j-th name of ENUM field @idx and its value, or NULL. */
const char *perfbuf_type__enum_at(const struct perfbuf_type *t,
					      int idx, int j, __s64 *value);

#endif
