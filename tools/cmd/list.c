// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf list [GLOB]: the tracepoints (-v: with their fields), and
 * kprobe-able functions where the kernel has kprobes; a binary's
 * functions in list_uprobe.c.
 */
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/cli.h"
#include "common/commands.h"
#include "common/kfeat.h"
#include "trace/args.h"
#include "trace/tool.h"
#include "list.h"

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

struct proto_ctx {
	const char *kind;	/* "fentry:" */
	bool out_gone;
};

static int print_proto(const char *name, void *ctx)
{
	struct proto_ctx *c = ctx;
	char proto[1024];

	if (kfunc_proto(name, proto, sizeof(proto)))
		return 0;
	if (printf("%s%s\t%s\n", c->kind, name, proto) < 0) {
		c->out_gone = true;
		return 1;
	}
	return 0;
}

/* list -v KIND:GLOB: the prototypes BTF gives the functions GLOB names
 * (without a wildcard: that one function) */
static int list_protos(const char *glob)
{
	size_t n = strcspn(glob, ":");
	struct proto_ctx c = { .kind = NULL };
	char kind[32];
	long found;

	snprintf(kind, sizeof(kind), "%.*s", (int)(n < 20 ? n + 1 : 0), glob);
	c.kind = kind;
	found = kfunc_each(glob + n + 1, print_proto, &c);
	kfunc_btf_free();
	if (!cli_stdout_ok("perfbuf list"))
		return 1;
	if (!found) {
		cli_say("perfbuf list", "the kernel's BTF (/sys/kernel/btf/vmlinux) describes no function '%s': a probe on it prints arg0..arg5\n",
			glob + n + 1);
		return 1;
	}
	return 0;
}

static int print_decl(const char *decl, void *ctx)
{
	(void)ctx;
	return printf("    %s\n", decl) < 0;
}

/* The lines of @f whose first word matches @pat, alone or after
 * @prefix, printed with the prefix; with @fields a tracepoint's fields
 * below it, indented, as bpftrace -lv prints them. How many matched. */
static long list_matches(FILE *f, const char *prefix, const char *pat,
			 bool fields)
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
		if (fields && tp_format_decls(line, print_decl, NULL) > 0)
			break;
	}
	return found;
}

/* GLOB from the command line ("*" without one); NULL after a message
 * (@help: -h was given) */
static const char *list_args(int argc, char **argv, bool *help, bool *verbose)
{
	const char *glob = NULL;

	*help = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			*verbose = true;
			continue;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("Usage: perfbuf list [-v] [GLOB]\n\n"
			       "List the probes perfbuf trace can use: tracepoints, kernel\n"
			       "functions for kprobe: where the kernel has kprobes, and with\n"
			       "uprobe:BIN:GLOB a binary's functions.\n\n"
			       "  -v, --verbose  a tracepoint's fields with their types; with\n"
			       "                 KIND:FUNC (kprobe, kretprobe, fentry, fexit) the\n"
			       "                 function's prototype from BTF, with uprobe:BIN:GLOB\n"
			       "                 from the binary's DWARF: the names and types the\n"
			       "                 arguments are traced with\n\n"
			       "Examples:\n  perfbuf list\n  perfbuf list 'syscalls:sys_enter_open*'\n"
			       "  perfbuf list sched_process\n  perfbuf list -v fentry:vfs_read\n"
			       "  perfbuf list -v tracepoint:sched:sched_switch\n"
			       "  perfbuf list -v 'uprobe:/usr/bin/myprog:*'\n");
			*help = true;
			return NULL;
		}
		if (glob || argv[i][0] == '-') {
			cli_say("perfbuf list", "want at most one GLOB, not '%s'; see --help\n",
				argv[i]);
			return NULL;
		}
		glob = argv[i];
	}
	if (!glob)
		glob = "*";
	if (strlen(glob) > 500) {
		cli_say("perfbuf list", "GLOB is too long\n");
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
	bool help, verbose = false;
	FILE *f;

	glob = list_args(argc, argv, &help, &verbose);
	if (!glob)
		return help ? 0 : 1;
	if (verbose && names_function(glob)) {
		if (cli_need_stdout("perfbuf list"))
			return 1;
		signal(SIGPIPE, SIG_IGN);
		return list_protos(glob);
	}
	if (names_uprobe(glob)) {
		if (cli_need_stdout("perfbuf list"))
			return 1;
		signal(SIGPIPE, SIG_IGN);
		return list_uprobes(glob, verbose);
	}
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
		cli_say("perfbuf list", "cannot read %s: %s\n", path, strerror(errno));
		return 1;
	}
	found += list_matches(f, "tracepoint:", pat, verbose);
	fclose(f);
	if (kfeat_kprobes()) {
		snprintf(path, sizeof(path), "%s/available_filter_functions", tracefs_path());
		f = fopen(path, "re");
		if (f) {
			found += list_matches(f, "kprobe:", pat, false);
			fclose(f);
		}
	} else if (names_function(glob)) {
		cli_say("perfbuf list", "this kernel has no kprobes (CONFIG_KPROBES is off): no kernel functions to list; trace tracepoints instead\n");
		if (!found)
			return 1;
	}
	if (!cli_stdout_ok("perfbuf list"))
		return 1;
	if (!found) {
		cli_say("perfbuf list", "nothing matches '%s'\n", glob);
		return 1;
	}
	return 0;
}
