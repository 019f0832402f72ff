// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "internal.h"

const char *perfbuf_version(void)
{
	return PERFBUF_VERSION;
}

__u32 perfbuf_major_version(void)
{
	return PERFBUF_MAJOR_VERSION;
}

__u32 perfbuf_minor_version(void)
{
	return PERFBUF_MINOR_VERSION;
}
