/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's BTF (kbtf.c): vmlinux's and its modules', each read once,
 * their functions found by name through a sorted index (a glob's hundreds
 * of functions cost one sort, not a scan of every type each).
 */
#ifndef PERFBUF_COMMON_KBTF_H
#define PERFBUF_COMMON_KBTF_H

#include <stdbool.h>
#include <stddef.h>

struct btf;

/* vmlinux's BTF, NULL when the kernel has none */
struct btf *kbtf_vmlinux(void);
/* @func's BTF_KIND_FUNC id in vmlinux's BTF or, not there, its module's
 * (@mod: ftrace's name for it, "" built in; NULL: /proc/kallsyms says),
 * *@btf the BTF it is in; -ENOENT when neither has it */
int kbtf_func(const char *func, const char *mod, const struct btf **btf);
/* Is @func in /proc/kallsyms (common/ksyms.h, read once)? Its module
 * into @mod ("" when built in). */
bool kbtf_kallsyms(const char *func, char *mod, size_t sz);
/* Everything read freed (the kallsyms table too) */
void kbtf_free(void);

#endif
