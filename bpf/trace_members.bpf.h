/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Struct members of a probe's arguments (p->x, a->b.c; trace.h's
 * trace_member_cfg): each a short chain of reads userspace computed from
 * DWARF or BTF, interpreted here with bounded loops (the verifier of 5.10
 * takes them), every read through bpf_probe_read_user() or _kernel(): a
 * NULL or stale pointer fails the read, marks the member unreadable and
 * ends its chain. Read before the filter, which may compare them.
 * Included once, by trace.bpf.c.
 */
#ifndef TRACE_MEMBERS_BPF_H
#define TRACE_MEMBERS_BPF_H

/* set before load: some probe reads members (the others skip the lookup) */
const volatile bool any_members = false;

/* Member @m from the arguments in @data: its value, *@bad when a read
 * failed */
static __always_inline __u64 member_read(const __u8 *data,
					 const struct trace_member_cfg *m,
					 bool *bad)
{
	__u64 v = *(const __u64 *)(data + (m->arg_off & 0x38)), addr;
	__u32 sz;

	for (__u32 i = 0; i < TRACE_MEMBER_STEPS; i++) {
		if (i >= m->nsteps)
			break;
		addr = v + m->off[i];
		sz = i + 1 < m->nsteps ? 8 : m->size;
		if (!sz)
			return addr;	/* an array: its address */
		if (sz > 8)
			sz = 8;
		v = 0;
		if (m->user ? bpf_probe_read_user(&v, sz, (void *)addr)
			    : bpf_probe_read_kernel(&v, sz, (void *)addr)) {
			*bad = true;
			return 0;
		}
	}
	return v;
}

/* The members of probe @cfg into @data (whose first @raw bytes are the
 * arguments): the record's raw size with them */
static __always_inline __u32 read_members(__u8 *data,
					  const struct trace_probe_cfg *cfg,
					  __u32 raw)
{
	__u32 n = cfg->nmem, base = cfg->mem_off & 0x78, end;
	__u8 *fault;

	if (!n)
		return raw;
	if (n > TRACE_MAX_MEMBERS)
		n = TRACE_MAX_MEMBERS;
	fault = data + base + TRACE_MAX_MEMBERS * 8;
	*(__u64 *)fault = 0;
	for (__u32 k = 0; k < TRACE_MAX_MEMBERS; k++) {
		bool bad = false;

		if (k >= n)
			break;
		*(__u64 *)(data + base + k * 8) = member_read(data, &cfg->mem[k], &bad);
		fault[k] = bad;
	}
	end = base + TRACE_MAX_MEMBERS * 8 + 8;
	return end > raw ? end : raw;
}

/* The members of probe @cookie, if it has any (the arguments in @data,
 * @raw bytes of them): the raw size with them */
static __always_inline __u32 members_of(__u64 cookie, __u8 *data, __u32 raw)
{
	__u32 key = cookie;
	struct trace_probe_cfg *cfg;

	if (!any_members)
		return raw;
	cfg = bpf_map_lookup_elem(&cfgs, &key);
	return cfg ? read_members(data, cfg, raw) : raw;
}

#endif
