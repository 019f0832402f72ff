/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* CPU hotplug notifications: the kernel's uevents for CPU devices. */
#ifndef PERFBUF_HOTPLUG_H
#define PERFBUF_HOTPLUG_H

#include <stdbool.h>

/* A non-blocking NETLINK_KOBJECT_UEVENT socket on the kernel's group: an
 * fd for epoll, or a negative errno. Costs nothing while nothing happens. */
int hotplug_open(void);

/* The next CPU event read from @fd: 1 with *@cpu and *@online set, 0 when
 * none is left, -ENOBUFS when the socket overflowed (events were missed:
 * compare with /sys/devices/system/cpu/online), another negative errno. */
int hotplug_next(int fd, int *cpu, bool *online);

#endif
