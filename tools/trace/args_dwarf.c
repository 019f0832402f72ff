// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A uprobe's function's parameters from the binary's DWARF (libdw), as
 * args_btf.c makes a kernel function's from BTF: the same fields, one u64
 * register each, `char *` a user string. Only at the function's start:
 * past it (+OFFSET) the registers may hold something else.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/say.h"
#include "dwarf_walk.h"
#include "args.h"
#include "probe.h"

static int enum_name(const char *name, Dwarf_Sword val, void *ctx)
{
	struct tp_field *f = ctx;
	struct tv_name *v;

	if (!name)
		return 0;
	v = realloc(f->names, (f->nnames + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	f->names = v;
	v[f->nnames].value = f->size < 8 ? (__u64)val & ((1ULL << (f->size * 8)) - 1)
					 : (__u64)val;
	v[f->nnames].name = strdup(name);
	if (!v[f->nnames].name)
		return -ENOMEM;
	f->nnames++;
	return 0;
}

static bool is_reg_size(Dwarf_Word size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* Field @f typed by the DW_AT_type of @die (a parameter, the function) */
static int type_field(Dwarf_Die *die, struct tp_field *f)
{
	Dwarf_Die t, to;
	Dwarf_Word size;
	enum die_base_kind base;
	bool is_signed;
	int err;

	f->kind = FK_RAW;
	f->size = 8;
	f->slot = -1;
	if (!die_type(die, &t) || !die_skip(&t))
		return 0;
	size = die_udata(&t, DW_AT_byte_size, 0);
	switch (dwarf_tag(&t)) {
	case DW_TAG_base_type:
		base = die_base(&t, &is_signed);
		if (base == DIE_BASE_FLOAT || !is_reg_size(size))
			return 0;
		f->size = size;
		f->is_signed = is_signed;
		f->kind = base == DIE_BASE_BOOL ? FK_BOOL : FK_INT;
		return 0;
	case DW_TAG_enumeration_type:
		if (!is_reg_size(size))
			return 0;
		f->size = size;
		f->kind = FK_INT;
		err = die_enum_each(&t, enum_name, f);
		/* a declared-only enum (no values) is a plain number */
		if (!err && dwarf_haschildren(&t) > 0)
			f->hint = TV_HINT_SYMBOLIC;
		return err;
	case DW_TAG_pointer_type:
		f->kind = FK_PTR;
		f->user_ptr = true;	/* a process's pointers are all the user's */
		if (die_type(&t, &to) && die_skip(&to) && die_is_char(&to))
			f->ptr = PTR_CHARS;
		return 0;
	default:
		return 0;	/* a struct by value...: its register in hex */
	}
}

static int func_fields(struct trace_probe *p, Dwarf_Die *fn)
{
	struct tp_field *f;
	Dwarf_Die c;
	char name[32];
	int i = 0;

	if (p->kind == PK_URETPROBE) {
		if (dwarf_hasattr(fn, DW_AT_type) &&
		    (!(f = probe_field_add(p, "ret", 0)) || type_field(fn, f)))
			return -ENOMEM;
		return 0;
	}
	if (dwarf_child(fn, &c))
		return 0;
	do {
		const char *n = dwarf_diename(&c);

		if (dwarf_tag(&c) == DW_TAG_unspecified_parameters)
			break;	/* ...: the rest unknown */
		if (dwarf_tag(&c) != DW_TAG_formal_parameter)
			continue;
		if (i == TRACE_MAX_ARGS) {
			cli_say(p->prog, "%s: %s has more than %d parameters; a uprobe reads the first %d\n",
				p->spec, p->target, TRACE_MAX_ARGS, TRACE_MAX_ARGS);
			break;
		}
		snprintf(name, sizeof(name), "arg%d", i);
		if (!(f = probe_field_add(p, n && *n ? n : name, i * 8)) ||
		    type_field(&c, f))
			return -ENOMEM;
		i++;
	} while (dwarf_siblingof(&c, &c) == 0);
	probe_string_slots(p);
	return 0;
}

/* A function's definition: one with code */
static bool is_func(Dwarf_Die *die, void *ctx)
{
	(void)ctx;
	return dwarf_tag(die) == DW_TAG_subprogram &&
	       (dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges));
}

static int use_func(Dwarf_Die *fn, void *ctx)
{
	struct trace_probe *p = ctx;
	int err;

	p->cfg.argv_slot = -1;
	err = func_fields(p, fn);
	if (err)
		tp_fields_free(p);
	p->typed = !err;
	return err;
}

int ufunc_fields(struct trace_probe *p)
{
	return die_find(p->path, p->target, false, is_func, use_func, p);
}
