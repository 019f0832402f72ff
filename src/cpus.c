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

/* The whole file, however long: a sparse list of thousands of CPUs is
 * longer than any buffer one would guess. */
static int read_cpu_file(const char *path, int *cpus, size_t max)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t got = 1;
	int fd, ret;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(buf);
		return ret;
	}
	while (got > 0) {
		if (len + 1 == cap) {
			char *b = realloc(buf, cap * 2);

			if (!b) {
				got = -1;
				errno = ENOMEM;
				break;
			}
			buf = b;
			cap *= 2;
		}
		got = read(fd, buf + len, cap - 1 - len);
		if (got > 0)
			len += (size_t)got;
	}
	ret = got < 0 ? -errno : len ? 0 : -EINVAL;
	close(fd);
	if (!ret) {
		buf[len] = '\0';
		ret = perfbuf_cpus__parse(buf, cpus, max);
	}
	free(buf);
	return ret;
}

int perfbuf_cpus__possible(int *cpus, size_t max)
{
	return read_cpu_file("/sys/devices/system/cpu/possible", cpus, max);
}

int perfbuf_cpus__online(int *cpus, size_t max)
{
	return read_cpu_file("/sys/devices/system/cpu/online", cpus, max);
}

/* A CPU list read into an array of exactly its length: no fixed bound,
 * memory in proportion to the CPUs listed. */
static int cpus_alloc(int (*read_list)(int *, size_t), int **out)
{
	size_t cap = 64;

	for (;;) {
		int *v = malloc(cap * sizeof(int)), n;

		if (!v)
			return -ENOMEM;
		n = read_list(v, cap);
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

int perfbuf_cpus_online_alloc(int **out)
{
	return cpus_alloc(perfbuf_cpus__online, out);
}

int perfbuf_cpus_possible_alloc(int **out)
{
	return cpus_alloc(perfbuf_cpus__possible, out);
}
