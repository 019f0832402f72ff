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

/* The one place the version is set: the Makefile reads these three lines
 * (the soname is libperfbuf.so.MAJOR, the file libperfbuf.so.MAJOR.MINOR.PATCH)
 * and the newest node of src/libperfbuf.map is LIBPERFBUF_MAJOR.MINOR. */
#define PERFBUF_MAJOR_VERSION 4
#define PERFBUF_MINOR_VERSION 0
#define PERFBUF_PATCH_VERSION 0

#define PERFBUF_STR_(x) #x
#define PERFBUF_STR(x) PERFBUF_STR_(x)
/* "MAJOR.MINOR.PATCH" */
#define PERFBUF_VERSION PERFBUF_STR(PERFBUF_MAJOR_VERSION) "." \
	PERFBUF_STR(PERFBUF_MINOR_VERSION) "." PERFBUF_STR(PERFBUF_PATCH_VERSION)
/* compare with PERFBUF_VERSION_CODE >= PERFBUF_VERSION_OF(2, 1) */
#define PERFBUF_VERSION_OF(major, minor) ((major) * 1000 + (minor))
#define PERFBUF_VERSION_CODE \
	PERFBUF_VERSION_OF(PERFBUF_MAJOR_VERSION, PERFBUF_MINOR_VERSION)

/** @brief The library's version, "MAJOR.MINOR.PATCH". */
PERFBUF_API const char *perfbuf_version(void);

#ifdef __cplusplus
}
#endif

#endif /* PERFBUF_VERSION_H */
