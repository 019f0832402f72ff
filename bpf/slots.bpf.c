// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Whose perf event sits in each slot of a perf event array: run on one
 * CPU at a time by BPF_PROG_TEST_RUN (tools/run/slots.c), it reads the
 * event of this CPU's slot of `target` (the map read, by
 * bpf_map__reuse_fd()) into `seen`, whatever the number of CPUs: its
 * error (-ENOENT: the slot is empty) and how long it has been enabled. An
 * event enabled after the reader's own were is another reader's: ours
 * were replaced, and nothing more reaches us. A perf event array cannot
 * be looked up from userspace; this is the way to see a slot.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "slots.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} target SEC(".maps");

struct slot seen;

SEC("raw_tp")
int perfbuf_slots(void *ctx)
{
	struct bpf_perf_event_value v = {};
	long err = bpf_perf_event_read_value(&target, BPF_F_CURRENT_CPU, &v, sizeof(v));

	seen.err = err;
	seen.enabled = v.enabled;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
