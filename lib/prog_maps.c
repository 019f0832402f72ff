// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A map's users among the loaded programs (prog_maps.h says for whom) */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "prog_maps.h"

int prog_maps_read(int fd, struct prog_maps *pm)
{
	__u32 len = sizeof(pm->info);

	memset(&pm->info, 0, sizeof(pm->info));
	pm->info.nr_map_ids = PROG_MAPS_MAX;
	pm->info.map_ids = (__u64)(unsigned long)pm->ids;
	pm->n = 0;
	if (bpf_obj_get_info_by_fd(fd, &pm->info, &len))
		return -errno;
	/* the kernel says how many there are, and fills what fits */
	pm->n = pm->info.nr_map_ids < PROG_MAPS_MAX ? pm->info.nr_map_ids : PROG_MAPS_MAX;
	return 0;
}

static bool uses(const struct prog_maps *pm, __u32 map_id)
{
	for (__u32 i = 0; i < pm->n; i++)
		if (pm->ids[i] == map_id)
			return true;
	return false;
}

int prog_maps_each_user(__u32 map_id, prog_user_fn fn, void *ctx)
{
	struct prog_maps pm;
	__u32 id = 0;

	for (;;) {
		int fd, ret = 0;

		if (bpf_prog_get_next_id(id, &id))
			return errno == ENOENT ? 0 : -errno;	/* ENOENT: none left */
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0 && errno == EPERM)
			return -EPERM;
		if (fd < 0)
			continue;	/* gone meanwhile */
		if (!prog_maps_read(fd, &pm) && uses(&pm, map_id))
			ret = fn(fd, &pm, ctx);
		close(fd);
		if (ret)
			return ret;
	}
}
