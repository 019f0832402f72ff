// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A BTF type as a type table (perfbuf/type.h), and finding the type of a
 * map's records in BTF: by name, or by the marker of <perfbuf/bpf.h>
 * (a variable __perfbuf_event__MAP pointing to the type: a global
 * variable's type stays in BTF when nothing else uses it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "type_priv.h"

#define MARKER "__perfbuf_event__"

const char *btf_name(const struct btf *btf, __u32 off)
{
	const char *s = btf__name_by_offset(btf, off);

	return s ? s : "";
}

/* Through const, volatile, restrict, type tags and (@typedefs) typedefs */
static __u32 btf_skip(const struct btf *btf, __u32 id, bool typedefs)
{
	for (int hops = 0; id && hops < 64; hops++) {
		const struct btf_type *bt = btf__type_by_id(btf, id);

		if (!bt || !(btf_is_mod(bt) || (typedefs && btf_is_typedef(bt))))
			break;
		id = bt->type;
	}
	return id;
}

/* char, or a 1-byte int marked as a character: a string's element */
static bool btf_is_char(const struct btf *btf, __u32 id)
{
	const struct btf_type *bt = btf__type_by_id(btf, btf_skip(btf, id, true));

	return bt && btf_is_int(bt) && bt->size == 1 &&
	       (btf_int_encoding(bt) & BTF_INT_CHAR ||
		!strcmp(btf_name(btf, bt->name_off), "char"));
}

static int btf_fill(struct perfbuf_type *t, const struct btf *btf, int idx,
		    __u32 id, int depth);

static int btf_members_fill(struct perfbuf_type *t, const struct btf *btf, int idx,
		       const struct btf_type *bt, int depth)
{
	const struct btf_member *m = btf_members(bt);
	int n = btf_vlen(bt), first, err;

	if (!n)
		return 0;
	first = type_add_children(t, idx, n);
	if (first < 0)
		return first;
	for (int i = 0; i < n; i++, m++) {
		__u32 bits = btf_member_bit_offset(bt, i);
		__u32 bsize = btf_member_bitfield_size(bt, i);

		err = type_set_name(t, first + i, btf_name(btf, m->name_off));
		if (err < 0)
			return err;
		err = btf_fill(t, btf, first + i, m->type, depth + 1);
		if (err)
			return err;
		type_set_bits(&t->f[first + i], bits, bsize);
	}
	return 0;
}

/* Whether @btf's producer writes enums' signedness (clang >= 15): an
 * enum has the flag, or it has ENUM64 (which came with the flag) */
static bool btf_enum_sign_written(const struct btf *btf)
{
	__u32 n = btf__type_cnt(btf);

	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *bt = btf__type_by_id(btf, id);

		if (btf_is_enum64(bt) || (btf_is_enum(bt) && btf_kflag(bt)))
			return true;
	}
	return false;
}

static int btf_enum_fill(struct perfbuf_type *t, const struct btf *btf, int idx,
			 const struct btf_type *bt)
{
	bool negative = false;

	t->f[idx].kind = PERFBUF_FIELD_ENUM;
	/* kflag: signed (clang >= 15); clang 14 writes no flag: a negative
	 * value says so (one >= 2^31 of an unsigned enum looks negative too:
	 * when the flag is written elsewhere, its absence is trusted) */
	t->f[idx].is_signed = btf_kflag(bt);
	for (int i = 0; btf_is_enum(bt) && i < btf_vlen(bt); i++)
		negative |= btf_enum(bt)[i].val < 0;
	if (negative && !btf_kflag(bt) && !btf_enum_sign_written(btf))
		t->f[idx].is_signed = true;
	for (int i = 0; i < btf_vlen(bt); i++) {
		const char *name;
		__s64 v;
		int err;

		if (btf_is_enum(bt)) {
			const struct btf_enum *e = btf_enum(bt) + i;

			name = btf_name(btf, e->name_off);
			v = t->f[idx].is_signed ? (__s64)e->val : (__s64)(__u32)e->val;
		} else {
			const struct btf_enum64 *e = btf_enum64(bt) + i;

			name = btf_name(btf, e->name_off);
			v = (__s64)btf_enum64_value(e);
		}
		err = type_add_enum(t, idx, name, v);
		if (err)
			return err;
	}
	return 0;
}

static int btf_array_fill(struct perfbuf_type *t, const struct btf *btf, int idx,
			  const struct btf_type *bt, int depth)
{
	const struct btf_array *a = btf_array(bt);
	__s64 esz = btf__resolve_size(btf, a->type);
	int child;

	if (esz < 0)
		return (int)esz;
	t->f[idx].nelem = a->nelems;
	t->f[idx].size = (__u32)(esz * a->nelems);
	if (esz == 1 && btf_is_char(btf, a->type)) {
		t->f[idx].kind = PERFBUF_FIELD_STRING;
		return 0;
	}
	t->f[idx].kind = PERFBUF_FIELD_ARRAY;
	child = type_add_children(t, idx, 1);
	return child < 0 ? child : btf_fill(t, btf, child, a->type, depth + 1);
}

