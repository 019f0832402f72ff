// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A kernel function's parameters from BTF, as the fields of its probe
 * (args.h). Each parameter is one u64 of the record (a register, or the
 * trampoline's slot), so field i sits at i * 8 (fexit: after ret); an
 * integer is its low bytes. Types: integers by size and sign, bool, enums
 * with the names of their values, `char *` a string read by BPF into a
 * slot (user memory when BTF's `user` tag says so; else the kernel's, or
 * the user's when the kernel read faults: Debian's GCC-built BTF has no
 * tags), a `char *` followed by its length a buffer (its address), every
 * other pointer an address.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "common/kfeat.h"
#include "common/say.h"
#include "args.h"
#include "common/kbtf.h"
#include "probe.h"

void kfunc_btf_free(void)
{
	kbtf_free();
}

/* @func's FUNC_PROTO in vmlinux's BTF or its module's (@mod: as
 * kbtf_func() takes it), *@btf the BTF; NULL when BTF lacks it */
static const struct btf_type *find_proto(const char *func, const char *mod,
					 const struct btf **btf)
{
	int id = kbtf_func(func, mod, btf);

	if (id < 0)
		return NULL;
	return btf__type_by_id(*btf, btf__type_by_id(*btf, id)->type);
}

/* @id past typedefs and qualifiers; *@user when a `user` tag is on the way */
static const struct btf_type *skip_mods(const struct btf *btf, __u32 id,
					bool *user)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t) || btf_is_type_tag(t))) {
		if (btf_is_type_tag(t) && user &&
		    !strcmp(btf__name_by_offset(btf, t->name_off), "user"))
			*user = true;
		t = btf__type_by_id(btf, t->type);
	}
	return t;
}

/* The names of enum @t's values (f->names, TV_HINT_SYMBOLIC) */
static int enum_names(const struct btf *btf, const struct btf_type *t,
		      struct tp_field *f)
{
	int n = btf_vlen(t);

	f->names = calloc(n ? n : 1, sizeof(*f->names));
	if (!f->names)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct tv_name *nm = &f->names[f->nnames];
		__u32 off = btf_is_enum(t) ? btf_enum(t)[i].name_off
					   : btf_enum64(t)[i].name_off;

		nm->value = btf_is_enum(t) ? (__u64)(__s64)btf_enum(t)[i].val
					   : btf_enum64_value(&btf_enum64(t)[i]);
		if (f->size < 8)
			nm->value &= (1ULL << (f->size * 8)) - 1;
		nm->name = strdup(btf__name_by_offset(btf, off));
		if (!nm->name)
			return -ENOMEM;
		f->nnames++;
	}
	f->hint = TV_HINT_SYMBOLIC;
	return 0;
}

/* Field @f (name and offset set) typed by BTF type @id */
static int type_field(const struct btf *btf, __u32 id, struct tp_field *f)
{
	bool user = false;
	const struct btf_type *t = skip_mods(btf, id, NULL), *to;

	f->kind = FK_RAW;
	f->size = 8;
	f->slot = -1;
	if (!t)
		return 0;
	if (btf_is_int(t) && (t->size == 1 || t->size == 2 || t->size == 4 ||
			      t->size == 8)) {
		f->size = t->size;
		f->is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
		f->kind = btf_int_encoding(t) & BTF_INT_BOOL ? FK_BOOL : FK_INT;
	} else if (btf_is_any_enum(t) && t->size >= 1 && t->size <= 8) {
		f->size = t->size;
		f->is_signed = btf_kflag(t);
		f->kind = FK_INT;
		return enum_names(btf, t, f);
	} else if (btf_is_ptr(t)) {
		f->kind = FK_PTR;
		to = skip_mods(btf, t->type, &user);
		f->user_ptr = user;
		if (to && btf_is_int(to) && to->size == 1 &&
		    !strcmp(btf__name_by_offset(btf, to->name_off), "char"))
			f->ptr = PTR_CHARS;
	}
	return 0;
}

/* A name rule of the syscall tracepoints' (format.c): is @f, named so, a
 * string a user passed? Then the user read goes first. */
