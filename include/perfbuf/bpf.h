/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * For BPF programs (clang -target bpf), included after vmlinux.h (or
 * <linux/bpf.h>) and <bpf/bpf_helpers.h>.
 *
 * 1. Name the C type of a map's records, so that `perfbuf run` and
 *    perfbuf_type__from_file() decode them without being told:
 *
 *   #include <perfbuf/bpf.h>
 *   struct event { __u32 pid; char comm[16]; };
 *   struct { __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY); ... } events SEC(".maps");
 *   PERFBUF_EVENT(events, struct event);
 *
 * It declares a global pointer __perfbuf_event__MAP to the type: clang
 * keeps a global variable's type in BTF even when no code uses it (a
 * struct used only by a local variable is left out), and libbpf gives
 * the variable a place in .bss, never read. Nothing else is needed at
 * run time.
 *
 * 2. The ledger: every output counted by its outcome, per CPU and per
 *    kind (a small number the program chooses: a probe, an event type),
 *    so that the reader can say which events were lost and why, and
 *    check its own counts against the program's (ledger.h):
 *
 *   enum my_kind { KIND_OPEN, KIND_EXEC, KIND_CNT };
 *   PERFBUF_LEDGER(KIND_CNT);
 *   PERFBUF_LEDGER_KINDS(enum my_kind);	(optional: names the kinds)
 *   ...
 *   perfbuf_output(ctx, &events, KIND_OPEN, &e, sizeof(e));
 *
 * perfbuf_output() is bpf_perf_event_output(ctx, map, BPF_F_CURRENT_CPU,
 * data, size), and returns what it returns. The helper's result is the
 * only place that knows an event was dropped and why: a full ring
 * (-ENOSPC, which the kernel also counts as lost), no reader's ring in
 * the CPU's slot (-ENOENT: before the reader exists, after it is gone,
 * a CPU back online before its new ring; -E2BIG: a CPU past the map's
 * max_entries), anything else (-EOPNOTSUPP: the event is not on this
 * CPU; -EBUSY: nesting too deep). The last three the kernel counts
 * nowhere.
 *
 * The counts are in `perfbuf_ledger` (PERFBUF_LEDGER_MAP), a
 * BPF_MAP_TYPE_PERCPU_ARRAY of struct perfbuf_ledger_value by kind, with
 * one more entry than kinds: entry MAX_KINDS counts the outputs made
 * with a kind out of range, so that none goes uncounted. Each count is
 * one atomic add (BPF_XADD, Linux 4.x and later: no fetch, so 5.10
 * loads it) on this CPU's value: a program that interrupts another on
 * the same CPU (an IRQ-time tracepoint; or another task's program on a
 * sleepable-context tracepoint, where only migration is off) cannot
 * lose a count. The cost is a map look-up and one add per output (see
 * docs/benchmarks.md). Map and kind numbers only: the program needs no
 * loop, no bpf_loop(), no cookies.
 */
#ifndef PERFBUF_BPF_H
#define PERFBUF_BPF_H

#define PERFBUF_EVENT(MAP, TYPE) \
	TYPE *__perfbuf_event__##MAP __attribute__((used))

/* The ledger map's name: the library finds it by this name. */
#define PERFBUF_LEDGER_MAP "perfbuf_ledger"

/*
 * One kind's outcomes on one CPU (the ledger map's value; userspace
 * reads it through ledger.h). Offered = written + full + no_reader +
 * failed. The layout is fixed for the major version.
 */
struct perfbuf_ledger_value {
	__u64 written;		/* 0: in the ring, the reader will get it */
	__u64 full;		/* -ENOSPC: ring full, the kernel's lost */
	__u64 no_reader;	/* -ENOENT, -E2BIG: no ring for this CPU */
	__u64 failed;		/* any other error */
};

#if defined(__bpf__) || defined(__BPF__)

/*
 * Define the ledger map, for kinds 0 .. MAX_KINDS - 1 (and entry
 * MAX_KINDS for kinds out of range). Once per object, at file scope,
 * before any perfbuf_output(). The map takes MAX_KINDS + 1 entries of 32
 * bytes per possible CPU: a loader that knows it needs fewer kinds K
 * (one per probe it attaches, say) lowers both before the load, the
 * map's max_entries to K + 1 and the .rodata global
 * perfbuf_ledger_max_kinds to K, and kinds from K on count at entry K.
 */
#define PERFBUF_LEDGER(MAX_KINDS)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);		\
		__uint(max_entries, (MAX_KINDS) + 1);			\
		__type(key, __u32);					\
		__type(value, struct perfbuf_ledger_value);		\
	} perfbuf_ledger SEC(".maps");					\
	const volatile __u32 perfbuf_ledger_max_kinds = (MAX_KINDS)

/*
 * Name the kinds: kind N is the name of ENUM's enumerator of value N
 * (a global pointer to the enum keeps it in BTF, as PERFBUF_EVENT does;
 * the library reads the object's BTF). Optional.
 */
#define PERFBUF_LEDGER_KINDS(ENUM) \
	ENUM *__perfbuf_ledger_kinds __attribute__((used))

/* The helper's results the ledger tells apart (the kernel's errno) */
#define __PERFBUF_ENOENT 2
#define __PERFBUF_E2BIG 7
#define __PERFBUF_ENOSPC 28

/* Count @err for @kind on this CPU in @ledger; @max: entries - 1 */
static __always_inline void __perfbuf_ledger_count(void *ledger, __u32 max,
						   __u32 kind, long err)
{
	struct perfbuf_ledger_value *v;
	__u32 k = kind < max ? kind : max;

	v = bpf_map_lookup_elem(ledger, &k);
	if (!v)
		return;
	if (!err)
		__sync_fetch_and_add(&v->written, 1);
	else if (err == -__PERFBUF_ENOSPC)
		__sync_fetch_and_add(&v->full, 1);
	else if (err == -__PERFBUF_ENOENT || err == -__PERFBUF_E2BIG)
		__sync_fetch_and_add(&v->no_reader, 1);
	else
		__sync_fetch_and_add(&v->failed, 1);
}

static __always_inline long __perfbuf_output(void *ctx, void *map,
					     void *ledger, __u32 max,
					     __u32 kind, void *data,
					     __u64 size)
{
	long err = bpf_perf_event_output(ctx, map, BPF_F_CURRENT_CPU,
					 data, size);

	__perfbuf_ledger_count(ledger, max, kind, err);
	return err;
}

/*
 * bpf_perf_event_output(CTX, MAP, BPF_F_CURRENT_CPU, DATA, SIZE), its
 * outcome counted for KIND (a __u32) on this CPU. Returns the helper's
 * result (0 or a negative errno). Needs PERFBUF_LEDGER() before it.
 */
#define perfbuf_output(CTX, MAP, KIND, DATA, SIZE)			\
	__perfbuf_output((CTX), (MAP), &perfbuf_ledger,			\
			 perfbuf_ledger_max_kinds, (KIND), (DATA), (SIZE))

#endif /* __bpf__ */

#endif /* PERFBUF_BPF_H */
