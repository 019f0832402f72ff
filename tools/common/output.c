// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Output files: the one way every command opens, replaces and removes
 * what it writes (output.h). */
#define _GNU_SOURCE	/* mkostemp */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "output.h"

/* A FIFO's reader started just before us (`cat FIFO & perfbuf ... -o
 * FIFO`) may not have opened it yet: give it a second, never longer (a
 * blocking open() would ignore -d). A signal ends the wait. */
static int open_fifo_grace(const char *path, int flags)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int fd = -1;

	for (int i = 0; i < 100 && fd < 0 && errno == ENXIO; i++) {
		if (nanosleep(&tick, NULL))
			break;
		fd = open(path, flags);
	}
	if (fd < 0)
		errno = ENXIO;
	return fd;
}

/* What is there and not a plain file of one link: a FIFO or a device,
 * written as it is; never through a symlink (O_NOFOLLOW: -ELOOP). A
 * regular file found now was put there since the lstat(): -EAGAIN, to
 * look again. */
static int open_in_place(const char *path)
{
	/* O_NONBLOCK: a FIFO's open() would wait for a reader (ENXIO now) */
	const int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
	struct stat st;
	int fd, err;

	fd = open(path, flags);
	if (fd < 0 && errno == ENXIO)
		fd = open_fifo_grace(path, flags);
	if (fd < 0)
		return errno == ENOENT ? -EAGAIN : -errno;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) || fstat(fd, &st)) {
		err = -errno;
	} else if (S_ISREG(st.st_mode)) {
		err = st.st_nlink > 1 ? -EMLINK : -EAGAIN;
	} else {
		return fd;
	}
	close(fd);
	return err;
}

/* PATH.XXXXXX beside @o->path: the same directory, so the same file
 * system for the rename. The fd or -errno. */
static int open_beside(struct cli_out *o)
{
	int fd;

	o->tmp = malloc(strlen(o->path) + 8);
	if (!o->tmp)
		return -ENOMEM;
	sprintf(o->tmp, "%s.XXXXXX", o->path);
	fd = mkostemp(o->tmp, O_CLOEXEC);	/* 0600, O_EXCL */
	if (fd >= 0)
		return fd;
	fd = -errno;
	free(o->tmp);
	o->tmp = NULL;
	return fd;
}

/* One look at @o->path and the open that fits what is there; -EAGAIN
 * when it changed between the look and the open. */
static int open_once(struct cli_out *o)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	struct stat st;
	int fd;

	if (lstat(o->path, &st)) {
		if (errno != ENOENT)
			return -errno;
		fd = open(o->path, flags, 0600);
		if (fd < 0)
			return errno == EEXIST ? -EAGAIN : -errno;
		o->created = true;
		return fd;
	}
	if (S_ISREG(st.st_mode) && st.st_nlink == 1)
		return open_beside(o);
	if (S_ISREG(st.st_mode))
		return -EMLINK;	/* renamed over, its other names would keep the old */
	if (S_ISSOCK(st.st_mode))
		return -EOPNOTSUPP;	/* open() says ENXIO, as for a FIFO unread */
	return open_in_place(o->path);
}

int cli_out__open(struct cli_out *o, const char *path)
{
	int fd = -EAGAIN;

	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	if (!o->path)
		return -ENOMEM;
	/* a file that comes and goes under us: a few looks, then its error */
	for (int i = 0; i < 8 && fd == -EAGAIN; i++)
		fd = open_once(o);
	if (fd < 0) {
		free(o->path);
		o->path = NULL;
		return fd == -EAGAIN ? -EBUSY : fd;
	}
	o->fd = fd;
	return 0;
}

FILE *cli_out__stream(struct cli_out *o)
{
	if (!o->f)
		o->f = fdopen(o->fd, "w");
	return o->f;
}

/* Close @o's stream or fd: 0 or the -errno of the last write-back. */
static int out_close(struct cli_out *o, bool sync)
{
	int err = 0;

	if (o->f && fflush(o->f))
		err = -errno;
	if (!err && sync && fsync(o->fd) && errno != EINVAL)
		err = -errno;
	if (o->f ? fclose(o->f) : close(o->fd))
		err = err ?: (errno == EINTR ? 0 : -errno);
	o->f = NULL;
	return err;
}

static void out_free(struct cli_out *o)
{
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
}

int cli_out__commit(struct cli_out *o, bool sync)
{
	int err;

	if (!o->path)
		return 0;
	err = out_close(o, sync);
	/* (an output cut by a full disk too: what it holds is readable) */
	if (o->tmp && rename(o->tmp, o->path)) {
		err = err ?: -errno;
		unlink(o->tmp);
	}
	out_free(o);
	return err;
}

void cli_out__discard(struct cli_out *o)
{
	if (!o->path)
		return;
	out_close(o, false);
	if (o->tmp || o->created)
		unlink(o->tmp ? o->tmp : o->path);
	out_free(o);
}

bool cli_is_file(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISREG(st.st_mode);
}

const char *cli_output_error(int err)
{
	switch (-err) {
	case ELOOP:
		return "it is a symbolic link (not followed); give the file it points to";
	case EMLINK:
		return "it has other hard links; refusing to replace it";
	case ENXIO:
		return "a FIFO with no reader; start its reader first";
	case EOPNOTSUPP:
		return "it is a socket, which cannot be opened; give a file, a FIFO or a device";
	case EBUSY:
		return "it keeps being replaced by another process";
	default:
		return strerror(-err);
	}
}

/* A file that is not there cannot be made for its directory's sake:
 * that directory named, with why (a missing one, a read-only file
 * system, no write permission) into @buf; false when the file exists or
 * the error is not one of those */
static bool why_directory(const char *path, int err, char *buf, size_t sz)
{
	const char *slash = strrchr(path, '/'), *why;
	struct stat st;
	char dir[4096];

	if ((err != -ENOENT && err != -EROFS && err != -EACCES && err != -ENOTDIR) ||
	    !lstat(path, &st) || errno != ENOENT)
		return false;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) ?: 1 : 1,
		 slash ? path : ".");
	if (stat(dir, &st))
		why = errno == ENOENT ? "does not exist" : strerror(errno);
	else if (!S_ISDIR(st.st_mode))
		why = "is not a directory";
	else if (err == -EROFS)
		why = "is on a read-only file system";
	else if (err == -EACCES)
		why = "is not writable by this user";
	else
		return false;
	snprintf(buf, sz, "cannot create '%s': its directory '%s' %s", path, dir, why);
	return true;
}

void cli_output_why(const char *path, int err, char *buf, size_t sz)
{
	if (!why_directory(path, err, buf, sz))
		snprintf(buf, sz, "cannot write '%s': %s", path, cli_output_error(err));
}

int cli_cannot_write(const char *prog, const char *path, int err)
{
	char why[4400];

	cli_output_why(path, err, why, sizeof(why));
	fprintf(stderr, "%s: %s\n", prog, why);
	return err;
}