static bool user_string_name(const char *name)
{
	size_t n = strlen(name);

	return (n >= 4 && (!strcmp(name + n - 4, "name") ||
			   !strcmp(name + n - 4, "path")));
}

/* Is parameter @f a length (of the buffer before it)? */
static bool length_name(const struct tp_field *f)
{
	static const char *const names[] = { "count", "len", "size", "nbytes",
		"bufsiz", "buflen" };

	for (size_t i = 0; f->kind == FK_INT && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(f->name, names[i]))
			return true;
	return false;
}

/* `char *` parameters: strings in slots, but buffers (followed by their
 * length) and those past the slots stay addresses */
void probe_string_slots(struct trace_probe *p)
{
	struct trace_probe_cfg *c = &p->cfg;

	for (int i = 0; i < p->nfields; i++) {
		struct tp_field *f = &p->fields[i];
		bool buf = i + 1 < p->nfields && length_name(&p->fields[i + 1]);

		if (f->kind != FK_PTR || f->ptr != PTR_CHARS || buf ||
		    c->nstr >= TRACE_MAX_STRS)
			continue;
		c->str[c->nstr].off = f->off;
		c->str[c->nstr].kind = f->user_ptr ? TRACE_STR_USER_PTR :
				       TRACE_STR_ANY_PTR;
		c->str[c->nstr].user_first = !f->user_ptr && user_string_name(f->name);
		f->slot = c->nstr++;
		f->kind = FK_STR;
		f->user_ptr = true;	/* unread: its address printed */
	}
}

struct tp_field *probe_field_add(struct trace_probe *p, const char *name,
				 unsigned short off)
{
	struct tp_field *v = realloc(p->fields, (p->nfields + 1) * sizeof(*v));

	if (!v)
		return NULL;
	p->fields = v;
	v += p->nfields;
	memset(v, 0, sizeof(*v));
	v->name = strdup(name);
	v->off = off;
	if (!v->name)
		return NULL;
	p->nfields++;
	return v;
}

static bool is_exit(const struct trace_probe *p)
{
	return p->kind == PK_KRETPROBE || p->kind == PK_FEXIT;
}

/* ret (exit probes, unless void), then the parameters the probe reads
 * (@quiet: a glob's function, more than 6 not said) */
static int proto_fields(struct trace_probe *p, const struct btf *btf,
			const struct btf_type *proto, bool quiet)
{
	const struct btf_param *prm = btf_params(proto);
	int n = btf_vlen(proto), base = 0;
	struct tp_field *f;
	char name[32];

	if (is_exit(p) && proto->type) {
		base = 8;
		if (!(f = probe_field_add(p, "ret", 0)) || type_field(btf, proto->type, f))
			return -ENOMEM;
	}
	if (n > TRACE_MAX_ARGS && p->kind != PK_KRETPROBE && !quiet)
		cli_say(p->prog, "%s: %s has %d parameters; %s reads the first %d\n",
			p->spec, p->target, n,
			p->kind == PK_KPROBE ? "a kprobe" : "the trampoline", TRACE_MAX_ARGS);
	for (int i = 0; p->kind != PK_KRETPROBE && i < n && i < TRACE_MAX_ARGS; i++) {
		const char *pn = btf__name_by_offset(btf, prm[i].name_off);

		if (!prm[i].type)	/* ... of a variadic function */
			break;
		snprintf(name, sizeof(name), "arg%d", i);
		if (!(f = probe_field_add(p, pn && *pn ? pn : name, base + i * 8)) ||
		    type_field(btf, prm[i].type, f))
			return -ENOMEM;
	}
	probe_string_slots(p);
	return 0;
}

/* @mod, @quiet: as kfunc_fields_glob() takes them (NULL, false: a
 * function named alone) */
