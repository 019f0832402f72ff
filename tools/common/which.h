/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A program named on the command line found as execvp(3) finds it: the
 * one search for `trace -c CMD` (which runs what it found) and for
 * uprobe:BIN:FUNC and `list uprobe:BIN:GLOB` (bpftrace's: BIN through
 * $PATH when it has no '/'), so that `-c name` and `uprobe:name:f` are
 * the same file, and a name not found is said in the same words.
 */
#ifndef TOOLS_COMMON_WHICH_H
#define TOOLS_COMMON_WHICH_H

#include <stddef.h>

/* @name into @out (@sz bytes): itself when it has a '/' (a regular file
 * of any mode: a library is probed, not run), else the first executable
 * regular file of that name in the directories of $PATH (an empty entry
 * is the working directory; no $PATH: glibc's /bin:/usr/bin), as
 * execvp(3) would run. 0, or -ENOENT (none), -EACCES (only files that may
 * not be run), -EISDIR, -ENODEV (not a regular file), -ENAMETOOLONG, or
 * stat(2)'s error for a path */
int cli_which(const char *name, char *out, size_t sz);

/* cli_which()'s @err for @name said in one line, "PROG: [WHAT: ]NAME:
 * command not found (give a path, or a command in $PATH)", "PROG: [WHAT:
 * ]no such binary 'NAME'" (a path), or "PROG: [WHAT: ]NAME: WHY" */
void cli_which_say(const char *prog, const char *what, const char *name, int err);

#endif
