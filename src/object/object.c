// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A person's own BPF object (perfbuf/object.h): open, --set its .rodata
 * globals by their BTF, load, auto-attach every program.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "object_priv.h"
#include "kprobes.h"
#include "perfbuf/object.h"

struct perfbuf_object {
	struct bpf_object *obj;
	char *path;
	struct bpf_link **links;	/* per program, NULL when not attached */
	int *status;			/* per program: 1 attached, 0 not tried, -errno */
	int nprogs;
	bool loaded;
	__u32 fork_gen;			/* perfbuf_fork_gen() at the open */
};

struct perfbuf_object *perfbuf_object__open(const char *path)
{
	struct perfbuf_object *o;
	struct bpf_program *p;
	int fd = elf_file_open(path), err;

	if (fd < 0)
		return err_ptr(fd);
	/* libbpf 1.1 follows the BTF's ids unchecked: a bad one would crash */
	err = btf_file_check(path, fd);
	close(fd);
	if (err)
		return err_ptr(err);
	o = calloc(1, sizeof(*o));
	if (!o || !(o->path = strdup(path)))
		goto nomem;
	o->fork_gen = perfbuf_fork_gen();
	o->obj = bpf_object__open_file(path, NULL);
	if (!o->obj) {
		err = -errno;
		pr_warn("'%s' is not a BPF object libbpf can open: %s\n", path,
			errstr(errno));
		perfbuf_object__free(o);
		return err_ptr(err);
	}
	bpf_object__for_each_program(p, o->obj)
		o->nprogs++;
	o->links = calloc(o->nprogs + 1, sizeof(*o->links));
	o->status = calloc(o->nprogs + 1, sizeof(*o->status));
	if (o->links && o->status)
		return o;
nomem:
	perfbuf_object__free(o);
	return err_ptr(-ENOMEM);
}

void perfbuf_object__free(struct perfbuf_object *o)
{
	bool child;

	if (!o)
		return;
	/* a forked child's links share the parent's perf events: detaching
	 * them would disable the parent's probes (an fd or two leak instead) */
	child = perfbuf_forked(o->fork_gen);
	for (int i = 0; o->links && i < o->nprogs; i++) {
		if (child && o->links[i])
			bpf_link__disconnect(o->links[i]);
		bpf_link__destroy(o->links[i]);
	}
	bpf_object__close(o->obj);
	free(o->links);
	free(o->status);
	free(o->path);
	free(o);
}

static struct bpf_map *rodata_map(const struct perfbuf_object *o)
{
	struct bpf_map *m;
	size_t n;

	bpf_object__for_each_map(m, o->obj) {
		const char *name = bpf_map__name(m);

		n = strlen(name);
		if (bpf_map__is_internal(m) && n >= 7 && !strcmp(name + n - 7, ".rodata"))
			return m;
	}
	return NULL;
}

/* Variable @name of .rodata in the object's BTF: its type id, offset */
static int rodata_var(const struct btf *btf, const char *name, __u32 *type,
		      __u32 *off)
{
	int id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	const struct btf_type *ds = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_var_secinfo *v = ds ? btf_var_secinfos(ds) : NULL;

	for (int i = 0; ds && i < btf_vlen(ds); i++, v++) {
		const struct btf_type *var = btf__type_by_id(btf, v->type);

		if (var && !strcmp(btf_name(btf, var->name_off), name)) {
			*type = var->type;
			*off = v->offset;
			return 0;
		}
	}
	return -ENOENT;
}


int perfbuf_object__set(struct perfbuf_object *o, const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	struct btf *btf = bpf_object__btf(o->obj);
	struct bpf_map *m = rodata_map(o);
	char name[128];
	__u32 type, off;
	size_t sz;
	char *data;
	int err;

	if (o->loaded)
		return -EBUSY;
	if (!eq || eq == assignment) {
		pr_warn("--set '%s': give NAME=VALUE\n", assignment);
		return -EINVAL;
	}
	if ((size_t)(eq - assignment) >= sizeof(name)) {
		pr_warn("--set %.20s...: the name is too long (%zu characters; at most %zu)\n",
			assignment, (size_t)(eq - assignment), sizeof(name) - 1);
		return -ENAMETOOLONG;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(eq - assignment), assignment);
	if (!btf || !m || rodata_var(btf, name, &type, &off)) {
		pr_warn("--set %s: '%s' has no const volatile variable '%s' in .rodata\n",
			name, o->path, name);
		return -ENOENT;
	}
	data = (char *)bpf_map__initial_value(m, &sz);
	if (!data || btf__resolve_size(btf, type) < 0 ||
	    off + (size_t)btf__resolve_size(btf, type) > sz) {
		pr_warn("--set %s: '%s' places it outside its .rodata: a malformed object\n",
			name, o->path);
		return -ENOENT;
	}
	err = object_set_value(btf, type, name, eq + 1, data + off);
	return err;
}

int perfbuf_object__load(struct perfbuf_object *o)
{
	int err = object_load(o->obj, o->path);

	if (err)
		return err;
	o->loaded = true;
	return 0;
}