static int fields_of(struct trace_probe *p, const char *mod, bool quiet)
{
	const struct btf *btf;
	const struct btf_type *proto = find_proto(p->target, mod, &btf);
	char m[128];
	int err;

	if (!proto || !btf_is_func_proto(proto)) {
		if (quiet || !kbtf_kallsyms(p->target, m, sizeof(m)))
			return -ENOENT;	/* no such function: attach says so */
		/* a module's function on a kernel without modules' BTF */
		if (*m && !kfeat_has(KFEAT_MODULE_BTF))
			cli_say(p->prog, "%s: BTF does not describe %s: it is in module %s, and this kernel lacks %s (Linux %s); its arguments printed as arg0..arg%d, whole registers\n",
				p->spec, p->target, m, kfeat_name(KFEAT_MODULE_BTF),
				kfeat_since(KFEAT_MODULE_BTF), TRACE_MAX_ARGS - 1);
		else
			cli_say(p->prog, "%s: BTF does not describe %s: its arguments printed as arg0..arg%d, whole registers\n",
				p->spec, p->target, TRACE_MAX_ARGS - 1);
		return -ENOENT;
	}
	p->cfg.argv_slot = -1;
	err = proto_fields(p, btf, proto, quiet);
	if (err) {
		tp_fields_free(p);
		p->cfg = (struct trace_probe_cfg){ .argv_slot = -1 };
		return err;
	}
	p->typed = true;
	return 0;
}

int kfunc_fields(struct trace_probe *p)
{
	return fields_of(p, NULL, false);
}

int kfunc_fields_glob(struct trace_probe *p, const char *mod)
{
	return fields_of(p, mod, true);
}

/* ---- struct members of a parameter (members.c): file->f_path.dentry ---- */

/* Member @name of struct or union @t (through anonymous members too):
 * its type id into *@id, its byte offset added to *@off; *@bits set for
 * a bit field */
static bool find_member(const struct btf *btf, const struct btf_type *t,
			const char *name, __u32 *id, __u32 *off, bool *bits,
			int depth)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; depth < 8 && i < btf_vlen(t); i++) {
		const char *n = btf__name_by_offset(btf, m[i].name_off);
		const struct btf_type *ct = skip_mods(btf, m[i].type, NULL);
		__u32 at = btf_member_bit_offset(t, i);

		if (n && *n && !strcmp(n, name)) {
			*id = m[i].type;
			*off += at / 8;
			*bits = btf_member_bitfield_size(t, i) || at % 8;
			return true;
		}
		if ((!n || !*n) && ct && btf_is_composite(ct) &&
		    find_member(btf, ct, name, id, off, bits, depth + 1)) {
			*off += at / 8;
			return true;
		}
	}
	return false;
}

/* The last member's type @id into @f; m->size, the last read's bytes */
static int btf_member_type(const struct btf *btf, __u32 id,
			   const struct member_expr *x, struct tp_field *f,
			   struct trace_member_cfg *m, char *why, size_t whysz)
{
	const struct btf_type *t = skip_mods(btf, id, NULL), *el;
	int err;

	if (t && btf_is_array(t)) {
		el = skip_mods(btf, btf_array(t)->type, NULL);
		if (el && btf_is_int(el) && el->size == 1 &&
		    !strcmp(btf__name_by_offset(btf, el->name_off), "char")) {
			f->kind = FK_STR;	/* char name[N]: read at its address */
			m->size = 0;
			return 0;
		}
	}
	err = type_field(btf, id, f);
	if (err)
		return err;
	if (f->kind == FK_RAW) {
		snprintf(why, whysz, "'%s' is %s: name one of its members, or a number, pointer or string",
			 x->text, t && btf_is_composite(t) ? "a struct" : "neither a number, a pointer nor a string");
		return -EINVAL;
	}
	/* char * and unsigned char * (a qstr's name): a string */
	el = f->kind == FK_PTR ? skip_mods(btf, t->type, NULL) : NULL;
	if (f->ptr == PTR_CHARS || (el && btf_is_int(el) && el->size == 1))
		f->kind = FK_STR;
	m->size = f->size;
	return 0;
}

/* Walk @x's members from type @id (its argument's) */
static int btf_member_walk(const struct btf *btf, __u32 id,
			   const struct member_expr *x, struct tp_field *f,
			   struct trace_member_cfg *m, char *why, size_t whysz)
{
	bool user = false, bits = false;
	const struct btf_type *t = skip_mods(btf, id, &user);
	__u32 off = 0;
	int step = -1;

