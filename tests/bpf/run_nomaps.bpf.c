// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Hostile to `perfbuf run`: a program, no map to read */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("tracepoint/syscalls/sys_enter_getpgid")
int nomaps(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
