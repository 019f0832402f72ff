// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>

#include "commands.h"

int cmd_trace(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "perfbuf trace: not built yet\n");
	return 1;
}

int cmd_list(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "perfbuf list: not built yet\n");
	return 1;
}
