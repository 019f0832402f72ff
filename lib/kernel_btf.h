/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Why the kernel's BTF could not be loaded. libbpf 1.1's
 * btf__load_vmlinux_btf() returns ESRCH ("No such process") whenever no
 * file of its list parses, whatever stopped btf__parse() (ENOMEM under
 * 'ulimit -v' too), and bpf_object__load() fails with it before any
 * program is loaded (no program is named). The one reading, for the
 * library (src/object_load.c: perfbuf run's loads) and the tool
 * (tools/common/cli.c, loaderr.c: trace, stress, profile): load the file
 * again and name what stopped it.
 */
#ifndef PERFBUF_KERNEL_BTF_H
#define PERFBUF_KERNEL_BTF_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <bpf/btf.h>

#define KERNEL_BTF_PATH "/sys/kernel/btf/vmlinux"

/* 0 when the kernel's BTF loads, else the errno that stopped it (errno
 * is kept) */
static inline int kernel_btf_err(void)
{
	int saved = errno;
	struct btf *btf = btf__parse_raw(KERNEL_BTF_PATH);
	int err = btf ? 0 : errno;

	btf__free(btf);
	errno = saved;
	return err;
}

/* " (RLIMIT_AS: 'ulimit -v' 20000 KiB)" or "": the limit out of memory met */
static inline const char *kernel_btf_as_limit(void)
{
	static char buf[64];
	struct rlimit rl;

	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return "";
	snprintf(buf, sizeof(buf), " (RLIMIT_AS: 'ulimit -v' %llu KiB)",
		 (unsigned long long)rl.rlim_cur / 1024);
	return buf;
}

/* When the kernel's BTF does not load: true, and a line into @buf that
 * leads with the cause, for a failed load of @what: "out of memory
 * (RLIMIT_AS: 'ulimit -v' 20000 KiB) while loading WHAT: ..." */
static inline bool kernel_btf_said(char *buf, size_t sz, const char *what)
{
	int err = kernel_btf_err();

	if (err == ENOMEM)
		snprintf(buf, sz, "out of memory%s while loading %s: the kernel's BTF (%s) does not fit%s",
			 kernel_btf_as_limit(), what, KERNEL_BTF_PATH,
			 *kernel_btf_as_limit() ? "; raise 'ulimit -v'" : "");
	else if (err)
		snprintf(buf, sz, "loading %s failed: the kernel's BTF (%s) cannot be loaded: %s",
			 what, KERNEL_BTF_PATH, strerror(err));
	return err != 0;
}

/* "; REASON" to append to a message, or "" when the BTF loads (errno is
 * kept: callers pass it beside this). Not thread-safe (one buffer). */
static inline const char *kernel_btf_why(void)
{
	static char buf[200];
	int err = kernel_btf_err();

	if (!err)
		return "";
	if (err == ENOMEM)
		snprintf(buf, sizeof(buf), "; out of memory%s loading the kernel's BTF%s",
			 kernel_btf_as_limit(), *kernel_btf_as_limit() ? ": raise 'ulimit -v'" : "");
	else
		snprintf(buf, sizeof(buf), "; the kernel's BTF (%s) cannot be loaded: %s",
			 KERNEL_BTF_PATH, strerror(err));
	return buf;
}

#endif
