// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CPU hotplug seen through kernel uevents: "online@/devices/system/cpu/cpuN"
 * and "offline@..." with SUBSYSTEM=cpu, multicast on group 1 of
 * NETLINK_KOBJECT_UEVENT to any process (no privilege needed). Only the
 * kernel (port id 0) is believed.
 *
 * hotplug_follow() is the one reading of them for every user (the
 * collector, the sampler): each says only what a CPU change does to it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>

#include "hotplug.h"
#include "internal.h"

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

/* The next message of the kernel on @fd: 2 with its SEQNUM in *@seq (0
 * when it has none) and, when it is a CPU going on or off line, 1 and the
 * event set too; 0 when none is left, -ENOBUFS when the socket overflowed
 * (events were missed), another negative errno. */
static int next_message(int fd, __u64 *seq, int *cpu, bool *online)
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
		const char *num;

		if (len < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 :
			       -errno;
		if (sa.nl_pid != 0 || (mh.msg_flags & MSG_TRUNC))
			continue;
		buf[len] = '\0';
		num = field(buf, (size_t)len, "SEQNUM");
		*seq = num ? strtoull(num, NULL, 10) : 0;
		return parse(buf, (size_t)len, cpu, online) ? 1 : 2;
	}
}

/* The kernel's count of uevents sent: every one numbered up to it was
 * sent before; UINT64_MAX when it cannot be read. */
static __u64 uevents_sent(void)
{
	unsigned long long n;
	FILE *f = fopen("/sys/kernel/uevent_seqnum", "re");
	bool ok = f && fscanf(f, "%llu", &n) == 1;

	if (f)
		fclose(f);
	return ok ? (__u64)n : UINT64_MAX;
}

static bool listed(const int *list, int n, int cpu)
{
	for (int i = 0; i < n; i++)
		if (list[i] == cpu)
			return true;
	return false;
}

/* Events were missed: a CPU may have gone and come back unseen, its event
 * dead, so every possible CPU is handed over as /sys says it is now, an
 * online one as if it had just come online. The uevents still queued
 * that are older than these lists would undo them (an "offline" of a CPU
 * online now): those numbered up to the count read before the lists are
 * dropped as they are read (*@stale); where the count cannot be read,
 * every one queued until the socket is found empty. */
static void reconcile(__u64 *stale, hotplug_fn fn, void *ctx)
{
	int *online = NULL, *possible = NULL, n_on, n_pos;

	*stale = uevents_sent();
	n_on = perfbuf_cpus_online_alloc(&online);
	n_pos = n_on < 0 ? n_on : perfbuf_cpus_possible_alloc(&possible);
	if (n_pos < 0) {
		pr_warn("CPU hotplug events were missed and the CPU lists cannot be read: %s\n",
			strerror(-n_pos));
	} else {
		for (int i = 0; i < n_pos; i++)
			fn(ctx, possible[i], listed(online, n_on, possible[i]));
	}
	free(online);
	free(possible);
}

int hotplug_follow(int fd, __u64 *stale, int max, const bool *stop,
		   hotplug_fn fn, void *ctx)
{
	__u64 seq;
	bool online;
	int cpu, ret = 0;

	for (int n = 0; n < max; n++) {
		/* a ring's set-up (@fn) may wait tens of ms for a hotplug
		 * under way: a stop asked meanwhile ends the reading */
		if (stop && __atomic_load_n(stop, __ATOMIC_ACQUIRE)) {
			ret = 1;
			break;
		}
		ret = next_message(fd, &seq, &cpu, &online);
		if (ret == -ENOBUFS) {
			reconcile(stale, fn, ctx);
			ret = 2;	/* the socket itself is fine */
		} else if (ret == 0 && *stale == UINT64_MAX) {
			*stale = 0;	/* what was queued is gone */
		} else if (ret == 1 && (seq ? seq > *stale : *stale != UINT64_MAX)) {
			/* (one without SEQNUM is new unless all are dropped) */
			fn(ctx, cpu, online);
		}
		if (ret <= 0)
			break;
	}
	return ret < 0 ? ret : ret > 0;	/* 1: stopped at @max, or asked to */
}

void hotplug_stop(int *fd, int epfd, int err)
{
	pr_warn("reading CPU hotplug events failed: %s; CPUs that come online from now on get no ring\n",
		strerror(-err));
	epoll_ctl(epfd, EPOLL_CTL_DEL, *fd, NULL);
	close(*fd);
	*fd = -1;
}
