// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The structs that cross the library's boundary and may grow within a
 * major version (the rules: include/perfbuf/common.h): options the caller
 * fills, results the library fills.
 */
#include "internal.h"

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

/* An older caller's struct is shorter: only its bytes are written. A
 * newer caller's is longer: the bytes this library does not know are
 * left alone, and sz tells the caller how many were filled. */
int perfbuf_out_copy(void *dst, const void *src, size_t known_sz)
{
	size_t user_sz = *(const size_t *)dst, n;

	if (user_sz < sizeof(size_t))
		return -EINVAL;
	n = user_sz < known_sz ? user_sz : known_sz;
	memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t),
	       n - sizeof(size_t));
	*(size_t *)dst = n;
	return 0;
}
