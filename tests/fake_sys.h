/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Races and faults the kernel does not produce on demand, for the library
 * linked into a test (statically): this binary's open(), ioctl() and
 * recvmsg() take the place of libc's. They pass every call through to the
 * system call unless a test arms them:
 *   - the online CPU list changing between two reads (a CPU coming online
 *     between a count and a read): successive contents of
 *     /sys/devices/system/cpu/online, the last one repeated;
 *   - a machine of many possible CPUs: the contents of
 *     /sys/devices/system/cpu/possible;
 *   - one ioctl request failing (a resume after a snapshot);
 *   - a uevent socket's receive failing with ENOBUFS (notices missed),
 *     after a hook has run (records written meanwhile), or failing for
 *     good, its message left unread;
 *   - a uevent as from the kernel, received next (after the failure):
 *     one queued before the overflow, older than what is online now;
 *   - a burst of uevents, two alternating (a CPU going offline and online
 *     faster than the events are read), a hook run before each.
 * Include it in one test file per binary; disarm with fake_sys_reset().
 */
#ifndef FAKE_SYS_H
#define FAKE_SYS_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct {
	const char *online[4];	/* NULL-terminated contents, last repeats */
	int online_reads;	/* opens served */
	const char *possible;	/* contents of .../cpu/possible */
	unsigned long ioctl_req;	/* fail this request ... */
	unsigned long ioctl_arg;	/* ... with this argument ... */
	int ioctl_errno;		/* ... with this errno, */
	int ioctl_fails;		/* this many times */
	int recvmsg_errno;	/* next recvmsg() on a netlink socket fails */
	bool recvmsg_sticky;	/* ... and every one after it, unread */
	int recvmsg_failed;	/* failures so far */
	void (*recvmsg_hook)(void);	/* run first */
	const char *uevent;		/* then this message (NUL-separated
					 * fields) is received ... */
	size_t uevent_len;		/* ... of this many bytes */
	const char *burst[2];		/* these two, alternating, are */
	size_t burst_len[2];
	int burst_left;			/* received this many times */
	int burst_served;		/* so far */
	void (*burst_hook)(int served);	/* run before each */
} fake;

static inline void fake_sys_reset(void)
{
	memset(&fake, 0, sizeof(fake));
}

/* A file of contents @s, read from its start. */
static inline int fake_file(const char *s)
{
	int fd = memfd_create("fake", MFD_CLOEXEC);

	if (fd >= 0 && (write(fd, s, strlen(s)) < 0 ||
			lseek(fd, 0, SEEK_SET) < 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	if (fake.online[0] && !strcmp(path, "/sys/devices/system/cpu/online")) {
		int i = 0;

		while (i < fake.online_reads && i < 3 && fake.online[i + 1])
			i++;
		fake.online_reads++;
		return fake_file(fake.online[i]);
	}
	if (fake.possible && !strcmp(path, "/sys/devices/system/cpu/possible"))
		return fake_file(fake.possible);
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

int ioctl(int fd, unsigned long req, ...)
{
	unsigned long arg;
	va_list ap;

	va_start(ap, req);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	if (fake.ioctl_fails && req == fake.ioctl_req && arg == fake.ioctl_arg) {
		fake.ioctl_fails--;
		errno = fake.ioctl_errno;
		return -1;
	}
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

/* @n bytes of @s received from the kernel (port 0) into @msg */
static inline ssize_t fake_uevent(struct msghdr *msg, const char *s, size_t n)
{
	if (n > msg->msg_iov[0].iov_len)
		n = msg->msg_iov[0].iov_len;
	memcpy(msg->msg_iov[0].iov_base, s, n);
	memset(msg->msg_name, 0, msg->msg_namelen);
	((struct sockaddr *)msg->msg_name)->sa_family = AF_NETLINK;
	msg->msg_flags = 0;
	return (ssize_t)n;
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if ((fake.recvmsg_errno || fake.uevent_len || fake.burst_left) &&
	    !getsockname(fd, (struct sockaddr *)&ss, &len) &&
	    ss.ss_family == AF_NETLINK) {
		int err = fake.recvmsg_errno;
		size_t n = fake.uevent_len;

		if (!err && n) {
			fake.uevent_len = 0;
			return fake_uevent(msg, fake.uevent, n);
		}
		if (!err) {
			int i = fake.burst_served % 2;

			if (fake.burst_hook)
				fake.burst_hook(fake.burst_served);
			fake.burst_served++;
			fake.burst_left--;
			return fake_uevent(msg, fake.burst[i], fake.burst_len[i]);
		}
		fake.recvmsg_failed++;
		if (!fake.recvmsg_sticky)
			fake.recvmsg_errno = 0;
		if (fake.recvmsg_hook)
			fake.recvmsg_hook();
		errno = err;
		return -1;
	}
	return syscall(SYS_recvmsg, fd, msg, flags);
}

#endif
