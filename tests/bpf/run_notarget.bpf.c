// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Programs perfbuf run cannot attach by their SEC name alone: a uprobe
 * naming no binary (gethostlatency's: its tool gives the target) and a
 * kprobe (a kernel without kprobes) */
#include "common.bpf.h"

SEC("uprobe")
int notarget_uprobe(void *ctx)
{
	return 0;
}

SEC("kprobe/ksys_write")
int notarget_kprobe(void *ctx)
{
	return 0;
}
