// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>

#include "commands.h"

int cmd_stress(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "perfbuf stress: not built yet\n");
	return 1;
}
