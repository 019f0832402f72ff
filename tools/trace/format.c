// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Tracepoint format files (tracefs events/CAT/NAME/format): parse the
 * fields once at setup, then decode each record from them. The BPF side
 * copies the record's fixed part raw and reads the strings it cannot
 * (__data_loc/__rel_loc data, syscall user pointers) into string slots.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

/* "const char * filename" -> type "const char *", name "filename";
 * "char comm[16]" -> arr "16". Modifies @decl: the type ends before the
 * name, so a name such as "unsigned_chars" cannot change the type. */
static int split_decl(char *decl, char **type, char **name, char **arr)
{
	char *end = decl + strlen(decl), *p;

	while (end > decl && isspace((unsigned char)end[-1]))
		*--end = '\0';
	*arr = NULL;
	if (end > decl && end[-1] == ']') {
		p = strrchr(decl, '[');
		if (!p)
			return -EINVAL;
		end[-1] = '\0';
		*arr = p + 1;
		*p = '\0';
		end = p;
	}
	p = end;
	while (p > decl && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
		p--;
	if (p == end || p == decl || !isspace((unsigned char)p[-1]))
		return -EINVAL;	/* tracefs prints "TYPE NAME" */
	*name = p;
	*type = decl;
	while (p > decl && isspace((unsigned char)p[-1]))
		*--p = '\0';
	return 0;
}

static int add_slot(struct trace_probe *p, struct tp_field *f,
		    enum trace_str_kind kind)
{
	struct trace_probe_cfg *c = &p->cfg;

	if (c->nstr >= TRACE_MAX_STRS)
		return -1;
	c->str[c->nstr].off = f->off;
	c->str[c->nstr].kind = kind;
	f->slot = c->nstr++;
	return 0;
}

/* Width and sign of integer C type @type; false if it is not one. */
static bool int_type(const char *type, unsigned short *size, bool *sgn)
{
	static const struct { const char *type; unsigned short size; bool sgn; } t[] = {
		{ "int", 4, true }, { "signed int", 4, true },
		{ "unsigned int", 4, false }, { "unsigned", 4, false },
		{ "short", 2, true }, { "unsigned short", 2, false },
		{ "pid_t", 4, true }, { "uid_t", 4, false }, { "gid_t", 4, false },
		{ "qid_t", 4, false }, { "key_t", 4, true }, { "mqd_t", 4, true },
		{ "clockid_t", 4, true }, { "timer_t", 4, true },
		{ "rwf_t", 4, true }, { "umode_t", 2, false },
		{ "u32", 4, false }, { "s32", 4, true }, { "u16", 2, false },
		{ "s16", 2, true }, { "u8", 1, false }, { "s8", 1, true },
		{ "u64", 8, false }, { "s64", 8, true },
		{ "long", 8, true }, { "loff_t", 8, true }, { "off_t", 8, true },
		{ "unsigned long", 8, false }, { "size_t", 8, false },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (!strcmp(type, t[i].type)) {
			*size = t[i].size;
			*sgn = t[i].sgn;
			return true;
		}
	}
	return false;
}

/*
 * Syscall tracepoints declare every argument 8 bytes wide and unsigned
 * ("int dfd; size:8; signed:0"): the C type tells the real width and sign,
 * so AT_FDCWD reads -100, not 4294967196.
 */
static void narrow_int(struct tp_field *f, const char *type)
{
	unsigned short size;
	bool sgn;

	if (int_type(type, &size, &sgn) && size <= f->size) {
		f->size = size;
		f->is_signed = sgn;
	}
}

/* "__data_loc u64[]": integer elements, decoded as an array, not hex */
static void loc_elem(struct tp_field *f, const char *type)
{
	char elem[64];
	const char *sp = strchr(type, ' ');
	size_t n;

	if (!sp)
		return;
	sp++;
	n = strlen(sp);
	if (n < 3 || n >= sizeof(elem) || strcmp(sp + n - 2, "[]"))
		return;
	snprintf(elem, sizeof(elem), "%.*s", (int)(n - 2), sp);
	if (int_type(elem, &f->elem, &f->is_signed))
		f->kind = FK_LOC_ARRAY;
}

static bool int_width(unsigned int size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

static void classify(struct trace_probe *p, struct tp_field *f,
		     const char *type, const char *arr)
{
	bool loc = !strncmp(type, "__data_loc", 10),
	     rel = !strncmp(type, "__rel_loc", 9),
	     chars = strstr(type, "char") && !strstr(type, "unsigned");
	long n = arr ? strtol(arr, NULL, 10) : 0;

	f->slot = -1;
	f->hidden = !strcmp(f->name, "__syscall_nr");
	if (loc || rel) {
		f->kind = chars ? FK_STR : FK_BYTES;
		if (add_slot(p, f, chars ? (loc ? TRACE_STR_DATA_LOC : TRACE_STR_REL_LOC)
					 : (loc ? TRACE_BYTES_DATA_LOC : TRACE_BYTES_REL_LOC)))
			f->kind = FK_RAW;	/* out of slots: the u32 locator */
		else if (!chars)
			loc_elem(f, type);
	} else if (arr) {
		f->elem = n > 0 ? f->size / n : 0;
		if (chars)
			f->kind = FK_CHARS;
		else if (n > 0 && int_width(f->elem))
			f->kind = FK_ARRAY;
		else
			f->kind = FK_RAW;
	} else if (!int_width(f->size)) {
		f->kind = FK_RAW;	/* get_uint() reads no other width */
	} else if (strchr(type, '*')) {
		f->kind = FK_PTR;
		/* syscall arguments are user pointers: read the string */
		if (!strncmp(p->target, "syscalls:", 9) && chars &&
		    strchr(type, '*') == strrchr(type, '*') && f->size == 8 &&
		    !add_slot(p, f, TRACE_STR_USER_PTR)) {
			f->kind = FK_STR;
			f->user_ptr = true;
		}
	} else {
		f->kind = FK_INT;
		narrow_int(f, type);
	}
}

int tp_format_parse(struct trace_probe *p, FILE *f)
{
	char line[1024];
	unsigned int raw = 0;
	int err = 0;

	while (fgets(line, sizeof(line), f)) {
		char *decl = strstr(line, "field:"), *semi, *type, *name, *arr;
		unsigned int off, size;
		int sgn;
		struct tp_field *fl, *v;

		if (!decl)
			continue;
		decl += 6;
		semi = strchr(decl, ';');
		if (!semi)
			continue;
		*semi = '\0';
		if (sscanf(semi + 1, " offset:%u; size:%u; signed:%d;", &off,
			   &size, &sgn) != 3 || split_decl(decl, &type, &name, &arr))
			continue;	/* a line we do not understand: skip it */
		/* beyond what BPF copies ("size:-4" would wrap off + size) */
		if (off > TRACE_RAW_MAX || size > TRACE_RAW_MAX - off)
			continue;
		/* BPF programs see a pt_regs pointer over the common_* fields;
		 * the record header has the pid, tid and CPU instead */
		if (!strncmp(name, "common_", 7))
			continue;
		v = realloc(p->fields, (p->nfields + 1) * sizeof(*v));
		if (!v) {
			err = -ENOMEM;
			break;
		}
		p->fields = v;
		fl = &v[p->nfields];
		memset(fl, 0, sizeof(*fl));
		fl->name = strdup(name);
		if (!fl->name) {
			err = -ENOMEM;
			break;
		}
		p->nfields++;
		fl->off = off;
		fl->size = size;
		fl->is_signed = sgn;
		classify(p, fl, type, arr);
		if (off + size > raw)
			raw = off + size;
	}
	p->cfg.raw_size = raw;
	return err;
}

int tp_format_load(struct trace_probe *p)
{
	char path[512], *cat_end = strchr(p->target, ':');
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/events/%.*s/%s/format", tracefs_dir,
		 (int)(cat_end - p->target), p->target, cat_end + 1);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	err = tp_format_parse(p, f);
	fclose(f);
	return err;
}

void tp_fields_free(struct trace_probe *p)
{
	for (int i = 0; i < p->nfields; i++) {
		free(p->fields[i].name);
		free(p->fields[i].json_key);
	}
	free(p->fields);
	p->fields = NULL;
	p->nfields = 0;
}

static __u64 get_uint(const unsigned char *d, unsigned int size)
{
	__u8 u8; __u16 u16; __u32 u32; __u64 u64 = 0;

	switch (size) {
	case 1: memcpy(&u8, d, 1); return u8;
	case 2: memcpy(&u16, d, 2); return u16;
	case 4: memcpy(&u32, d, 4); return u32;
	default: memcpy(&u64, d, 8); return u64;
	}
}

static void out_int(const unsigned char *d, unsigned int size, bool sgn)
{
	__u64 v = get_uint(d, size);

	if (sgn && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ULL << (size * 8);	/* sign-extend */
	if (sgn)
		out_s64((__s64)v);
	else
		out_u64(v);
}

/* [1,2,3]: the whole @elem-byte integers in d[0, n) */
static void out_ints(const unsigned char *d, size_t n, unsigned int elem,
		     bool sgn)
{
	out_mem("[", 1);
	for (size_t i = 0; elem && i + elem <= n; i += elem) {
		if (i)
			out_mem(",", 1);
		out_int(d + i, elem, sgn);
	}
	out_mem("]", 1);
}

static void out_str(const char *s, size_t n, bool json)
{
	const char *z = memchr(s, '\0', n);

	if (z)
		n = z - s;
	if (json)
		out_json_str(s, n);
	else
		out_text_str(s, n);
}

static void out_bytes(const unsigned char *d, size_t n, bool json)
{
	if (json)
		out_mem("\"", 1);
	for (size_t i = 0; i < n; i++) {
		char h[2] = { "0123456789abcdef"[d[i] >> 4],
			      "0123456789abcdef"[d[i] & 15] };
		out_mem(h, 2);
	}
	if (json)
		out_mem("\"", 1);
}

/* @json_key is the name already escaped, quoted and with its colon. */
static void out_name(const char *name, const char *json_key, bool json,
		     bool *first)
{
	if (json) {
		if (!*first)
			out_mem(",", 1);
		out_mem(json_key, strlen(json_key));
	} else {
		out_mem(" ", 1);
		out_mem(name, strlen(name));
		out_mem("=", 1);
	}
	*first = false;
}

static void decode_field(const struct tp_field *f, const unsigned char *raw,
			 const unsigned char *slot, size_t slot_len, bool json)
{
	const unsigned char *d = raw + f->off;

	switch (f->kind) {
	case FK_INT:
		out_int(d, f->size, f->is_signed);
		break;
	case FK_CHARS:
		out_str((const char *)d, f->size, json);
		break;
	case FK_STR:
		if (slot) {
			out_str((const char *)slot, slot_len, json);
			break;
		}
		if (!f->user_ptr) {
			out_str("", 0, json);
			break;
		}
		/* unreadable user memory: the pointer */
		/* fallthrough */
	case FK_PTR:
		if (json)
			out_mem("\"", 1);
		out_hex(get_uint(d, f->size));
		if (json)
			out_mem("\"", 1);
		break;
	case FK_BYTES:
		out_bytes(slot, slot ? slot_len : 0, json);
		break;
	case FK_LOC_ARRAY:
		out_ints(slot, slot ? slot_len : 0, f->elem, f->is_signed);
		break;
	case FK_ARRAY:
		out_ints(d, f->size, f->elem, f->is_signed);
		break;
	case FK_RAW:
		out_bytes(d, f->size, json);
		break;
	}
}

static void decode_tp(const struct trace_probe *p, const struct trace_record *r,
		      size_t sz, bool json)
{
	const unsigned char *raw = r->data;
	const unsigned char *slot[TRACE_MAX_STRS] = {};
	size_t data_sz = sz - sizeof(*r), pos = r->raw_size;
	bool first = true;

	if (r->raw_size > data_sz)
		return;		/* truncated: never from our BPF side */
	for (int i = 0; i < TRACE_MAX_STRS; i++) {
		if (!r->str_len[i] || pos + r->str_len[i] > data_sz)
			continue;
		slot[i] = raw + pos;
		pos += r->str_len[i];
	}
	for (int i = 0; i < p->nfields; i++) {
		const struct tp_field *f = &p->fields[i];
		int s = f->slot;

		if ((f->hidden && !json) || f->off + f->size > r->raw_size)
			continue;
		out_name(f->name, f->json_key, json, &first);
		decode_field(f, raw, s >= 0 ? slot[s] : NULL,
			     s >= 0 ? r->str_len[s] : 0, json);
	}
}

void tp_decode(const struct trace_probe *p, const struct trace_record *r,
	       size_t sz, bool json)
{
	static const char *const names[TRACE_MAX_ARGS] = {
		"arg0", "arg1", "arg2", "arg3", "arg4", "arg5",
	};
	static const char *const keys[TRACE_MAX_ARGS] = {
		"\"arg0\":", "\"arg1\":", "\"arg2\":", "\"arg3\":",
		"\"arg4\":", "\"arg5\":",
	};
	size_t n = (sz - sizeof(*r)) / 8;
	bool first = true;
	__u64 v;

	if (p->kind == PK_TRACEPOINT) {
		decode_tp(p, r, sz, json);
		return;
	}
	if (r->raw_size / 8 < n)
		n = r->raw_size / 8;
	if (p->kind == PK_KRETPROBE || p->kind == PK_URETPROBE ||
	    p->kind == PK_FEXIT) {
		if (!n)
			return;
		memcpy(&v, r->data, 8);
		out_name("ret", "\"ret\":", json, &first);
		out_s64((__s64)v);
		return;
	}
	if (n > TRACE_MAX_ARGS)
		n = TRACE_MAX_ARGS;
	for (size_t i = 0; i < n; i++) {
		memcpy(&v, r->data + i * 8, 8);
		out_name(names[i], keys[i], json, &first);
		out_u64(v);
	}
}
