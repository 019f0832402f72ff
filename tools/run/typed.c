// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One's own records as values: each top-level member of the record's
 * type is a field. Integers, pointers, strings and integer arrays are
 * values of their own kind (sinks print them as trace's); enums (by
 * name), bools, floats, nested structs and unions, other arrays are
 * JSON values written by libperfbuf's perfbuf_type__json().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cstr.h"
#include "run.h"
#include "common/say.h"

#define JSON_SPACE 65536	/* the JSON values of one record */
#define HEX_SHOWN 5		/* wrong-size records shown per map */

struct run_decoder {
	const char *prog;
	struct run_map *maps;
	int n;
	struct tv_probe *probes;
	struct tv_schema schema;
	struct tv_field *fields;
	int maxcols;
	struct tv_event ev;
	char json[JSON_SPACE];
};

static int add_cols(struct run_map *m, int idx)
{
	const struct perfbuf_field *f = perfbuf_type__field(m->type, idx);

	for (int i = 0; i < f->nchildren; i++) {
		int c = f->first_child + i;
		const struct perfbuf_field *cf = perfbuf_type__field(m->type, c);
		int err;

		if (!*cf->name && (cf->kind == PERFBUF_FIELD_STRUCT ||
				   cf->kind == PERFBUF_FIELD_UNION)) {
			err = add_cols(m, c);
			if (err)
				return err;
			continue;
		}
		m->cols[m->ncols] = c;
		m->names[m->ncols++] = cf->name;
	}
	return 0;
}

int run_map_columns(struct run_map *m)
{
	int n = m->type ? perfbuf_type__field_cnt(m->type) : 2;

	m->cols = calloc(n, sizeof(*m->cols));
	m->names = calloc(n, sizeof(*m->names));
	if (!m->cols || !m->names)
		return -ENOMEM;
	if (!m->type) {
		m->names[0] = "size";
		m->names[1] = "data";
		m->ncols = 2;
		return 0;
	}
	return add_cols(m, 0);
}

void run_map_free(struct run_map *m)
{
	perfbuf_type__free(m->type);
	free(m->cols);
	free(m->names);
	free(m->name);
}

struct run_decoder *run_decoder__new(const char *prog, struct run_map *maps, int n)
{
	struct run_decoder *d = calloc(1, sizeof(*d));

	if (!d || !(d->probes = calloc(n ? n : 1, sizeof(*d->probes))))
		goto nomem;
	d->prog = prog;
	d->maps = maps;
	d->n = n;
	for (int i = 0; i < n; i++) {
		d->probes[i] = (struct tv_probe){ .id = i, .spec = maps[i].name,
			.label = maps[i].name, .nfields = maps[i].ncols,
			.names = maps[i].names, .typed = true };
		if (maps[i].ncols > d->maxcols)
			d->maxcols = maps[i].ncols;
	}
	d->schema = (struct tv_schema){ .nprobes = n, .probes = d->probes };
	d->fields = calloc(d->maxcols ? d->maxcols : 1, sizeof(*d->fields));
	if (d->fields)
		return d;
nomem:
	run_decoder__free(d);
	errno = ENOMEM;
	return NULL;
}

void run_decoder__free(struct run_decoder *d)
{
	if (!d)
		return;
	free(d->probes);
	free(d->fields);
	free(d);
}

const struct tv_schema *run_decoder__schema(const struct run_decoder *d)
{
	return &d->schema;
}

/* A string: up to its NUL, or NUL-separated strings (lib/cstr.h); cut
 * when no NUL ends the bytes there (the text went on past the array, or
 * past a short record's end) */
static void str_field(struct tv_field *v, const char *p, size_t n)
{
	size_t len = cstr_len(p, n);

	v->type = TV_STR;
	v->data = p;
	v->len = len;
	v->flags = len == n && n ? TV_F_CUT : 0;
}

/* An integer array of @f's child kind, as TV_ARRAY; false otherwise */
static bool int_array(const struct perfbuf_type *t, const struct perfbuf_field *f,
		      struct tv_field *v, const char *p, size_t n)
{
	const struct perfbuf_field *e = perfbuf_type__field(t, f->first_child);

	if (!e || e->kind != PERFBUF_FIELD_INT || e->bit_size ||
	    (e->size != 1 && e->size != 2 && e->size != 4 && e->size != 8))
		return false;
	v->type = TV_ARRAY;
	v->width = e->size;
	v->is_signed = e->is_signed;
	v->data = p;
	v->len = n - n % e->size;
	return true;
}

/* A string inside struct or union @c (@n bytes at @p) with no NUL to end
 * it, cut as a top-level one is: the field is marked cut (its name in
 * JSON's "cut", "..." after it in text) */
