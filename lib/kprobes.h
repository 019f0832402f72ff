/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Does this kernel have kprobes? The one probe, for the library (an
 * object's kprobe program that cannot attach: src/object.c says why) and
 * the tool (trace's kprobe fallbacks, run's choice of programs:
 * tools/common/kfeat.c). A kernel without CONFIG_KPROBES has neither the
 * kprobe PMU nor tracefs' kprobe_events; attaching then fails as if the
 * function were missing (ENOENT), which is not what to tell a user.
 */
#ifndef PERFBUF_KPROBES_H
#define PERFBUF_KPROBES_H

#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

/* @tracefs: where tracefs is mounted (NULL: its two usual places) */
static inline bool kprobes_in_kernel(const char *tracefs)
{
	char path[256];

	if (!access("/sys/bus/event_source/devices/kprobe/type", F_OK))
		return true;
	if (tracefs) {
		snprintf(path, sizeof(path), "%s/kprobe_events", tracefs);
		return !access(path, F_OK);
	}
	return !access("/sys/kernel/tracing/kprobe_events", F_OK) ||
	       !access("/sys/kernel/debug/tracing/kprobe_events", F_OK);
}

#endif
