// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf attach's map: by id, by a path pinned in bpffs, or by name.
 * A name is often shared (maps named `events` are common): several maps
 * of that name are refused and listed, with their ids and the programs
 * that use them, for --map-id. A pinned path that is no map says what
 * it is (a program, a link, a file outside bpffs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <bpf/bpf.h>

#include "prog_maps.h"
#include "common/cli.h"
#include "run.h"

#define MAX_SAME 16

static bool readable(const struct bpf_map_info *m)
{
	return m->type == BPF_MAP_TYPE_PERF_EVENT_ARRAY || m->type == BPF_MAP_TYPE_RINGBUF;
}

struct names {
	char *out;
	size_t sz, len;
};

/* A program using the map: its name added to the list */
static int add_user(int fd, const struct prog_maps *pm, void *ctx)
{
	struct names *u = ctx;

	(void)fd;
	/* perfbuf's own check of the slots (slots.c) is no user */
	if (strcmp(pm->info.name, "perfbuf_slots") && u->len < u->sz)
		u->len += snprintf(u->out + u->len, u->sz - u->len, "%s%s",
				   u->len ? ", " : "", pm->info.name);
	return u->len >= u->sz;	/* full: no more */
}

/* The names of the loaded programs that use map @id, into @out */
static void users(__u32 id, char *out, size_t sz)
{
	struct names u = { .out = out, .sz = sz };

	out[0] = 0;
	prog_maps_each_user(id, add_user, &u);
}

/* Several maps of one name: each with its id and users, one line */
static void say_several(const char *prog, const char *name, const __u32 *ids, int n)
{
	char line[1024], progs[256];
	size_t len = 0;

	for (int i = 0; i < n && len < sizeof(line); i++) {
		users(ids[i], progs, sizeof(progs));
		len += snprintf(line + len, sizeof(line) - len, "%sid %u (%s)", i ? ", " : "",
				ids[i], *progs ? progs : "no program");
	}
	cli_say(prog, "%d maps are named %s: %s; give --map-id N\n", n, name, line);
}

/* Opening a map by id, or listing them, needs CAP_SYS_ADMIN (the
 * kernel's rule for BPF_MAP_GET_FD_BY_ID and _NEXT_ID, whatever CAP_BPF
 * says): -EPERM said so */
static int need_sys_admin(const char *prog, const char *what, bool by_id)
{
	cli_say(prog, "cannot open map %s: %s needs CAP_SYS_ADMIN; run it as root, or give --map-pinned PATH\n",
		what, by_id ? "opening a map by id" : "looking through the loaded maps");
	return -EPERM;
}

/* --map-name: the one loaded PERF_EVENT_ARRAY or RINGBUF map of that
 * name (the kernel keeps 15 bytes of it): an fd, or -errno (said) */
static int by_name(const char *prog, const char *name)
{
	__u32 id = 0, same[MAX_SAME];
	int n = 0, fd = -ENOENT;

	for (;;) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);
		int f;

		if (bpf_map_get_next_id(id, &id)) {
			if (errno == EPERM)
				return need_sys_admin(prog, name, false);
			break;	/* ENOENT: none left */
		}
		f = bpf_map_get_fd_by_id(id);
		if (f < 0 && errno == EPERM) {
			if (fd >= 0)
				close(fd);
			return need_sys_admin(prog, name, false);
		}
		if (f < 0)
			continue;	/* gone meanwhile */
		if (!bpf_obj_get_info_by_fd(f, &info, &len) && readable(&info) &&
		    !strncmp(info.name, name, sizeof(info.name) - 1) && n < MAX_SAME) {
			same[n++] = id;
			if (fd < 0) {
				fd = f;
				continue;
			}
		}
		close(f);
	}
	if (n > 1) {
		close(fd);
		say_several(prog, name, same, n);
		return -EEXIST;
	}
	if (fd < 0)
		cli_say(prog, "no map %s of type PERF_EVENT_ARRAY or RINGBUF loaded: %s\n",
			name, cli_strerror(fd));
	return fd;
}

/* --map-pinned: PATH is a map pinned in bpffs, or said what it is */
static int pinned(const char *prog, const char *path)
{
	struct statfs fs;
	struct stat st;
	char link[64] = "", fdpath[64];
	int fd;

	if (statfs(path, &fs) || stat(path, &st)) {
		fd = -errno;
		cli_say(prog, "--map-pinned %s: %s\n", path, cli_strerror(fd));
		return fd;
	}
	if (fs.f_type != BPF_FS_MAGIC) {
		cli_say(prog, "--map-pinned %s: a %s outside a BPF filesystem (bpffs): give a map pinned under /sys/fs/bpf\n",
			path, S_ISDIR(st.st_mode) ? "directory" : S_ISREG(st.st_mode) ?
			"regular file" : "file");
		return -EINVAL;
	}
	/* the kernel refuses a directory with EPERM/EACCES: not the cause */
	if (S_ISDIR(st.st_mode)) {
		cli_say(prog, "--map-pinned %s: a directory of bpffs, not a pinned map: give the path of a map pinned in it\n",
			path);
		return -EISDIR;
	}
	fd = bpf_obj_get(path);
	if (fd < 0) {
		fd = -errno;
		cli_say(prog, "--map-pinned %s: %s\n", path, cli_strerror(fd));
		return fd;
	}
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	if (readlink(fdpath, link, sizeof(link) - 1) > 0 && !strstr(link, "bpf-map")) {
		cli_say(prog, "--map-pinned %s: a pinned BPF %s, not a map\n", path,
			strstr(link, "bpf-prog") ? "program" : strstr(link, "bpf-link") ? "link" :
			"object");
		close(fd);
		return -EINVAL;
	}
	return fd;
}

int run_find_map(const struct run_opts *o)
{
	int fd;

	if (o->map_name)
		return by_name(o->prog, o->map_name);
	if (o->map_pinned)
		return pinned(o->prog, o->map_pinned);
	fd = bpf_map_get_fd_by_id(o->map_id);
	if (fd < 0) {
		char what[32];

		fd = -errno;
		snprintf(what, sizeof(what), "id %ld", o->map_id);
		if (fd == -EPERM)
			return need_sys_admin(o->prog, what, true);
		cli_say(o->prog, "no map %s: %s\n", what, cli_strerror(fd));
	}
	return fd;
}
