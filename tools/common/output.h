/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Output files (output.c): every command's -o FILE, --svg FILE,
 * --perf-data FILE, written so that no one else's file is ever written
 * into, and a run that fails leaves the file that was there. */
#ifndef PERFBUF_COMMON_OUTPUT_H
#define PERFBUF_COMMON_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

/* An output being written. Zeroed: not open (commit and discard do
 * nothing). */
struct cli_out {
	int fd;		/* written to (or through @f) */
	FILE *f;	/* cli_out__stream()'s, closed with @fd */
	char *path;	/* the output's name; NULL: not open */
	char *tmp;	/* written here, renamed to @path at the commit (NULL:
			 * written to @path itself) */
	bool created;	/* @path made here: a discard removes it */
};

/* Open @path for writing:
 * - an existing regular file is not opened: a new 0600 PATH.XXXXXX
 *   beside it (the same file system) is, and replaces it at the commit;
 *   the old file's owner and mode are not kept, and it stays as it was
 *   if the run fails (a discard);
 * - no file: created 0600 with O_EXCL (one planted meanwhile is never
 *   opened);
 * - a FIFO or a device (/dev/null) is written as it is;
 * - refused: a symbolic link (-ELOOP), a file with other hard links
 *   (-EMLINK), a FIFO without a reader after a second (-ENXIO), a
 *   socket (-EOPNOTSUPP).
 * 0 or -errno (cli_cannot_write() says it). */
int cli_out__open(struct cli_out *o, const char *path);
/* @o's fd as a stdio stream (made once); NULL with errno. */
FILE *cli_out__stream(struct cli_out *o);
/* The end of a run that wrote its output: flushed (@sync: to the disk),
 * closed, and in place of the old file. 0 or -errno (the write-back's or
 * the rename's). */
int cli_out__commit(struct cli_out *o, bool sync);
/* The end of a run that did not: closed, the temporary file (or the file
 * made here) removed, an old file left as it was. */
void cli_out__discard(struct cli_out *o);

/* Is @fd a regular file? (--width never cuts what goes to one) */
bool cli_is_file(int fd);
/* What to say about cli_out__open()'s @err. */
const char *cli_output_error(int err);
/* What keeps @path from being written, in words, into @buf: "cannot write
 * 'F': why", or "cannot create 'F': its directory 'D' ..." when the file
 * is not there because of its directory */
void cli_output_why(const char *path, int err, char *buf, size_t sz);
/* The line of every command whose output @path failed to open with @err
 * (cli_out__open()'s, or a capture writer's): "PROG: cannot write
 * 'PATH': why". Returns @err. */
int cli_cannot_write(const char *prog, const char *path, int err);

#endif
