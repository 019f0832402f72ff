/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers shared by libperfbuf-object's files; not installed. */
#ifndef PERFBUF_OBJECT_PRIV_H
#define PERFBUF_OBJECT_PRIV_H

#include "internal.h"
#include "perfbuf/object.h"

struct bpf_object;
/* bpf_object__load(), its failure said in one line naming the program or
 * map (object_load.c) */
int object_load(struct bpf_object *obj, const char *path);

/* object_set.c: --set NAME=VALUE's VALUE by BTF type @type into @dst */
struct btf;
int object_set_value(const struct btf *btf, __u32 type, const char *name,
		     const char *val, void *dst);

/* type_btf.c: the string at @off of @btf's string section; "" when @off
 * lies past it (libbpf 1.1 does not check a file's name offsets, and
 * btf__name_by_offset() then gives NULL): every BTF name goes through it */
const char *btf_name(const struct btf *btf, __u32 off);

/* type_find.c: an fd of @path (the caller closes it) when it is a regular
 * file starting with ELF's magic, else -errno said at PERFBUF_WARN; never
 * blocks (a FIFO is refused). elf_file_check(): the same, 0 for the fd. */
int elf_file_open(const char *path);
int elf_file_check(const char *path);

/* btf_check.c: 0 when the .BTF (if any) of ELF @fd (elf_file_open() of
 * @path, which names it in messages) is one libbpf 1.1 can open safely:
 * its type ids, string offsets and modifier chains checked; else -EBADMSG
 * said at PERFBUF_WARN (-ENOMEM) */
int btf_file_check(const char *path, int fd);

#endif
