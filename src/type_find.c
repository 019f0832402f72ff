// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Where a map's record type is found (perfbuf/type.h): an ELF object's
 * BTF and DWARF, a header compiled to BTF by clang, or the BTF of a
 * loaded program that uses the map.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "type_priv.h"

static int elf_check(const char *path)
{
	char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0) {
		err = -errno;
		pr_warn("cannot read '%s': %s\n", path, strerror(errno));
		return err;
	}
	if (read(fd, magic, 4) != 4 || memcmp(magic, "\177ELF", 4)) {
		pr_warn("'%s' is not an ELF object: give a BPF object built by clang -target bpf\n",
			path);
		err = -ENOEXEC;
	}
	close(fd);
	return err;
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
	struct btf *btf;
	int err = elf_check(path);

	if (err)
		return err_ptr(err);
	btf = btf__parse_elf(path, NULL);
	if (!btf)
		btf = NULL;	/* no BTF: DWARF may still have it */
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
	if (!t && errno == ENOENT && name)
		pr_warn("no type '%s' in the BTF or DWARF of '%s'\n", name, path);
	else if (!t && errno == ENOENT)
		pr_warn("no record type for map '%s' in '%s': no PERFBUF_EVENT(%s, ...) marker, no struct event in its BTF or DWARF; give --type\n",
			map ? map : "?", path, map ? map : "MAP");
	else if (!t && errno == EINVAL)
		pr_warn("type '%s' in '%s' is not a struct or union with a size\n",
			name ? name : "event", path);
	return t;
}

/* clang -g -target bpf -c @src -o @obj, its stderr shown or not */
static int run_clang(const char *src, const char *obj, const char *incdir,
		     bool quiet)
{
	const char *clang = getenv("CLANG") ?: "clang";
	char inc[4200];
	int status;
	pid_t pid;

	snprintf(inc, sizeof(inc), "-I%s", incdir);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		if (quiet) {
			int fd = open("/dev/null", O_WRONLY);

			dup2(fd, 2);
		}
		execlp(clang, clang, "-g", "-O2", "-target", "bpf", inc, "-c",
		       src, "-o", obj, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -ENOEXEC;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EINVAL;
}

/* A file declaring a marker of type @decl that includes @header */
static int write_src(const char *src, const char *header, const char *decl)
{
	FILE *f = fopen(src, "w");

	if (!f)
		return -errno;
	fprintf(f, "#include \"%s\"\n%s *__perfbuf_event__h;\n", header, decl);
	return fclose(f) ? -errno : 0;
}

static int compile_header(const char *dir, const char *header, const char *name,
			  char *obj)
{
	char src[4200], decl[512], hdr[4096], incdir[4096];
	bool tagged = !strncmp(name, "struct ", 7) || !strncmp(name, "union ", 6);
	int err = -EINVAL;

	if (!realpath(header, hdr))
		return -errno;
	snprintf(incdir, sizeof(incdir), "%s", hdr);
	*strrchr(incdir, '/') = 0;
	snprintf(src, sizeof(src), "%s/h.c", dir);
	snprintf(obj, 4200, "%s/h.o", dir);
	/* "event": struct event, else a typedef (then clang's errors shown) */
	for (int pass = tagged; pass < 2 && err; pass++) {
		snprintf(decl, sizeof(decl), "%s%s", pass ? "" : "struct ", name);
		err = write_src(src, hdr, decl);
		if (!err)
			err = run_clang(src, obj, incdir, pass == 0);
		if (err == -ENOEXEC)
			break;
	}
	unlink(src);
	return err;
}

struct perfbuf_type *perfbuf_type__from_header(const char *header,
					       const char *name)
{
	char dir[] = "/tmp/perfbuf-header.XXXXXX", obj[4200];
	struct perfbuf_type *t = NULL;
	struct btf *btf = NULL;
	int err;

	if (access(header, R_OK)) {
		err = -errno;
		pr_warn("cannot read header '%s': %s\n", header, strerror(errno));
		return err_ptr(err);
	}
	if (!mkdtemp(dir))
		return err_ptr(-errno);
	err = compile_header(dir, header, name, obj);
	if (err == -ENOEXEC)
		pr_warn("no clang to compile '%s' (set CLANG to its path)\n", header);
	else if (err)
		pr_warn("'%s' with type '%s' did not compile (clang's errors above)\n",
			header, name);
	if (!err) {
		btf = btf__parse_elf(obj, NULL);
		t = btf ? from_btf_id(btf, type_btf_marker(btf, "h"), "header") : NULL;
		if (!t)
			pr_warn("type '%s' of '%s' is not a struct or union with a size\n",
				name, header);
	}
	err = t ? 0 : -(errno ?: EINVAL);
	btf__free(btf);
	unlink(obj);
	rmdir(dir);
	return t ? t : err_ptr(err);
}

/* Does program @fd use map @map_id? Its BTF id when it does, else 0 */
static __u32 prog_btf_using(int fd, __u32 map_id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), ids[64];

	if (bpf_obj_get_info_by_fd(fd, &info, &len) || !info.btf_id ||
	    !info.nr_map_ids)
		return 0;
	len = info.nr_map_ids < 64 ? info.nr_map_ids : 64;
	info = (struct bpf_prog_info){ .nr_map_ids = len,
				       .map_ids = (__u64)(unsigned long)ids };
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	for (__u32 i = 0; i < info.nr_map_ids && i < 64; i++)
		if (ids[i] == map_id)
			return info.btf_id;
	return 0;
}

/* The type in the BTF of kernel object @btf_id (@name, the marker for
 * @map, `event`), or NULL */
static struct perfbuf_type *kernel_btf_type(__u32 btf_id, const char *map,
					    const char *name)
{
	struct btf *btf = btf__load_from_kernel_by_id(btf_id);
	struct perfbuf_type *t = NULL;
	int id;

	if (!btf)
		return NULL;
	id = name ? type_btf_find(btf, name) : type_btf_marker(btf, map);
	if (id < 0 && !name)
		id = type_btf_find(btf, NULL);
	if (id > 0)
		t = type_from_btf(btf, (__u32)id, "kernel");
	btf__free(btf);
	return t;
}

struct perfbuf_type *perfbuf_type__from_map_fd(int map_fd, const char *name)
{
	struct bpf_map_info minfo = {};
	__u32 len = sizeof(minfo), id = 0;
	struct perfbuf_type *t = NULL;

	if (bpf_obj_get_info_by_fd(map_fd, &minfo, &len))
		return err_ptr(-errno);
	while (!t && !bpf_prog_get_next_id(id, &id)) {
		int fd = bpf_prog_get_fd_by_id(id);
		__u32 btf_id;

		if (fd < 0)
			continue;
		btf_id = prog_btf_using(fd, minfo.id);
		close(fd);
		if (btf_id)
			t = kernel_btf_type(btf_id, minfo.name, name);
	}
	return t ? t : err_ptr(-ENOENT);
}
