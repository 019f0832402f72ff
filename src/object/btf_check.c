// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A BPF object's .BTF checked before libbpf opens the object.
 *
 * libbpf 1.1's btf__new() checks the layout (the header, that the type
 * and string sections fit, each type's size) but not what the types say:
 * a type id past the table or a string offset past the strings is taken
 * as it is (libbpf 1.3 added these checks), and bpf_object__open_file()
 * follows a map definition's ids without looking: one byte set wrong in a
 * file is a segfault in the caller's process (perfbuf run, Python). So the
 * file's .BTF is read here first, with libelf and btf__new() (whose
 * layout checks are safe), and each type's ids, names and modifier chains
 * are checked as libbpf 1.3 does, before libbpf sees the object.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "object_priv.h"

/* What is wrong with one type: a reason and the value that is wrong */
struct btf_fault {
	const char *what;	/* "refers to type id", "has a name at string offset" */
	__u32 value;
	enum { FAULT_ID = 1, FAULT_STR, FAULT_SAID } kind;	/* what @value is */
};

static bool bad_id(const struct btf *btf, __u32 id, struct btf_fault *f,
		   const char *what)
{
	if (id < btf__type_cnt(btf))
		return false;
	*f = (struct btf_fault){ what, id, FAULT_ID };
	return true;
}

static bool bad_name(const struct btf *btf, __u32 off, struct btf_fault *f)
{
	if (btf__str_by_offset(btf, off))
		return false;
	*f = (struct btf_fault){ "has a name at string offset", off, FAULT_STR };
	return true;
}

/* The ids and names inside @t's members, parameters, entries */
static bool bad_members(const struct btf *btf, const struct btf_type *t,
			struct btf_fault *f)
{
	const char *ref = "has a member of type id";
	__u16 n = btf_vlen(t);

	for (__u16 i = 0; i < n; i++) {
		if (btf_is_composite(t) &&
		    (bad_name(btf, btf_members(t)[i].name_off, f) ||
		     bad_id(btf, btf_members(t)[i].type, f, ref)))
			return true;
		if (btf_is_func_proto(t) &&
		    (bad_name(btf, btf_params(t)[i].name_off, f) ||
		     bad_id(btf, btf_params(t)[i].type, f, "has a parameter of type id")))
			return true;
		if (btf_is_datasec(t) &&
		    bad_id(btf, btf_var_secinfos(t)[i].type, f, "has a variable of type id"))
			return true;
		if (btf_is_enum(t) && bad_name(btf, btf_enum(t)[i].name_off, f))
			return true;
		if (btf_is_enum64(t) && bad_name(btf, btf_enum64(t)[i].name_off, f))
			return true;
	}
	return false;
}

static bool bad_type(const struct btf *btf, const struct btf_type *t,
		     struct btf_fault *f)
{
	const char *ref = "refers to type id";

	if (bad_name(btf, t->name_off, f))
		return true;
	if (btf_is_mod(t) || btf_is_ptr(t) || btf_is_typedef(t) || btf_is_var(t) ||
	    btf_is_decl_tag(t) || btf_is_func(t))
		if (bad_id(btf, t->type, f, ref))
			return true;
	if (btf_is_func(t) && !btf_is_func_proto(btf__type_by_id(btf, t->type))) {
		*f = (struct btf_fault){ "is a function whose prototype is not one", 0,
					 FAULT_SAID };
		return true;
	}
	if (btf_is_array(t) && (bad_id(btf, btf_array(t)->type, f, ref) ||
				bad_id(btf, btf_array(t)->index_type, f, ref)))
		return true;
	return bad_members(btf, t, f);
}

/* A chain of modifiers and typedefs leading back to itself: libbpf 1.1
 * follows such chains (skip_mods_and_typedefs()) without a bound. Each id
 * is walked once (@state: 0 not seen, 1 on the chain being walked, 2
 * ends in another kind). */
static bool mod_loop(const struct btf *btf, __u32 id, unsigned char *state)
{
	__u32 start = id;
	const struct btf_type *t;

	while (!state[id]) {
		t = btf__type_by_id(btf, id);
		if (!btf_is_mod(t) && !btf_is_typedef(t))
			break;
		state[id] = 1;
		id = t->type;
	}
	if (state[id] == 1)
		return true;
	for (id = start; state[id] == 0 || state[id] == 1; id = t->type) {
		t = btf__type_by_id(btf, id);
		state[id] = 2;
		if (!btf_is_mod(t) && !btf_is_typedef(t))
			break;
	}
	return false;
}

/* 0, or the type whose fault is in @f (id 0: the types are all right but
 * a chain loops; -1: no memory) */
static long btf_fault_find(const struct btf *btf, struct btf_fault *f)
{
	__u32 n = btf__type_cnt(btf);
	unsigned char *state;

	for (__u32 id = 1; id < n; id++)
		if (bad_type(btf, btf__type_by_id(btf, id), f))
			return id;
	state = calloc(n, 1);
	if (!state)
		return -1;
	for (__u32 id = 1; id < n; id++)
		if (mod_loop(btf, id, state)) {
			*f = (struct btf_fault){ "is a chain of modifiers or typedefs that loops", 0,
						 FAULT_SAID };
			free(state);
			return id;
		}
	free(state);
	return 0;
}

/* The .BTF section's bytes of ELF @elf (NULL: none) */
static Elf_Data *btf_section(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name = gelf_getshdr(scn, &sh) ?
				   elf_strptr(elf, shstrndx, sh.sh_name) : NULL;

		if (name && !strcmp(name, ".BTF") && sh.sh_type != SHT_NOBITS)
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

/* The string section's size in a header btf__new() accepted (either byte order) */
static __u32 btf_str_len(const void *data)
{
	const struct btf_header *h = data;

	return h->magic == BTF_MAGIC ? h->str_len : __builtin_bswap32(h->str_len);
}

/* 0 or -EBADMSG, said: the types in @data, @size bytes of .BTF */
static int btf_data_check(const char *path, const void *data, size_t size)
{
	struct btf *btf = size <= UINT32_MAX ? btf__new(data, (__u32)size) : NULL;
	struct btf_fault f = { 0 };
	char past[64] = "";
	long id;

	if (!btf) {
		pr_warn("'%s' has a corrupt .BTF section: its header, types and strings do not fit its %zu bytes; rebuild the object (clang -g -target bpf)\n",
			path, size);
		return -EBADMSG;
	}
	id = btf_fault_find(btf, &f);
	if (id > 0 && f.kind == FAULT_STR)
		snprintf(past, sizeof(past), " %u, past its %u bytes of strings", f.value,
			 btf_str_len(data));
	else if (id > 0 && f.kind == FAULT_ID)
		snprintf(past, sizeof(past), " %u, past its %u types", f.value,
			 btf__type_cnt(btf) - 1);
	if (id > 0)
		pr_warn("'%s' has a corrupt .BTF section: type [%ld] %s%s; rebuild the object (clang -g -target bpf)\n",
			path, id, f.what, past);
	btf__free(btf);
	return id < 0 ? -ENOMEM : id ? -EBADMSG : 0;
}

int btf_file_check(const char *path, int fd)
{
	Elf_Data *d;
	Elf *elf;
	int err = 0;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	d = elf ? btf_section(elf) : NULL;
	if (d && d->d_buf)	/* none: libbpf decides (an object of legacy maps) */
		err = btf_data_check(path, d->d_buf, d->d_size);
	elf_end(elf);
	return err;
}
