// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A struct's type table from DWARF (libdw): clang leaves a struct used
 * only as a local variable's type out of BTF, but a -g build's DWARF has
 * it (libbpf-tools' exitsnoop.bpf.c is such a program).
 */
#include <dwarf.h>
#include <string.h>

#include "dwarf_walk.h"
#include "type_priv.h"

static int dw_fill(struct perfbuf_type *t, int idx, Dwarf_Die *die, int depth);

static int dw_members(struct perfbuf_type *t, int idx, Dwarf_Die *die, int depth)
{
	Dwarf_Die c;
	int n = 0, first, i = 0, err;

	if (dwarf_child(die, &c) == 0)
		do
			n += dwarf_tag(&c) == DW_TAG_member;
		while (dwarf_siblingof(&c, &c) == 0);
	if (!n)
		return 0;
	first = type_add_children(t, idx, n);
	if (first < 0 || dwarf_child(die, &c))
		return first < 0 ? first : -EINVAL;
	do {
		Dwarf_Die mt;
		Dwarf_Word bits, bsize;

		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		err = type_set_name(t, first + i, dwarf_diename(&c));
		if (err < 0)
			return err;
		err = die_type(&c, &mt) ? dw_fill(t, first + i, &mt, depth + 1) : -EINVAL;
		if (err)
			return err;
		die_member_bits(&c, &bits, &bsize);
		type_set_bits(&t->f[first + i++], bits, (__u32)bsize);
	} while (dwarf_siblingof(&c, &c) == 0 && i < n);
	return 0;
}

struct dw_field {
	struct perfbuf_type *t;
	int idx;
	bool guess;	/* no encoding, no type: the values tell */
};

static int dw_enum_value(const char *name, Dwarf_Sword v, void *ctx)
{
	const struct dw_field *e = ctx;

	if (e->guess && v < 0)
		e->t->f[e->idx].is_signed = true;
	return type_add_enum(e->t, e->idx, name, v);
}

/* Signed by gcc's DW_AT_encoding on the enum, else by its underlying type
 * (`signed char` is DW_ATE_signed_char), else by a negative value */
static int dw_enum(struct perfbuf_type *t, int idx, Dwarf_Die *die)
{
	struct dw_field e = { t, idx, false };
	Dwarf_Word enc = die_udata(die, DW_AT_encoding, 0);
	Dwarf_Die base;
	bool sgn = false;

	t->f[idx].kind = PERFBUF_FIELD_ENUM;
	if (enc)
		sgn = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	else if (die_type(die, &base) && die_skip(&base))
		die_base(&base, &sgn);
	else
		e.guess = true;
	t->f[idx].is_signed = sgn;
	return die_enum_each(die, dw_enum_value, &e);
}

/* An array of one dimension per subrange, @dim the one at @idx */
static int dw_array(struct perfbuf_type *t, int idx, Dwarf_Die *die, int dim,
		    int depth)
{
	Dwarf_Word dims[8];
	Dwarf_Die c, et;
	int n = 0, child, err;

	if (dwarf_child(die, &c) == 0)
		do {
			if (dwarf_tag(&c) != DW_TAG_subrange_type || n == 8)
				continue;
			dims[n++] = die_subrange_len(&c);
		} while (dwarf_siblingof(&c, &c) == 0);
	if (!n)
		dims[n++] = 0;
	if (!die_type(die, &et) || !die_skip(&et))
		return -EINVAL;
	t->f[idx].nelem = (__u32)dims[dim];
	if (dim == n - 1 && die_is_char(&et)) {
		t->f[idx].kind = PERFBUF_FIELD_STRING;
		t->f[idx].size = (__u32)dims[dim];
		return 0;
	}
	t->f[idx].kind = PERFBUF_FIELD_ARRAY;
	child = type_add_children(t, idx, 1);
	if (child < 0)
		return child;
	err = dim + 1 < n ? dw_array(t, child, die, dim + 1, depth + 1) :
			    dw_fill(t, child, &et, depth + 1);
	t->f[idx].size = t->f[child].size * (__u32)dims[dim];
	return err;
}

static int dw_fill(struct perfbuf_type *t, int idx, Dwarf_Die *die, int depth)
{
	Dwarf_Die d = *die;
	struct perfbuf_field *f = &t->f[idx];
	enum die_base_kind base;
	bool is_signed;

	if (depth > TYPE_MAX_DEPTH)
		return -ELOOP;
	if (!die_skip(&d)) {
		f->kind = PERFBUF_FIELD_BYTES;	/* void */
		return 0;
	}
	f->size = (__u32)die_udata(&d, DW_AT_byte_size, 0);
	switch (dwarf_tag(&d)) {
	case DW_TAG_base_type:
		base = die_base(&d, &is_signed);
		f->kind = base == DIE_BASE_BOOL ? PERFBUF_FIELD_BOOL :
			  base == DIE_BASE_FLOAT ? PERFBUF_FIELD_FLOAT : PERFBUF_FIELD_INT;
		f->is_signed = is_signed;
		return 0;
	case DW_TAG_enumeration_type:
		return dw_enum(t, idx, &d);
	case DW_TAG_pointer_type:
		f->kind = PERFBUF_FIELD_PTR;
		f->size = f->size ?: 8;
		return 0;
	case DW_TAG_array_type:
		return dw_array(t, idx, &d, 0, depth);
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		f->kind = dwarf_tag(&d) == DW_TAG_structure_type ? PERFBUF_FIELD_STRUCT
								 : PERFBUF_FIELD_UNION;
		return dw_members(t, idx, &d, depth);
	default:
		f->kind = PERFBUF_FIELD_BYTES;
		return 0;
	}
}

static struct perfbuf_type *dw_build(Dwarf_Die *die, const char *bare)
{
	struct perfbuf_type *t = type_new(bare, "dwarf");
	Dwarf_Die d = *die;
	int err;

	if (!t)
		return NULL;
	err = die_skip(&d) && (dwarf_tag(&d) == DW_TAG_structure_type ||
			       dwarf_tag(&d) == DW_TAG_union_type) ? 0 : -EINVAL;
	if (!err)
		err = dw_fill(t, 0, die, 0);
	if (!err && !t->f[0].size)
		err = -EINVAL;
	if (err) {
		perfbuf_type__free(t);
		return err_ptr(err);
	}
	return t;
}

struct dw_query {
	int tag;	/* DW_TAG_structure_type, _union_type, 0: either or a typedef */
	const char *bare;
	struct perfbuf_type *t;
};

static bool dw_want(Dwarf_Die *die, void *ctx)
{
	const struct dw_query *q = ctx;
	int tag = dwarf_tag(die);

	return q->tag ? tag == q->tag :
	       tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_typedef;
}

static int dw_use(Dwarf_Die *die, void *ctx)
{
	struct dw_query *q = ctx;

	q->t = dw_build(die, q->bare);
	return q->t ? 0 : -errno;
}

struct perfbuf_type *type_from_dwarf(const char *path, const char *name)
{
	struct dw_query q = {
		.tag = !strncmp(name, "struct ", 7) ? DW_TAG_structure_type :
		       !strncmp(name, "union ", 6) ? DW_TAG_union_type : 0,
		.bare = type_bare_name(name),
	};
	int err = die_find(path, q.bare, true, dw_want, dw_use, &q);

	/* found but not decodable (ELOOP, E2BIG, ...): that, not ENOENT */
	if (!q.t)
		errno = err < 0 ? -err : ENOENT;
	return q.t;
}
