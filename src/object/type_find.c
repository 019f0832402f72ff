// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Where a map's record type is found (perfbuf/type.h): an ELF object's
 * BTF and DWARF, or the BTF of a loaded program that uses the map. A
 * header is compiled to BTF by the tool (perfbuf run --header), never
 * here: a library must not run programs the environment names.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "prog_maps.h"
#include "type_priv.h"

int elf_file_open(const char *path)
{
	/* O_NONBLOCK: a FIFO's open() would wait for a writer for ever */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), err = 0;
	struct stat st;
	char magic[4];

	if (fd < 0) {
		err = -errno;
		pr_warn("cannot read '%s': %s\n", path, strerror(errno));
		return err;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		pr_warn("'%s' is not a regular file: give a BPF object built by clang -target bpf\n",
			path);
		err = -ENOEXEC;
	} else if (pread(fd, magic, 4, 0) != 4 || memcmp(magic, "\177ELF", 4)) {
		pr_warn("'%s' is not an ELF object: give a BPF object built by clang -target bpf\n",
			path);
		err = -ENOEXEC;
	}
	if (err)
		close(fd);
	return err ?: fd;
}

int elf_file_check(const char *path)
{
	int fd = elf_file_open(path);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* NULL (errno kept) with its cause said: type @name, or (NULL) the
 * record type of map @map, in @where ("the BTF or DWARF of 'x.o'").
 * Without a name, none found (or none that may be read: EPERM) is no
 * error: a debug line (a caller then decodes without a type). */
static struct perfbuf_type *type_missing(const char *where, const char *map,
					 const char *name)
{
	int err = errno ?: ENOENT;
	char what[256];

	if (name)
		snprintf(what, sizeof(what), "type '%s'", name);
	else
		snprintf(what, sizeof(what), "the record type of map '%s'", map ? map : "?");
	if (err == ENOENT && name)
		pr_warn("no type '%s' in %s\n", name, where);
	else if (err == ENOENT)
		pr_debug("no record type for map '%s' in %s: no PERFBUF_EVENT(%s, ...) marker, no struct event; give a type\n",
			 map ? map : "?", where, map ? map : "MAP");
	else if (err == EPERM && name)
		pr_warn("type '%s': %s cannot be read without CAP_SYS_ADMIN (the kernel's rule for programs and BTF by id)\n",
			name, where);
	else if (err == EPERM)
		pr_debug("no record type for map '%s': %s cannot be read without CAP_SYS_ADMIN\n",
			 map ? map : "?", where);
	else if (err == EINVAL)
		pr_warn("%s in %s is not a struct or union with a size\n", what, where);
	else if (err == ELOOP)
		pr_warn("%s in %s nests more than %d levels deep, or contains itself\n",
			what, where, TYPE_MAX_DEPTH);
	else if (err == E2BIG)
		pr_warn("%s in %s has more than %d fields: too big to decode\n", what, where,
			TYPE_MAX_FIELDS);
	else
		pr_warn("%s in %s: %s\n", what, where, strerror(err));
	errno = err;
	return NULL;
}

static struct perfbuf_type *from_btf_id(const struct btf *btf, int id,
					const char *source)
{
	return id > 0 ? type_from_btf(btf, (__u32)id, source) : err_ptr(-ENOENT);
}

struct perfbuf_type *perfbuf_type__from_file(const char *path, const char *map,
					     const char *name)
{
	struct perfbuf_type *t = NULL;
	char where[PATH_MAX + 32];
	struct btf *btf;
	int err = elf_file_check(path);

	if (err)
		return err_ptr(err);
	btf = btf__parse_elf(path, NULL);	/* none: DWARF may have it */
	errno = 0;
	if (btf && name)
		t = from_btf_id(btf, type_btf_find(btf, name), "btf");
	if (btf && !name) {
		t = from_btf_id(btf, type_btf_marker(btf, map), "marker");
		if (!t && errno == ENOENT)
			t = from_btf_id(btf, type_btf_find(btf, NULL), "btf");
	}
	btf__free(btf);
	if (!t && (!errno || errno == ENOENT))
		t = type_from_dwarf(path, name ? name : "event");
	if (t)
		return t;
	snprintf(where, sizeof(where), "the BTF or DWARF of '%s'", path);
	return type_missing(where, map, name);
}

/* The type in the BTF of kernel object @btf_id (@name, the marker for
 * @map, `event`), or NULL with errno (ENOENT: none there) */
static struct perfbuf_type *kernel_btf_type(__u32 btf_id, const char *map,
					    const char *name)
{
	struct btf *btf = btf__load_from_kernel_by_id(btf_id);
	struct perfbuf_type *t = NULL;
	int id, err;

	if (!btf)
		return err_ptr(-errno);	/* EPERM: CAP_SYS_ADMIN */
	id = name ? type_btf_find(btf, name) : type_btf_marker(btf, map);
	if (id < 0 && !name)
		id = type_btf_find(btf, NULL);
	t = id > 0 ? type_from_btf(btf, (__u32)id, "kernel") : err_ptr(-ENOENT);
	err = errno;
	btf__free(btf);
	errno = err;
	return t;
}

/* A walk over the map's users: the first type found, or the first
 * real cause of none (ENOENT: none there) */
struct from_users {
	struct bpf_map_info map;
	const char *name;
	struct perfbuf_type *t;
	int err;
};

static int from_user(int fd, const struct prog_maps *pm, void *ctx)
{
	struct from_users *u = ctx;

	(void)fd;
	if (!pm->info.btf_id)
		return 0;
	u->t = kernel_btf_type(pm->info.btf_id, u->map.name, u->name);
	if (!u->t && u->err == ENOENT)
		u->err = errno;
	return u->t != NULL;
}

struct perfbuf_type *perfbuf_type__from_map_fd(int map_fd, const char *name)
{
	struct from_users u = { .name = name, .err = ENOENT };
	__u32 len = sizeof(u.map);
	char where[96];
	int ret;

	if (bpf_obj_get_info_by_fd(map_fd, &u.map, &len))
		return err_ptr(-errno);
	ret = prog_maps_each_user(u.map.id, from_user, &u);
	if (u.t)
		return u.t;
	if (ret < 0 && u.err == ENOENT)
		u.err = -ret;	/* EPERM: programs by id need CAP_SYS_ADMIN */
	snprintf(where, sizeof(where), "the BTF of the programs using map %s (id %u)",
		 u.map.name, u.map.id);
	errno = u.err;
	return type_missing(where, u.map.name, name);
}
