// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A map the kernel will not create (a stack map's value must hold whole
 * u64 addresses): the load fails at the map, not in the verifier */
#include "common.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 12);
} badstacks SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_write")
int badmap_write(void *ctx)
{
	return bpf_get_stackid(ctx, &badstacks, 0) < 0;
}
