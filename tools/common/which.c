// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program found as execvp(3) finds it (which.h). $PATH is taken from
 * the environment even by a privileged (setcap) perfbuf, as execvp takes
 * it: the name is the caller's, and a caller who may give any path with
 * a '/' gains nothing by steering the search.
 */
#define _GNU_SOURCE	/* strchrnul */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "say.h"
#include "which.h"

/* @path as the file named: 0 or -errno */
static int regular(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	return S_ISREG(st.st_mode) ? 0 : S_ISDIR(st.st_mode) ? -EISDIR : -ENODEV;
}

int cli_which(const char *name, char *out, size_t sz)
{
	const char *dirs = getenv("PATH"), *d, *end;
	int err = -ENOENT;

	if (strchr(name, '/'))
		return snprintf(out, sz, "%s", name) >= (int)sz ? -ENAMETOOLONG : regular(out);
	if (!*name)
		return -ENOENT;
	if (!dirs)
		dirs = "/bin:/usr/bin";	/* glibc's execvp without PATH */
	for (d = dirs;; d = end + 1) {
		end = strchrnul(d, ':');
		/* an empty entry: the working directory */
		if (snprintf(out, sz, "%.*s/%s", end > d ? (int)(end - d) : 1, end > d ? d : ".",
			     name) < (int)sz && !regular(out)) {
			if (!access(out, X_OK))
				return 0;
			err = -EACCES;	/* execvp goes on, and says EACCES at the end */
		}
		if (!*end)
			return err;
	}
}

void cli_which_say(const char *prog, const char *what, const char *name, int err)
{
	const char *why = strerror(-err), *sep = what ? ": " : "";

	if (err == -ENOENT && strchr(name, '/')) {
		cli_say(prog, "%s%sno such binary '%s'\n", what ?: "", sep, name);
		return;
	}
	if (err == -ENOENT)
		why = "command not found (give a path, or a command in $PATH)";
	else if (err == -EACCES && !strchr(name, '/'))
		why = "not executable where $PATH finds it (permission denied)";
	else if (err == -EISDIR)
		why = "a directory, not a binary";
	else if (err == -ENODEV)
		why = "not a regular file";
	cli_say(prog, "%s%s%s: %s\n", what ?: "", sep, name, why);
}
