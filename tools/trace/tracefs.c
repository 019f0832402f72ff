// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Where tracefs is: found, or mounted, once (tracefs.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "tracefs.h"
#include "common/say.h"

/* stat(), not access(): access() drops the capabilities of a non-root
 * user granted CAP_DAC_READ_SEARCH */
bool path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static const char *tracefs_dir = "/sys/kernel/tracing";

const char *tracefs_path(void)
{
	return tracefs_dir;
}

/* libbpf attaches tracepoints through tracefs: make sure it is there. */
int tracefs_ensure(const char *prog)
{
	if (path_exists("/sys/kernel/tracing/events"))
		return 0;
	if (path_exists("/sys/kernel/debug/tracing/events")) {
		tracefs_dir = "/sys/kernel/debug/tracing";
		return 0;
	}
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
		int err = -errno;

		cli_say(prog, "tracefs is not mounted and mounting it failed (%s%s); as root run: mount -t tracefs nodev /sys/kernel/tracing\n",
			strerror(-err), err == -EPERM ? ": needs CAP_SYS_ADMIN" : "");
		return err;
	}
	return 0;
}
