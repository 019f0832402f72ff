// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A trace record to typed values (values.h). Tracepoints: each field of
 * the format file (format.c) from the raw copy of the kernel's record or
 * from its string slot; kprobes, fentry, uprobes, raw tracepoints:
 * arg0..arg5; return probes: ret. No formatting: sinks do that.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"

static const char *const arg_names[TRACE_MAX_ARGS] = {
	"arg0", "arg1", "arg2", "arg3", "arg4", "arg5",
};
static const char *const ret_names[] = { "ret" };

struct trace_decoder {
	const struct probe_set *set;
	struct tv_schema schema;
	struct tv_probe *probes;
	const char **names;	/* the tracepoints' field names, all probes */
	struct tv_field *fields;	/* room for the most fields of a probe */
	struct tv_str argv[TRACE_ARGV_MAX];	/* an execve's argv elements */
	struct tv_event ev;
	/* --kstack, --ustack */
	bool kstack, ustack;
	trace_frame_name_fn name;
	void *name_ctx;
	const char *kframes[TRACE_STACK_MAX], *uframes[TRACE_STACK_MAX];
};

void trace_decoder__set_stacks(struct trace_decoder *d, bool kernel, bool user,
			       trace_frame_name_fn name, void *ctx)
{
	d->kstack = kernel && name;
	d->ustack = user && name;
	d->name = name;
	d->name_ctx = ctx;
}

/* A kernel frame of the BPF side of a probe: the program, the fentry
 * trampoline, the raw tracepoint's runner (bpf_trace_run2: a syscall
 * tracepoint is the raw one, sys_enter, underneath). They come first on
 * the stack, before the function or tracepoint traced. */
static bool bpf_frame(const char *name)
{
	static const char *const pfx[] = { "bpf_prog_", "bpf_trampoline_",
					   "bpf_trace_run", "__bpf_trace_" };

	for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
		if (name && !strncmp(name, pfx[i], strlen(pfx[i])))
			return true;
	return false;
}

/* @n u64 addresses at data + @off named into @out, less the BPF frames
 * on top of a kernel stack; the count, or 0 when
 * they are not all inside the record's @data_sz bytes. A record whose
 * data left no room for the stacks says so in one frame. */
static int stack_names(struct trace_decoder *d, const struct trace_record *r,
		       size_t data_sz, size_t off, size_t n, bool kernel,
		       const char **out)
{
	if (r->stack_off == TRACE_NO_STACK_ROOM) {
		out[0] = "[no room for the stack in the record: lower --string-size]";
		return 1;
	}
	if ((off & 7) || off > data_sz || n * 8 > data_sz - off ||
	    n > TRACE_STACK_MAX)
		return 0;	/* not what trace.bpf.c writes */
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		__u64 addr;

		memcpy(&addr, r->data + off + i * 8, 8);
		out[k] = d->name(d->name_ctx, kernel, r->pid, addr);
		/* the probe's own machinery is not the traced code */
		if (!(kernel && k == 0 && bpf_frame(out[k])))
			k++;
	}
	return (int)k;
}

static void decode_stacks(struct trace_decoder *d, const struct trace_record *r,
			  size_t sz, struct tv_event *e)
{
	size_t data_sz = sz - sizeof(*r);

	if (d->kstack) {
		e->nkstack = stack_names(d, r, data_sz, r->stack_off, r->kstack_n,
					 true, d->kframes);
		e->kstack = d->kframes;
	}
	if (d->ustack) {
		e->nustack = stack_names(d, r, data_sz,
					 r->stack_off + (size_t)r->kstack_n * 8,
					 r->ustack_n, false, d->uframes);
		e->ustack = d->uframes;
	}
}

static bool is_ret(enum probe_kind k)
{
	return k == PK_KRETPROBE || k == PK_URETPROBE || k == PK_FEXIT;
}

/* Each probe's names: its tracepoint fields, arg0..arg5, or ret. */
static int probe_names(struct trace_decoder *d, const char **names)
{
	int most = TRACE_MAX_ARGS;

	for (int i = 0; i < d->set->n; i++) {
		const struct trace_probe *p = &d->set->v[i];
		struct tv_probe *tp = &d->probes[i];

		*tp = (struct tv_probe){ .id = i, .spec = p->spec,
					 .label = p->label };
		if (p->kind == PK_TRACEPOINT || p->typed) {
			tp->nfields = p->nfields;
			tp->names = names;
			for (int k = 0; k < p->nfields; k++)
				*names++ = p->fields[k].name;
		} else if (is_ret(p->kind)) {
			tp->nfields = 1;
			tp->names = ret_names;
		} else {
			tp->nfields = TRACE_MAX_ARGS;
			tp->names = arg_names;
		}
		if (tp->nfields > most)
			most = tp->nfields;
	}
	return most;
}

struct trace_decoder *trace_decoder__new(const struct probe_set *set)
{
	struct trace_decoder *d = calloc(1, sizeof(*d));
	size_t nnames = 0;
	int most;

