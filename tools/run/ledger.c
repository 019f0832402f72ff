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

/* Is map @id one of program @fd's? Its other maps' ids into @ids (@n) */
static bool prog_uses(int fd, __u32 id, __u32 *ids, __u32 *n)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	info.nr_map_ids = *n;
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	*n = info.nr_map_ids < *n ? info.nr_map_ids : *n;
	for (__u32 i = 0; i < *n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* The ledger among maps @ids (@n), or NULL */
static struct perfbuf_ledger *ledger_among(const __u32 *ids, __u32 n)
{
	for (__u32 i = 0; i < n; i++) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);
		struct perfbuf_ledger *l = NULL;
		int fd = bpf_map_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    !strcmp(info.name, PERFBUF_LEDGER_MAP))
			l = perfbuf_ledger__new(fd, NULL);
		close(fd);
		if (l)
			return l;
	}
	return NULL;
}

struct perfbuf_ledger *run_ledger_of_map(int map_fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), id = 0, ids[64];

	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return NULL;
	/* the first program that writes to the map and keeps a ledger */
	while (!bpf_prog_get_next_id(id, &id)) {
		int fd = bpf_prog_get_fd_by_id(id);
		__u32 n = 64;
		struct perfbuf_ledger *l = NULL;

		if (fd < 0)
			continue;
		if (prog_uses(fd, info.id, ids, &n))
			l = ledger_among(ids, n);
		close(fd);
		if (l)
			return l;
	}
	return NULL;
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
