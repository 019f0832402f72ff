/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Why the kernel's BTF could not be loaded. libbpf says ESRCH ("No such
 * process") whenever it fails to load /sys/kernel/btf/vmlinux, whatever
 * the reason (btf__load_vmlinux_btf() too), so a BPF load under
 * 'ulimit -v' reads as a missing process. The one reading, for the
 * library (src/object_load.c: perfbuf run's loads) and the tool
 * (tools/common/cli.c: trace, stress, profile): load the file again and
 * name what stopped it.
 */
#ifndef PERFBUF_KERNEL_BTF_H
#define PERFBUF_KERNEL_BTF_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <bpf/btf.h>

/* "; REASON" to append to a message, or "" when the BTF loads (errno is
 * kept: callers pass it beside this). Not thread-safe (one buffer). */
static inline const char *kernel_btf_why(void)
{
	static char buf[160];
	int saved = errno;
	struct btf *btf = btf__parse_raw("/sys/kernel/btf/vmlinux");
	struct rlimit rl;
	int err = btf ? 0 : errno;

	btf__free(btf);
	errno = saved;
	if (!err)
		return "";
	if (err == ENOMEM)
		return !getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY ?
		       "; out of memory loading the kernel's BTF: raise 'ulimit -v'" :
		       "; out of memory loading the kernel's BTF";
	snprintf(buf, sizeof(buf), "; the kernel's BTF (/sys/kernel/btf/vmlinux) cannot be loaded: %s",
		 strerror(err));
	return buf;
}

#endif