	if (!d)
		return NULL;
	d->set = set;
	for (int i = 0; i < set->n; i++)
		nnames += set->v[i].nfields;
	d->probes = calloc(set->n ? set->n : 1, sizeof(*d->probes));
	d->names = calloc(nnames ? nnames : 1, sizeof(*d->names));
	if (!d->probes || !d->names)
		goto fail;
	most = probe_names(d, d->names);
	d->fields = calloc(most, sizeof(*d->fields));
	if (!d->fields)
		goto fail;
	d->schema = (struct tv_schema){ .nprobes = set->n, .probes = d->probes };
	return d;
fail:
	trace_decoder__free(d);
	errno = ENOMEM;
	return NULL;
}

void trace_decoder__free(struct trace_decoder *d)
{
	if (!d)
		return;
	free(d->probes);
	free(d->names);
	free(d->fields);
	free(d);
}

const struct tv_schema *trace_decoder__schema(const struct trace_decoder *d)
{
	return &d->schema;
}

/* The bytes up to the first NUL of @n; TV_F_CUT when @cut (BPF said so)
 * or there is no NUL (a char array filled to its end). */
static void str_value(struct tv_field *v, const void *s, size_t n, bool cut)
{
	const char *z = memchr(s, '\0', n);

	v->type = TV_STR;
	v->data = s;
	v->len = z ? (size_t)(z - (const char *)s) : n;
	if (cut || !z)
		v->flags |= TV_F_CUT;
}

static void int_value(struct tv_field *v, enum tv_type type, const void *d,
		      unsigned int width, bool sgn)
{
	v->type = type;
	v->width = width;
	v->is_signed = sgn;
	v->u = tv_load(d, width, sgn);
}

static void mem_value(struct tv_field *v, enum tv_type type, const void *d,
		      size_t len, unsigned int width, bool sgn)
{
	v->type = type;
	v->data = d;
	v->len = d ? len : 0;
	v->width = width;
	v->is_signed = sgn;
}

/* The argv slot (bpf/trace.h: a TV_ARG_* byte, the string, its NUL per
 * argument; TRACE_ARGV_END) into @d's elements. */
static void argv_value(struct trace_decoder *d, struct tv_field *v,
		       const unsigned char *s, size_t n, bool cut)
{
	size_t i = 0, k = 0;

	v->type = TV_STRS;
	v->strs = d->argv;
	while (i < n && s[i] != TRACE_ARGV_END && k < TRACE_ARGV_MAX) {
		const unsigned char *z = memchr(s + i + 1, '\0', n - i - 1);

		if (!z)
			break;		/* never from our BPF side */
		d->argv[k] = (struct tv_str){ .data = (const char *)s + i + 1,
					      .len = z - (s + i + 1) };
		if (s[i] == TRACE_ARG_CUT)
			d->argv[k].flags = TV_F_CUT;
		else if (s[i] == TRACE_ARG_FAULT)
			d->argv[k].flags = TV_F_UNREAD;
		i = z - s + 1;
		k++;
	}
	v->len = k;
	if (cut)
		v->flags |= TV_F_CUT;
}

/* A user pointer BPF could not read: its address */
static void unread_value(struct tv_field *v, const unsigned char *d,
			 unsigned int size)
{
	int_value(v, TV_PTR, d, size, false);
	v->flags |= TV_F_UNREAD;
}

/* @slot: the field's slot (NULL: none, or it could not be read), @cut:
 * BPF cut it at --string-size */
static void field_value(struct trace_decoder *dec, struct tv_field *v,
			const struct tp_field *f, const unsigned char *raw,
			const unsigned char *slot, size_t slot_len, bool cut)
{
	const unsigned char *d = raw + f->off;

	switch (f->kind) {
	case FK_INT:
		int_value(v, TV_INT, d, f->size, f->is_signed);
		break;
	case FK_BOOL:
		v->type = TV_JSON;
		v->data = tv_load(d, f->size, false) ? "true" : "false";
		v->len = strlen(v->data);
		break;
	case FK_CHARS:
		str_value(v, d, f->size, false);
		break;
	case FK_STR:
		if (slot)
			str_value(v, slot, slot_len, cut);
		else if (!f->user_ptr)
			str_value(v, "", 1, false);
		else
			unread_value(v, d, f->size);
		break;
	case FK_BUF:	/* its bytes and a NUL of BPF's: all of them */
		if (!slot)
			unread_value(v, d, f->size);
		else
			mem_value(v, dec->set->read.buffers == BUFFERS_HEX ? TV_BYTES : TV_STR,
				  slot, slot_len - 1, 1, false);
		if (slot && cut)
			v->flags |= TV_F_CUT;
		break;
	case FK_ARGV:
		if (slot)
			argv_value(dec, v, slot, slot_len, cut);
		else
			unread_value(v, d, f->size);
		break;
	case FK_PTR:
		int_value(v, TV_PTR, d, f->size, false);
		break;
	case FK_BYTES:
		mem_value(v, TV_BYTES, slot, slot_len, 1, false);
		if (slot && cut)
			v->flags |= TV_F_CUT;
		break;
	case FK_LOC_ARRAY:
		mem_value(v, TV_ARRAY, slot, slot_len, f->elem, f->is_signed);
		if (slot && cut)
			v->flags |= TV_F_CUT;
		break;
	case FK_ARRAY:
		mem_value(v, TV_ARRAY, d, f->size, f->elem, f->is_signed);
		break;
	case FK_RAW:
		mem_value(v, TV_BYTES, d, f->size, 1, false);
		break;
	case FK_DURATION:	/* 0: the entry is unknown, so is the duration */
		int_value(v, TV_INT, d, 8, false);
		if (!v->u) {
			v->type = TV_JSON;
			v->data = "null";
			v->len = 4;
		}
		break;
	}
}

