// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What every subcommand says about a bad option. */
#include <getopt.h>
#include <stdio.h>

#include "commands.h"

int cli_bad_option(const char *cmd, int ret, char **argv)
{
	const char *arg = argv[optind - 1];

	if (ret == ':')
		fprintf(stderr, "perfbuf %s: %s needs a value; run 'perfbuf %s --help'\n",
			cmd, arg, cmd);
	else if (optopt)
		fprintf(stderr, "perfbuf %s: unknown option '-%c'; run 'perfbuf %s --help'\n",
			cmd, optopt, cmd);
	else
		fprintf(stderr, "perfbuf %s: unknown option '%s'; run 'perfbuf %s --help'\n",
			cmd, arg, cmd);
	return 1;
}