/* SEC("uprobe"), SEC("usdt"): the tool's userspace gives the target */
static bool is_probe_without_target(const char *sec)
{
	return !strcmp(sec, "uprobe") || !strcmp(sec, "uretprobe") || !strcmp(sec, "usdt") ||
	       !strcmp(sec, "uprobe.s") || !strcmp(sec, "uretprobe.s");
}

/* A kprobe on a kernel without them fails as a missing function would */
static bool no_kprobes(const char *sec)
{
	return (!strncmp(sec, "kprobe", 6) || !strncmp(sec, "kretprobe", 9) ||
		!strncmp(sec, "ksyscall", 8) || !strncmp(sec, "kretsyscall", 11)) &&
	       !kprobes_in_kernel(NULL);
}

static void say_not_attached(const struct bpf_program *p, int err)
{
	const char *sec = bpf_program__section_name(p);

	if (no_kprobes(sec))
		pr_warn("program %s (SEC(\"%s\")): not attached: this kernel has no kprobes (CONFIG_KPROBES is off)\n",
			bpf_program__name(p), sec);
	else
		pr_warn("program %s (SEC(\"%s\")): not attached: %s%s\n", bpf_program__name(p),
			sec, errstr(err), err == -ENOENT ? " (no such attach point on this kernel)" :
			err == -EPERM ? " (refused by the kernel: lockdown or an LSM?)" : "");
}

int perfbuf_object__attach(struct perfbuf_object *o)
{
	struct bpf_program *p;
	int i = 0, ok = 0, loaded = 0;

	bpf_object__for_each_program(p, o->obj) {
		struct bpf_link *l;

		if (i >= o->nprogs)
			break;
		loaded += bpf_program__autoload(p);
		if (!bpf_program__autoload(p) || o->links[i]) {
			ok += !!o->links[i++];
			continue;
		}
		l = bpf_program__attach(p);
		if (l) {
			o->links[i] = l;
			o->status[i++] = 1;
			ok++;
			continue;
		}
		o->status[i] = -errno;
		if (errno == EOPNOTSUPP || errno == ESRCH) {
			o->status[i++] = 0;
			pr_warn("program %s (SEC(\"%s\")): not attached: %s\n",
				bpf_program__name(p), bpf_program__section_name(p),
				is_probe_without_target(bpf_program__section_name(p)) ?
				"its SEC() names no binary and function (its own tool gives them)" :
				"libbpf cannot attach this section by its name");
			continue;
		}
		say_not_attached(p, o->status[i++]);
	}
	return !ok && loaded ? -ENOENT : ok;
}

int perfbuf_object__detach(struct perfbuf_object *o)
{
	int err = 0;

	if (perfbuf_forked(o->fork_gen))
		return -ECHILD;	/* the parent's probes */
	for (int i = 0; i < o->nprogs; i++) {
		int e = o->links[i] ? bpf_link__destroy(o->links[i]) : 0;

		o->links[i] = NULL;
		if (o->status[i] == 1)
			o->status[i] = 0;
		err = err ?: e;
	}
	return err;
}

int perfbuf_object__prog_cnt(const struct perfbuf_object *o)
{
	return o->nprogs;
}

static struct bpf_program *prog_at(const struct perfbuf_object *o, int i)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, o->obj)
		if (!i--)
			return p;
	return NULL;
}

const char *perfbuf_object__prog_name(const struct perfbuf_object *o, int i)
{
	struct bpf_program *p = i >= 0 ? prog_at(o, i) : NULL;

	return p ? bpf_program__name(p) : NULL;
}

int perfbuf_object__prog_fd(const struct perfbuf_object *o, int i)
{
	struct bpf_program *p = i >= 0 ? prog_at(o, i) : NULL;
	int fd = p ? bpf_program__fd(p) : -EINVAL;

	return fd < 0 && p ? -ENOENT : fd;
}

static struct bpf_map *map_at(const struct perfbuf_object *o, int i)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, o->obj)
		if (!i--)
			return m;
	return NULL;
}

int perfbuf_object__map_cnt(const struct perfbuf_object *o)
{
	struct bpf_map *m;
	int n = 0;

	bpf_object__for_each_map(m, o->obj)
		n++;
	return n;
}

const char *perfbuf_object__map_name(const struct perfbuf_object *o, int i)
{
	struct bpf_map *m = i >= 0 ? map_at(o, i) : NULL;

	return m ? bpf_map__name(m) : NULL;
}

int perfbuf_object__map_type(const struct perfbuf_object *o, int i)
{
	struct bpf_map *m = i >= 0 ? map_at(o, i) : NULL;

	return m ? (int)bpf_map__type(m) : -EINVAL;
}

int perfbuf_object__map_fd(const struct perfbuf_object *o, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(o->obj, name);
	int fd = m ? bpf_map__fd(m) : -ENOENT;

	return fd < 0 ? -ENOENT : fd;
}

struct perfbuf_type *perfbuf_object__type(const struct perfbuf_object *o,
					  const char *map, const char *name)
{
	return perfbuf_type__from_file(o->path, map, name);
}

struct bpf_object *perfbuf_object__bpf(const struct perfbuf_object *o)
{
	return o->obj;
}
