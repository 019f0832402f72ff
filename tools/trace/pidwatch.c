// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * -p PID ends the run when the process exits, as bpftrace's and perf's -p
 * do. A pidfd (Linux >= 5.3) becomes readable when the process exits; in
 * the collector's epoll set it wakes the poll at once. Without one the
 * loop looks at /proc at each wake-up, at least every 100 ms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perfbuf.h"
#include "pidwatch.h"
#include "common/say.h"

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434	/* the same on every architecture */
#endif

void pidwatch_open(struct pidwatch *w, pid_t pid, struct perfbuf *pb)
{
	w->pid = pid;
	w->fd = -1;
	if (!pid)
		return;
	/* ESRCH: gone already, the look says so; ENOSYS, EINVAL (a thread
	 * of another process): the look */
	w->fd = (int)syscall(__NR_pidfd_open, pid, 0);
	if (w->fd >= 0 && pb && perfbuf__add_wake_fd(pb, w->fd)) {
		close(w->fd);
		w->fd = -1;
	}
}

/* The programs compare the process ID (tgid): a thread's own ID would
 * match nothing. perf's -p is a process too (-t is a thread). */
int pidwatch_check_leader(const char *prog, pid_t pid)
{
	char path[64], line[128];
	long tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;	/* gone: the caller's check or the watch says so */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	fclose(f);
	if (!tgid || tgid == pid)
		return 0;
	cli_say(prog, "-p %d is a thread of process %ld: -p takes a process ID (-p %ld follows all its threads)\n",
		(int)pid, tgid, tgid);
	return -EINVAL;
}

/* No pidfd: /proc/PID/stat's state, after the command's ")" */
static bool proc_gone(pid_t pid)
{
	char path[64], buf[512], *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n == 0 || errno == ESRCH;
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

bool pidwatch_gone(const struct pidwatch *w)
{
	struct pollfd p = { .fd = w->fd, .events = POLLIN };

	if (!w->pid)
		return false;
	if (w->fd < 0)
		return proc_gone(w->pid);
	return poll(&p, 1, 0) > 0;
}

void pidwatch_close(struct pidwatch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	w->pid = 0;
}
