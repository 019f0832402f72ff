// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel function probes beyond one name: kprobe:FUNC+OFFSET, and globs
 * (kprobe:vfs_*, kretprobe:tcp_*) expanded over the functions ftrace can
 * probe (tracefs available_filter_functions), attached in one kprobe.multi
 * link where the kernel has one (CONFIG_FPROBE, Linux >= 5.18: Debian's
 * 6.12), one kprobe per function otherwise (Debian's 6.1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "common/cli.h"
#include "common/kfeat.h"
#include "common/say.h"
#include "args.h"
#include "tool.h"
#include "trace.skel.h"

int kfunc_parse_offset(struct trace_probe *p, const char *spec)
{
	char *plus = strchr(p->target, '+'), *end;

	if (!plus)
		return 0;
	errno = 0;
	p->offset = strtoul(plus + 1, &end, 0);
	if (errno || *end || end == plus + 1 || plus == p->target) {
		cli_say(p->prog, "bad probe '%s': want kprobe:FUNCTION+OFFSET, e.g. kprobe:vfs_read+9\n",
			 spec);
		return -EINVAL;
	}
	*plus = '\0';
	return 0;
}

int kfunc_attach_offset(struct trace_probe *p, struct trace *skel, __u64 i, bool kprobes)
{
	LIBBPF_OPTS(bpf_kprobe_opts, ko, .bpf_cookie = probe_cookie(i), .offset = p->offset);
	struct bpf_program *prog;
	int err;

	if (!kprobes) {
		cli_say(p->prog, "cannot trace %s: an offset into a function needs a kprobe (fentry has no offsets), and this kernel has no kprobes (CONFIG_KPROBES is off)\n",
			 p->spec);
		return -EOPNOTSUPP;
	}
	prog = probe_prog(p, skel, i);
	if (!prog)
		return -errno;
	p->link = bpf_program__attach_kprobe_opts(prog, p->target, &ko);
	if (p->link)
		return 0;
	err = -errno;
	if (err == -EILSEQ || err == -EINVAL)	/* EILSEQ: inside an instruction */
		cli_say(p->prog, "%s: the kernel cannot probe offset %lu of %s (%s): give the offset of an instruction's start (objdump -d of the kernel's vmlinux)\n",
			 p->spec, p->offset, p->target,
			 err == -EILSEQ ? "not where an instruction starts" : cli_strerror(err));
	else
		cli_say(p->prog, "attaching %s failed: %s%s\n", p->spec, cli_strerror(err),
			 cli_hint(err));
	return err;
}

/* A glob's probes typed as when named alone; how many BTF does not
 * describe, and the first of them, for one line at the end */
struct untyped {
	int n;
	char first[512];	/* a line of available_filter_functions */
};

/* ftrace's "name [module]": @func typed from vmlinux's or @mod's BTF */
static int add_func(struct probe_set *set, enum probe_kind kind, const char *kw,
		    const char *func, const char *mod, struct untyped *u)
{
	struct trace_probe *p = probe_new(set, kind);
	int err;

	if (!p)
		return -ENOMEM;
	p->from_glob = true;
	p->target = strdup(func);
	if (asprintf(&p->spec, "%s:%s", kw, func) < 0)
		p->spec = NULL;
	p->label = p->spec ? strdup(p->spec) : NULL;
	if (!p->target || !p->spec || !p->label) {
		cli_say(set->prog, "out of memory\n");
		return -ENOMEM;
	}
	err = kfunc_fields_glob(p, mod);
	if (err == -ENOENT && !u->n++)
		snprintf(u->first, sizeof(u->first), "%s", func);
	if (err == -ENOMEM)
		cli_say(set->prog, "out of memory\n");
	return err == -ENOMEM ? err : 0;
}

/* "name [module]" (a line of available_filter_functions) cut into the
 * two: the module "" when built in */
static void split_line(char *line, char **mod)
{
	char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;

	line[strcspn(line, " \t\n")] = '\0';
	*mod = "";
	if (open && close) {
		*close = '\0';
		*mod = open + 1;
	}
}

int kfunc_parse_glob(struct probe_set *set, enum probe_kind kind, const char *kw,
		     const char *spec, const char *pattern)
{
	char path[128], line[512], *mod;
	struct untyped u = { 0 };
	int found = 0, err = 0;
	FILE *f;

	if (!kfeat_kprobes()) {
		cli_say(set->prog, "cannot trace %s: a glob of kernel functions needs kprobes, and this kernel has none (CONFIG_KPROBES is off); name one function (fentry) or trace a tracepoint\n",
			 spec);
		return -EOPNOTSUPP;
	}
	snprintf(path, sizeof(path), "%s/available_filter_functions", tracefs_path());
	f = fopen(path, "re");
	if (!f) {
		cli_say(set->prog, "%s: cannot list the kernel's functions (%s: %s)\n", spec, path,
			 strerror(errno));
		return -errno;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		split_line(line, &mod);
		/* __ftrace_invalid_address___N: a hole, not a function */
		if (!fnmatch(pattern, line, 0) && strncmp(line, "__ftrace_invalid", 16)) {
			err = add_func(set, kind, kw, line, mod, &u);
			found++;
		}
	}
	fclose(f);
	if (!err && !found) {
		cli_say(set->prog, "%s: no kernel function matches '%s' (see %s)\n", spec, pattern, path);
		return -ENOENT;
	}
	if (!err && u.n == 1)
		cli_say(set->prog, "%s: BTF does not describe %s: its arguments printed as arg0..arg%d, whole registers\n",
			 spec, u.first, TRACE_MAX_ARGS - 1);
	else if (!err && u.n)
		cli_say(set->prog, "%s: BTF does not describe %d of its %d functions (%s, ...): their arguments printed as arg0..arg%d, whole registers\n",
			 spec, u.n, found, u.first, TRACE_MAX_ARGS - 1);
	return err;
}

/* The probes of @kind from globs, not attached yet. */
static int glob_probes(struct probe_set *set, enum probe_kind kind, const char **syms,
		       __u64 *cookies)
{
	int n = 0;

	for (int i = 0; i < set->n; i++) {
		struct trace_probe *p = &set->v[i];

		if (p->kind != kind || !p->from_glob || p->link || p->multi)
			continue;
		if (syms) {
			syms[n] = p->target;
			cookies[n] = i;
		}
		n++;
	}
	return n;
}

bool kfunc_wants_multi(const struct probe_set *set, enum probe_kind kind)
{
	return kfeat_has(KFEAT_KPROBE_MULTI) &&
	       glob_probes((struct probe_set *)set, kind, NULL, NULL) > 1;
}

/* One kprobe.multi link for @kind's globbed probes; 0, or the error
 * (the caller attaches them one by one then). */
static int attach_multi(struct probe_set *set, struct bpf_program *prog,
			enum probe_kind kind, struct bpf_link **link)
{
	int n = glob_probes(set, kind, NULL, NULL), err = 0;
	const char **syms = calloc(n ? n : 1, sizeof(*syms));
	__u64 *cookies = calloc(n ? n : 1, sizeof(*cookies));
	LIBBPF_OPTS(bpf_kprobe_multi_opts, mo, .syms = syms, .cookies = cookies,
		    .cnt = n, .retprobe = kind == PK_KRETPROBE);

	if (!syms || !cookies)
		err = -ENOMEM;
	else {
		glob_probes(set, kind, syms, cookies);
		*link = bpf_program__attach_kprobe_multi_opts(prog, NULL, &mo);
		err = *link ? 0 : -errno;
	}
	for (int i = 0; !err && i < set->n; i++)
		set->v[i].multi |= set->v[i].kind == kind && set->v[i].from_glob &&
				   !set->v[i].link;
	free(syms);
	free(cookies);
	return err;
}

void kfunc_attach_multi(struct probe_set *set, struct trace *skel)
{
	static const enum probe_kind kinds[2] = { PK_KPROBE, PK_KRETPROBE };
	struct bpf_program *progs[2] = { skel->progs.trace_kprobe_multi,
					 skel->progs.trace_kretprobe_multi };

	for (int k = 0; k < 2; k++) {
		int err;

		if (glob_probes(set, kinds[k], NULL, NULL) <= 1)
			continue;
		if (!kfeat_has(KFEAT_KPROBE_MULTI)) {
			cli_say(set->prog, "no multi-attach for %s globs here (%s: Linux %s): one %s per function\n",
				k ? "kretprobe" : "kprobe", kfeat_name(KFEAT_KPROBE_MULTI),
				kfeat_since(KFEAT_KPROBE_MULTI), k ? "kretprobe" : "kprobe");
			continue;
		}
		if (!bpf_program__fd(progs[k]) || bpf_program__fd(progs[k]) < 0)
			continue;
		err = attach_multi(set, progs[k], kinds[k], &set->multi_link[k]);
		if (err)
			cli_say(set->prog, "no multi-attach for %s globs here (%s): one %s per function\n",
				k ? "kretprobe" : "kprobe", cli_strerror(err),
				k ? "kretprobe" : "kprobe");
	}
}
