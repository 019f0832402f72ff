// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A type table as text and back: a capture file carries its records'
 * type so, and its reader checks it as hostile input.
 *
 *   perfbuf-type 1 NAME
 *   f KIND OFFSET SIZE NELEM BIT_OFFSET BIT_SIZE PARENT FIRST_CHILD NCHILDREN SIGNED NAME
 *   e VALUE NAME           (the enum values of the field before)
 * An empty name is written "-".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "type_priv.h"

struct tout {
	char *buf;
	size_t sz, len;
};

__attribute__((format(printf, 2, 3)))
static void tput(struct tout *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->len < o->sz ? o->buf + o->len : NULL,
		      o->len < o->sz ? o->sz - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += n;
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

size_t perfbuf_type__to_text(const struct perfbuf_type *t, char *buf, size_t sz)
{
	struct tout o = { .buf = buf, .sz = sz };

	if (sz)
		buf[0] = 0;
	tput(&o, "perfbuf-type 1 %s\n", or_dash(t->name));
	for (int i = 0; i < t->n; i++) {
		const struct perfbuf_field *f = &t->f[i];

		tput(&o, "f %u %u %u %u %u %u %d %d %d %u %s\n", f->kind, f->offset,
		     f->size, f->nelem, f->bit_offset, f->bit_size, f->parent,
		     f->first_child, f->nchildren, f->is_signed, or_dash(f->name));
		for (int j = 0; j < f->nenum; j++)
			tput(&o, "e %lld %s\n", (long long)t->e[t->efirst[i] + j].value,
			     or_dash(t->e[t->efirst[i] + j].name));
	}
	return o.len;
}

/* No deeper than a type built from BTF or DWARF can be: a decoder's
 * recursion stays bounded */
static bool depth_valid(const struct perfbuf_type *t)
{
	unsigned char *depth = calloc((size_t)(unsigned int)t->n, 1);
	bool ok = depth != NULL;

	for (int i = 1; ok && i < t->n; i++) {
		depth[i] = depth[t->f[i].parent] + 1;
		ok = depth[i] <= 2 * TYPE_MAX_DEPTH;
	}
	free(depth);
	return ok;
}

/* Every index in range, children after their parent and pointing back
 * to it (no cycles), sizes that a decoder can trust */
static bool text_valid(const struct perfbuf_type *t)
{
	if (!t->n || t->f[0].parent != -1)
		return false;
	for (int i = 0; i < t->n; i++) {
		const struct perfbuf_field *f = &t->f[i];

		if (f->kind < PERFBUF_FIELD_INT || f->kind > PERFBUF_FIELD_BYTES ||
		    (i && (f->parent < 0 || f->parent >= i)) || f->nchildren < 0 ||
		    f->bit_offset > 63 || f->bit_size > 64 || f->size > (1U << 24) ||
		    f->offset > (1U << 24))
			return false;
		/* an array has its element; only structs and unions more */
		if (f->kind == PERFBUF_FIELD_ARRAY ? f->nchildren != 1 :
		    f->kind != PERFBUF_FIELD_STRUCT && f->kind != PERFBUF_FIELD_UNION &&
		    f->nchildren)
			return false;
		if (!f->nchildren)
			continue;
		if (f->first_child <= i || f->first_child > t->n - f->nchildren)
			return false;
		for (int c = 0; c < f->nchildren; c++)
			if (t->f[f->first_child + c].parent != i)
				return false;
	}
	return true;
}

static int text_line(struct perfbuf_type *t, const char *line)
{
	struct perfbuf_field f = {};
	unsigned int sgn;
	char name[256];
	long long v;
	int idx;

	if (sscanf(line, "e %lld %255s", &v, name) == 2)
		return t->n > 1 || t->f[0].kind ?
		       type_add_enum(t, t->n - 1, strcmp(name, "-") ? name : "", v) : -EINVAL;
	if (sscanf(line, "f %u %u %u %u %u %u %d %d %d %u %255s", &f.kind, &f.offset,
		   &f.size, &f.nelem, &f.bit_offset, &f.bit_size, &f.parent,
		   &f.first_child, &f.nchildren, &sgn, name) != 11)
		return -EINVAL;
	f.is_signed = !!sgn;
	/* field 0 exists already (type_new): the first line fills it */
	idx = t->f[0].kind ? type_add(t, f.parent, "") : 0;
	if (idx < 0)
		return idx;
	f.name = t->f[idx].name;
	t->f[idx] = f;
	return type_set_name(t, idx, strcmp(name, "-") ? name : "") < 0 ? -ENOMEM : 0;
}

struct perfbuf_type *perfbuf_type__from_text(const char *text)
{
	char name[256], line[600];
	struct perfbuf_type *t;
	const char *p = text, *nl;
	int err = 0;

	if (!text || sscanf(text, "perfbuf-type 1 %255s", name) != 1)
		return err_ptr(-EINVAL);
	t = type_new(strcmp(name, "-") ? name : "", "text");
	if (!t)
		return NULL;
	while (!err && (nl = strchr(p, '\n')) && *(p = nl + 1)) {
		size_t n = strcspn(p, "\n");

		if (n >= sizeof(line))
			err = -EINVAL;
		else {
			memcpy(line, p, n);
			line[n] = 0;
			err = text_line(t, line);
		}
	}
	if (!err && (!t->f[0].kind || !text_valid(t) || !depth_valid(t)))
		err = -EINVAL;
	if (err) {
		perfbuf_type__free(t);
		return err_ptr(err);
	}
	return t;
}
