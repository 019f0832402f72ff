// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A message line that names its program (say.h). Nothing but libc: the
 * fuzzers and tests that link parts of the engine link it too. */
#include <stdarg.h>
#include <stdio.h>

#include "say.h"

/* One write, as one fprintf() to stderr is: the lines of threads and of
 * a forked detacher do not mix. */
void cli_say(const char *prog, const char *fmt, ...)
{
	char line[1024];
	int n = snprintf(line, sizeof(line), "%s: ", prog ? prog : "perfbuf");
	va_list ap;

	va_start(ap, fmt);
	if (n < (int)sizeof(line) &&
	    vsnprintf(line + n, sizeof(line) - n, fmt, ap) < (int)sizeof(line) - n) {
		fputs(line, stderr);
	} else {	/* a longer line: whole, in two writes */
		va_end(ap);
		va_start(ap, fmt);
		flockfile(stderr);
		fprintf(stderr, "%s: ", prog ? prog : "perfbuf");
		vfprintf(stderr, fmt, ap);
		funlockfile(stderr);
	}
	va_end(ap);
}
