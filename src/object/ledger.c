// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ledger of a loaded object (object.h): libperfbuf's ledger on the
 * object's map PERFBUF_LEDGER_MAP, its kinds named from the object's own
 * BTF, which needs no privilege where the kernel's copy does.
 */
#include <bpf/libbpf.h>

#include "object_priv.h"

struct perfbuf_ledger *
perfbuf_ledger__from_object(const struct perfbuf_object *obj,
			    const struct perfbuf_ledger_opts *opts)
{
	struct perfbuf_ledger_opts o = { .sz = sizeof(o) };
	int fd;

	if (!obj || !OPTS_VALID(opts, perfbuf_ledger_opts))
		return err_ptr(-EINVAL);
	fd = perfbuf_object__map_fd(obj, PERFBUF_LEDGER_MAP);
	if (fd < 0)
		return err_ptr(-ENOENT);
	o.names = OPTS_GET(opts, names, NULL);
	o.name_cnt = OPTS_GET(opts, name_cnt, 0);
	o.btf = OPTS_GET(opts, btf, NULL);
	if (!o.btf)
		o.btf = bpf_object__btf(perfbuf_object__bpf(obj));
	return perfbuf_ledger__new(fd, &o);
}
