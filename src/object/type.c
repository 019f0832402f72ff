// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The type table of a BPF program's records (perfbuf/type.h): building
 * it (for type_btf.c, type_dwarf.c, type_text.c), reading it, and what
 * part of a record it decodes.
 */
#include <stdlib.h>
#include <string.h>

#include "type_priv.h"

struct perfbuf_type *type_new(const char *name, const char *source)
{
	struct perfbuf_type *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->source = source;
	t->name = strdup(type_bare_name(name ? name : ""));
	if (!t->name || type_add(t, -1, t->name) < 0) {
		perfbuf_type__free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void type_set_bits(struct perfbuf_field *f, __u64 bits, __u32 width)
{
	f->offset = (__u32)(bits / 8);
	if (!width)
		return;
	f->bit_offset = bits % 8;
	f->bit_size = width;
	/* the bytes holding the bits, no more: the type's end may be next */
	f->size = (f->bit_offset + width + 7) / 8;
}

const char *type_bare_name(const char *name)
{
	if (!strncmp(name, "struct ", 7))
		return name + 7;
	if (!strncmp(name, "union ", 6))
		return name + 6;
	return name;
}

static int type_grow(struct perfbuf_type *t, int more)
{
	int cap = t->cap ? t->cap : 16;
	void *f, *ef;

	if (t->n + more > TYPE_MAX_FIELDS)
		return -E2BIG;
	while (cap < t->n + more)
		cap *= 2;
	if (cap == t->cap)
		return 0;
	f = realloc(t->f, cap * sizeof(*t->f));
	if (f)
		t->f = f;
	ef = f ? realloc(t->efirst, cap * sizeof(*t->efirst)) : NULL;
	if (!ef)
		return -ENOMEM;
	t->efirst = ef;
	t->cap = cap;
	return 0;
}

int type_add(struct perfbuf_type *t, int parent, const char *name)
{
	int err = type_grow(t, 1), i = t->n;

	if (err)
		return err;
	t->f[i] = (struct perfbuf_field){ .parent = parent, .first_child = -1 };
	t->efirst[i] = 0;
	t->n++;
	return type_set_name(t, i, name);
}

int type_add_children(struct perfbuf_type *t, int idx, int n)
{
	int first = t->n;

	if (n <= 0)
		return -EINVAL;
	for (int k = 0; k < n; k++) {
		int err = type_add(t, idx, "");

		if (err < 0)
			return err;
	}
	t->f[idx].first_child = first;
	t->f[idx].nchildren = n;
	return first;
}

int type_set_name(struct perfbuf_type *t, int idx, const char *name)
{
	char *s = strdup(name ? name : "");

	if (!s)
		return -ENOMEM;
	free((char *)t->f[idx].name);
	t->f[idx].name = s;
	return idx;
}

int type_add_enum(struct perfbuf_type *t, int idx, const char *name, __s64 v)
{
	struct type_enum *e = t->e;

	if (t->ne >= TYPE_MAX_FIELDS)
		return -E2BIG;
	if (t->ne == t->ecap) {
		e = realloc(t->e, (t->ecap ? 2 * t->ecap : 16) * sizeof(*e));
		if (!e)
			return -ENOMEM;
		t->e = e;
		t->ecap = t->ecap ? 2 * t->ecap : 16;
	}
	if (!t->f[idx].nenum)
		t->efirst[idx] = t->ne;
	else if (t->efirst[idx] + t->f[idx].nenum != t->ne)
		return -EINVAL;	/* one field's values are contiguous */
	e[t->ne].value = v;
	e[t->ne].name = strdup(name ? name : "");
	if (!e[t->ne].name)
		return -ENOMEM;
	t->ne++;
	t->f[idx].nenum++;
	return 0;
}

void perfbuf_type__free(struct perfbuf_type *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->n; i++)
		free((char *)t->f[i].name);
	for (int i = 0; i < t->ne; i++)
		free(t->e[i].name);
	free(t->f);
	free(t->efirst);
	free(t->e);
	free(t->name);
	free(t);
}

const char *perfbuf_type__name(const struct perfbuf_type *t)
{
	return t->name;
}

const char *perfbuf_type__source(const struct perfbuf_type *t)
{
	return t->source;
}

size_t perfbuf_type__size(const struct perfbuf_type *t)
{
	return t->f[0].size;
}

int perfbuf_type__field_cnt(const struct perfbuf_type *t)
{
	return t->n;
}

const struct perfbuf_field *perfbuf_type__field(const struct perfbuf_type *t,
						int idx)
{
	if (!t || idx < 0 || idx >= t->n) {
		errno = EINVAL;
		return NULL;
	}
	return &t->f[idx];
}

const char *perfbuf_type__enum_at(const struct perfbuf_type *t, int idx, int j,
				  __s64 *value)
{
	const struct type_enum *e;

	if (idx < 0 || idx >= t->n || j < 0 || j >= t->f[idx].nenum)
		return NULL;
	e = &t->e[t->efirst[idx] + j];
	if (value)
		*value = e->value;
	return e->name;
}

const char *perfbuf_type__enum_name(const struct perfbuf_type *t, int idx,
				    __s64 value)
{
	if (idx < 0 || idx >= t->n)
		return NULL;
	for (int j = 0; j < t->f[idx].nenum; j++)
		if (t->e[t->efirst[idx] + j].value == value)
			return t->e[t->efirst[idx] + j].name;
	return NULL;
}

/* The member of the root that ends the struct: the one at the highest
 * offset (a union's members all start at 0: none is a tail) */
static const struct perfbuf_field *type_tail(const struct perfbuf_type *t)
{
	const struct perfbuf_field *root = &t->f[0], *last = NULL;

	if (root->kind != PERFBUF_FIELD_STRUCT)
		return NULL;
	for (int i = 0; i < root->nchildren; i++) {
		const struct perfbuf_field *m = &t->f[root->first_child + i];

		if (!last || m->offset >= last->offset)
			last = m;
	}
	return last;
}

int perfbuf_type__fit(const struct perfbuf_type *t, size_t sz)
{
	const struct perfbuf_field *tail = type_tail(t);
	size_t size = t->f[0].size;
	bool array = tail && (tail->kind == PERFBUF_FIELD_ARRAY ||
			      tail->kind == PERFBUF_FIELD_STRING);

	if (sz > 0xffffff)
		return -EMSGSIZE;
	/* a flexible array member: what follows the struct is its */
	if (array && !tail->nelem && sz >= size)
		return (int)sz;
	/* perf pads a record to 8 bytes with its size word: up to 7 more */
	if (sz >= size && sz < size + 8)
		return (int)size;
	if (array && sz < size && sz >= tail->offset)
		return (int)sz;
	return -EMSGSIZE;
}

int perfbuf_type__read_int(const struct perfbuf_type *t, int idx,
			   const void *data, size_t sz, __u64 *val)
{
	const struct perfbuf_field *f = perfbuf_type__field(t, idx);
	unsigned char b[16] = {};
	size_t n;
	__u64 v = 0;

	if (!f || (f->kind != PERFBUF_FIELD_INT && f->kind != PERFBUF_FIELD_BOOL &&
		   f->kind != PERFBUF_FIELD_ENUM && f->kind != PERFBUF_FIELD_PTR))
		return -EINVAL;
	/* a bitfield: only the bytes that hold its bits (1 to 9: a packed
	 * struct's 64 bits may start at bit 1), whatever its size says */
	n = f->bit_size ? (f->bit_offset + (size_t)f->bit_size + 7) / 8 : f->size;
	if (!n || n > (f->bit_size ? 9 : 8) || f->bit_size > 64 ||
	    (f->bit_size && f->bit_offset > 7))
		return -EINVAL;
	if (f->offset + n > sz)
		return -ERANGE;
	memcpy(b, (const char *)data + f->offset, n);
	for (int i = 7; i >= 0; i--)	/* little endian */
		v = v << 8 | b[i];
	if (f->bit_size) {
		if (f->bit_offset)
			v = v >> f->bit_offset | (__u64)b[8] << (64 - f->bit_offset);
		if (f->bit_size < 64)
			v &= (1ULL << f->bit_size) - 1;
		if (f->is_signed && f->bit_size < 64 && (v >> (f->bit_size - 1)) & 1)
			v |= ~0ULL << f->bit_size;
	} else if (f->is_signed && f->size < 8 && (v >> (f->size * 8 - 1)) & 1) {
		v |= ~0ULL << (f->size * 8);
	}
	*val = v;
	return 0;
}
