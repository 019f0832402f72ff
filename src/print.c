// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Library diagnostics. */
#include <errno.h>
#include <stdio.h>

#include "internal.h"

static int default_print(enum perfbuf_print_level level, const char *fmt,
			 va_list ap)
{
	if (level == PERFBUF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static perfbuf_print_fn print_fn = default_print;

perfbuf_print_fn perfbuf_set_print(perfbuf_print_fn fn)
{
	perfbuf_print_fn old = print_fn;

	print_fn = fn;
	return old;
}

int perfbuf_vprint(enum perfbuf_print_level level, const char *fmt,
		   va_list ap)
{
	perfbuf_print_fn fn = print_fn;
	int saved = errno, n = 0;

	if (fn)
		n = fn(level, fmt, ap);
	errno = saved;
	return n;
}

void perfbuf_pr(enum perfbuf_print_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	perfbuf_vprint(level, fmt, ap);
	va_end(ap);
}
