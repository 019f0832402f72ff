// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A record's bytes as JSON, by its type table (perfbuf_type__json()).
 * snprintf's contract: the length is the whole text's, what fits is
 * written, always NUL-terminated when @bufsz > 0.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "type_priv.h"
#include "cstr.h"
#include "json_str.h"

struct jout {
	char *buf;
	size_t sz, len;
};

static void put(struct jout *o, const char *s, size_t n)
{
	if (o->len < o->sz) {
		size_t room = o->sz - o->len - 1;

		memcpy(o->buf + o->len, s, n < room ? n : room);
		o->buf[o->len + (n < room ? n : room)] = 0;
	}
	o->len += n;
}

__attribute__((format(printf, 2, 3)))
static void putf(struct jout *o, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	put(o, tmp, n < (int)sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void put_run(void *o, const char *s, size_t n)
{
	put(o, s, n);
}

/* A JSON string of @n bytes, by the one escaper (lib/json_str.h): a byte
 * that is not UTF-8 as \udcXX, as the tool's top-level strings */
static void put_str(struct jout *o, const char *s, size_t n)
{
	put(o, "\"", 1);
	json_str_escape(s, n, put_run, o);
	put(o, "\"", 1);
}

static void json_field(const struct perfbuf_type *t, int idx, const char *p,
		       size_t sz, struct jout *o);

/* A struct's or union's members present in @sz bytes; an anonymous
 * struct or union's members as the parent's (C's view of them) */
static void json_members(const struct perfbuf_type *t, int idx, const char *p,
			 size_t sz, struct jout *o, bool *first)
{
	const struct perfbuf_field *f = &t->f[idx];

	for (int i = 0; i < f->nchildren; i++) {
		int c = f->first_child + i;
		const struct perfbuf_field *m = &t->f[c];
		bool tail = m->kind == PERFBUF_FIELD_ARRAY ||
			    m->kind == PERFBUF_FIELD_STRING;

		if (m->offset > sz || (!tail && m->offset + (size_t)m->size > sz))
			continue;	/* past a short record's end */
		if (!*m->name && (m->kind == PERFBUF_FIELD_STRUCT ||
				  m->kind == PERFBUF_FIELD_UNION)) {
			json_members(t, c, p + m->offset, sz - m->offset, o, first);
			continue;
		}
		if (!*first)
			put(o, ",", 1);
		*first = false;
		put_str(o, m->name, strlen(m->name));
		put(o, ":", 1);
		json_field(t, c, p + m->offset, sz - m->offset, o);
	}
}

static void json_array(const struct perfbuf_type *t, int idx, const char *p,
		       size_t sz, struct jout *o)
{
	const struct perfbuf_field *f = &t->f[idx];
	const struct perfbuf_field *e;
	size_t esz, n = f->nelem;

	if (f->nchildren != 1 || f->first_child <= idx || f->first_child >= t->n) {
		put(o, "[]", 2);	/* not an array we built */
		return;
	}
	e = &t->f[f->first_child];
	esz = e->size;
	if (!esz || !n || n * esz > sz)	/* flexible or cut: what is there */
		n = esz ? sz / esz : 0;
	put(o, "[", 1);
	for (size_t i = 0; i < n; i++) {
		if (i)
			put(o, ",", 1);
		json_field(t, f->first_child, p + i * esz, esz, o);
	}
	put(o, "]", 1);
}

static void json_scalar(const struct perfbuf_type *t, int idx, const char *p,
			size_t sz, struct jout *o)
{
	const struct perfbuf_field *f = &t->f[idx];
	const char *name;
	__u64 v;

	/* @p is the field's start: read it as a member at offset 0 */
	struct perfbuf_field one = *f;
	struct perfbuf_type view = { .f = &one, .efirst = t->efirst, .n = 1 };

	one.offset = 0;
	if (perfbuf_type__read_int(&view, 0, p, sz, &v)) {
		put(o, "null", 4);
		return;
	}
	switch (f->kind) {
	case PERFBUF_FIELD_BOOL:
		put(o, v ? "true" : "false", v ? 4 : 5);
		break;
	case PERFBUF_FIELD_PTR:
		putf(o, "\"0x%llx\"", (unsigned long long)v);
		break;
	case PERFBUF_FIELD_ENUM:
		name = perfbuf_type__enum_name(t, idx, (__s64)v);
		if (name) {
			put_str(o, name, strlen(name));
			break;
		}
		/* a value with no name: as a number */
		/* fall through */
	default:
		if (f->is_signed)
			putf(o, "%lld", (long long)v);
		else
			putf(o, "%llu", (unsigned long long)v);
	}
}

/* An (unsigned) __int128 as a decimal number: JSON numbers have no
 * bound on their digits */
static void json_int128(const char *p, bool sgn, struct jout *o)
{
	unsigned __int128 v;
	char digits[48], *d = digits + sizeof(digits);

	memcpy(&v, p, 16);
	if (sgn && (__int128)v < 0) {
		put(o, "-", 1);
		v = -v;
	}
	do {
		*--d = '0' + (char)(v % 10);
		v /= 10;
	} while (v);
	put(o, d, digits + sizeof(digits) - d);
}

static void json_field(const struct perfbuf_type *t, int idx, const char *p,
		       size_t sz, struct jout *o)
{
	const struct perfbuf_field *f = &t->f[idx];
	size_t n = f->size && f->size < sz ? f->size : sz;
	bool first = true;

	switch (f->kind) {
	case PERFBUF_FIELD_STRING:
		put_str(o, p, cstr_len(p, f->nelem ? n : sz));
		return;
	case PERFBUF_FIELD_ARRAY:
		json_array(t, idx, p, f->nelem ? n : sz, o);
		return;
	case PERFBUF_FIELD_STRUCT:
	case PERFBUF_FIELD_UNION:
		put(o, "{", 1);
		json_members(t, idx, p, n, o, &first);
		put(o, "}", 1);
		return;
	case PERFBUF_FIELD_FLOAT:
		if (f->size == 4 && sz >= 4) {
			float v;

			memcpy(&v, p, 4);
			putf(o, v == v && v - v == 0 ? "%.9g" : "\"%g\"", v);
		} else if (f->size == 8 && sz >= 8) {
			double v;

			memcpy(&v, p, 8);
			putf(o, v == v && v - v == 0 ? "%.17g" : "\"%g\"", v);
		} else {
			put(o, "null", 4);
		}
		return;
	case PERFBUF_FIELD_INT:
		if (f->size == 16 && !f->bit_size && n == 16) {
			json_int128(p, f->is_signed, o);
			return;
		}
		if (f->size > 8 && !f->bit_size)
			break;	/* another width: hex bytes */
		/* fall through */
	case PERFBUF_FIELD_BOOL:
	case PERFBUF_FIELD_ENUM:
	case PERFBUF_FIELD_PTR:
		json_scalar(t, idx, p, sz, o);
		return;
	}
	put(o, "\"", 1);
	for (size_t i = 0; i < n; i++)
		putf(o, "%02x", (unsigned char)p[i]);
	put(o, "\"", 1);
}

size_t perfbuf_type__json(const struct perfbuf_type *t, int idx,
			  const void *data, size_t sz, char *buf, size_t bufsz)
{
	struct jout o = { .buf = buf, .sz = bufsz };

	if (bufsz)
		buf[0] = 0;
	if (!t || idx < 0 || idx >= t->n)
		return 0;
	json_field(t, idx, data, sz, &o);
	return o.len;
}