static bool nested_cut(const struct perfbuf_type *t, int c, const char *p, size_t n,
		       int depth)
{
	const struct perfbuf_field *f = perfbuf_type__field(t, c);

	if (!f || depth > 64)
		return false;
	if (f->kind == PERFBUF_FIELD_STRING) {
		size_t len = f->nelem && f->size < n ? f->size : n;

		return len && cstr_len(p, len) == len;
	}
	if (f->kind != PERFBUF_FIELD_STRUCT && f->kind != PERFBUF_FIELD_UNION)
		return false;
	for (int i = 0; i < f->nchildren; i++) {
		const struct perfbuf_field *m = perfbuf_type__field(t, f->first_child + i);

		if (m && m->offset < n &&
		    nested_cut(t, f->first_child + i, p + m->offset, n - m->offset, depth + 1))
			return true;
	}
	return false;
}

/* Field @c of the record (@sz bytes at @rec) into @v; false when the
 * record does not hold it */
static bool field_value(struct run_decoder *d, const struct perfbuf_type *t,
			int c, const char *rec, size_t sz, size_t *used,
			struct tv_field *v)
{
	const struct perfbuf_field *f = perfbuf_type__field(t, c);
	size_t off = f->offset, n;
	__u64 u;

	/* a member of an anonymous struct/union: from the root's start */
	for (int p = f->parent; p > 0; p = perfbuf_type__field(t, p)->parent)
		off += perfbuf_type__field(t, p)->offset;
	if (off > sz)
		return false;
	n = f->size && f->size < sz - off ? f->size : sz - off;
	if (f->kind == PERFBUF_FIELD_STRING) {
		str_field(v, rec + off, f->nelem ? n : sz - off);
		return true;
	}
	if (f->kind == PERFBUF_FIELD_ARRAY && int_array(t, f, v, rec + off,
							f->nelem ? n : sz - off))
		return true;
	/* a short record: only its last member, an array, is partly there */
	if (n < f->size && f->kind != PERFBUF_FIELD_ARRAY)
		return false;
	if ((f->kind == PERFBUF_FIELD_INT && (f->size <= 8 || f->bit_size)) ||
	    f->kind == PERFBUF_FIELD_PTR) {
		perfbuf_type__read_int(t, c, rec + off - f->offset, sz - off + f->offset, &u);
		v->type = f->kind == PERFBUF_FIELD_PTR ? TV_PTR : TV_INT;
		/* a bitfield's 1 to 9 bytes: an integer of 1, 2, 4 or 8 */
		v->width = f->size <= 2 ? f->size : f->size <= 4 ? 4 : 8;
		v->is_signed = f->is_signed;
		v->u = u;
		return true;
	}
	v->type = TV_JSON;
	v->flags = nested_cut(t, c, rec + off, n, 0) ? TV_F_CUT : 0;
	v->data = d->json + *used;
	v->len = perfbuf_type__json(t, c, rec + off, n, d->json + *used, JSON_SPACE - *used);
	return true;
}

/* "map events: a record of 12 bytes, struct run_event has 120: 0a0b..." */
static void wrong_size(const char *prog, struct run_map *m, const unsigned char *p,
		       size_t sz)
{
	if (++m->wrong_size > HEX_SHOWN)
		return;
	cli_say(prog, "map %s: a record of %zu bytes, struct %s has %zu: ", m->name, sz,
		perfbuf_type__name(m->type), perfbuf_type__size(m->type));
	for (size_t i = 0; i < sz && i < 64; i++)
		fprintf(stderr, "%02x", p[i]);
	fprintf(stderr, "%s\n", sz > 64 ? "..." : "");
	if (m->wrong_size == HEX_SHOWN)
		cli_say(prog, "map %s: more records of the wrong size are counted, not shown\n",
			m->name);
}

const struct tv_event *run_decoder__decode(struct run_decoder *d, int idx,
					   const void *data, size_t sz,
					   int cpu, __u64 time_ns, bool late)
{
	struct run_map *m = &d->maps[idx];
	size_t used = 0;
	int nf = 0, fit;

	m->received++;
	d->ev = (struct tv_event){ .time_ns = time_ns, .cpu = cpu, .late = late,
				   .probe = &d->probes[idx], .fields = d->fields };
	if (!m->type) {		/* no type: its size and bytes */
		d->fields[0] = (struct tv_field){ .idx = 0, .name = "size", .type = TV_INT,
						  .width = 4, .u = sz };
		d->fields[1] = (struct tv_field){ .idx = 1, .name = "data", .type = TV_BYTES,
						  .data = data, .len = sz };
		d->ev.nfields = 2;
		return &d->ev;
	}
	fit = perfbuf_type__fit(m->type, sz);
	if (fit < 0) {
		wrong_size(d->prog, m, data, sz);
		return NULL;
	}
	for (int i = 0; i < m->ncols; i++) {
		struct tv_field *v = &d->fields[nf];

		*v = (struct tv_field){ .idx = i, .name = m->names[i] };
		if (!field_value(d, m->type, m->cols[i], data, (size_t)fit, &used, v))
			continue;
		if (v->type == TV_JSON && v->len >= JSON_SPACE - used) {
			v->data = "null";	/* out of room: never a cut JSON */
			v->len = 4;
		} else if (v->type == TV_JSON) {
			used += v->len;
		}
		nf++;
	}
	d->ev.nfields = nf;
	return &d->ev;
}
