// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Tracepoint format files (tracefs events/CAT/NAME/format): parse the
 * fields once at setup (decode.c reads each record with them). The BPF side
 * copies the record's fixed part raw and reads the strings it cannot
 * (__data_loc/__rel_loc data, syscall user pointers) into string slots.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "printfmt.h"
#include "probe.h"
#include "tracefs.h"

/* where tracefs is: tracefs_ensure() (probe.c) may change it */

static const char *const buffers_name[] = { "none", "escaped", "hex" };

void trace_read_format(const struct trace_read_opts *r, char *buf, size_t sz)
{
	snprintf(buf, sz, "buffers=%s string_size=%u",
		 buffers_name[r->buffers], r->str_size);
}

int trace_read_parse(struct trace_read_opts *r, const char *opts)
{
	const char *b = strstr(opts, "buffers="), *n = strstr(opts, "string_size=");

	*r = TRACE_READ_DEFAULT;
	for (int i = 0; b && i < 3; i++)
		if (!strncmp(b + 8, buffers_name[i], strlen(buffers_name[i])))
			r->buffers = i;
	if (n)
		r->str_size = strtoul(n + 12, NULL, 10);
	return r->str_size >= 1 && r->str_size <= TRACE_STR_SIZE_MAX ? 0 : -EINVAL;
}

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

/* What a pointer points to, from its C type. */
static enum ptr_kind ptr_kind(const char *type)
{
	const char *star = strchr(type, '*');

	if (!strcmp(type, "const char *const *"))
		return PTR_ARGV;
	if (strstr(type, "char") && !strstr(type, "unsigned") &&
	    star == strrchr(type, '*'))
		return strncmp(type, "const ", 6) ? PTR_CHARS : PTR_CONST_CHARS;
	return PTR_OTHER;
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
		f->ptr = ptr_kind(type);
	} else {
		f->kind = FK_INT;
		narrow_int(f, type);
	}
}

/* The syscall arguments that are strings: paths and names (as strace
 * reads them), never a buffer (read(2)'s holds stale memory at entry). */
static bool string_arg(const char *name)
{
	static const char *const names[] = { "type", "_type", "_description",
		"_callout_info", "_key", "new_root", "put_old", "special",
		"specialfile" };
	size_t n = strlen(name);

	if ((n >= 4 && !strcmp(name + n - 4, "name")) ||
	    (n >= 4 && !strcmp(name + n - 4, "path")))
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* Is @f the length of the buffer before it (write(fd, buf, count))? */
static bool length_arg(const struct tp_field *f)
{
	static const char *const names[] = { "count", "len", "size", "bufsiz",
		"msg_len", "optlen" };

	if (f->kind != FK_INT)
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(f->name, names[i]))
			return true;
	return false;
}

/* Buffers the call reads (write's), not ones it fills (read's): declared
 * const, and those of the calls below. */
static bool input_buffer(const struct trace_probe *p, const struct tp_field *f)
{
	static const char *const calls[] = { "syscalls:sys_enter_setsockopt",
		"syscalls:sys_enter_sethostname",
		"syscalls:sys_enter_setdomainname" };

	if (f->ptr == PTR_CONST_CHARS)
		return true;
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (!strcmp(p->target, calls[i]))
			return true;
	return false;
}

/*
 * Syscall arguments point to user memory. A `char *` followed by its
 * length is a buffer: a pointer, or with --buffers the bytes of one the
 * call reads; other `char *` whose name says path or name are strings;
 * execve's argv is a list of strings. Everything else stays a pointer.
 */
