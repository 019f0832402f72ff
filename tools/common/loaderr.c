// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A refused BPF program, named with the kernel's reason (see loaderr.h). */
#define _GNU_SOURCE	/* vasprintf */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "cli.h"
#include "kernel_btf.h"
#include "kfeat.h"
#include "load_log.h"
#include "loaderr.h"
#include "say.h"

/* what libbpf's warnings since the last load named (lib/load_log.h) */
static struct load_log seen;
static bool verbose;

static int keep(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	va_list copy;
	char *s;

	if (verbose) {
		va_copy(copy, ap);
		vfprintf(stderr, fmt, copy);
		va_end(copy);
	}
	if (level != LIBBPF_DEBUG && vasprintf(&s, fmt, ap) >= 0) {
		load_log_read(&seen, s, 3);
		free(s);
	}
	return 0;
}

void loaderr_capture(bool v)
{
	verbose = v;
	memset(&seen, 0, sizeof(seen));
	libbpf_set_print(keep);
}

void loaderr_say(const char *prog, const char *what, int err)
{
	const char *name = seen.prog;
	char missing[256], btf[512];

	/* libbpf's ESRCH: the kernel's BTF did not load, before any program */
	if (err == -ESRCH && !seen.prog[0] && !seen.map[0] &&
	    kernel_btf_said(btf, sizeof(btf), what))
		cli_say(prog, "%s\n", btf);
	else if (seen.map[0] && !seen.prog[0])
		cli_say(prog, "loading %s failed: map '%s' could not be created: %s%s\n",
			what, seen.map, cli_strerror(err), cli_hint(err));
	else if (seen.why[0])
		cli_say(prog, "loading %s failed: program '%s': %s: the verifier says: %s\n",
			what, name, cli_strerror(err), seen.why);
	else if (err == -EINVAL && kfeat_missing(missing, sizeof(missing)))
		cli_say(prog, "loading %s failed: program '%s': %s, with no verifier log: this kernel lacks %s; run a newer kernel\n",
			what, name, cli_strerror(err), missing);
	else if (!seen.prog[0])
		cli_say(prog, "loading %s failed: %s (no program named by libbpf; its messages with -v)%s\n",
			what, cli_strerror(err), cli_hint(err));
	else
		cli_say(prog, "loading %s failed: program '%s': %s (the kernel gave no verifier log)%s\n",
			what, name, cli_strerror(err), cli_hint(err));
	memset(&seen, 0, sizeof(seen));
}
