// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A uprobe's function's parameters from the binary's DWARF (libdw), as
 * args_btf.c makes a kernel function's from BTF: the same fields, one u64
 * register each, `char *` a user string. Only at the function's start:
 * past it (+OFFSET) the registers may hold something else.
 */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdw.h>

#include "args.h"
#include "probe.h"

static bool die_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, out);
}

static Dwarf_Word die_udata(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	return dwarf_attr_integrate(die, name, &a) && !dwarf_formudata(&a, &v) ? v : 0;
}

/* Through typedefs and qualifiers; false for void */
static bool skip_mods(Dwarf_Die *die)
{
	for (int hops = 0; hops < 64; hops++) {
		int tag = dwarf_tag(die);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type)
			return true;
		if (!die_type(die, die))
			return false;
	}
	return false;
}

static int enum_names(Dwarf_Die *t, struct tp_field *f)
{
	struct tv_name *v;
	Dwarf_Attribute a;
	Dwarf_Sword val;
	Dwarf_Die c;

	if (dwarf_child(t, &c))
		return 0;
	do {
		if (dwarf_tag(&c) != DW_TAG_enumerator || !dwarf_diename(&c) ||
		    !dwarf_attr(&c, DW_AT_const_value, &a) || dwarf_formsdata(&a, &val))
			continue;
		v = realloc(f->names, (f->nnames + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		f->names = v;
		v[f->nnames].value = f->size < 8 ? (__u64)val & ((1ULL << (f->size * 8)) - 1)
						 : (__u64)val;
		v[f->nnames].name = strdup(dwarf_diename(&c));
		if (!v[f->nnames].name)
			return -ENOMEM;
		f->nnames++;
	} while (dwarf_siblingof(&c, &c) == 0);
	f->hint = TV_HINT_SYMBOLIC;
	return 0;
}

/* Field @f typed by the DW_AT_type of @die (a parameter, the function) */
static int type_field(Dwarf_Die *die, struct tp_field *f)
{
	Dwarf_Die t, to;
	Dwarf_Word size, enc;
	const char *name;

	f->kind = FK_RAW;
	f->size = 8;
	f->slot = -1;
	if (!die_type(die, &t) || !skip_mods(&t))
		return 0;
	size = die_udata(&t, DW_AT_byte_size);
	switch (dwarf_tag(&t)) {
	case DW_TAG_base_type:
		enc = die_udata(&t, DW_AT_encoding);
		if (enc == DW_ATE_float || !(size == 1 || size == 2 || size == 4 || size == 8))
			return 0;
		f->size = size;
		f->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		f->kind = enc == DW_ATE_boolean ? FK_BOOL : FK_INT;
		return 0;
	case DW_TAG_enumeration_type:
		if (!(size == 1 || size == 2 || size == 4 || size == 8))
			return 0;
		f->size = size;
		f->kind = FK_INT;
		return enum_names(&t, f);
	case DW_TAG_pointer_type:
		f->kind = FK_PTR;
		f->user_ptr = true;	/* a process's pointers are all the user's */
		if (die_type(&t, &to) && skip_mods(&to) &&
		    dwarf_tag(&to) == DW_TAG_base_type &&
		    die_udata(&to, DW_AT_byte_size) == 1 && (name = dwarf_diename(&to)) &&
		    !strcmp(name, "char"))
			f->ptr = PTR_CHARS;
		return 0;
	default:
		return 0;	/* a struct by value...: its register in hex */
	}
}

/* The definition of function @name in @cu, into @out */
static bool find_func(Dwarf_Die *cu, const char *name, Dwarf_Die *out)
{
	Dwarf_Die c;
	const char *n;

	if (dwarf_child(cu, &c))
		return false;
	do {
		if (dwarf_tag(&c) == DW_TAG_subprogram && (n = dwarf_diename(&c)) &&
		    !strcmp(n, name) && !dwarf_hasattr(&c, DW_AT_declaration) &&
		    (dwarf_hasattr(&c, DW_AT_low_pc) || dwarf_hasattr(&c, DW_AT_ranges))) {
			*out = c;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
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
			fprintf(stderr, "%s: %s: %s has more than %d parameters; a uprobe reads the first %d\n",
				PROG, p->spec, p->target, TRACE_MAX_ARGS, TRACE_MAX_ARGS);
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

int ufunc_fields(struct trace_probe *p)
{
	int fd = open(p->path, O_RDONLY | O_CLOEXEC), err = -ENOENT;
	Dwarf *dw = fd < 0 ? NULL : dwarf_begin(fd, DWARF_C_READ);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, fn;

	while (dw && err == -ENOENT &&
	       dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL) == 0)
		if (find_func(&cudie, p->target, &fn)) {
			p->cfg.argv_slot = -1;
			err = func_fields(p, &fn);
			if (err)
				tp_fields_free(p);
			p->typed = !err;
		}
	if (dw)
		dwarf_end(dw);
	if (fd >= 0)
		close(fd);
	return err;
}
