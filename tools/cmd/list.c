// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf list [GLOB]: the tracepoints, and kprobe-able functions where
 * the kernel has kprobes.
 */
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/cli.h"
#include "common/commands.h"
#include "trace/tool.h"

/* Does @glob start with kprobe:, kretprobe:, fentry:, fexit: or an alias? */
static bool names_function(const char *glob)
{
	static const char *const kinds[] = { "kprobe", "kretprobe", "fentry",
		"fexit", "k", "kr", "f", "fr" };
	size_t n = strcspn(glob, ":");

	for (size_t i = 0; glob[n] && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strlen(kinds[i]) == n && !strncmp(glob, kinds[i], n))
			return true;
	return false;
}

/* The lines of @f whose first word matches @pat, alone or after
 * @prefix, printed with the prefix. How many matched. */
static long list_matches(FILE *f, const char *prefix, const char *pat)
{
	char line[512], full[600];
	long found = 0;

	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \n")] = '\0';
		snprintf(full, sizeof(full), "%s%s", prefix, line);
		if (fnmatch(pat, line, 0) && fnmatch(pat, full, 0))
			continue;
		found++;
		if (puts(full) == EOF)
			break;	/* reader gone */
	}
	return found;
}

/* GLOB from the command line ("*" without one); NULL after a message
 * (@help: -h was given) */
static const char *list_args(int argc, char **argv, bool *help)
{
	const char *glob = NULL;

	*help = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("Usage: perfbuf list [GLOB]\n\n"
			       "List the probes perfbuf trace can use: tracepoints, and kernel\n"
			       "functions for kprobe: where the kernel has kprobes.\n\n"
			       "Examples:\n  perfbuf list\n  perfbuf list 'syscalls:sys_enter_open*'\n"
			       "  perfbuf list sched_process\n");
			*help = true;
			return NULL;
		}
		if (glob || argv[i][0] == '-') {
			fprintf(stderr, "perfbuf list: want at most one GLOB, not '%s'; see --help\n",
				argv[i]);
			return NULL;
		}
		glob = argv[i];
	}
	if (!glob)
		glob = "*";
	if (strlen(glob) > 500) {
		fprintf(stderr, "perfbuf list: GLOB is too long\n");
		return NULL;
	}
	return glob;
}

/* perfbuf list [GLOB]: the tracepoints, and kprobe-able functions where
 * the kernel has kprobes. GLOB matches "tracepoint:CAT:NAME" or
 * "CAT:NAME"; without wildcards it matches anywhere in the name. */
int cmd_list(int argc, char **argv)
{
	char path[256], pat[512];
	const char *glob;
	long found = 0;
	bool help;
	FILE *f;

	glob = list_args(argc, argv, &help);
	if (!glob)
		return help ? 0 : 1;
	snprintf(pat, sizeof(pat), strpbrk(glob, "*?[") ? "%s" : "*%s*", glob);
	if (cli_need_stdout("perfbuf list") ||
	    cli_need_privileges("perfbuf list", CLI_TRACEFS))
		return 1;
	if (tracefs_ensure("perfbuf list"))
		return 1;
	signal(SIGPIPE, SIG_IGN);
	snprintf(path, sizeof(path), "%s/available_events", tracefs_path());
	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "perfbuf list: cannot read %s: %s\n", path, strerror(errno));
		return 1;
	}
	found += list_matches(f, "tracepoint:", pat);
	fclose(f);
	if (kprobes_supported()) {
		snprintf(path, sizeof(path), "%s/available_filter_functions", tracefs_path());
		f = fopen(path, "re");
		if (f) {
			found += list_matches(f, "kprobe:", pat);
			fclose(f);
		}
	} else if (names_function(glob)) {
		fprintf(stderr, "perfbuf list: this kernel has no kprobes (CONFIG_KPROBES is off): no kernel functions to list; trace tracepoints instead\n");
		if (!found)
			return 1;
	}
	if (fflush(stdout) == EOF && errno != EPIPE) {
		fprintf(stderr, "perfbuf list: writing the list failed: %s\n", strerror(errno));
		return 1;
	}
	if (!found) {
		fprintf(stderr, "perfbuf list: nothing matches '%s'\n", glob);
		return 1;
	}
	return 0;
}