	for (int i = 0; i < x->nseg; i++) {
		if (x->seg[i].arrow) {
			if (!t || !btf_is_ptr(t))
				goto not_ptr;
			t = skip_mods(btf, t->type, &user);
			if (step >= 0)
				m->off[step] = off;
			if (++step == TRACE_MEMBER_STEPS) {
				snprintf(why, whysz, "'%s' follows more than %d pointers",
					 x->text, TRACE_MEMBER_STEPS);
				return -EINVAL;
			}
			off = 0;
		} else if (step < 0 || !t || btf_is_ptr(t)) {
			snprintf(why, whysz, "'%s': before '.%s' is a pointer: write ->%s",
				 x->text, x->seg[i].name, x->seg[i].name);
			return -EINVAL;
		}
		if (!t || !btf_is_composite(t) ||
		    !find_member(btf, t, x->seg[i].name, &id, &off, &bits, 0)) {
			snprintf(why, whysz, "'%s': %s has no member '%s'", x->text,
				 t && btf_is_composite(t) && t->name_off ?
				 btf__name_by_offset(btf, t->name_off) : "the type",
				 x->seg[i].name);
			return -EINVAL;
		}
		if (bits) {
			snprintf(why, whysz, "'%s' is a bit field: not supported", x->text);
			return -EINVAL;
		}
		t = skip_mods(btf, id, &user);
	}
	if (off > 0xffff)
		goto not_ptr;
	m->off[step] = off;
	m->nsteps = step + 1;
	m->user = user;
	return btf_member_type(btf, id, x, f, m, why, whysz);
not_ptr:
	snprintf(why, whysz, "'%s': '->' needs a pointer to a struct or union, and its member a type",
		 x->text);
	return -EINVAL;
}

/* The type id of @p's argument @name: a parameter of its function, or
 * argN of a raw tracepoint (after the tracepoint's void *data) */
static int arg_type(const struct trace_probe *p, const char *name,
		    const struct btf **btf, __u32 *id)
{
	const struct btf_type *proto = NULL;
	char tn[256];
	int i = -1;

	if (p->kind == PK_RAWTP) {
		*btf = kbtf_vmlinux();
		snprintf(tn, sizeof(tn), "btf_trace_%s", p->target);
		i = *btf ? btf__find_by_name_kind(*btf, tn, BTF_KIND_TYPEDEF) : -1;
		proto = i > 0 ? skip_mods(*btf, i, NULL) : NULL;
		proto = proto && btf_is_ptr(proto) ? btf__type_by_id(*btf, proto->type) : NULL;
		i = sscanf(name, "arg%d", &i) == 1 ? i + 1 : -1;
	} else {
		proto = find_proto(p->target, NULL, btf);
	}
	if (!proto || !btf_is_func_proto(proto))
		return -ENOENT;
	for (int k = 0; k < btf_vlen(proto); k++) {
		const char *n = btf__name_by_offset(*btf, btf_params(proto)[k].name_off);

		if (k == i || (i < 0 && n && !strcmp(n, name))) {
			*id = btf_params(proto)[k].type;
			return 0;
		}
	}
	return -ENOENT;
}

int kfunc_member(struct trace_probe *p, const struct member_expr *x,
		 struct tp_field *f, struct trace_member_cfg *m,
		 char *why, size_t whysz)
{
	const struct btf *btf;
	__u32 id;

	if (arg_type(p, x->base, &btf, &id))
		return -ENOENT;
	return btf_member_walk(btf, id, x, f, m, why, whysz);
}

struct textbuf {
	char *buf;
	size_t sz, len;
};

static void text_printf(void *ctx, const char *fmt, va_list ap)
{
	struct textbuf *t = ctx;
	int n;

	if (t->len >= t->sz)
		return;
	n = vsnprintf(t->buf + t->len, t->sz - t->len, fmt, ap);
	if (n > 0)
		t->len += n;
}

int kfunc_proto(const char *func, char *buf, size_t sz)
{
	const struct btf *btf;
	int id = kbtf_func(func, NULL, &btf);
	struct textbuf t = { .buf = buf, .sz = sz };
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = func);
	struct btf_dump *d;
	int err = -ENOENT;

	if (sz)
		buf[0] = '\0';
	if (id >= 0) {
		d = btf_dump__new(btf, text_printf, &t, NULL);
		err = d ? btf_dump__emit_type_decl(d, btf__type_by_id(btf, id)->type, &o)
			: -ENOMEM;
		btf_dump__free(d);
	}
	return err;
}

