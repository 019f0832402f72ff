/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A binary's DWARF (libdw), read one way for its two readers: libperfbuf's
 * record types (src/type_dwarf.c: a struct's members) and the trace tool's
 * uprobe arguments (tools/trace/args_dwarf.c: a function's parameters).
 * Each links its own copy (hidden: neither exported nor installed), and
 * this layer includes neither of them.
 */
#ifndef PERFBUF_DWARF_WALK_H
#define PERFBUF_DWARF_WALK_H

#include <stdbool.h>
#include <elfutils/libdw.h>

/* The first DIE of ELF file @path's DWARF named @name, not a declaration,
 * that @want accepts: a compile unit's own, or with @nested also one
 * inside a function or block (a struct may be declared there). Given to
 * @use while the file is open: @use's result, or -ENOENT when there is no
 * such DIE (no file, no DWARF). */
int die_find(const char *path, const char *name, bool nested,
	     bool (*want)(Dwarf_Die *die, void *ctx),
	     int (*use)(Dwarf_Die *die, void *ctx), void *ctx);

/* Each DIE of ELF file @path's compile units (their own, not nested), not
 * a declaration, that @want accepts, to @use until it returns non-zero:
 * that result, 0, or -ENOENT when the file has no DWARF */
int die_each(const char *path, bool (*want)(Dwarf_Die *die, void *ctx),
	     int (*use)(Dwarf_Die *die, void *ctx), void *ctx);
/* @die's type (DW_AT_type) into @out: false when it has none (void) */
bool die_type(Dwarf_Die *die, Dwarf_Die *out);
/* Attribute @name of @die as an unsigned number, else @fallback */
Dwarf_Word die_udata(Dwarf_Die *die, int name, Dwarf_Word fallback);
/* Type @die moved through typedefs and qualifiers to the type they name:
 * false for void (or a chain too long to be real) */
bool die_skip(Dwarf_Die *die);

enum die_base_kind {
	DIE_BASE_INT,	/* signed or not, chars, anything not below */
	DIE_BASE_BOOL,
	DIE_BASE_FLOAT,
};
/* Base type @die's kind, its signedness into @is_signed */
enum die_base_kind die_base(Dwarf_Die *die, bool *is_signed);
/* Whether type @die (skipped) is `char`: a string's element */
bool die_is_char(Dwarf_Die *die);
/* Each enumerator of enumeration type @die that has a value, its name
 * (NULL when it has none) and value to @fn, until @fn returns non-zero:
 * that result, else 0 */
int die_enum_each(Dwarf_Die *die,
		  int (*fn)(const char *name, Dwarf_Sword value, void *ctx),
		  void *ctx);
/* Member @die's place in its struct (DWARF 2 to 5): bits from its start
 * into @bits, and a bitfield's width into @width (0: not a bitfield) */
void die_member_bits(Dwarf_Die *die, Dwarf_Word *bits, Dwarf_Word *width);
/* Elements of array dimension @die (a subrange): 0 for a flexible one */
Dwarf_Word die_subrange_len(Dwarf_Die *die);

#endif
