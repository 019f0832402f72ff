/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libperfbuf: sampling. The records a perf event writes into its ring
 * (PERF_RECORD_SAMPLE laid out by the attr's sample_type, and the
 * side-band records: MMAP2, COMM, FORK, EXIT, THROTTLE, ...) parsed into
 * one typed struct; and a sampler: one sampling event per CPU (or one per
 * task), with rings, or with a BPF program run on each overflow.
 */
#ifndef PERFBUF_SAMPLE_H
#define PERFBUF_SAMPLE_H

#include <linux/perf_event.h>

#include "common.h"
#include "perf_event.h"
#include "ring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Newer than some kernel headers (6.8, 6.19): the parser knows them. */
#ifndef PERF_SAMPLE_BRANCH_COUNTERS
#define PERF_SAMPLE_BRANCH_COUNTERS (1U << 19)
#endif
#ifndef PERF_RECORD_AUX_OUTPUT_HW_ID
#define PERF_RECORD_AUX_OUTPUT_HW_ID 21
#endif
#define PERFBUF_RECORD_CALLCHAIN_DEFERRED 22

/* A PERF_SAMPLE_READ block (or a PERF_RECORD_READ's values) as the kernel
 * wrote it (the layout of the event's read_format). */
struct perfbuf_sample_read {
	__u64 format;		/* the attr's read_format */
	__u64 nr;		/* counters: 1, or the group's members */
	const __u64 *data;
	size_t words;		/* u64s at @data */
};

/* PERF_SAMPLE_REGS_USER / _INTR: regs[i] is the i-th set bit of @mask
 * (arch registers, asm/perf_regs.h); none when @abi is
 * PERF_SAMPLE_REGS_ABI_NONE (a kernel thread, for user registers). */
struct perfbuf_sample_regs {
	__u64 abi;
	__u64 mask;		/* the attr's sample_regs_user/_intr */
	__u32 nr;
	const __u64 *regs;
};

/*
 * One record, parsed. Arrays and strings point into the record (into the
 * ring when the record did not wrap its end, else into the parser's copy):
 * valid as long as the record is (the ring callback) and until the next
 * parse with the same parser. Fields the record does not carry are 0.
 *
 * @sz: a sampler's callback gets the library's own struct, sz set to its
 * size (see common.h): fields past an older caller's struct are not read.
 */
struct perfbuf_sample {
	size_t sz;
	__u32 type;		/* PERF_RECORD_* */
	__u16 misc;		/* PERF_RECORD_MISC_* */
	__u16 size;		/* the whole record, header included */
	/* PERF_SAMPLE_* bits whose fields below are set: a sample's
	 * sample_type; a side-band record's sample_id_all fields (TID, TIME,
	 * ID, STREAM_ID, CPU, IDENTIFIER), or 0 without sample_id_all */
	__u64 present;

	/* identity: a sample's fields, or a side-band record's trailer */
	__u32 pid, tid;		/* PERF_SAMPLE_TID */
	__u64 time;		/* PERF_SAMPLE_TIME */
	__u64 id;		/* PERF_SAMPLE_ID or PERF_SAMPLE_IDENTIFIER */
	__u64 stream_id;	/* PERF_SAMPLE_STREAM_ID */
	__u32 cpu;		/* PERF_SAMPLE_CPU */

	/* PERF_RECORD_SAMPLE only */
	__u64 ip;		/* PERF_SAMPLE_IP */
	__u64 addr;		/* PERF_SAMPLE_ADDR */
	__u64 period;		/* PERF_SAMPLE_PERIOD */
	struct perfbuf_sample_read read;	/* PERF_SAMPLE_READ */
	struct {			/* PERF_SAMPLE_CALLCHAIN: frames */
		__u64 nr;		/* and PERF_CONTEXT_* markers, see */
		const __u64 *ips;	/* perfbuf_callchain__next() */
	} callchain;
	struct {			/* PERF_SAMPLE_RAW: padding included */
		__u32 size;
		const void *data;	/* 4-byte aligned only */
	} raw;
	struct {			/* PERF_SAMPLE_BRANCH_STACK */
		__u64 nr;
		__u64 hw_idx;		/* branch_sample_type HW_INDEX */
		const struct perf_branch_entry *entries;
		const __u64 *counters;	/* branch_sample_type COUNTERS */
	} branch;
	struct perfbuf_sample_regs regs_user;	/* PERF_SAMPLE_REGS_USER */
	struct {			/* PERF_SAMPLE_STACK_USER */
		__u64 size;		/* bytes dumped */
		const void *data;
		__u64 dyn_size;		/* of which valid */
	} stack_user;
	union perf_sample_weight weight;	/* PERF_SAMPLE_WEIGHT(_STRUCT) */
	__u64 data_src;		/* PERF_SAMPLE_DATA_SRC */
	__u64 transaction;	/* PERF_SAMPLE_TRANSACTION */
	struct perfbuf_sample_regs regs_intr;	/* PERF_SAMPLE_REGS_INTR */
	__u64 phys_addr;	/* PERF_SAMPLE_PHYS_ADDR */
	__u64 cgroup;		/* PERF_SAMPLE_CGROUP */
	__u64 data_page_size;	/* PERF_SAMPLE_DATA_PAGE_SIZE */
	__u64 code_page_size;	/* PERF_SAMPLE_CODE_PAGE_SIZE */
	struct {			/* PERF_SAMPLE_AUX */
		__u64 size;
		const void *data;
	} aux;