long kfunc_each(const char *glob, int (*fn)(const char *name, void *ctx),
		void *ctx)
{
	struct btf *btf = kbtf_vmlinux();
	long found = 0;
	int n;

	if (!btf)
		return 0;
	n = btf__type_cnt(btf);
	for (int id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name;

		if (!btf_is_func(t))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (fnmatch(glob, name, 0))
			continue;
		found++;
		if (fn(name, ctx))
			break;
	}
	return found;
}

/* ---- the fields in a capture's probe block (record, report) ---- */

void kfunc_fields_write(FILE *f, const struct trace_probe *p)
{
	if (!p->typed)
		return;
	fprintf(f, "typed 1\n");
	for (int i = 0; i < p->nfields; i++) {
		const struct tp_field *fl = &p->fields[i];

		fprintf(f, "field %u %u %d %d %d %d %s\n", fl->off, fl->size,
			fl->kind, fl->is_signed, fl->slot, fl->user_ptr, fl->name);
		if (fl->fault)	/* a struct member's: unreadable when set */
			fprintf(f, "fieldfault %u\n", fl->fault);
		for (int k = 0; k < fl->nnames; k++)
			fprintf(f, "fieldname %llu %s\n",
				(unsigned long long)fl->names[k].value, fl->names[k].name);
	}
}

static int read_field(struct trace_probe *p, const char *val)
{
	unsigned int off, size;
	int kind, sgn, slot, user, n = 0;
	struct tp_field *f;

	if (sscanf(val, "%u %u %d %d %d %d %n", &off, &size, &kind, &sgn, &slot,
		   &user, &n) != 6 || !n || !val[n] || off > TRACE_RAW_MAX ||
	    !size || size > 8 || slot < -1 || slot >= TRACE_MAX_STRS ||
	    (slot < 0) == (kind == FK_STR) || p->nfields >= 2 * TRACE_MAX_ARGS ||
	    (kind != FK_INT && kind != FK_BOOL && kind != FK_STR &&
	     kind != FK_PTR && kind != FK_RAW && kind != FK_DURATION))
		return -EBADMSG;
	f = probe_field_add(p, val + n, off);
	if (!f)
		return -ENOMEM;
	f->size = size;
	f->kind = kind;
	f->is_signed = sgn;
	f->slot = slot;
	f->user_ptr = user;
	return 0;
}

static int read_name(struct trace_probe *p, const char *val)
{
	struct tp_field *f = p->nfields ? &p->fields[p->nfields - 1] : NULL;
	unsigned long long v;
	struct tv_name *nm;
	int n = 0;

	if (!f || f->kind != FK_INT || f->nnames >= 4096 ||
	    sscanf(val, "%llu %n", &v, &n) != 1 || !n || !val[n])
		return -EBADMSG;
	nm = realloc(f->names, (f->nnames + 1) * sizeof(*nm));
	if (!nm)
		return -ENOMEM;
	f->names = nm;
	nm[f->nnames] = (struct tv_name){ .value = v, .name = strdup(val + n) };
	if (!nm[f->nnames].name)
		return -ENOMEM;
	f->nnames++;
	f->hint = TV_HINT_SYMBOLIC;
	return 0;
}

int kfunc_fields_read(struct trace_probe *p, const char *key, const char *val)
{
	/* a raw tracepoint is typed when struct members follow its argN */
	bool fn = p->kind != PK_TRACEPOINT;
	unsigned int off;

	if (!strcmp(key, "typed")) {
		p->typed = fn;
		return fn ? 0 : -EBADMSG;
	}
	if (!p->typed)
		return -EBADMSG;
	if (!strcmp(key, "fieldfault")) {
		if (!p->nfields || sscanf(val, "%u", &off) != 1 || off >= TRACE_RAW_MAX)
			return -EBADMSG;
		p->fields[p->nfields - 1].fault = off;
		return 0;
	}
	return !strcmp(key, "field") ? read_field(p, val) : read_name(p, val);
}
