/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel symbols (ksyms.c): /proc/kallsyms read into a table of its text
 * symbols, by address and by name, with their modules. The one reading of
 * the file: a stack's names (sym/names.c), a kprobe's address and a
 * function's module (trace/, common/kbtf.c).
 */
#ifndef PERFBUF_COMMON_KSYMS_H
#define PERFBUF_COMMON_KSYMS_H

#include <stdbool.h>
#include <linux/types.h>

struct sym_ksyms;

/* /proc/kallsyms; NULL with errno when it cannot be read or lists no
 * function. Addresses hidden (kernel.kptr_restrict) read as 0. */
struct sym_ksyms *ksyms_load(void);
void ksyms_free(struct sym_ksyms *k);
/* The process's table, read at the first call (NULL with errno as
 * ksyms_load()); freed by ksyms_release(). */
const struct sym_ksyms *ksyms_get(void);
void ksyms_release(void);

/* Are the addresses hidden (every one 0: kernel.kptr_restrict)? */
bool ksyms_hidden(const struct sym_ksyms *k);
/* the function containing @addr, or NULL (NULL when hidden) */
const char *ksyms_name(const struct sym_ksyms *k, __u64 addr);
/* Is function @name listed? *@mod (when @mod is not NULL) its module, ""
 * when built in; the address of its lowest listing, 0 when hidden, into
 * *@addr when @addr is not NULL. */
bool ksyms_find(const struct sym_ksyms *k, const char *name, const char **mod,
		__u64 *addr);
/* the address of function @name (the lowest of several), or 0 */
__u64 ksyms_addr(const struct sym_ksyms *k, const char *name);
/* How many functions the table has, and the address of the @i-th by
 * address (0 past the end or when hidden): the bench's kernel frames */
size_t ksyms_cnt(const struct sym_ksyms *k);
__u64 ksyms_nth_addr(const struct sym_ksyms *k, size_t i);

#endif
