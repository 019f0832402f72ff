/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Sizes and durations as every command takes them (units.c): the same
 * forms for every option, and the same words when one is refused.
 *
 *   size:      a number of bytes, optionally with a fraction and a binary
 *              suffix K, M, G or T (KiB ... TiB; "8MB" is "8M"): 4096,
 *              64K, 1.5G
 *   duration:  a number, optionally with a fraction and a unit ns, us, ms,
 *              s, m, h or d; a bare number is seconds: 5, 0.5, 500ms, 2m
 */
#ifndef TOOLS_COMMON_UNITS_H
#define TOOLS_COMMON_UNITS_H

#include <stdbool.h>
#include <stddef.h>

/* @arg as a size in [@lo, @hi] bytes into *@out; else false after one
 * line, "PROG: OPT wants a size from LO to HI (e.g. 8M, 512M), not 'ARG'"
 * (a size too large to count in 64 bits is out of range like any other). */
bool cli_parse_size(const char *prog, const char *opt, const char *arg,
		    unsigned long long lo, unsigned long long hi,
		    unsigned long long *out);

/* @arg as a duration in [@lo_ns, @hi_ns] into *@out_ns; else false after
 * one line, "PROG: OPT wants a duration from LO to HI (e.g. 5, 0.5,
 * 500ms, 2m), not 'ARG'". */
bool cli_parse_duration(const char *prog, const char *opt, const char *arg,
			unsigned long long lo_ns, unsigned long long hi_ns,
			unsigned long long *out_ns);

/* The forms without a message: 0, -EINVAL (not one) or -ERANGE (past
 * 2^64 - 1). */
int units_size(const char *arg, unsigned long long *out);
int units_duration(const char *arg, unsigned long long *out_ns);

/* @bytes as a size the parser takes back ("4K", "1G", "1536"), @ns as a
 * duration ("500ms", "2m", "1.5s"): into @buf, which it returns. */
const char *units_size_str(unsigned long long bytes, char *buf, size_t sz);
const char *units_duration_str(unsigned long long ns, char *buf, size_t sz);

#define NS_PER_S 1000000000ULL
/* -d of every command: from 1 ms to 1000 days */
#define CLI_DURATION_MIN (NS_PER_S / 1000)
#define CLI_DURATION_MAX (1000 * 86400 * NS_PER_S)

#endif
