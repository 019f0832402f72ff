// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The standard process metrics (the names every Prometheus client library
 * exports) from /proc/self: CPU time, memory, start time, file descriptors.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "metrics.h"

struct proc_stat {
	unsigned long long utime, stime, starttime, vsize;
	long long rss;
};

/* /proc/self/stat: the fields after the command name (which may hold
 * spaces and parentheses: parse from the last ')') */
static int read_stat(struct proc_stat *ps)
{
	char buf[1024], *p;
	size_t n;
	FILE *f = fopen("/proc/self/stat", "re");

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt
	 * cmajflt utime stime cutime cstime priority nice threads
	 * itrealvalue starttime vsize rss */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d %*d %llu %llu %lld",
			 &ps->utime, &ps->stime, &ps->starttime, &ps->vsize,
			 &ps->rss) != 5)
		return -1;
	return 0;
}

/* btime of /proc/stat: the boot time, seconds since the epoch */
static long long boot_time(void)
{
	static long long btime = -1;
	char line[256];
	FILE *f;

	if (btime >= 0)
		return btime;
	f = fopen("/proc/stat", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %lld", &btime) == 1)
			break;
	fclose(f);
	return btime < 0 ? 0 : btime;
}

/* entries of /proc/self/fd, the directory's own fd not counted */
static long open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	long n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;
}

void metrics_process(struct expo *e)
{
	long tck = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	struct proc_stat ps;
	struct rlimit rl;
	long fds = open_fds();

	if (!read_stat(&ps) && tck > 0) {
		expo_one_double(e, "process_cpu_seconds_total", "counter",
				"Total user and system CPU time spent in seconds.",
				(double)(ps.utime + ps.stime) / tck);
		expo_one_u64(e, "process_resident_memory_bytes", "gauge",
			     "Resident memory size in bytes.",
			     ps.rss > 0 ? (__u64)ps.rss * page : 0);
		expo_one_u64(e, "process_virtual_memory_bytes", "gauge",
			     "Virtual memory size in bytes.", ps.vsize);
		expo_one_double(e, "process_start_time_seconds", "gauge",
				"Start time of the process since unix epoch in seconds.",
				boot_time() + (double)ps.starttime / tck);
	}
	if (fds >= 0)
		expo_one_u64(e, "process_open_fds", "gauge",
			     "Number of open file descriptors.", fds);
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		expo_one_u64(e, "process_max_fds", "gauge",
			     "Maximum number of open file descriptors.",
			     rl.rlim_cur);
}
