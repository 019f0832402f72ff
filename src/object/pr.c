// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libperfbuf-object's diagnostics (internal.h: pr_warn() and the others)
 * go where libperfbuf's go: through the function perfbuf_set_print() set,
 * which libperfbuf holds. Only the shared object and its archive link this
 * file; a program built from both libraries' objects has print.c's.
 */
#include <stdarg.h>

#include "internal.h"

void perfbuf_pr(enum perfbuf_print_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	perfbuf_vprint(level, fmt, ap);
	va_end(ap);
}
