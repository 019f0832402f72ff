// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>
#include <bpf/libbpf.h>

#include "bpf_errstr.h"

const char *bpf_errstr(int err)
{
	static __thread char buf[128];

	err = err < 0 ? -err : err;
	if (err == 524)		/* the kernel's own ENOTSUPP, leaked to us */
		return "Not supported by the kernel (ENOTSUPP)";
	if (err >= __LIBBPF_ERRNO__START && err < __LIBBPF_ERRNO__END) {
		libbpf_strerror(err, buf, sizeof(buf));
		return buf;
	}
	return strerror(err);
}