	/* the body of a side-band record, by type */
	union {
		struct {		/* LOST */
			__u64 id;
			__u64 lost;
		} lost;
		struct {		/* MMAP, MMAP2 */
			__u32 pid, tid;
			__u64 addr, len, pgoff;
			__u32 maj, min;		/* MMAP2 without build id */
			__u64 ino, ino_generation;
			__u8 build_id_size;	/* MMAP2 with */
			const __u8 *build_id;	/* PERF_RECORD_MISC_MMAP_BUILD_ID */
			__u32 prot, flags;	/* MMAP2 */
			const char *filename;
		} mmap;
		struct {		/* COMM */
			__u32 pid, tid;
			const char *comm;
		} comm;
		struct {		/* FORK, EXIT */
			__u32 pid, ppid, tid, ptid;
			__u64 time;
		} task;
		struct {		/* THROTTLE, UNTHROTTLE */
			__u64 time, id, stream_id;
		} throttle;
		struct {		/* READ */
			__u32 pid, tid;
			struct perfbuf_sample_read values;
		} read;
		struct {		/* AUX */
			__u64 aux_offset, aux_size, flags;
		} aux;
		struct {		/* ITRACE_START */
			__u32 pid, tid;
		} itrace_start;
		struct {		/* LOST_SAMPLES */
			__u64 lost;
		} lost_samples;
		struct {		/* SWITCH_CPU_WIDE (SWITCH: no body) */
			__u32 next_prev_pid, next_prev_tid;
		} context_switch;
		struct {		/* NAMESPACES */
			__u32 pid, tid;
			__u64 nr;
			const struct perf_ns_link_info *link_info;
		} namespaces;
		struct {		/* KSYMBOL */
			__u64 addr;
			__u32 len;
			__u16 ksym_type, flags;
			const char *name;
		} ksymbol;
		struct {		/* BPF_EVENT */
			__u16 type, flags;
			__u32 id;
			const __u8 *tag;	/* BPF_TAG_SIZE (8) bytes */
		} bpf_event;
		struct {		/* CGROUP */
			__u64 id;
			const char *path;
		} cgroup;
		struct {		/* TEXT_POKE */
			__u64 addr;
			__u16 old_len, new_len;
			const __u8 *bytes;	/* old bytes, then new */
		} text_poke;
		struct {		/* AUX_OUTPUT_HW_ID */
			__u64 hw_id;
		} aux_output_hw_id;
		struct {		/* CALLCHAIN_DEFERRED (6.19) */
			__u64 cookie;
			__u64 nr;
			const __u64 *ips;
		} deferred;
	} rec;
};

/**
 * @brief The next frame of a sample's callchain: skips the PERF_CONTEXT_*
 *        markers, tracking which context the frames are in.
 * @param pos    0 at the start; advanced by the call
 * @param ip     the frame's address
 * @param context PERF_CONTEXT_KERNEL, _USER, ... (0 before any marker)
 * @return false at the end
 */
static inline bool perfbuf_callchain__next(const struct perfbuf_sample *s,
					   size_t *pos, __u64 *ip,
					   __u64 *context)
{
	while (*pos < s->callchain.nr) {
		__u64 v = s->callchain.ips[(*pos)++];

		if (v >= (__u64)PERF_CONTEXT_MAX) {
			*context = v;
			continue;
		}
		*ip = v;
		return true;
	}
	return false;
}

/*
 * A sampler: one sampling event per CPU (every task on it), or per task,
 * each with its ring (its records read with a fold of parsed records), or
 * with a BPF program run on each overflow, or both.
 *
 * Per-CPU samplers follow CPU hotplug in perfbuf_sampler__poll(): a CPU's
 * event dies when the CPU goes offline, so when it comes back its ring is
 * read and a new event opened (enabled if the sampler is); without a CPU
 * list, CPUs coming online for the first time get one too.
 *
 * A sampler belongs to the process that made it: in a child forked after
 * perfbuf_sampler__new() its rings are not mapped and its events and
 * epoll set are the parent's, so poll, consume, enable and disable return
 * -ECHILD there, and free only frees and closes the child's share.
 */
