// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf list [-v] 'uprobe:BIN:GLOB': a binary's functions a uprobe can
 * take (its ELF symbols), with -v each with its prototype from the
 * binary's DWARF, the names and types its arguments are traced with.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/elf.h"
#include "common/which.h"
#include "trace/args.h"
#include "trace/probe.h"
#include "list.h"

bool names_uprobe(const char *glob)
{
	int kind = probe_kind_of(glob);

	return kind == PK_UPROBE || kind == PK_URETPROBE;
}

struct ulist {
	char kind[16];		/* "uprobe:" */
	const char *path;
	bool out_gone;
};

static int print_proto(const char *name, const char *proto, void *ctx)
{
	struct ulist *u = ctx;

	if (printf("%s%s:%s\t%s\n", u->kind, u->path, name, proto) < 0)
		u->out_gone = true;
	return u->out_gone;
}

/* The ELF symbols @pat matches, each name once: how many */
static long print_symbols(struct ulist *u, const struct sym_elf *e, const char *pat)
{
	const char *name, *prev = NULL;
	long found = 0;

	for (size_t i = 0; (name = elfsyms_nth(e, i)) && !u->out_gone; i++) {
		if (fnmatch(pat, name, 0) || (prev && !strcmp(prev, name)))
			continue;
		prev = name;
		found++;
		if (printf("%s%s:%s\n", u->kind, u->path, name) < 0)
			u->out_gone = true;
	}
	return found;
}

/* The functions of ELF file u->path @pat matches, with -v from DWARF:
 * how many, or -errno (said) */
static long list_functions(struct ulist *u, const char *pat, bool verbose)
{
	struct sym_elf *e = elfsyms_load(u->path);
	long found = -ENOENT;

	if (!e) {
		if (errno == ENOEXEC)
			cli_say("perfbuf list", "%s is not an ELF executable or library; give a binary\n",
				u->path);
		else
			cli_say("perfbuf list", "cannot read %s: %s\n", u->path, strerror(errno));
		return -1;
	}
	if (verbose)
		found = ufunc_each_proto(u->path, pat, print_proto, u);
	if (found == -ENOENT) {
		if (verbose)
			cli_say("perfbuf list", "%s has no DWARF (build it with -g): its functions without prototypes; a uprobe on one prints arg0..arg5\n",
				u->path);
		found = print_symbols(u, e, pat);
	}
	elfsyms_free(e);
	return found;
}

int list_uprobes(const char *glob, bool verbose)
{
	const char *rest = strchr(glob, ':') + 1, *sym = strrchr(rest, ':');
	char name[PATH_MAX], path[PATH_MAX + 64], real[PATH_MAX];
	struct ulist u = { .path = real };
	long found;
	int err;

	if (!sym || sym == rest || !sym[1]) {
		cli_say("perfbuf list", "bad probe '%s': want uprobe:BIN:GLOB, e.g. 'uprobe:/bin/bash:read*'\n",
			glob);
		return 1;
	}
	snprintf(u.kind, sizeof(u.kind), "%.*s", (int)(rest - glob), glob);
	snprintf(name, sizeof(name), "%.*s", (int)(sym - rest), rest);
	err = cli_which(name, path, sizeof(path));
	if (!err && !realpath(path, real))
		err = -errno;
	if (err) {
		cli_which_say("perfbuf list", NULL, name, err);
		return 1;
	}
	found = list_functions(&u, sym + 1, verbose);
	if (!cli_stdout_ok("perfbuf list") || found < 0)
		return 1;
	if (!found) {
		cli_say("perfbuf list", "no function of %s matches '%s'\n", real, sym + 1);
		return 1;
	}
	return 0;
}