static void syscall_ptrs(struct trace_probe *p)
{
	for (int i = 0; i < p->nfields; i++) {
		struct tp_field *f = &p->fields[i];
		struct tp_field *next = i + 1 < p->nfields ? f + 1 : NULL;

		if (f->kind != FK_PTR || f->size != 8)
			continue;
		if (f->ptr == PTR_ARGV && !strcmp(f->name, "argv")) {
			if (p->cfg.argv_slot < 0 &&
			    !add_slot(p, f, TRACE_ARGV_USER_PTR)) {
				f->kind = FK_ARGV;
				p->cfg.argv_slot = f->slot;
			}
		} else if (f->ptr != PTR_OTHER && next && length_arg(next)) {
			if (p->read && p->read->buffers && input_buffer(p, f) &&
			    !add_slot(p, f, TRACE_BUF_USER_PTR)) {
				f->kind = FK_BUF;
				p->cfg.str[f->slot].len_off = next->off;
			}
		} else if (f->ptr != PTR_OTHER && string_arg(f->name) &&
			   !add_slot(p, f, TRACE_STR_USER_PTR)) {
			f->kind = FK_STR;
			f->user_ptr = true;
		}
	}
}

/* A format file's "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;" line:
 * DECL, NUL-terminated in @line, and the numbers; NULL for another line */
static char *field_line(char *line, unsigned int *off, unsigned int *size,
			int *sgn)
{
	char *decl = strstr(line, "field:"), *semi;

	if (!decl)
		return NULL;
	decl += 6;
	semi = strchr(decl, ';');
	if (!semi)
		return NULL;
	*semi = '\0';
	if (sscanf(semi + 1, " offset:%u; size:%u; signed:%d;", off, size, sgn) != 3)
		return NULL;
	return decl;
}

int tp_format_parse(struct trace_probe *p, FILE *f)
{
	char *line = NULL, *print_fmt = NULL;
	size_t cap = 0;
	unsigned int raw = 0;
	int err = 0;

	p->cfg.argv_slot = -1;
	while (getline(&line, &cap, f) > 0) {
		char *decl, *type, *name, *arr;
		unsigned int off, size;
		int sgn;
		struct tp_field *fl, *v;

		if (!strncmp(line, "print fmt:", 10) && !print_fmt)
			print_fmt = strdup(line);	/* after the fields */
		decl = field_line(line, &off, &size, &sgn);
		if (!decl || split_decl(decl, &type, &name, &arr))
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
	free(line);
	p->cfg.raw_size = raw;
	if (!err && print_fmt)
		tp_printfmt_parse(p, print_fmt);
	free(print_fmt);
	if (!err && !strncmp(p->target, "syscalls:", 9))
		syscall_ptrs(p);
	return err;
}

/* Tracepoint @target's (CATEGORY:NAME) format file: NULL, errno set,
 * when it cannot be opened */
static FILE *format_open(const char *target)
{
	const char *cat_end = strchr(target, ':');
	char path[512];

	if (!cat_end) {
		errno = EINVAL;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/events/%.*s/%s/format", tracefs_path(),
		 (int)(cat_end - target), target, cat_end + 1);
	return fopen(path, "re");
}

int tp_format_decls(const char *target, int (*fn)(const char *decl, void *ctx),
		    void *ctx)
{
	char *line = NULL, *decl, *type, *name, *arr;
	unsigned int off, size;
	int sgn, err = 0;
	size_t cap = 0;
	FILE *f = format_open(target);

	if (!f)
		return -errno;
	while (!err && getline(&line, &cap, f) > 0) {
		char copy[512];

		decl = field_line(line, &off, &size, &sgn);
		if (!decl || snprintf(copy, sizeof(copy), "%s", decl) >= (int)sizeof(copy) ||
		    split_decl(copy, &type, &name, &arr) || !strncmp(name, "common_", 7))
			continue;	/* as tp_format_parse() skips them */
		decl += strspn(decl, " \t");
		err = fn(decl, ctx);
	}
	free(line);
	fclose(f);
	return err;
}

int tp_format_load(struct trace_probe *p)
{
	FILE *f = format_open(p->target);
	int err;

	if (!f)
		return -errno;
	err = tp_format_parse(p, f);
	fclose(f);
	return err;
}

void tp_fields_free(struct trace_probe *p)
{
	for (int i = 0; i < p->nfields; i++) {
		for (int k = 0; k < p->fields[i].nnames; k++)
			free((char *)p->fields[i].names[k].name);
		free(p->fields[i].names);
		free(p->fields[i].name);
	}
	free(p->fields);
	p->fields = NULL;
	p->nfields = 0;
}
