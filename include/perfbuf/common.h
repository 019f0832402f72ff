/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What every layer of libperfbuf shares: the export macro, options
 * structs, diagnostics, the clock of record times and CPU lists.
 *
 * Conventions (as libbpf): functions returning int return a negative errno
 * on failure; functions returning a pointer return NULL and set errno.
 * Options structs start with `size_t sz` (set it with PERFBUF_OPTS()).
 */
#ifndef PERFBUF_COMMON_H
#define PERFBUF_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include <linux/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PERFBUF_API __attribute__((visibility("default")))

/* Declare and zero an options struct with its size set:
 *   PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = 256);
 */
#define PERFBUF_OPTS(TYPE, NAME, ...)				\
	struct TYPE NAME = ({					\
		memset(&NAME, 0, sizeof(struct TYPE));		\
		(struct TYPE){ .sz = sizeof(struct TYPE),	\
			       __VA_ARGS__ };			\
	})

enum perfbuf_print_level {
	PERFBUF_WARN,
	PERFBUF_INFO,
	PERFBUF_DEBUG,
};

typedef int (*perfbuf_print_fn)(enum perfbuf_print_level level,
				const char *fmt, va_list ap);

/**
 * @brief Route the library's warnings and debug messages.
 * @param fn printer, or NULL to silence the library entirely
 * @return the previous printer
 *
 * The default printer writes PERFBUF_WARN and PERFBUF_INFO to stderr.
 */
PERFBUF_API perfbuf_print_fn perfbuf_set_print(perfbuf_print_fn fn);

/**
 * @brief CLOCK_MONOTONIC in nanoseconds: the clock of record times
 *        (perfbuf_record.time_ns) and of bpf_ktime_get_ns().
 */
PERFBUF_API __u64 perfbuf_now_ns(void);

/**
 * @brief Parse a CPU list ("0-3,8,10-11") into @cpus.
 * @return the number of CPUs (may exceed @max, only @max are stored),
 *         or -EINVAL on bad syntax
 */
PERFBUF_API int perfbuf_cpus__parse(const char *s, int *cpus, size_t max);

/**
 * @brief Read /sys/devices/system/cpu/{possible,online}.
 * @return number of CPUs, or a negative errno
 */
PERFBUF_API int perfbuf_cpus__possible(int *cpus, size_t max);
PERFBUF_API int perfbuf_cpus__online(int *cpus, size_t max);

#ifdef __cplusplus
}
#endif

#endif /* PERFBUF_COMMON_H */