struct perfbuf_sampler;

struct perfbuf_sampler_opts {
	size_t sz;
	/* the CPUs; NULL: every online CPU, or, with @pid and @cpu_cnt 0,
	 * one event following the thread on any CPU (cpu -1) */
	const int *cpus;
	size_t cpu_cnt;
	/* ring data pages per event, a power of two; 0: no rings */
	size_t page_cnt;
	/* 0: every task, one event per CPU; > 0: this thread only (with the
	 * event's inherit, the children it creates from now on too) */
	pid_t pid;
	/* a BPF_PROG_TYPE_PERF_EVENT program to run on every overflow
	 * (a perf_event link; PERF_EVENT_IOC_SET_BPF on kernels < 5.15);
	 * 0: none. Its return value decides whether the kernel also writes
	 * the sample into the ring: 0 drops it, anything else writes it. */
	int prog_fd;
};

/**
 * @brief Open the events of @ev (sampling: sample_period or sample_freq),
 *        map their rings, attach the program, then enable them (unless
 *        @ev->disabled).
 * @return the sampler, or NULL with errno: EINVAL (bad options: neither
 *         period nor freq, no rings and no program, a bad page count),
 *         the failing syscall's error (logged with the CPU: ENOENT or
 *         EOPNOTSUPP when the event does not exist here, as hardware
 *         events without a PMU)
 */
PERFBUF_API struct perfbuf_sampler *
perfbuf_sampler__new(const struct perfbuf_event_opts *ev,
		     const struct perfbuf_sampler_opts *opts);

/** @brief Detach, unmap, close. NULL is a no-op. */
PERFBUF_API void perfbuf_sampler__free(struct perfbuf_sampler *s);

/** @brief Enable or disable every event. 0 or the first negative errno. */
PERFBUF_API int perfbuf_sampler__enable(struct perfbuf_sampler *s);
PERFBUF_API int perfbuf_sampler__disable(struct perfbuf_sampler *s);

/*
 * Called for every record of the rings, parsed. A stop ends the call (the
 * record stopped on is consumed), as for perfbuf_record_fn.
 */
typedef int (*perfbuf_sample_fn)(void *ctx, const struct perfbuf_sample *s);

/**
 * @brief Parse and hand over every record waiting in the rings, ring after
 *        ring (not merged in time order).
 *
 * A record that does not parse is skipped, counted (`bad`) and logged
 * once per sampler; the call goes on and then returns -EBADMSG.
 * @return records delivered, -EBADMSG, -ENODATA without rings, or -ECHILD
 *         in a forked child
 */
PERFBUF_API int perfbuf_sampler__consume(struct perfbuf_sampler *s,
					 perfbuf_sample_fn fn, void *ctx);

/**
 * @brief Wait up to @timeout_ms (-1: forever) for a ring to reach its
 *        wake-up point or a CPU to come online, then
 *        perfbuf_sampler__consume() (when there are rings) and open the
 *        events of CPUs back online. Call it regularly on samplers
 *        without rings too: that is when they follow hotplug.
 * @return as perfbuf_sampler__consume() (0 without rings), or -EINTR on a
 *         signal
 */
PERFBUF_API int perfbuf_sampler__poll(struct perfbuf_sampler *s,
				      int timeout_ms, perfbuf_sample_fn fn,
				      void *ctx);

struct perfbuf_sampler_stats {
	size_t sz;		/* the caller's sizeof (see common.h) */
	__u64 samples;		/* PERF_RECORD_SAMPLE */
	__u64 lost;		/* records lost: LOST records, and losses
				 * counted by the kernel (PERF_FORMAT_LOST) */
	__u64 throttled;	/* PERF_RECORD_THROTTLE: the kernel lowered
				 * the rate (perf_event_max_sample_rate) */
	__u64 unthrottled;
	__u64 other;		/* other side-band records */
	__u64 bad;		/* records that did not parse */
	__u64 corrupt;		/* ring resynchronisations */
};

/**
 * @brief The sampler's statistics, summed over its events, into @out,
 *        whose sz the caller set (see common.h).
 * @return 0, or -EINVAL when out->sz is too small
 */
PERFBUF_API int perfbuf_sampler__stats(const struct perfbuf_sampler *s,
				       struct perfbuf_sampler_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* PERFBUF_SAMPLE_H */
