// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The running kernel's BPF features, probed once (see kfeat.h). */
#define _GNU_SOURCE	/* secure_getenv */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kbtf.h"
#include "kfeat.h"
#include "kprobes.h"
#include "say.h"

/* @key: the feature's word in PERFBUF_KFEAT_OFF and in a BPF object's
 * kfeat_KEY constant */
static const struct {
	const char *key, *name, *since;
} info[KFEAT__N] = {
	[KFEAT_LOOP] = { "loop", "bpf_loop()", "5.17" },
	[KFEAT_COOKIE] = { "cookie", "BPF attach cookies", "5.15" },
	[KFEAT_FETCH] = { "fetch", "BPF atomic fetch-and-add", "5.12" },
	[KFEAT_TASK_BTF] = { "task_btf", "bpf_get_current_task_btf()", "5.11" },
	[KFEAT_FUNC_ARG] = { "func_arg", "bpf_get_func_arg()", "5.17" },
	[KFEAT_KPROBE_MULTI] = { "kprobe_multi", "kprobe.multi links", "5.18" },
	[KFEAT_MODULE_BTF] = { "module_btf", "BTF of modules", "5.11" },
};

static bool has[KFEAT__N];
/* PERFBUF_KFEAT_OFF's features, said absent whatever the probes find; a
 * word it has that names none (kfeat_prepare() refuses to load then) */
static bool off[KFEAT__N];
static char off_bad[32];

/* A socket filter doing a fetch-and-add on its stack: the verifier
 * refuses the instruction before 5.12 */
static bool probe_fetch(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1, .off = -8, .imm = BPF_ADD | BPF_FETCH },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, NULL, "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* The index of feature @key, or -1 */
static int by_key(const char *key, size_t len)
{
	for (int f = 0; f < KFEAT__N; f++)
		if (strlen(info[f].key) == len && !strncmp(info[f].key, key, len))
			return f;
	return -1;
}

/* PERFBUF_KFEAT_OFF, read once: "all" or comma-separated keys */
static void read_off(void)
{
	static bool read;
	const char *v = secure_getenv("PERFBUF_KFEAT_OFF");

	if (read || !v)
		return;
	read = true;
	for (const char *w = v; *w; w += *w == ',') {
		size_t len = strcspn(w, ",");
		int f = by_key(w, len);

		if (len == 3 && !strncmp(w, "all", 3))
			memset(off, 1, sizeof(off));
		else if (f >= 0)
			off[f] = true;
		else if (len && !off_bad[0])
			snprintf(off_bad, sizeof(off_bad), "%.*s", (int)len, w);
		w += len;
	}
}

/* Whether the kernel's enum @type (its BTF) has @name */
static bool has_enum_value(const struct btf *btf, const char *type, const char *name)
{
	int id = btf ? btf__find_by_name_kind(btf, type, BTF_KIND_ENUM) : -1;
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_enum *e = t ? btf_enum(t) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, e[i].name_off), name))
			return true;
	return false;
}

/* Each group probed on its first use: the BTF one parses vmlinux's BTF
 * (tens of ms), which most commands never need */
static void probe(enum kfeat f)
{
	static bool probed_bpf, probed_btf;
	struct btf *btf;

	read_off();
	if (f <= KFEAT_TASK_BTF && !probed_bpf) {
		probed_bpf = true;
		has[KFEAT_LOOP] = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
							  BPF_FUNC_loop, NULL) > 0;
		has[KFEAT_COOKIE] = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
							    BPF_FUNC_get_attach_cookie, NULL) > 0;
		has[KFEAT_FETCH] = probe_fetch();
		has[KFEAT_TASK_BTF] = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
							      BPF_FUNC_get_current_task_btf,
							      NULL) > 0;
	}
	if (f > KFEAT_TASK_BTF && !probed_btf) {
		probed_btf = true;
		btf = kbtf_vmlinux();	/* kept: the tool's one parse */
		/* a fentry program's helper: no other program type can
		 * probe it by a load, so the kernel's list of helpers */
		has[KFEAT_FUNC_ARG] = has_enum_value(btf, "bpf_func_id",
						     "BPF_FUNC_get_func_arg");
		has[KFEAT_KPROBE_MULTI] = has_enum_value(btf, "bpf_attach_type",
							 "BPF_TRACE_KPROBE_MULTI");
		/* the kernel's own record of a module's BTF came with them */
		has[KFEAT_MODULE_BTF] = btf && btf__find_by_name_kind(btf, "btf_module",
								      BTF_KIND_STRUCT) > 0;
	}
}

bool kfeat_has(enum kfeat f)
{
	if (f >= KFEAT__N)
		return false;
	probe(f);
	return has[f] && !off[f];
}

const char *kfeat_name(enum kfeat f) { return f < KFEAT__N ? info[f].name : "?"; }
const char *kfeat_since(enum kfeat f) { return f < KFEAT__N ? info[f].since : "?"; }

