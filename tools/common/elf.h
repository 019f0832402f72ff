/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one ELF symbol reader (elf.c, libelf): a file's function symbols,
 * .symtab when it has one (every function), else .dynsym; found by name
 * (uprobe targets: trace/probe.c) or by file offset through the PT_LOAD
 * segments (what a mapping gives: naming stack frames, tools/sym).
 * Names are kept without their versions (.gnu.version for .dynsym, a
 * .symtab's NAME@VER split): a function is found as NAME, NAME@VER or
 * NAME@@VER.
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
/* The file offset of function @name (what a uprobe takes) and its size:
 * 0, -ENOENT, -EEXIST (functions of that name at different addresses,
 * none weak: two versions (elfsyms_versions()), or local functions).
 * @name is NAME, NAME@VERSION or NAME@@VERSION; NAME takes any version */
int elfsyms_find(const struct sym_elf *e, const char *name, __u64 *off, __u64 *size);
/* elfsyms_find() without the size */
int elfsyms_offset(const struct sym_elf *e, const char *name, __u64 *off);
/* How many versions function NAME of @name (its @VERSION ignored) has,
 * listed into @buf: "f@@V2 (the default), f@V1", as far as @sz goes */
int elfsyms_versions(const struct sym_elf *e, const char *name, char *buf, size_t sz);

#endif
