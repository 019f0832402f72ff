/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which loaded programs use a map, and which maps a program uses: the
 * kernel says it only per program (bpf_prog_info's map_ids), so a map's
 * users are found by walking every loaded program. One walk, for the
 * object library (src/object/type_find.c: a map's record type from its
 * writer's BTF) and the tool (tools/run/find_map.c: the programs named
 * beside a map's id; tools/run/ledger.c: the writer's ledger). Each links
 * its own copy (the library's hidden, nothing exported).
 */
#ifndef PERFBUF_PROG_MAPS_H
#define PERFBUF_PROG_MAPS_H

#include <linux/bpf.h>

/* The verifier's bound on the maps one program uses (MAX_USED_MAPS, 64
 * today): a kernel that allowed more would have its first 64 read */
#define PROG_MAPS_MAX 64

struct prog_maps {
	struct bpf_prog_info info;	/* name, btf_id, ...; map_ids points into ids */
	__u32 n;			/* ids filled: info.nr_map_ids, at most PROG_MAPS_MAX */
	__u32 ids[PROG_MAPS_MAX];
};

/* The info of program @fd and the ids of its maps, into @pm: 0 or -errno */
int prog_maps_read(int fd, struct prog_maps *pm);

/* Called for each program using the map, with the program's fd (closed
 * after the call) and its maps: non-zero stops the walk */
typedef int (*prog_user_fn)(int fd, const struct prog_maps *pm, void *ctx);

/* @fn for each loaded program that uses map @map_id, in id order: what
 * @fn returned to stop, 0 when every program was seen, or -errno when
 * programs cannot be listed or opened (-EPERM: it needs CAP_SYS_ADMIN,
 * the kernel's rule for programs by id, whatever CAP_BPF says) */
int prog_maps_each_user(__u32 map_id, prog_user_fn fn, void *ctx);

#endif
