// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The running kernel's BPF features, probed once (see kfeat.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kbtf.h"
#include "kfeat.h"
#include "kprobes.h"

static const struct {
	const char *name, *since;
} info[KFEAT__N] = {
	[KFEAT_LOOP] = { "bpf_loop()", "5.17" },
	[KFEAT_COOKIE] = { "BPF attach cookies", "5.15" },
	[KFEAT_FETCH] = { "BPF atomic fetch-and-add", "5.12" },
	[KFEAT_KPROBE_MULTI] = { "kprobe.multi links", "5.18" },
	[KFEAT_MODULE_BTF] = { "BTF of modules", "5.11" },
};

static bool has[KFEAT__N];

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

/* Whether the kernel's enum bpf_attach_type has @name (its BTF) */
static bool has_attach_type(const struct btf *btf, const char *name)
{
	int id = btf ? btf__find_by_name_kind(btf, "bpf_attach_type", BTF_KIND_ENUM) : -1;
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

	if (f <= KFEAT_FETCH && !probed_bpf) {
		probed_bpf = true;
		has[KFEAT_LOOP] = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
							  BPF_FUNC_loop, NULL) > 0;
		has[KFEAT_COOKIE] = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
							    BPF_FUNC_get_attach_cookie, NULL) > 0;
		has[KFEAT_FETCH] = probe_fetch();
	}
	if (f > KFEAT_FETCH && !probed_btf) {
		probed_btf = true;
		btf = kbtf_vmlinux();	/* kept: the tool's one parse */
		has[KFEAT_KPROBE_MULTI] = has_attach_type(btf, "BPF_TRACE_KPROBE_MULTI");
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
	return has[f];
}

const char *kfeat_name(enum kfeat f) { return f < KFEAT__N ? info[f].name : "?"; }
const char *kfeat_since(enum kfeat f) { return f < KFEAT__N ? info[f].since : "?"; }

bool kfeat_compat(void)
{
	return !kfeat_has(KFEAT_LOOP) || !kfeat_has(KFEAT_COOKIE) ||
	       !kfeat_has(KFEAT_FETCH);
}

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
