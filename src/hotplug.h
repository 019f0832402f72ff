/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* CPU hotplug notifications: the kernel's uevents for CPU devices. */
#ifndef PERFBUF_HOTPLUG_H
#define PERFBUF_HOTPLUG_H

#include <stdbool.h>
#include <linux/types.h>

/* A non-blocking NETLINK_KOBJECT_UEVENT socket on the kernel's group: an
 * fd for epoll, or a negative errno. Costs nothing while nothing happens. */
int hotplug_open(void);

/* What a CPU change does to a user of the uevents. */
typedef void (*hotplug_fn)(void *ctx, int cpu, bool online);

/* The uevents one hotplug_follow() of a poll reads at most. A CPU can go
 * offline and online faster than its events are read: the kernel makes
 * an event's set-up on a CPU wait for a hotplug under way (tens of ms,
 * then ENODEV), and a reader starved under load reads slower than uevents
 * come, so they may never run out; a poll must still return to its
 * caller, which looks at its stop flag between calls. The rest wait in
 * the socket, which stays readable. */
#define HOTPLUG_BATCH 16

/* Read at most @max uevents from @fd, none once *@stop (NULL: no stop) is
 * set, and hand the CPU events among them to @fn, in order. When events were missed (the socket overflowed), @fn
 * gets every possible CPU as it is now (an online one as coming online:
 * its event may be dead; when the CPU lists cannot be read, that is
 * logged and nothing handed), and the uevents older than that, still
 * queued, are dropped as they are read (*@stale, the follower's, 0 at
 * first, says which). 1 when it stopped at @max (more may wait), 0 when
 * none is left, or the negative errno of a socket that cannot be read: it
 * stays readable, so the caller must stop following (hotplug_stop()). */
int hotplug_follow(int fd, __u64 *stale, int max, const bool *stop,
		   hotplug_fn fn, void *ctx);

/* Stop following after hotplug_follow() failed with @err: *@fd out of
 * epoll @epfd, closed and -1, and one warning naming @err (CPUs coming
 * online are not served from then on). */
void hotplug_stop(int *fd, int epfd, int err);

#endif
