// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Function latency: a return probe traced together with its entry probe
 * gets the field duration_ns, the time from the same thread's entry to
 * this return. The BPF programs pair them (bpf/trace_latency.bpf.h); here
 * each return finds its entry among the probes and says where its
 * duration goes in the record.
 */
#include <errno.h>
#include <string.h>

#include "common/say.h"
#include "args.h"
#include "probe.h"

#define LAT_FIELD "duration_ns"

static bool is_return(const struct trace_probe *p)
{
	return p->kind == PK_URETPROBE || p->kind == PK_KRETPROBE ||
	       p->kind == PK_FEXIT ||
	       (p->kind == PK_TRACEPOINT && p->sys_exit && p->sys_nr >= 0);
}

static bool same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* Whether @e is the entry of return probe @r: the same function at its
 * start (the same binary's), or the same syscall's sys_enter; @natural:
 * only the return's own mechanism's (kprobe for kretprobe, fentry for
 * fexit). An entry already paired is not: each return pops its own
 * entry's stack, one pop per push. */
static bool entry_of(const struct trace_probe *e, const struct trace_probe *r,
		     bool natural)
{
	if (e->cfg.lat)
		return false;
	if (natural && r->kind == PK_KRETPROBE && e->kind != PK_KPROBE)
		return false;
	if (natural && r->kind == PK_FEXIT && e->kind != PK_FENTRY)
		return false;
	switch (r->kind) {
	case PK_URETPROBE:
		return e->kind == PK_UPROBE && !e->offset &&
		       same(e->path, r->path) && same(e->target, r->target);
	case PK_KRETPROBE:
	case PK_FEXIT:
		return (e->kind == PK_KPROBE || e->kind == PK_FENTRY) &&
		       !e->offset && same(e->target, r->target);
	default:
		return e->kind == PK_TRACEPOINT && !e->sys_exit &&
		       e->sys_nr == r->sys_nr;
	}
}

/* Where @r's duration goes: after its raw data (a tracepoint's record,
 * ret, fexit's ret and six arguments), untyped ret made a typed field */
static int lat_field(struct trace_probe *r)
{
	struct tp_field *f;
	unsigned int off;

	off = r->kind == PK_TRACEPOINT ? (r->cfg.raw_size + 7) & ~7u :
	      r->kind == PK_FEXIT ? (TRACE_MAX_ARGS + 1) * 8 : 8;
	if (off + 8 > 64)	/* trace_latency.bpf.h's bound: never */
		return 0;
	if (r->kind == PK_TRACEPOINT) {
		r->cfg.raw_size = off + 8;
	} else {
		if (!r->typed) {	/* ret as printed untyped: signed */
			if (!(f = probe_field_add(r, "ret", 0)))
				return -ENOMEM;
			f->kind = FK_INT;
			f->size = 8;
			f->is_signed = true;
			f->slot = -1;
			r->typed = true;
		}
	}
	return probe_duration_field(r, off);
}

int probe_duration_field(struct trace_probe *r, unsigned int off)
{
	struct tp_field *f = probe_field_add(r, LAT_FIELD, off);

	if (!f)
		return -ENOMEM;
	f->kind = FK_DURATION;
	f->size = 8;
	f->slot = -1;
	r->cfg.lat = TRACE_LAT_RETURN;
	r->cfg.lat_off = off;
	return 0;
}

int probes_pair_latency(struct probe_set *set)
{
	for (int i = 0; i < set->n; i++) {
		struct trace_probe *r = &set->v[i];

		if (!is_return(r) || r->cfg.lat)
			continue;
		for (int k = 0; k < 2 * set->n; k++) {
			if (!entry_of(&set->v[k % set->n], r, k < set->n))
				continue;
			k %= set->n;
			if (lat_field(r)) {
				cli_say(set->prog, "out of memory\n");
				return -ENOMEM;
			}
			if (r->cfg.lat) {
				set->v[k].cfg.lat = TRACE_LAT_ENTRY;
				r->cfg.lat_entry = k;
			}
			break;
		}
	}
	return 0;
}

bool probes_latency(const struct probe_set *set)
{
	for (int i = 0; i < set->n; i++)
		if (set->v[i].cfg.lat)
			return true;
	return false;
}
