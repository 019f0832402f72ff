/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libperfbuf's version. The macros are the headers' version, the functions
 * the library's: a program built against one version and run with a later
 * minor version of the same major sees both.
 */
#ifndef PERFBUF_VERSION_H
#define PERFBUF_VERSION_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PERFBUF_MAJOR_VERSION 2
#define PERFBUF_MINOR_VERSION 0
#define PERFBUF_PATCH_VERSION 0
#define PERFBUF_VERSION "2.0.0"
/* compare with PERFBUF_VERSION_CODE >= PERFBUF_VERSION_OF(2, 1) */
#define PERFBUF_VERSION_OF(major, minor) ((major) * 1000 + (minor))
#define PERFBUF_VERSION_CODE \
	PERFBUF_VERSION_OF(PERFBUF_MAJOR_VERSION, PERFBUF_MINOR_VERSION)

/** @brief The library's version, "MAJOR.MINOR.PATCH". */
PERFBUF_API const char *perfbuf_version(void);
/** @brief The library's major version (the soname's number). */
PERFBUF_API __u32 perfbuf_major_version(void);
/** @brief The library's minor version: new API, no change to the old. */
PERFBUF_API __u32 perfbuf_minor_version(void);

#ifdef __cplusplus
}
#endif

#endif /* PERFBUF_VERSION_H */
