/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* libperfbuf, layer 1: a perf_event_attr from a typed description (for a
 * BPF_OUTPUT or sampling event a program opens itself), counter values. */
#ifndef PERFBUF_PERF_EVENT_H
#define PERFBUF_PERF_EVENT_H

#include <linux/perf_event.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel headers older than 6.0 lack it; the kernel may too (see
 * perfbuf_opts: the collector falls back to LOST records only). */
#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif

enum perfbuf_event_kind {
	PERFBUF_EV_HARDWARE = PERF_TYPE_HARDWARE,
	PERFBUF_EV_SOFTWARE = PERF_TYPE_SOFTWARE,
	PERFBUF_EV_TRACEPOINT = PERF_TYPE_TRACEPOINT,
	PERFBUF_EV_RAW = PERF_TYPE_RAW,
	PERFBUF_EV_BREAKPOINT = PERF_TYPE_BREAKPOINT,
};

/* A typed description of one event; turned into a perf_event_attr by
 * perfbuf_event__attr(). Zero means "kernel default" for every field. */
struct perfbuf_event_opts {
	size_t sz;
	enum perfbuf_event_kind kind;
	__u64 config;		/* PERF_COUNT_*, raw code or tracepoint id */
	/* sampling: period (every N events) or frequency (N per second) */
	__u64 sample_period;
	__u64 sample_freq;	/* non-zero selects frequency mode */
	__u64 sample_type;	/* PERF_SAMPLE_* */
	__u64 read_format;	/* PERF_FORMAT_* */
	/* wake-up: every N events, or once N bytes are in the ring */
	__u32 wakeup_events;
	__u32 wakeup_watermark;	/* non-zero selects byte watermark */
	bool disabled;
	bool inherit;
	bool pinned;
	bool exclusive;
	bool exclude_user;
	bool exclude_kernel;
	bool exclude_hv;
	bool exclude_idle;
	bool enable_on_exec;
	bool write_backward;
	bool use_clockid;
	int clockid;		/* CLOCK_* when use_clockid */
	/* breakpoints */
	__u32 bp_type;		/* HW_BREAKPOINT_* */
	__u64 bp_addr;
	__u64 bp_len;
	/* non-sample records (LOST, ...) carry the sample_type's TID, TIME,
	 * ID, STREAM_ID, CPU and IDENTIFIER fields */
	bool sample_id_all;
	/* what some sample_type bits sample (perf_event_open(2)) */
	__u64 branch_sample_type;	/* PERF_SAMPLE_BRANCH_STACK */
	__u64 sample_regs_user;		/* PERF_SAMPLE_REGS_USER */
	__u64 sample_regs_intr;		/* PERF_SAMPLE_REGS_INTR */
	__u32 sample_stack_user;	/* PERF_SAMPLE_STACK_USER bytes */
	__u32 aux_sample_size;		/* PERF_SAMPLE_AUX */
	__u16 sample_max_stack;		/* PERF_SAMPLE_CALLCHAIN frames
					 * (<= kernel.perf_event_max_stack) */
	__u8 precise_ip;		/* 0..3: skid allowed */
	bool exclude_callchain_kernel;
	bool exclude_callchain_user;
	/* side-band records the event writes into its ring */
	bool mmap;		/* MMAP of executable mappings */
	bool mmap2;		/* as MMAP2 (with mmap) */
	bool mmap_data;		/* data mappings too */
	bool build_id;		/* MMAP2 carries build ids */
	bool comm;		/* COMM */
	bool comm_exec;		/* COMM on exec flagged */
	bool task;		/* FORK, EXIT */
	bool context_switch;	/* SWITCH, SWITCH_CPU_WIDE */
	bool namespaces;	/* NAMESPACES */
	bool ksymbol;		/* KSYMBOL */
	bool bpf_event;		/* BPF_EVENT */
	bool cgroup;		/* CGROUP */
	bool text_poke;		/* TEXT_POKE */
	__u8 __reserved[6];	/* 0: room for the next fields (no hole at
				 * the end, see common.h) */
};

/**
 * @brief Fill @attr from @opts (attr.size = sizeof(struct perf_event_attr)).
 * @return 0, or -EINVAL when @opts is inconsistent (both period and freq,
 *         both wakeup_events and wakeup_watermark, bad sz)
 */
PERFBUF_API int perfbuf_event__attr(struct perf_event_attr *attr,
				   const struct perfbuf_event_opts *opts);

#ifdef __cplusplus
}
#endif

#endif /* PERFBUF_PERF_EVENT_H */
