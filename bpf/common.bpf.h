/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What every BPF program here starts with: vmlinux.h, libbpf's helpers,
 * the license, and `events`, the perf event array the records go to (one
 * ring per CPU; userspace fills the slots, perfbuf__new() on its fd).
 * Included once, first, by each x.bpf.c.
 */
#ifndef PERFBUF_COMMON_BPF_H
#define PERFBUF_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

#endif
