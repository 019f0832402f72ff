// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * run and attach: the ledger of the programs whose maps are read, when
 * they write with perfbuf_output() (perfbuf/bpf.h): per kind, what they
 * offered and what became of it, for the summary and the capture.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "prog_maps.h"
#include "run.h"
#include "common/say.h"

int run_ledger_open(const char *prog, const struct perfbuf_object *obj,
		    struct perfbuf_ledger **out)
{
	int err;

	*out = perfbuf_ledger__from_object(obj, NULL);
	if (*out || errno == ENOENT)	/* ENOENT: no perfbuf_output() */
		return 0;
	err = -errno;	/* before the message's stdio may change it */
	cli_say(prog, "the programs' ledger (map %s): %s\n", PERFBUF_LEDGER_MAP,
		strerror(-err));
	return err;
}

/* The ledger among the maps of a program using the map, or none (0) */
static int ledger_among(int fd, const struct prog_maps *pm, void *ctx)
{
	struct perfbuf_ledger **out = ctx;

	(void)fd;
	for (__u32 i = 0; i < pm->n && !*out; i++) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);
		int map = bpf_map_get_fd_by_id(pm->ids[i]);

		if (map < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(map, &info, &len) &&
		    !strcmp(info.name, PERFBUF_LEDGER_MAP))
			*out = perfbuf_ledger__new(map, NULL);
		close(map);
	}
	return *out != NULL;
}

struct perfbuf_ledger *run_ledger_of_map(int map_fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct perfbuf_ledger *l = NULL;

	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return NULL;
	/* the first program that writes to the map and keeps a ledger */
	prog_maps_each_user(info.id, ledger_among, &l);
	return l;
}

int run_ledger_view(const char *prog, struct perfbuf_ledger *l, const struct perfbuf *pb,
		    struct ledger_view *v)
{
	size_t named = 0;

	/* every kind up to the last one named; past it, those that offered */
	for (size_t k = 0; k < perfbuf_ledger__kind_cnt(l); k++)
		if (perfbuf_ledger__kind_name(l, k))
			named = k + 1;
	return ledger_view_read(v, l, pb, prog, named, NULL, NULL);
}
