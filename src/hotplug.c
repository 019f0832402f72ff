// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CPU hotplug seen through kernel uevents: "online@/devices/system/cpu/cpuN"
 * and "offline@..." with SUBSYSTEM=cpu, multicast on group 1 of
 * NETLINK_KOBJECT_UEVENT to any process (no privilege needed). Only the
 * kernel (port id 0) is believed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>

#include "hotplug.h"

#define UEVENT_GROUP_KERNEL 1

int hotplug_open(void)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = UEVENT_GROUP_KERNEL,
	};
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_KOBJECT_UEVENT);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* The value of KEY= among the NUL-separated fields of @msg, or NULL. */
static const char *field(const char *msg, size_t len, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = msg; p < msg + len; p += strlen(p) + 1)
		if (!strncmp(p, key, klen) && p[klen] == '=')
			return p + klen + 1;
	return NULL;
}

/* 1 and the event when @msg is a CPU going on or off line, else 0. */
static int parse(const char *msg, size_t len, int *cpu, bool *online)
{
	const char *action = field(msg, len, "ACTION");
	const char *subsys = field(msg, len, "SUBSYSTEM");
	const char *path = field(msg, len, "DEVPATH");
	char *end;
	long n;

	if (!action || !subsys || !path || strcmp(subsys, "cpu") ||
	    strncmp(path, "/devices/system/cpu/cpu", 23))
		return 0;
	if (!strcmp(action, "online"))
		*online = true;
	else if (!strcmp(action, "offline"))
		*online = false;
	else
		return 0;
	path += 23;
	if (*path < '0' || *path > '9')
		return 0;
	n = strtol(path, &end, 10);
	if (*end || n > 65535)
		return 0;
	*cpu = (int)n;
	return 1;
}

int hotplug_next(int fd, int *cpu, bool *online)
{
	char buf[8192];

	for (;;) {
		struct sockaddr_nl sa;
		struct iovec iov = { buf, sizeof(buf) - 1 };
		struct msghdr mh = {
			.msg_name = &sa, .msg_namelen = sizeof(sa),
			.msg_iov = &iov, .msg_iovlen = 1,
		};
		ssize_t len = recvmsg(fd, &mh, MSG_DONTWAIT);

		if (len < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 :
			       -errno;
		if (sa.nl_pid != 0 || (mh.msg_flags & MSG_TRUNC))
			continue;
		buf[len] = '\0';
		if (parse(buf, (size_t)len, cpu, online))
			return 1;
	}
}
