/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Output files (file.c): every command's -o FILE,
 * --svg FILE, --perf-data FILE, written so that no one else's file is
 * ever written into, a run that fails before it starts leaves the file
 * that was there, and a run that ends in any way leaves its output where
 * it can be found (docs/output-files.md). */
#ifndef PERFBUF_OUTPUT_FILE_H
#define PERFBUF_OUTPUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

/* Beside an existing FILE, the output is written into FILE.perfbuf-part
 * until it replaces FILE: one name, so a killed run leaves at most one,
 * which the next run with the same FILE finds, says and removes. */
#define CLI_OUT_PART ".perfbuf-part"

/* An output being written. Zeroed: not open (commit and discard do
 * nothing). */
struct out_file {
	int fd;		/* written to (or through @f) */
	FILE *f;	/* out_file__stream()'s, closed with @fd */
	const char *prog;	/* names the lines said (cli_say()) */
	char *path;	/* the output's name; NULL: not open */
	char *tmp;	/* PATH.perfbuf-part, locked, written until it becomes
			 * @path (NULL: written to @path itself) */
	bool created;	/* @path made here: a discard removes it */
};

/* Open @path for writing (@prog names the lines said):
 * - an existing regular file is not opened: PATH.perfbuf-part beside it
 *   (0600, the same file system) is, and replaces it when published or
 *   at the commit; the old file's owner and mode are not kept, and it
 *   stays as it was if the run fails before (a discard). One that can
 *   never be replaced nor written into is refused now: immutable or
 *   append-only (-EPERM), a mount point of another user's (-EXDEV); a
 *   mount point of ours is written into at the end (said now);
 * - no file: created 0600 with O_EXCL (one planted meanwhile is never
 *   opened);
 * - a FIFO or a device (/dev/null) is written as it is;
 * - /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: that fd of
 *   ours, whatever it is (a pipe, a terminal, a socket);
 * - refused: a symbolic link (-ELOOP), a file with other hard links
 *   (-EMLINK), a FIFO without a reader after a second (-ENXIO), a
 *   socket (-EOPNOTSUPP), a PATH.perfbuf-part another run holds
 *   (-EALREADY) or that no run of ours left (-EEXIST).
 * 0 or -errno (out_file_cannot_write() says it). */
int out_file__open(struct out_file *o, const char *prog, const char *path);
/* @o's fd as a stdio stream (made once); NULL with errno. */
FILE *out_file__stream(struct out_file *o);
/* A run that started: what is written so far becomes @path, and what
 * follows is written into it (a stream's file is then @path while the
 * run goes, and a kill leaves it there). Renamed over the old file; when
 * that cannot be (a mount point: EBUSY), copied into it. 0, or -errno
 * after a line on stderr; @keep: the output then goes on into
 * PATH.perfbuf-part (the line says so), else the caller ends the run. */
int out_file__publish(struct out_file *o, bool keep);
/* The end of a run that wrote its output: flushed (@sync: to the disk),
 * in place of the old file (published), closed. When neither a rename
 * nor a copy can put it there, PATH.perfbuf-part is kept. 0, or -errno
 * after a line on stderr saying what failed and where the output is. */
int out_file__commit(struct out_file *o, bool sync);
/* The end of a run that did not: closed, the part file (or the file
 * made here) removed, an old file left as it was. */
void out_file__discard(struct out_file *o);

/* Why events meant for the output @name did not reach it (@err, a
 * write's), as the summaries say it, into @buf: "disk full (NAME)",
 * "output closed (broken pipe)". */
void out_file_write_failure(int err, const char *name, char *buf, size_t sz);
/* Is @fd a regular file? (--width never cuts what goes to one) */
bool out_file_is_regular(int fd);
/* What to say about out_file__open()'s @err. */
const char *out_file_error(int err);
/* What keeps @path from being written, in words, into @buf: "cannot write
 * 'F': why", or "cannot create 'F': its directory 'D' ..." when the file
 * is not there because of its directory */
void out_file_why(const char *path, int err, char *buf, size_t sz);
/* The line of every command whose output @path failed to open with @err
 * (out_file__open()'s, or a capture writer's): "PROG: cannot write
 * 'PATH': why". Returns @err. */
int out_file_cannot_write(const char *prog, const char *path, int err);

#endif
