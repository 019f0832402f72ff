// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A struct's type table from DWARF (libdw): clang leaves a struct used
 * only as a local variable's type out of BTF, but a -g build's DWARF has
 * it (libbpf-tools' exitsnoop.bpf.c is such a program).
 */
#include <dwarf.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdw.h>

#include "type_priv.h"

static bool die_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, out);
}

static Dwarf_Word die_udata(Dwarf_Die *die, int name, Dwarf_Word fallback)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	if (!dwarf_attr_integrate(die, name, &a) || dwarf_formudata(&a, &v))
		return fallback;
	return v;
}

/* Through typedefs and qualifiers; false for void */
static bool die_skip(Dwarf_Die *die)
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

static int dw_fill(struct perfbuf_type *t, int idx, Dwarf_Die *die, int depth);

static int dw_members(struct perfbuf_type *t, int idx, Dwarf_Die *die, int depth)
{
	Dwarf_Die c;
	int n = 0, first, i = 0, err;

	if (dwarf_child(die, &c) == 0)
		do
			n += dwarf_tag(&c) == DW_TAG_member;
		while (dwarf_siblingof(&c, &c) == 0);
	if (!n)
		return 0;
	first = type_add_children(t, idx, n);
	if (first < 0 || dwarf_child(die, &c))
		return first < 0 ? first : -EINVAL;
	do {
		Dwarf_Die mt;
		Dwarf_Word bits, bsize;
		struct perfbuf_field *f;

		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		err = type_set_name(t, first + i, dwarf_diename(&c));
		if (err < 0)
			return err;
		err = die_type(&c, &mt) ? dw_fill(t, first + i, &mt, depth + 1) : -EINVAL;
		if (err)
			return err;
		bits = die_udata(&c, DW_AT_data_bit_offset,
				 8 * die_udata(&c, DW_AT_data_member_location, 0));
		bsize = die_udata(&c, DW_AT_bit_size, 0);
		f = &t->f[first + i++];
		f->offset = (__u32)(bits / 8);
		if (bsize) {
			__u32 need = (bits % 8 + bsize + 7) / 8;

			f->bit_offset = bits % 8;
			f->bit_size = (__u32)bsize;
			f->size = need <= 1 ? 1 : need <= 2 ? 2 : need <= 4 ? 4 : 8;
		}
	} while (dwarf_siblingof(&c, &c) == 0 && i < n);
	return 0;
}

