// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Output files: the one way every command opens, puts in place and
 * removes what it writes (file.h). */
#define _GNU_SOURCE	/* statx */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>

#include "file.h"
#include "common/say.h"

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000	/* Linux 5.8 */
#endif

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

/* /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the number of
 * an fd of ours by name, else -1. (Each is a link to what the fd is,
 * which a pipe or a socket cannot be opened through.) */
static int named_fd(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/",
					     "/proc/thread-self/fd/" };
	char *end;
	long n;

	if (!strcmp(path, "/dev/stdout"))
		return 1;
	if (!strcmp(path, "/dev/stderr"))
		return 2;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t len = strlen(dirs[i]);

		if (strncmp(path, dirs[i], len) || path[len] < '0' || path[len] > '9')
			continue;
		errno = 0;
		n = strtol(path + len, &end, 10);
		return *end || errno || n > 1 << 20 ? -1 : (int)n;
	}
	return -1;
}

/* That fd, as the shell gave it (written directly): a copy of it, or
 * -EBADF when it is not open for writing, -EISDIR. */
static int open_named_fd(int n)
{
	int fd = fcntl(n, F_DUPFD_CLOEXEC, 3), fl, err = 0;
	struct stat st;

	if (fd < 0)
		return -EBADF;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY || fstat(fd, &st))
		err = -EBADF;
	else if (S_ISDIR(st.st_mode))
		err = -EISDIR;
	if (!err)
		return fd;
	close(fd);
	return err;
}

/* Our new part file, locked while it is written: a run that finds it
 * unlocked takes it for a killed run's. Removed by such a run between
 * our open and our lock: 1 (made again). */
static int hold_part(int fd)
{
	struct stat st;

	if ((flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK) ||
	    fstat(fd, &st) || st.st_nlink != 1) {
		close(fd);
		return 1;
	}
	return fd;	/* (no locks on this file system: unlocked) */
}

/* PATH.perfbuf-part is there already: another run's, being written
 * (locked: -EALREADY), one a killed run of ours left (said, removed: 1,
 * to make ours), or not ours to remove (-EEXIST). */
static int clear_leftover(struct out_file *o)
{
	int fd = open(o->tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK), err = 1;
	struct stat st, now;

	if (fd < 0)
		return errno == ENOENT ? 1 : errno == ELOOP ? -EEXIST : -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    st.st_uid != geteuid())
		err = -EEXIST;
	else if (flock(fd, LOCK_EX | LOCK_NB))
		err = errno == EWOULDBLOCK ? -EALREADY : -errno;
	else if (!lstat(o->tmp, &now) && now.st_ino == st.st_ino && now.st_dev == st.st_dev) {
		cli_say(o->prog, "'%s' was left by a run that was killed before its output became '%s' (%lld bytes): removed\n",
			o->tmp, o->path, (long long)st.st_size);
		err = unlink(o->tmp) ? -errno : 1;
	}
	close(fd);
	return err;
}

/* PATH.perfbuf-part beside @o->path: the same directory, so the same
 * file system for the rename. Read-write: copied from if the rename
 * cannot be. The fd or -errno. */
static int open_beside(struct out_file *o)
{
	const int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = 1;

	o->tmp = malloc(strlen(o->path) + sizeof(CLI_OUT_PART));
	if (!o->tmp)
		return -ENOMEM;
	sprintf(o->tmp, "%s" CLI_OUT_PART, o->path);
	for (int i = 0; i < 8 && fd == 1; i++) {
		fd = open(o->tmp, flags, 0600);
		if (fd >= 0)
			fd = hold_part(fd);
		else
			fd = errno == EEXIST ? clear_leftover(o) : -errno;
	}
	if (fd >= 0 && fd != 1)
		return fd;
	free(o->tmp);
	o->tmp = NULL;
	return fd == 1 ? -EBUSY : fd;
}

/* Can @fd, an output opened where it is, be written into? Only a regular
 * file of one link that is ours (a mount point another user's file was
 * bound on is not written into): 0, or -EMLINK, -EXDEV. */
