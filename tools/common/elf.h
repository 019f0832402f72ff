/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one ELF symbol reader (elf.c, libelf): a file's function symbols,
 * .symtab when it has one (every function), else .dynsym; found by name
 * (uprobe targets: trace/probe.c) or by file offset through the PT_LOAD
 * segments (what a mapping gives: naming stack frames, tools/sym).
 */
#ifndef PERFBUF_COMMON_ELF_H
#define PERFBUF_COMMON_ELF_H

#include <linux/types.h>

struct sym_elf;

/* NULL with errno set: ENOEXEC when @path is not ELF. */
struct sym_elf *elfsyms_load(const char *path);
void elfsyms_free(struct sym_elf *e);
/* The function at file offset @off (a mapping's), or NULL. */
const char *elfsyms_name(const struct sym_elf *e, __u64 off);
/* The name of function @i in address order (aliases next to each other),
 * NULL past the last: every function, for a listing */
const char *elfsyms_nth(const struct sym_elf *e, size_t i);
/* The file offset of function @name (what a uprobe takes): 0, -ENOENT,
 * -EEXIST (two functions of that name at different addresses) */
int elfsyms_offset(const struct sym_elf *e, const char *name, __u64 *off);
/* The size of function @name in ELF file @path: 0, -ENOEXEC (not ELF),
 * -ENOENT (no such function symbol), -errno */
int elf_func_size(const char *path, const char *name, __u64 *size);

#endif