void trace_slots_find(const struct trace_probe *p, const struct trace_record *r,
		      size_t data_sz, const unsigned char *slot[TRACE_MAX_STRS])
{
	size_t pos = r->raw_size;

	for (int k = 0; k <= TRACE_MAX_STRS; k++) {
		int i = k < TRACE_MAX_STRS ? k : p->cfg.argv_slot;

		if (i < 0 || i >= TRACE_MAX_STRS ||
		    (k < TRACE_MAX_STRS && i == p->cfg.argv_slot))
			continue;
		if (!r->str_len[i] || pos + r->str_len[i] > data_sz)
			continue;
		slot[i] = r->data + pos;
		pos += r->str_len[i];
	}
}

static int decode_tp(struct trace_decoder *d, const struct trace_probe *p,
		     const struct trace_record *r, size_t sz)
{
	const unsigned char *slot[TRACE_MAX_STRS] = {};
	size_t data_sz = sz - sizeof(*r);
	int n = 0;

	if (r->raw_size > data_sz)
		return 0;	/* truncated: never from our BPF side */
	trace_slots_find(p, r, data_sz, slot);
	for (int i = 0; i < p->nfields; i++) {
		const struct tp_field *f = &p->fields[i];
		struct tv_field *v = &d->fields[n];
		int s = f->slot;

		if (f->off + f->size > r->raw_size)
			continue;
		*v = (struct tv_field){ .idx = i, .name = f->name,
					.flags = f->hidden ? TV_F_HIDDEN : 0 };
		field_value(d, v, f, r->data, s >= 0 ? slot[s] : NULL,
			    s >= 0 ? r->str_len[s] : 0,
			    s >= 0 && (r->str_cut >> s & 1));
		/* what the print fmt said: an address, names of values */
		v->hint = f->hint;
		v->names = f->names;
		v->nnames = f->nnames;
		if (f->fault && f->fault < r->raw_size && r->data[f->fault]) {
			/* a struct member behind a pointer that could not be
			 * read: no value, never a plausible one */
			v->type = TV_JSON;
			v->data = "null";
			v->len = 4;
			v->flags &= ~TV_F_CUT;
		}
		n++;
	}
	return n;
}

/* arg0..arg5 (unsigned), or ret (signed): whole u64s of the record */
static int decode_args(struct trace_decoder *d, const struct trace_probe *p,
		       const struct trace_record *r, size_t sz)
{
	size_t n = (sz - sizeof(*r)) / 8;
	bool ret = is_ret(p->kind);

	if (r->raw_size / 8 < n)
		n = r->raw_size / 8;
	if (n > (ret ? 1 : TRACE_MAX_ARGS))
		n = ret ? 1 : TRACE_MAX_ARGS;
	for (size_t i = 0; i < n; i++) {
		struct tv_field *v = &d->fields[i];

		*v = (struct tv_field){ .idx = i,
					.name = ret ? ret_names[0] : arg_names[i] };
		int_value(v, TV_INT, r->data + i * 8, 8, ret);
	}
	return n;
}

static size_t cstrnlen(const char *s, size_t max)
{
	const char *z = memchr(s, '\0', max);

	return z ? (size_t)(z - s) : max;
}

const struct tv_event *trace_decoder__decode(struct trace_decoder *d,
					     const struct trace_record *r,
					     size_t sz, int cpu, bool late)
{
	struct tv_event *e = &d->ev;
	const struct trace_probe *p;

	if (sz < sizeof(*r) || r->cookie >= (__u64)d->set->n)
		return NULL;	/* not ours: never from trace.bpf.c */
	p = &d->set->v[r->cookie];
	*e = (struct tv_event){
		.time_ns = r->time_ns, .cpu = cpu, .late = late,
		.pid = r->pid, .tid = r->tid, .comm = r->comm,
		.comm_len = cstrnlen(r->comm, sizeof(r->comm)),
		.probe = &d->probes[r->cookie], .fields = d->fields,
	};
	e->nfields = p->kind == PK_TRACEPOINT || p->typed ? decode_tp(d, p, r, sz)
							  : decode_args(d, p, r, sz);
	decode_stacks(d, r, sz, e);
	return e;
}
