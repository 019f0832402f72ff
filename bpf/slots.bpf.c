// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Whose perf event sits in each slot of a perf event array: run on every
 * CPU by BPF_PROG_TEST_RUN (tools/run/slots.c), it reads the event of
 * this CPU's slot of `target` (the map read, by bpf_map__reuse_fd()): its
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

struct slot slots[MAX_SLOT_CPUS];

SEC("raw_tp")
int perfbuf_slots(void *ctx)
{
	struct bpf_perf_event_value v = {};
	__u32 cpu = bpf_get_smp_processor_id();
	long err = bpf_perf_event_read_value(&target, BPF_F_CURRENT_CPU, &v, sizeof(v));

	if (cpu < MAX_SLOT_CPUS) {
		slots[cpu].err = err;
		slots[cpu].enabled = v.enabled;
	}
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
