/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What every layer of libperfbuf (and libperfbuf-object) shares: the
 * export macro, options structs, diagnostics, the clock of record times
 * and CPU lists.
 *
 * Conventions (as libbpf): functions returning int return a negative errno
 * on failure; functions returning a pointer return NULL and set errno.
 *
 * Names: perfbuf_OBJECT__METHOD, one OBJECT per type, its first argument
 * (perfbuf_ring__fold(ring, ...), perfbuf_sampler__poll(s, ...), the
 * collector `struct perfbuf` as perfbuf__poll(pb, ...)); functions of the
 * whole library are perfbuf_VERB (perfbuf_set_print(), perfbuf_now_ns(),
 * perfbuf_version()). Internal helpers are not exported.
 *
 * The ABI of a major version (libperfbuf.so.4, symbols in version nodes
 * LIBPERFBUF_4.0, LIBPERFBUF_4.1, ...; libperfbuf-object.so.4 the same in
 * LIBPERFBUF_OBJECT_4.N nodes): a program built against any 4.x header
 * runs with any later 4.y library. A program built against 3.x cannot
 * load 4.x at all (another soname): by design. Within 4.x:
 *  1. Functions are only added, in a new version node; never changed.
 *  2. Options (struct perfbuf_*_opts, read by the library) start with
 *     `size_t sz`, the caller's sizeof (PERFBUF_OPTS() sets it and zeroes
 *     the rest). New fields come at the end. The library reads every field
 *     through its sz (a field past an older caller's sz is its default),
 *     and refuses (-EINVAL) a newer caller's struct with non-zero bytes
 *     it does not know. No padding hole at the end: every byte is a named
 *     field (__reserved[] where needed), so a designated initializer
 *     zeroes it and a later field there never sees junk.
 *  3. Results (structs the library writes into the caller's memory:
 *     perfbuf_ring_stats, perfbuf_cpu_stats, perfbuf_sampler_stats,
 *     perfbuf_sample) also start with `size_t sz`, which
 *     the caller sets to its sizeof: the library writes at most that many
 *     bytes, and sets sz to the bytes it filled (a newer caller's fields
 *     past them are left alone). sz below sizeof(size_t): -EINVAL.
 *  4. struct perfbuf_record grows at its end: callbacks get the library's
 *     own; an iteration writes into the caller's only the size its header
 *     gave perfbuf_ring__begin() (an inline call of perfbuf_ring__begin_sz()
 *     with sizeof), checked once per record on the out-of-line path only;
 *     a record passed in is read only up to its 4.0 fields.
 *  5. struct perfbuf_iter, read and written by the inline iterator
 *     compiled into the caller, and structs nested inside others
 *     (perfbuf_sample_read, perfbuf_sample_regs) keep their layout for
 *     the whole major version.
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
 * (a result struct: struct perfbuf_cpu_stats st = { .sz = sizeof(st) };)
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
 * @brief Print a diagnostic through the function perfbuf_set_print() set
 *        (nothing if it set NULL), errno kept: libperfbuf-object's own
 *        diagnostics go this way, so that one perfbuf_set_print() covers
 *        both libraries.
 * @return what the print function returned (0 if none)
 */
PERFBUF_API int perfbuf_vprint(enum perfbuf_print_level level,
			       const char *fmt, va_list ap);

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
