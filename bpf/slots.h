/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What bpf/slots.bpf.c reads of each CPU's slot, for tools/run/slots.c */
#ifndef PERFBUF_SLOTS_H
#define PERFBUF_SLOTS_H

struct slot {
	long long err;			/* of bpf_perf_event_read_value() */
	unsigned long long enabled;	/* ns the slot's event has been enabled */
};

#endif