/* Field @idx (its offset and name set by the parent) of type @id */
static int btf_fill(struct perfbuf_type *t, const struct btf *btf, int idx,
		    __u32 id, int depth)
{
	const struct btf_type *bt;
	__s64 size;

	if (depth > TYPE_MAX_DEPTH)
		return -ELOOP;
	id = btf_skip(btf, id, true);
	bt = btf__type_by_id(btf, id);
	if (!bt)
		return -EINVAL;
	switch (btf_kind(bt)) {
	case BTF_KIND_INT:
		t->f[idx].size = bt->size;
		if (btf_int_encoding(bt) & BTF_INT_BOOL) {
			t->f[idx].kind = PERFBUF_FIELD_BOOL;
			return 0;
		}
		t->f[idx].kind = PERFBUF_FIELD_INT;
		t->f[idx].is_signed = btf_int_encoding(bt) & BTF_INT_SIGNED;
		return 0;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		t->f[idx].size = bt->size;
		return btf_enum_fill(t, btf, idx, bt);
	case BTF_KIND_FLOAT:
		t->f[idx].size = bt->size;
		t->f[idx].kind = PERFBUF_FIELD_FLOAT;
		return 0;
	case BTF_KIND_PTR:
		t->f[idx].size = btf__pointer_size(btf) ?: 8;
		t->f[idx].kind = PERFBUF_FIELD_PTR;
		return 0;
	case BTF_KIND_ARRAY:
		return btf_array_fill(t, btf, idx, bt, depth);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		t->f[idx].size = bt->size;
		t->f[idx].kind = btf_is_struct(bt) ? PERFBUF_FIELD_STRUCT
						   : PERFBUF_FIELD_UNION;
		return btf_members_fill(t, btf, idx, bt, depth);
	default:
		size = btf__resolve_size(btf, id);
		t->f[idx].size = size > 0 ? (__u32)size : 0;
		t->f[idx].kind = PERFBUF_FIELD_BYTES;
		return 0;
	}
}

struct perfbuf_type *type_from_btf(const struct btf *btf, __u32 id,
				   const char *source)
{
	const struct btf_type *bt = btf__type_by_id(btf, btf_skip(btf, id, true));
	struct perfbuf_type *t;
	int err;

	if (!bt || !(btf_is_struct(bt) || btf_is_union(bt)) || !bt->size)
		return err_ptr(-EINVAL);
	t = type_new(btf_name(btf, btf__type_by_id(btf, id)->name_off),
		     source);
	if (!t)
		return NULL;
	if (!*t->name && bt->name_off) {	/* a const or the like: the struct's */
		free(t->name);
		t->name = strdup(btf_name(btf, bt->name_off));
	}
	err = t->name ? btf_fill(t, btf, 0, id, 0) : -ENOMEM;
	if (err) {
		perfbuf_type__free(t);
		return err_ptr(err);
	}
	return t;
}

/* "struct x", "union x" or "x": a struct, a union or a typedef of one */
int type_btf_find(const struct btf *btf, const char *name)
{
	const char *bare = type_bare_name(name ? name : "event");
	bool want_struct = name && !strncmp(name, "struct ", 7);
	bool want_union = name && !strncmp(name, "union ", 6);
	__u32 n = btf__type_cnt(btf);

	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *bt = btf__type_by_id(btf, id);
		bool ok = btf_is_struct(bt) ? !want_union :
			  btf_is_union(bt) ? !want_struct :
			  btf_is_typedef(bt) && !want_struct && !want_union;

		if (ok && bt->size + btf_is_typedef(bt) &&
		    !strcmp(btf_name(btf, bt->name_off), bare))
			return (int)id;
	}
	return -ENOENT;
}

int type_btf_marker(const struct btf *btf, const char *map)
{
	__u32 n = btf__type_cnt(btf);

	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *bt = btf__type_by_id(btf, id);
		const char *name = btf_name(btf, bt->name_off);

		if (!btf_is_var(bt) || strncmp(name, MARKER, sizeof(MARKER) - 1))
			continue;
		name += sizeof(MARKER) - 1;
		/* the kernel keeps 15 bytes of a map's name */
		if (map && strcmp(name, map) &&
		    (strlen(map) != 15 || strncmp(name, map, 15)))
			continue;
		bt = btf__type_by_id(btf, btf_skip(btf, bt->type, true));
		if (bt && btf_is_ptr(bt))
			return (int)bt->type;
	}
	return -ENOENT;
}
