// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for tracefs format files (tp_format_parse()) and the
 * decoder that uses them: a hostile format file must give fields the
 * decoder can trust (inside TRACE_RAW_MAX and the bytes BPF copies, of a
 * width it can read, with a valid string slot), and decoding any record
 * with them (trace_decoder__decode()) must stay inside the record, and
 * the sinks must print one line per event: a valid JSON object, or text.
 *
 * Input: the format file, then optionally a NUL and a record: u16
 * raw_size, u16 str_len[TRACE_MAX_STRS], u16 str_cut, the data. Without
 * one (a real format file as is) the record is raw_size bytes of 0xff.
 * The input's length picks --buffers (none, escaped, hex).
 */
#define _GNU_SOURCE	/* memfd_create */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace/decode.h"

#define REC_HDR (2 + 2 * TRACE_MAX_STRS + 2)	/* raw_size, str_len[], str_cut */

static int out_fd = -1;		/* a memfd: what the sinks wrote */
static struct trace_sink *json_sink, *text_sink;
static char *out_copy;
static size_t out_copy_cap;

static bool width_ok(unsigned int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

/* What the decoder relies on, for each field tp_format_parse() kept. */
static void check_fields(const struct trace_probe *p)
{
	const struct trace_probe_cfg *c = &p->cfg;

	if (c->raw_size > TRACE_RAW_MAX || c->nstr > TRACE_MAX_STRS)
		abort();
	if (c->argv_slot != -1 && (c->argv_slot < 0 || c->argv_slot >= (int)c->nstr ||
				   c->str[c->argv_slot].kind != TRACE_ARGV_USER_PTR))
		abort();
	for (int i = 0; i < p->nfields; i++) {
		const struct tp_field *f = &p->fields[i];
		bool slotted = f->kind == FK_STR || f->kind == FK_BYTES ||
			       f->kind == FK_LOC_ARRAY || f->kind == FK_BUF ||
			       f->kind == FK_ARGV;

		if (f->off + f->size > (int)c->raw_size)
			abort();
		/* names are printed raw in text: one line, no escapes */
		if (!f->name[0])
			abort();
		for (const char *s = f->name; *s; s++)
			if (!isalnum((unsigned char)*s) && *s != '_')
				abort();
		/* print fmt hints: names only on integers, addresses of
		 * the widths sinks read (a wrong one prints as the type) */
		if ((f->names || f->nnames) != (f->hint == TV_HINT_SYMBOLIC ||
						 f->hint == TV_HINT_FLAGS) ||
		    (f->names && f->kind != FK_INT) || f->nnames < 0)
			abort();
		for (int k = 0; k < f->nnames; k++)
			if (!f->names[k].name)
				abort();
		if (slotted != (f->slot >= 0) || f->slot >= (int)c->nstr ||
		    (f->slot >= 0 && c->str[f->slot].off != f->off))
			abort();
		switch (f->kind) {
		case FK_INT:
		case FK_PTR:
			if (!width_ok(f->size))
				abort();
			break;
		case FK_STR:
			if (f->user_ptr && f->size != 8)
				abort();
			break;
		case FK_BUF:
		case FK_ARGV:
			if (f->size != 8 || (f->kind == FK_ARGV) != (f->slot == c->argv_slot))
				abort();
			break;
		case FK_ARRAY:
		case FK_LOC_ARRAY:
			if (!width_ok(f->elem))
				abort();
			break;
		default:
			break;
		}
	}
}

/* The output since the last call, as a string. */
static const char *take_output(size_t *len)
{
	off_t n = lseek(out_fd, 0, SEEK_CUR);

	if (n < 0)
		abort();
	if ((size_t)n + 1 > out_copy_cap) {
		out_copy_cap = n + 1;
		out_copy = realloc(out_copy, out_copy_cap);
		if (!out_copy)
			abort();
	}
	if (pread(out_fd, out_copy, n, 0) != n || ftruncate(out_fd, 0) ||
	    lseek(out_fd, 0, SEEK_SET))
		abort();
	out_copy[n] = '\0';
	*len = n;
	return out_copy;
}

/*
 * A JSON value at *s, as the writer prints them (no white space, integers
 * only, null), past it on success. Strings are checked loosely: fuzz_json
 * checks the escaper.
 */
static bool json_value(const char **s)
{
	const char *p = *s;
	char close;

	if (*p == '"') {
		for (p++; *p != '"'; p++) {
			if ((unsigned char)*p < 0x20)
				return false;	/* also the end of the output */
			if (*p == '\\' && (!*++p || !strchr("\"\\bfnrtu", *p)))
				return false;
		}
		*s = p + 1;
		return true;
	}
	if (*p == '{' || *p == '[') {
		close = *p == '{' ? '}' : ']';
		if (*++p != close) {
			for (;;) {
				if (close == '}' &&
				    (*p != '"' || !json_value(&p) || *p++ != ':'))
					return false;
				if (!json_value(&p))
					return false;
				if (*p == close)
					break;
				if (*p++ != ',')
					return false;
			}
		}
		*s = p + 1;
		return true;
	}
	if (!strncmp(p, "null", 4)) {	/* an unreadable argv element */
		*s = p + 4;
		return true;
	}
	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p) ||
	    (*p == '0' && isdigit((unsigned char)p[1])))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	*s = p;
	return true;
}

