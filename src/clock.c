// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The clock of record times. */
#include <time.h>

#include "internal.h"

__u64 perfbuf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}
