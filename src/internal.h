/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers shared by the library's files; not installed. */
#ifndef PERFBUF_INTERNAL_H
#define PERFBUF_INTERNAL_H

#include "perfbuf.h"

#define pr_warn(fmt, ...)  perfbuf_pr(PERFBUF_WARN, "perfbuf: " fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)  perfbuf_pr(PERFBUF_INFO, "perfbuf: " fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) perfbuf_pr(PERFBUF_DEBUG, "perfbuf: " fmt, ##__VA_ARGS__)

__attribute__((format(printf, 2, 3)))
void perfbuf_pr(enum perfbuf_print_level level, const char *fmt, ...);

/* Options structs may grow: bytes past what this library knows must be 0. */
bool perfbuf_opts_valid(const void *opts, size_t known_sz, size_t user_sz,
			const char *type_name);

#define OPTS_VALID(opts, type) \
	(!(opts) || perfbuf_opts_valid((opts), sizeof(struct type), \
				       *(const size_t *)(opts), #type))
/* A field is read only when the caller's struct is large enough to hold it. */
#define OPTS_HAS(opts, field) \
	((opts) && (opts)->sz >= offsetof(__typeof__(*(opts)), field) + \
				 sizeof((opts)->field))
#define OPTS_GET(opts, field, fallback) \
	(OPTS_HAS(opts, field) ? (opts)->field : (fallback))

/* 0, or -EINVAL (logged) unless a power of two up to the ring's limit. */
int perfbuf_check_page_cnt(size_t page_cnt);

static inline void *err_ptr(int err)
{
	errno = err < 0 ? -err : err;
	return NULL;
}

#endif
