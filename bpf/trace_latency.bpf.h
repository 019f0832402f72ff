/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Function latency for `perfbuf trace` (see trace.h's trace_probe_cfg):
 * a return probe traced with its entry gets duration_ns, the time from
 * the same thread's entry. Paired here, not in userspace: the entry time
 * never goes through the ring, so a lost record cannot pair the wrong
 * entry with a return, and --filter can run on the duration in the
 * kernel. Each thread and function has a stack of entry times (nested
 * and recursive calls: the innermost entry is the return's); a return
 * whose entry is unknown (before the trace began, deeper than
 * TRACE_LAT_DEPTH, or evicted from the LRU map) gets 0: no duration.
 * Included once, by trace.bpf.c; only runs when some probe is paired.
 */
#ifndef TRACE_LATENCY_BPF_H
#define TRACE_LATENCY_BPF_H

/* set before load: some probe pushes or pops (costs the others nothing) */
const volatile bool any_latency = false;

struct lat_key {
	__u32 tid;
	__u32 entry;		/* the entry probe's index */
};

struct lat_stack {
	__u32 depth;		/* calls open, may exceed TRACE_LAT_DEPTH */
	__u32 pad;
	__u64 ts[TRACE_LAT_DEPTH];	/* bpf_ktime_get_ns() at entry */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TRACE_LAT_THREADS);
	__type(key, struct lat_key);
	__type(value, struct lat_stack);
} lat_stacks SEC(".maps");

/* Only the thread itself touches its stack: no two programs race on it */
static __always_inline void lat_push(__u32 tid, __u32 entry)
{
	struct lat_key k = { .tid = tid, .entry = entry };
	struct lat_stack *s = bpf_map_lookup_elem(&lat_stacks, &k);
	__u64 now = bpf_ktime_get_ns();

	if (!s) {
		struct lat_stack z = { .depth = 1, .ts[0] = now };

		bpf_map_update_elem(&lat_stacks, &k, &z, BPF_ANY);
		return;
	}
	if (s->depth < TRACE_LAT_DEPTH)
		s->ts[s->depth & (TRACE_LAT_DEPTH - 1)] = now;
	s->depth++;
}

/* The innermost open call's duration, at least 1; 0 when unknown */
static __always_inline __u64 lat_pop(__u32 tid, __u32 entry)
{
	struct lat_key k = { .tid = tid, .entry = entry };
	struct lat_stack *s = bpf_map_lookup_elem(&lat_stacks, &k);
	__u64 d;

	if (!s || !s->depth)
		return 0;
	d = --s->depth;
	if (d >= TRACE_LAT_DEPTH)
		return 0;
	d = bpf_ktime_get_ns() - s->ts[d & (TRACE_LAT_DEPTH - 1)];
	return d ? d : 1;
}

/*
 * Probe @cookie's part in a pairing, for thread @tid, before any filter
 * (an entry or return filtered out still opens or closes its call): the
 * duration a return probe writes, and where (*off, 0 for none).
 */
static __always_inline __u64 lat_note(__u64 cookie, __u32 tid, __u32 *off)
{
	__u32 key = cookie;
	struct trace_probe_cfg *cfg;

	*off = 0;
	if (!any_latency)
		return 0;
	cfg = bpf_map_lookup_elem(&cfgs, &key);
	if (!cfg || cfg->lat == TRACE_LAT_NONE)
		return 0;
	if (cfg->lat == TRACE_LAT_ENTRY) {
		lat_push(tid, key);
		return 0;
	}
	*off = cfg->lat_off & 0x38;
	return lat_pop(tid, cfg->lat_entry);
}

#endif
