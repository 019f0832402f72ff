// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf profile --engine bpf: on each cpu-clock overflow, the kernel
 * and user stacks of the interrupted task into the perf buffer. */
#include "common.bpf.h"

#include "profile.h"

#define STACK_BYTES (PROFILE_MAX_DEPTH * 8)

const volatile int targ_tgid;		/* 0: every process */
const volatile bool kernel_stacks = true;
const volatile bool user_stacks = true;

/* the record is built here: too large for the 512-byte BPF stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct profile_sample);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct profile_counts);
} counts SEC(".maps");

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct profile_counts *c;
	struct profile_sample *s;
	__u32 zero = 0;
	long k = 0, u = 0, err;

	/* the idle task is not a process; others when one was asked for */
	if ((__u32)id == 0 || (targ_tgid && (id >> 32) != (__u32)targ_tgid))
		return 0;
	s = bpf_map_lookup_elem(&scratch, &zero);
	c = bpf_map_lookup_elem(&counts, &zero);
	if (!s || !c)
		return 0;
	c->runs++;
	s->pid = id >> 32;
	s->tid = (__u32)id;
	bpf_get_current_comm(s->comm, sizeof(s->comm));
	if (kernel_stacks) {
		k = bpf_get_stack(ctx, s->ips, STACK_BYTES, 0);
		if (k < 0) {
			c->kstack_err++;
			k = 0;
		}
	}
	/* user frames right after the kernel ones */
	if (user_stacks && k >= 0 && k <= STACK_BYTES) {
		u = bpf_get_stack(ctx, (void *)s->ips + k, STACK_BYTES,
				  BPF_F_USER_STACK);
		if (u < 0) {
			c->ustack_err++;
			u = 0;
		}
	}
	if (k < 0 || k > STACK_BYTES || u < 0 || u > STACK_BYTES)
		return 0;
	s->kstack_sz = k;
	s->ustack_sz = u;
	err = bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, s,
				    offsetof(struct profile_sample, ips) + k + u);
	if (err)
		c->output_err++;
	return 0;	/* no kernel sample record: the stacks went out above */
}
