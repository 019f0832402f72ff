// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf: the command-line tool. Dispatches to one file per subcommand. */
#include <stdio.h>
#include <string.h>

#include "common/cli.h"
#include "common/commands.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} cmds[] = {
	{ "trace", cmd_trace, "trace tracepoints, kprobes, fentry and uprobes" },
	{ "record", cmd_record, "trace into a capture file, or keep the newest events (flight recorder)" },
	{ "report", cmd_report, "print a capture file as perfbuf trace would have" },
	{ "run", cmd_run, "load your own BPF object, print its records decoded by their C type" },
	{ "attach", cmd_attach, "read the perf event array or ring buffer of a loaded program" },
	{ "list", cmd_list, "list tracepoints (and kprobe-able functions)" },
	{ "stress", cmd_stress, "load the perf buffer and check loss accounting" },
	{ "profile", cmd_profile, "sample stacks on every CPU: folded, JSON, flame graph" },
	{ "demo", cmd_demo, "trace exec() system-wide for a few seconds" },
	{ "nats-tail", cmd_nats_tail, "print the events trace published to NATS, from every host" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: perfbuf COMMAND [OPTIONS]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-9s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\nRun 'perfbuf COMMAND --help' for a command's options,\n"
		   "'perfbuf --version' for the version, 'man perfbuf' for the manual.\n"
		   "Without a command, 'perfbuf' runs 'perfbuf demo'.\n");
}

int main(int argc, char **argv)
{
	cli_reserve_stdio();
	if (argc < 2)
		return cmd_demo(argc, argv);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		/* the tool links the library statically: one version */
		printf("perfbuf %s\n", perfbuf_version());
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	cli_say("perfbuf", "unknown command '%s'; run 'perfbuf --help'\n",
		argv[1]);
	return 1;
}
