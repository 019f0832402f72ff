// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A binary's DWARF read with libdw (dwarf_walk.h): files, DIEs, types. */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "dwarf_walk.h"

struct die_query {
	const char *name;
	bool nested;
	bool (*want)(Dwarf_Die *die, void *ctx);
	void *ctx;
};

/* The first DIE under @scope that @q asks for, into @out */
static bool find_under(Dwarf_Die *scope, const struct die_query *q,
		       Dwarf_Die *out, int depth)
{
	Dwarf_Die c;

	if (depth > 16 || dwarf_child(scope, &c))
		return false;
	do {
		int tag = dwarf_tag(&c);
		const char *name = dwarf_diename(&c);

		if (name && !strcmp(name, q->name) &&
		    !dwarf_hasattr(&c, DW_AT_declaration) && q->want(&c, q->ctx)) {
			*out = c;
			return true;
		}
		if (q->nested && (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block) &&
		    find_under(&c, q, out, depth + 1))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

int die_find(const char *path, const char *name, bool nested,
	     bool (*want)(Dwarf_Die *die, void *ctx),
	     int (*use)(Dwarf_Die *die, void *ctx), void *ctx)
{
	const struct die_query q = { name, nested, want, ctx };
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = -ENOENT;
	Dwarf *dw = fd < 0 ? NULL : dwarf_begin(fd, DWARF_C_READ);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, found;

	while (dw && dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL) == 0)
		if (find_under(&cudie, &q, &found, 0)) {
			err = use(&found, ctx);
			break;
		}
	if (dw)
		dwarf_end(dw);
	if (fd >= 0)
		close(fd);
	return err;
}

int die_each(const char *path, bool (*want)(Dwarf_Die *die, void *ctx),
	     int (*use)(Dwarf_Die *die, void *ctx), void *ctx)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = -ENOENT;
	Dwarf *dw = fd < 0 ? NULL : dwarf_begin(fd, DWARF_C_READ);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, c;

	while (dw && dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		if (err == -ENOENT)
			err = 0;	/* there is DWARF */
		if (dwarf_child(&cudie, &c))
			continue;
		do {
			if (!dwarf_hasattr(&c, DW_AT_declaration) && want(&c, ctx))
				err = use(&c, ctx);
		} while (!err && dwarf_siblingof(&c, &c) == 0);
		if (err)
			break;
	}
	if (dw)
		dwarf_end(dw);
	if (fd >= 0)
		close(fd);
	return err;
}

bool die_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, out);
}

Dwarf_Word die_udata(Dwarf_Die *die, int name, Dwarf_Word fallback)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	if (!dwarf_attr_integrate(die, name, &a) || dwarf_formudata(&a, &v))
		return fallback;
	return v;
}

bool die_skip(Dwarf_Die *die)
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

enum die_base_kind die_base(Dwarf_Die *die, bool *is_signed)
{
	Dwarf_Word enc = die_udata(die, DW_AT_encoding, 0);

	*is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	return enc == DW_ATE_boolean ? DIE_BASE_BOOL :
	       enc == DW_ATE_float ? DIE_BASE_FLOAT : DIE_BASE_INT;
}

bool die_is_char(Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);

	return dwarf_tag(die) == DW_TAG_base_type &&
	       die_udata(die, DW_AT_byte_size, 0) == 1 && name && !strcmp(name, "char");
}

int die_enum_each(Dwarf_Die *die,
		  int (*fn)(const char *name, Dwarf_Sword value, void *ctx),
		  void *ctx)
{
	Dwarf_Die c;
	int err;

	if (dwarf_child(die, &c))
		return 0;
	do {
		Dwarf_Attribute a;
		Dwarf_Sword v = 0;

		if (dwarf_tag(&c) != DW_TAG_enumerator ||
		    !dwarf_attr(&c, DW_AT_const_value, &a) || dwarf_formsdata(&a, &v))
			continue;
		err = fn(dwarf_diename(&c), v, ctx);
		if (err)
			return err;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

void die_member_bits(Dwarf_Die *die, Dwarf_Word *bits, Dwarf_Word *width)
{
	Dwarf_Word at = 8 * die_udata(die, DW_AT_data_member_location, 0);
	Dwarf_Word unit = die_udata(die, DW_AT_byte_size, 0), top;
	Dwarf_Die t;

	*width = die_udata(die, DW_AT_bit_size, 0);
	/* DWARF 5: bits from the struct's start. DWARF 2-4: DW_AT_bit_offset,
	 * from the top of a storage unit (the member's type's size) at the
	 * byte offset; little endian: the unit's bit 0 is its lowest */
	if (dwarf_hasattr(die, DW_AT_data_bit_offset) || !*width ||
	    !dwarf_hasattr(die, DW_AT_bit_offset)) {
		*bits = die_udata(die, DW_AT_data_bit_offset, at);
		return;
	}
	if (!unit && die_type(die, &t) && die_skip(&t))
		unit = die_udata(&t, DW_AT_byte_size, 0);
	top = die_udata(die, DW_AT_bit_offset, 0);
	*bits = top + *width <= 8 * unit ? at + 8 * unit - top - *width : at;
}

Dwarf_Word die_subrange_len(Dwarf_Die *die)
{
	return die_udata(die, DW_AT_count,
			 die_udata(die, DW_AT_upper_bound, (Dwarf_Word)-1) + 1);
}