/* The event in JSON, then in text (uncut): one line each. */
static void print_event(struct trace_probe *p, const struct trace_record *r,
			size_t sz)
{
	struct probe_set set = { .v = p, .n = 1, .cap = 1, .read = *p->read };
	struct trace_decoder *d = trace_decoder__new(&set);
	const struct tv_event *e;
	const char *s;
	size_t len;

	if (!d || trace_sink__begin(json_sink, trace_decoder__schema(d)))
		abort();
	e = trace_decoder__decode(d, r, sz, 0, false);
	if (!e)
		abort();
	trace_sink__event(json_sink, e);
	if (trace_sink__flush(json_sink))
		abort();
	s = take_output(&len);
	if (strncmp(s, "{\"type\":\"event\",", 16) || !json_value(&s) ||
	    strcmp(s, "\n"))
		abort();
	trace_sink__event(text_sink, e);
	if (trace_sink__flush(text_sink))
		abort();
	s = take_output(&len);
	if (!len || memchr(s, '\n', len) != s + len - 1)
		abort();
	trace_decoder__free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	static char sys_target[] = "syscalls:sys_enter_fuzz";
	static char tp_target[] = "fuzz:fuzz";
	static char spec[] = "tracepoint:fuzz:fuzz", label[] = "fuzz";
	struct trace_read_opts rd = TRACE_READ_DEFAULT;
	struct trace_probe p = { .kind = PK_TRACEPOINT, .spec = spec,
				 .label = label };
	const uint8_t *nul = memchr(in, '\0', len), *rec;
	size_t fmt_len = nul ? (size_t)(nul - in) : len, rec_len, data_len, sz;
	struct trace_record *r;
	char *fmt;
	FILE *f;
	int err;

	/* once: a 1 MiB buffer per input would be most of the time */
	if (out_fd < 0) {
		struct trace_sink_opts o = { .max_cols = 0 };	/* uncut */

		out_fd = o.fd = memfd_create("fuzz_format", MFD_CLOEXEC);
		json_sink = trace_sink_json_new(&o);
		text_sink = trace_sink_text_new(&o);
		if (out_fd < 0 || !json_sink || !text_sink)
			abort();
	}
	/* a string, for strstr(); its NUL read last keeps fmemopen() off
	 * size 0, and ends the last line early: harmless */
	fmt = malloc(fmt_len + 1);
	if (!fmt)
		return 0;
	memcpy(fmt, in, fmt_len);
	fmt[fmt_len] = '\0';
	/* syscall arguments are classified differently (user pointers) */
	p.target = strstr(fmt, "name: sys_") ? sys_target : tp_target;
	rd.buffers = len % 3;
	p.read = &rd;
	f = fmemopen(fmt, fmt_len + 1, "r");
	if (!f)
		abort();
	err = tp_format_parse(&p, f);
	fclose(f);
	free(fmt);
	if (err)
		goto out;
	check_fields(&p);

	/* the record, in a block of its exact size: ASan sees overreads */
	rec = nul ? nul + 1 : NULL;
	rec_len = nul ? len - fmt_len - 1 : 0;
	data_len = !rec ? p.cfg.raw_size :
		   rec_len > REC_HDR ? rec_len - REC_HDR : 0;
	sz = sizeof(*r) + data_len;
	r = calloc(1, sz);
	if (!r)
		goto out;
	r->pid = r->tid = 42;
	memcpy(r->comm, "fuzz", 4);
	if (rec) {
		uint8_t hdr[REC_HDR] = {};

		memcpy(hdr, rec, rec_len < REC_HDR ? rec_len : REC_HDR);
		memcpy(&r->raw_size, hdr, 2);
		memcpy(r->str_len, hdr + 2, sizeof(r->str_len));
		memcpy(&r->str_cut, hdr + 2 + sizeof(r->str_len), 2);
		if (data_len)
			memcpy(r->data, rec + REC_HDR, data_len);
	} else {
		r->raw_size = data_len;
		memset(r->data, 0xff, data_len);
	}
	print_event(&p, r, sz);
	free(r);
out:
	tp_fields_free(&p);
	return 0;
}
