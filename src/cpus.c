// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* CPU lists: "0-3,8,10-11" as in /sys/devices/system/cpu/{possible,online}. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

#define MAX_CPU 65535

int perfbuf_cpus__parse(const char *s, int *cpus, size_t max)
{
	size_t n = 0;

	while (*s && *s != '\n') {
		char *end;
		long lo, hi;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		lo = strtol(s, &end, 10);
		hi = lo;
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				return -EINVAL;
			hi = strtol(s, &end, 10);
		}
		if (lo > hi || hi > MAX_CPU)
			return -EINVAL;
		for (long c = lo; c <= hi; c++, n++)
			if (n < max)
				cpus[n] = (int)c;
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return n ? (int)n : -EINVAL;
}

static int read_cpu_file(const char *path, int *cpus, size_t max)
{
	char buf[4096];
	ssize_t len;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return len < 0 ? -errno : -EINVAL;
	buf[len] = '\0';
	return perfbuf_cpus__parse(buf, cpus, max);
}

int perfbuf_cpus__possible(int *cpus, size_t max)
{
	return read_cpu_file("/sys/devices/system/cpu/possible", cpus, max);
}

int perfbuf_cpus__online(int *cpus, size_t max)
{
	return read_cpu_file("/sys/devices/system/cpu/online", cpus, max);
}

int perfbuf_cpus_online_alloc(int **out)
{
	size_t cap = 64;

	for (;;) {
		int *v = malloc(cap * sizeof(int)), n;

		if (!v)
			return -ENOMEM;
		n = perfbuf_cpus__online(v, cap);
		if (n >= 0 && (size_t)n <= cap) {
			*out = v;
			return n;
		}
		free(v);
		if (n < 0)
			return n;
		/* more than room for: read again into as many (a CPU may
		 * come online in between: then again) */
		cap = (size_t)n;
	}
}