int kfeat_missing(char *buf, size_t sz)
{
	static const enum kfeat used[] = { KFEAT_LOOP, KFEAT_COOKIE, KFEAT_FETCH };
	size_t len = 0;
	int n = 0;

	if (sz)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++) {
		if (kfeat_has(used[i]))
			continue;
		if (len < sz)
			len += snprintf(buf + len, sz - len, "%s%s (Linux %s)", n ? ", " : "",
					kfeat_name(used[i]), kfeat_since(used[i]));
		n++;
	}
	return n;
}

bool kfeat_kprobes(void)
{
	static int known;	/* 0: not probed, 1: yes, -1: no */

	if (!known)
		known = kprobes_in_kernel(NULL) ? 1 : -1;	/* tracefs' two places */
	return known > 0;
}

int kfeat_fentry(const char *func)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct btf *btf = kbtf_vmlinux();
	int id, fd;

	if (!btf)
		return -EOPNOTSUPP;
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	if (id < 0)
		return -ENOENT;
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = id);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns, 2, &o);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int kfeat_set_consts(struct bpf_object *obj, const char *prog)
{
	const struct btf *btf = bpf_object__btf(obj);
	int id = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
	const struct btf_type *sec = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_var_secinfo *v = sec ? btf_var_secinfos(sec) : NULL;
	struct bpf_map *map, *rodata = NULL;
	__u8 *data = NULL;
	size_t size = 0;

	read_off();
	if (off_bad[0]) {
		cli_say(prog, "PERFBUF_KFEAT_OFF: no feature '%s' (the features: loop, cookie, fetch, task_btf, func_arg, kprobe_multi, module_btf; or all)\n",
			off_bad);
		return -EINVAL;
	}
	bpf_object__for_each_map(map, obj) {
		const char *n = bpf_map__name(map);
		size_t len = strlen(n);

		if (bpf_map__is_internal(map) && len >= 7 && !strcmp(n + len - 7, ".rodata"))
			rodata = map;
	}
	/* a copy, changed and given back: libbpf 1.1 hands out a const view */
	const void *now = rodata ? bpf_map__initial_value(rodata, &size) : NULL;
	int err = 0;

	data = now && size ? malloc(size) : NULL;
	if (data)
		memcpy(data, now, size);
	for (int i = 0; data && sec && !err && i < btf_vlen(sec); i++, v++) {
		const char *name = btf__name_by_offset(btf, btf__type_by_id(btf, v->type)->name_off);
		int f = strncmp(name, "kfeat_", 6) ? -2 : by_key(name + 6, strlen(name + 6));

		if (f == -1 || (f >= 0 && (v->size != 1 || v->offset >= size))) {
			cli_say(prog, "BPF object %s: its constant %s is no kernel feature's (tools/common/kfeat.c)\n",
				bpf_object__name(obj), name);
			err = -ENOENT;
		} else if (f >= 0) {
			data[v->offset] = kfeat_has(f);
		}
	}
	if (data && !err)
		err = bpf_map__set_initial_value(rodata, data, size);
	free(data);
	return err;
}

/* NAME's twin NAME_bounded in @obj (@bounded), or NAME for it (!@bounded) */
static struct bpf_program *twin(struct bpf_object *obj, const char *name, bool bounded)
{
	size_t len = strlen(name);
	char n[128];

	if (bounded)
		snprintf(n, sizeof(n), "%s_bounded", name);
	else if (len > 8 && !strcmp(name + len - 8, "_bounded"))
		snprintf(n, sizeof(n), "%.*s", (int)(len - 8), name);
	else
		return NULL;
	return bpf_object__find_program_by_name(obj, n);
}

struct bpf_program *kfeat_prog(struct bpf_object *obj, struct bpf_program *prog)
{
	struct bpf_program *base = twin(obj, bpf_program__name(prog), false);
	struct bpf_program *bounded;

	base = base ?: prog;
	bounded = twin(obj, bpf_program__name(base), true);
	if (!bounded)
		return prog;
	return kfeat_has(KFEAT_LOOP) ? base : bounded;
}

bool kfeat_prog_loads(struct bpf_object *obj, struct bpf_program *prog)
{
	return kfeat_prog(obj, prog) == prog || twin(obj, bpf_program__name(prog), false);
}

int kfeat_prepare(struct bpf_object *obj, const char *prog)
{
	struct bpf_program *p, *bounded;
	bool loop = kfeat_has(KFEAT_LOOP), want;

	bpf_object__for_each_program(p, obj) {
		bounded = twin(obj, bpf_program__name(p), true);
		if (!bounded)
			continue;
		want = bpf_program__autoload(p);
		bpf_program__set_autoload(p, want && loop);
		bpf_program__set_autoload(bounded, want && !loop);
	}
	return kfeat_set_consts(obj, prog);
}
