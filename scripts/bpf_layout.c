// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpf_layout OBJ.bpf.o: what a skeleton of the object fixes, one line a
 * thing, in the object's order: each program's name, section and type;
 * each map's name, type, sizes, entries and flags; each global's section,
 * name, offset and size (.rodata, .bss, .data: the layout the skeleton's
 * structs give userspace). The build compares an object with its
 * PERFBUF_NO_FETCH build: the tool loads either through one skeleton
 * (tools/common/kfeat.h), which is right only when these lines are the
 * same. Opened, never loaded: no privileges needed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* The variables of DATASEC @sec, in offset order as BTF lists them */
static void globals(const struct btf *btf, const char *sec)
{
	int id = btf__find_by_name_kind(btf, sec, BTF_KIND_DATASEC);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_var_secinfo *v = t ? btf_var_secinfos(t) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++, v++) {
		const struct btf_type *var = btf__type_by_id(btf, v->type);

		printf("global %s %s offset %u size %u\n", sec,
		       btf__name_by_offset(btf, var->name_off), v->offset, v->size);
	}
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *p;
	struct bpf_map *m;
	const struct btf *btf;

	if (argc != 2) {
		fprintf(stderr, "usage: bpf_layout OBJ.bpf.o\n");
		return 2;
	}
	libbpf_set_print(quiet);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "bpf_layout: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(p, obj)
		printf("program %s section %s type %d attach %d\n", bpf_program__name(p),
		       bpf_program__section_name(p), bpf_program__type(p),
		       bpf_program__expected_attach_type(p));
	bpf_object__for_each_map(m, obj)
		printf("map %s type %d key %u value %u entries %u flags %u\n",
		       bpf_map__name(m), bpf_map__type(m), bpf_map__key_size(m),
		       bpf_map__value_size(m), bpf_map__max_entries(m),
		       bpf_map__map_flags(m));
	btf = bpf_object__btf(obj);
	if (btf) {
		globals(btf, ".rodata");
		globals(btf, ".bss");
		globals(btf, ".data");
	}
	bpf_object__close(obj);
	return 0;
}