static int dw_enum(struct perfbuf_type *t, int idx, Dwarf_Die *die)
{
	Dwarf_Die c, base;
	int err;

	t->f[idx].kind = PERFBUF_FIELD_ENUM;
	if (die_type(die, &base) && die_skip(&base))
		t->f[idx].is_signed = die_udata(&base, DW_AT_encoding, 0) == DW_ATE_signed;
	if (dwarf_child(die, &c))
		return 0;
	do {
		Dwarf_Attribute a;
		Dwarf_Sword v = 0;

		if (dwarf_tag(&c) != DW_TAG_enumerator ||
		    !dwarf_attr(&c, DW_AT_const_value, &a) || dwarf_formsdata(&a, &v))
			continue;
		err = type_add_enum(t, idx, dwarf_diename(&c), v);
		if (err)
			return err;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* An array of one dimension per subrange, @dim the one at @idx */
static int dw_array(struct perfbuf_type *t, int idx, Dwarf_Die *die, int dim,
		    int depth)
{
	Dwarf_Word dims[8];
	Dwarf_Die c, et;
	int n = 0, child, err;
	const char *name;

	if (dwarf_child(die, &c) == 0)
		do {
			if (dwarf_tag(&c) != DW_TAG_subrange_type || n == 8)
				continue;
			dims[n++] = die_udata(&c, DW_AT_count,
					      die_udata(&c, DW_AT_upper_bound, (Dwarf_Word)-1) + 1);
		} while (dwarf_siblingof(&c, &c) == 0);
	if (!n)
		dims[n++] = 0;
	if (!die_type(die, &et) || !die_skip(&et))
		return -EINVAL;
	t->f[idx].nelem = (__u32)dims[dim];
	name = dwarf_diename(&et);
	if (dim == n - 1 && dwarf_tag(&et) == DW_TAG_base_type &&
	    die_udata(&et, DW_AT_byte_size, 0) == 1 && name && !strcmp(name, "char")) {
		t->f[idx].kind = PERFBUF_FIELD_STRING;
		t->f[idx].size = (__u32)dims[dim];
		return 0;
	}
	t->f[idx].kind = PERFBUF_FIELD_ARRAY;
	child = type_add_children(t, idx, 1);
	if (child < 0)
		return child;
	err = dim + 1 < n ? dw_array(t, child, die, dim + 1, depth + 1) :
			    dw_fill(t, child, &et, depth + 1);
	t->f[idx].size = t->f[child].size * (__u32)dims[dim];
	return err;
}

static int dw_fill(struct perfbuf_type *t, int idx, Dwarf_Die *die, int depth)
{
	Dwarf_Die d = *die;
	Dwarf_Word enc;
	struct perfbuf_field *f = &t->f[idx];

	if (depth > TYPE_MAX_DEPTH)
		return -ELOOP;
	if (!die_skip(&d)) {
		f->kind = PERFBUF_FIELD_BYTES;	/* void */
		return 0;
	}
	f->size = (__u32)die_udata(&d, DW_AT_byte_size, 0);
	switch (dwarf_tag(&d)) {
	case DW_TAG_base_type:
		enc = die_udata(&d, DW_AT_encoding, 0);
		f->kind = enc == DW_ATE_boolean ? PERFBUF_FIELD_BOOL :
			  enc == DW_ATE_float ? PERFBUF_FIELD_FLOAT : PERFBUF_FIELD_INT;
		f->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		return 0;
	case DW_TAG_enumeration_type:
		return dw_enum(t, idx, &d);
	case DW_TAG_pointer_type:
		f->kind = PERFBUF_FIELD_PTR;
		f->size = f->size ?: 8;
		return 0;
	case DW_TAG_array_type:
		return dw_array(t, idx, &d, 0, depth);
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		f->kind = dwarf_tag(&d) == DW_TAG_structure_type ? PERFBUF_FIELD_STRUCT
								 : PERFBUF_FIELD_UNION;
		return dw_members(t, idx, &d, depth);
	default:
		f->kind = PERFBUF_FIELD_BYTES;
		return 0;
	}
}

/* A definition of struct/union/typedef @bare under @die, at any depth
 * (a struct may be declared inside a function) */
static bool dw_find(Dwarf_Die *die, const char *bare, int tagwant, Dwarf_Die *out,
		    int depth)
{
	Dwarf_Die c;

	if (depth > 16 || dwarf_child(die, &c))
		return false;
	do {
		int tag = dwarf_tag(&c);
		const char *name = dwarf_diename(&c);
		bool kind = tagwant ? tag == tagwant :
			    tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			    tag == DW_TAG_typedef;

		if (kind && name && !strcmp(name, bare) && !dwarf_hasattr(&c, DW_AT_declaration)) {
			*out = c;
			return true;
		}
		if ((tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block) &&
		    dw_find(&c, bare, tagwant, out, depth + 1))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

static struct perfbuf_type *dw_build(Dwarf_Die *die, const char *bare)
{
	struct perfbuf_type *t = type_new(bare, "dwarf");
	Dwarf_Die d = *die;
	int err;

	if (!t)
		return NULL;
	err = die_skip(&d) && (dwarf_tag(&d) == DW_TAG_structure_type ||
			       dwarf_tag(&d) == DW_TAG_union_type) ? 0 : -EINVAL;
	if (!err)
		err = dw_fill(t, 0, die, 0);
	if (!err && !t->f[0].size)
		err = -EINVAL;
	if (err) {
		perfbuf_type__free(t);
		return err_ptr(err);
	}
	return t;
}

struct perfbuf_type *type_from_dwarf(const char *path, const char *name)
{
	int tag = !strncmp(name, "struct ", 7) ? DW_TAG_structure_type :
		  !strncmp(name, "union ", 6) ? DW_TAG_union_type : 0;
	const char *bare = type_bare_name(name);
	struct perfbuf_type *t = NULL;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, found;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Dwarf *dw = fd < 0 ? NULL : dwarf_begin(fd, DWARF_C_READ);

	errno = ENOENT;
	while (dw && !t && dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL) == 0)
		if (dw_find(&cudie, bare, tag, &found, 0)) {
			t = dw_build(&found, bare);
			break;
		}
	if (dw)
		dwarf_end(dw);
	if (fd >= 0)
		close(fd);
	if (!t && errno != EINVAL && errno != ENOMEM)
		errno = ENOENT;
	return t;
}
