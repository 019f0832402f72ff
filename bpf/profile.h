/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* profile: one record per cpu-clock overflow, with the stacks. */
#ifndef PROFILE_H
#define PROFILE_H

#define PROFILE_COMM_LEN 16
#define PROFILE_MAX_DEPTH 127	/* frames per stack (perf_event_max_stack) */

/* A sample: kernel frames (leaf first), then user frames (leaf first);
 * only kstack_sz + ustack_sz bytes of ips are written. */
struct profile_sample {
	unsigned int pid;	/* tgid */
	unsigned int tid;
	unsigned int kstack_sz;	/* bytes of kernel frames */
	unsigned int ustack_sz;	/* bytes of user frames */
	char comm[PROFILE_COMM_LEN];
	unsigned long long ips[2 * PROFILE_MAX_DEPTH + 2];
};

/* per-CPU counters of what the program could not deliver */
struct profile_counts {
	unsigned long long runs;	/* overflows seen */
	unsigned long long kstack_err;	/* bpf_get_stack() failed */
	unsigned long long ustack_err;
	unsigned long long output_err;	/* bpf_perf_event_output() failed
					 * (-ENOSPC: also counted as lost) */
};

#endif
