// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A record type larger than a capture holds (17 MiB): perfbuf run
 * --record refuses it rather than write a capture report cannot read */
#include "common.bpf.h"
#include <perfbuf/bpf.h>

struct run_huge {
	unsigned int seq;
	char big[17 << 20];
};

PERFBUF_EVENT(events, struct run_huge);

SEC("tracepoint/syscalls/sys_enter_write")
int huge_write(void *ctx)
{
	return 0;
}
