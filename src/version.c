// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "internal.h"

const char *perfbuf_version(void)
{
	return PERFBUF_VERSION;
}
