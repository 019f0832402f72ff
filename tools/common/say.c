// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A message line that names its program (say.h). Nothing but libc: the
 * fuzzers and tests that link parts of the engine link it too. */
#include <stdarg.h>
#include <stdio.h>

#include "say.h"

/* One write, as one fprintf() to stderr is: the lines of threads and of
 * a forked detacher do not mix. */
void cli_vsay(const char *prog, const char *fmt, va_list ap)
{
	char line[1024];
	int n = snprintf(line, sizeof(line), "%s: ", prog ? prog : "perfbuf");
	va_list copy;

	va_copy(copy, ap);
	if (n < (int)sizeof(line) &&
	    vsnprintf(line + n, sizeof(line) - n, fmt, copy) < (int)sizeof(line) - n) {
		fputs(line, stderr);
	} else {	/* a longer line: whole, in two writes */
		flockfile(stderr);
		fprintf(stderr, "%s: ", prog ? prog : "perfbuf");
		vfprintf(stderr, fmt, ap);
		funlockfile(stderr);
	}
	va_end(copy);
}

void cli_say(const char *prog, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vsay(prog, fmt, ap);
	va_end(ap);
}
