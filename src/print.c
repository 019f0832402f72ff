// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Library diagnostics and options-struct validation. */
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

void perfbuf_pr(enum perfbuf_print_level level, const char *fmt, ...)
{
	perfbuf_print_fn fn = print_fn;
	int saved = errno;
	va_list ap;

	if (!fn)
		return;
	va_start(ap, fmt);
	fn(level, fmt, ap);
	va_end(ap);
	errno = saved;
}

bool perfbuf_opts_valid(const void *opts, size_t known_sz, size_t user_sz,
			const char *type_name)
{
	const char *p = opts;
	size_t i;

	if (user_sz < sizeof(size_t)) {
		pr_warn("%s: sz is %zu; set it with PERFBUF_OPTS()\n",
			type_name, user_sz);
		return false;
	}
	for (i = known_sz; i < user_sz; i++) {
		if (p[i]) {
			pr_warn("%s: unknown non-zero field at byte %zu (library too old?)\n",
				type_name, i);
			return false;
		}
	}
	return true;
}
