// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * LD_PRELOAD=fake_cpus.so FAKE_CPUS_POSSIBLE=0-299 perfbuf ...: the
 * command (and libbpf in it) reads that list from
 * /sys/devices/system/cpu/possible, so that the tools meet a machine of
 * hundreds of CPUs on this one (those past the online ones are offline).
 * Not for the sanitizer builds (their runtime must come first).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fake(const char *path)
{
	const char *list = getenv("FAKE_CPUS_POSSIBLE");
	int fd;

	if (!list || strcmp(path, "/sys/devices/system/cpu/possible"))
		return -2;
	fd = memfd_create("possible", MFD_CLOEXEC);
	if (fd < 0 || write(fd, list, strlen(list)) < 0 || write(fd, "\n", 1) < 0 ||
	    lseek(fd, 0, SEEK_SET) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static mode_t mode_of(int flags, va_list ap)
{
	return flags & (O_CREAT | O_TMPFILE) ? va_arg(ap, mode_t) : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return openat(AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int openat(int dirfd, const char *path, int flags, ...)
{
	int fd = fake(path);
	va_list ap;
	mode_t mode;

	if (fd != -2)
		return fd;
	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}