static int own_file(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EISDIR;
	if (st.st_nlink != 1)
		return -EMLINK;
	return st.st_uid == geteuid() ? 0 : -EXDEV;
}

/* @path opened for writing where it is, if own_file(): the fd or -errno */
static int open_own(const char *path)
{
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	int err = fd < 0 ? -errno : own_file(fd);

	if (err && fd >= 0)
		close(fd);
	return err ?: fd;
}

/* FS_IMMUTABLE_FL or FS_APPEND_FL: what @path has of them (0: neither,
 * or it cannot be told) */
static int kept_flags(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	int flags = 0;

	if (fd < 0)
		return 0;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags))
		flags = 0;
	close(fd);
	return flags & (FS_IMMUTABLE_FL | FS_APPEND_FL);
}

/* An existing file about to be replaced: refused now when that can never
 * be (immutable or append-only: -EPERM; a mount point that cannot be
 * written into); a mount point is said now, as it will be written into. */
static int check_replaceable(struct out_file *o)
{
	struct statx stx;
	int fd;

	if (kept_flags(o->path))
		return -EPERM;
	if (statx(AT_FDCWD, o->path, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &stx) ||
	    !(stx.stx_attributes_mask & stx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return 0;
	/* rename() over a mount point is EBUSY: written into at the end */
	fd = open_own(o->path);
	if (fd < 0)
		return fd;
	close(fd);
	cli_say(o->prog, "'%s' is a mount point, which cannot be replaced: the output is written into it\n",
		o->path);
	return 0;
}

/* One look at @o->path and the open that fits what is there; -EAGAIN
 * when it changed between the look and the open. */
static int open_once(struct out_file *o)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	struct stat st;
	int fd = named_fd(o->path);

	if (fd >= 0)
		return open_named_fd(fd);
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
		return check_replaceable(o) ?: open_beside(o);
	if (S_ISREG(st.st_mode))
		return -EMLINK;	/* renamed over, its other names would keep the old */
	if (S_ISSOCK(st.st_mode))
		return -EOPNOTSUPP;	/* open() says ENXIO, as for a FIFO unread */
	return open_in_place(o->path);
}

int out_file__open(struct out_file *o, const char *prog, const char *path)
{
	int fd = -EAGAIN;

	memset(o, 0, sizeof(*o));
	o->prog = prog;
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

FILE *out_file__stream(struct out_file *o)
{
	if (!o->f)
		o->f = fdopen(o->fd, "w");
	return o->f;
}

/* @o->tmp's bytes into @o->path, which a rename cannot replace (a mount
 * point): only into a file of our own, truncated first. The fd, at the
 * end of the bytes, or -errno. */
static int copy_in_place(struct out_file *o)
{
	int fd = open_own(o->path);
	int err = fd < 0 ? fd : 0;
	off_t off = 0;
	ssize_t n = 1;

	if (!err && ftruncate(fd, 0))
		err = -errno;
	while (!err && n > 0) {
		n = sendfile(fd, o->fd, &off, 1 << 30);
		if (n < 0 && errno != EINTR)
			err = -errno;
	}
	if (err && fd >= 0)
		close(fd);
	return err ?: fd;
}

/* @o->tmp becomes @o->path: renamed over it, or copied into it when it
 * cannot be replaced (its @rename_err); @o->fd then writes into @o->path.
 * 0, or -errno with @o as it was. */
static int place(struct out_file *o, int *rename_err)
{
	int fd;

	if (o->f && fflush(o->f))
		return -errno;
	if (rename(o->tmp, o->path)) {
		*rename_err = -errno;
		fd = copy_in_place(o);
		if (fd < 0)
			return fd;
		/* the same fd number: @o->f and those holding it go on */
		if (dup3(fd, o->fd, O_CLOEXEC) < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		close(fd);
		unlink(o->tmp);
	}
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

/* "PROG: cannot write 'F' (why; renaming over it: why); @then" */
static void say_unplaced(struct out_file *o, int err, int rename_err, const char *then)
{
	char why[4400];

	out_file_why(o->path, err, why, sizeof(why));
	cli_say(o->prog, "%s (replacing it: %s)%s%s%s\n", why, strerror(-rename_err),
		then ? "; " : "", then ? then : "", then ? o->tmp : "");
}

int out_file__publish(struct out_file *o, bool keep)
{
	int rename_err = 0, err;

	if (!o->path || !o->tmp)
		return 0;
	err = place(o, &rename_err);
	if (err)
		say_unplaced(o, err, rename_err, keep ? "the output goes on into " : NULL);
	return err;
}

/* Flushed (@sync: to the disk): 0 or the -errno of the write-back. */
static int out_sync(struct out_file *o, bool sync)
{
	if (o->f && fflush(o->f))
		return -errno;
	if (sync && fsync(o->fd) && errno != EINVAL)
		return -errno;
	return 0;
}

/* Close @o's stream or fd: 0 or the -errno of the last write-back. */
static int out_close(struct out_file *o)
{
	int err = 0;

	if (o->f ? fclose(o->f) : close(o->fd))
		err = errno == EINTR ? 0 : -errno;
	o->f = NULL;
	return err;
}

static void out_free(struct out_file *o)
{
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
}

int out_file__commit(struct out_file *o, bool sync)
{
	int err, perr = 0, rename_err = 0;

	if (!o->path)
		return 0;
	err = out_sync(o, sync);
	/* (an output cut by a full disk too: what it holds is readable) */
	if (o->tmp)
		perr = place(o, &rename_err);
	err = out_close(o) ?: err;
	if (perr)
		say_unplaced(o, perr, rename_err, "the output is kept in ");
	else if (err)
		cli_say(o->prog, "writing '%s' failed: %s\n", o->path, strerror(-err));
	out_free(o);
	return perr ?: err;
}

void out_file__discard(struct out_file *o)
{
	if (!o->path)
		return;
	out_sync(o, false);
	out_close(o);
	if (o->tmp || o->created)
		unlink(o->tmp ? o->tmp : o->path);
	out_free(o);
}

void out_file_write_failure(int err, const char *name, char *buf, size_t sz)
{
	switch (-err) {
	case EPIPE:
		snprintf(buf, sz, "output closed (broken pipe)");
		break;
	case ENOSPC:
		snprintf(buf, sz, "disk full (%s)", name);
		break;
	case EDQUOT:
		snprintf(buf, sz, "disk quota exceeded (%s)", name);
		break;
	default:
		snprintf(buf, sz, "%s (%s)", strerror(-err), name);
	}
}

bool out_file_is_regular(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISREG(st.st_mode);
}

const char *out_file_error(int err)
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
	case EALREADY:
		return "another perfbuf run is writing it now (its '" CLI_OUT_PART "' file is locked)";
	case EEXIST:
		return "its name with '" CLI_OUT_PART "' added is taken by a file no run of ours left; remove that";
	case EXDEV:
		return "it cannot be replaced, and it is another user's file, which is not written into";
	case EBADF:
		return "that file descriptor is not open for writing";
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

/* EPERM on a file the kernel keeps as it is (chattr +i or +a): the flag
 * named into @buf; false when it has neither */
static bool why_flags(const char *path, int err, char *buf, size_t sz)
{
	int flags = err == -EPERM ? kept_flags(path) : 0;

	if (!flags)
		return false;
	snprintf(buf, sz, "cannot write '%s': it is %s (chattr +%c): clear that with 'chattr -%c', or give another file",
		 path, flags & FS_IMMUTABLE_FL ? "immutable" : "append-only",
		 flags & FS_IMMUTABLE_FL ? 'i' : 'a', flags & FS_IMMUTABLE_FL ? 'i' : 'a');
	return true;
}

void out_file_why(const char *path, int err, char *buf, size_t sz)
{
	if (!why_directory(path, err, buf, sz) && !why_flags(path, err, buf, sz))
		snprintf(buf, sz, "cannot write '%s': %s", path, out_file_error(err));
}

int out_file_cannot_write(const char *prog, const char *path, int err)
{
	char why[4400];

	out_file_why(path, err, why, sizeof(why));
	cli_say(prog, "%s\n", why);
	return err;
}
