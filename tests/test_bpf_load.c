// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Every BPF program the project ships loads on the running kernel: each
 * program of the objects in BUILD/bpf (the tool's, with their kfeat_
 * constants set as the tool sets them, tools/common/kfeat.c; from
 * BUILD/bpf/nofetch where the tool takes that build) and
 * BUILD/examples, the verifier's verdict as PASS or FAIL (its last log
 * lines shown); a program that calls bpf_loop() is a SKIP where the
 * kernel has none (its _bounded twin loads instead). tests/vm/t_load.sh runs it in Debian's kernels; here it
 * checks the machine's. Programs that attach by name at run time
 * (fentry, fexit, tp_btf, kprobe) are given a target that every kernel
 * has. fentry/fexit refused as a kind (EPERM: this host) is a SKIP. */
#define _GNU_SOURCE
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "common/kfeat.h"

static char vlog[1 << 16];
static size_t vlog_len;

static int keep_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || vlog_len >= sizeof(vlog) - 1)
		return 0;
	vlog_len += vsnprintf(vlog + vlog_len, sizeof(vlog) - vlog_len, fmt, ap);
	if (vlog_len > sizeof(vlog) - 1)
		vlog_len = sizeof(vlog) - 1;
	return 0;
}

/* The last @n lines of the kept log, indented, to stdout. */
static void show_log(int n)
{
	const char *p = vlog + vlog_len;

	while (p > vlog && n >= 0)
		if (*--p == '\n')
			n--;
	for (const char *l = p; *l;) {
		const char *e = strchrnul(l, '\n');

		if (e > l && *l != '\n')
			printf("    %.*s\n", (int)(e - l), l);
		l = *e ? e + 1 : e;
	}
}

/* A target for a program that names none in its section. */
static const char *default_target(const struct bpf_program *prog)
{
	switch (bpf_program__expected_attach_type(prog)) {
	case BPF_TRACE_FENTRY:
	case BPF_TRACE_FEXIT:
		return "vfs_read";
	case BPF_TRACE_RAW_TP:
		return "sched_switch";
	default:
		return NULL;
	}
}

static bool is_trampoline(const struct bpf_program *prog)
{
	enum bpf_attach_type t = bpf_program__expected_attach_type(prog);

	return t == BPF_TRACE_FENTRY || t == BPF_TRACE_FEXIT;
}

/* Open @path with program @idx alone to load (-1: all this kernel takes);
 * NULL past the last. */
static struct bpf_object *open_with(const char *path, int idx, struct bpf_program **me)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *prog;
	int i = 0;

	*me = NULL;
	if (!obj)
		return NULL;
	if (kfeat_set_consts(obj, "test_bpf_load")) {
		bpf_object__close(obj);
		return NULL;
	}
	bpf_object__for_each_program(prog, obj) {
		const char *target = default_target(prog);

		bpf_program__set_autoload(prog, (idx < 0 && kfeat_prog_loads(obj, prog)) ||
						i == idx);
		if (i++ == idx)
			*me = prog;
		if (target && !strchr(bpf_program__section_name(prog), '/'))
			bpf_program__set_attach_target(prog, 0, target);
	}
	if (idx >= 0 && !*me) {
		bpf_object__close(obj);
		return NULL;
	}
	vlog_len = 0;
	vlog[0] = '\0';
	return obj;
}

/* An example (user code, one build) on a kernel without what it uses:
 * the features it lacks, or NULL */
static const char *example_lacks(const char *path)
{
	static char missing[256];

	return strstr(path, "/examples/") && kfeat_missing(missing, sizeof(missing)) ?
	       missing : NULL;
}

/* @prog, which needs bpf_loop(), skipped for its twin */
static void say_twin(struct bpf_object *obj, struct bpf_program *prog, const char *obj_name)
{
	printf("SKIP load_%s_%s (this kernel lacks %s (Linux %s): %s loads instead)\n",
	       obj_name, bpf_program__name(prog), kfeat_name(KFEAT_LOOP),
	       kfeat_since(KFEAT_LOOP), bpf_program__name(kfeat_prog(obj, prog)));
}

/* Load program @idx of @path alone; print its line. 1 if it failed, -1
 * past the last program. */
static int load_one(const char *path, const char *obj_name, int idx)
{
	struct bpf_program *me;
	struct bpf_object *obj = open_with(path, idx, &me);
	int err;

	if (!obj)
		return -1;
	if (!kfeat_prog_loads(obj, me)) {
		say_twin(obj, me, obj_name);
		bpf_object__close(obj);
		return 0;
	}
	err = bpf_object__load(obj);
	if (!err)
		printf("PASS load_%s_%s\n", obj_name, bpf_program__name(me));
	else if (err == -EPERM && is_trampoline(me))
		printf("SKIP load_%s_%s (the kernel refuses %s programs: %s)\n",
		       obj_name, bpf_program__name(me), bpf_program__section_name(me),
		       strerror(-err));
	else if (err == -EINVAL && example_lacks(path)) {
		printf("SKIP load_%s_%s (this kernel lacks %s)\n", obj_name,
		       bpf_program__name(me), example_lacks(path));
		err = 0;
	} else {
		printf("FAIL load_%s_%s: %s\n", obj_name, bpf_program__name(me),
		       strerror(-err));
		show_log(12);
	}
	bpf_object__close(obj);
	return !err || err == -EPERM ? 0 : 1;
}

/* Every program of @path: all in one load (a BTF parse and a relocation
 * pass each, slow under TCG), one by one when that fails. */
static int load_all(const char *path, const char *obj_name)
{
	struct bpf_program *me, *prog;
	struct bpf_object *obj = open_with(path, -1, &me);
	int failed = 0, r;

	if (!obj) {
		printf("FAIL load_%s: opening %s: %s\n", obj_name, path, strerror(errno));
		return 1;
	}
	if (!bpf_object__load(obj)) {
		bpf_object__for_each_program(prog, obj)
			if (kfeat_prog_loads(obj, prog))
				printf("PASS load_%s_%s\n", obj_name, bpf_program__name(prog));
			else
				say_twin(obj, prog, obj_name);
		bpf_object__close(obj);
		return 0;
	}
	bpf_object__close(obj);
	for (int i = 0; (r = load_one(path, obj_name, i)) >= 0; i++)
		failed |= r;
	return failed;
}

/* LeakSanitizer (the ASan build): libbpf 1.1.2 keeps a vmlinux BTF (three
 * allocations, 6 MB, all in libbpf.so) that no call of ours can free after
 * a load the kernel refused (fentry here: EPERM). Its leak, not ours. */
const char *__lsan_default_suppressions(void);
__attribute__((visibility("default"))) const char *__lsan_default_suppressions(void)
{
	return "leak:libbpf.so.1\n";
}

int main(void)
{
	static const char *const dirs[] = { "bpf", "examples" };
	char exe[PATH_MAX], pat[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int failed = 0, found = 0;

	if (geteuid() != 0) {
		printf("SKIP bpf_load (needs root)\n");
		return 0;
	}
	if (n <= 0) {
		printf("FAIL bpf_load: /proc/self/exe: %s\n", strerror(errno));
		return 1;
	}
	exe[n] = '\0';
	libbpf_set_print(keep_log);
	/* BUILD/tests/test_bpf_load: the objects in BUILD/bpf, BUILD/examples */
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		glob_t g;

		/* BUILD/tests/test_bpf_load: BUILD/bpf/, BUILD/examples/ */
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s", exe);
		snprintf(pat, sizeof(pat), "%s/../%s/*.bpf.o", dirname(dir), dirs[d]);
		if (glob(pat, 0, NULL, &g))
			continue;
		for (size_t f = 0; f < g.gl_pathc; f++) {
			char *base = basename(g.gl_pathv[f]);
			char name[64], nofetch[PATH_MAX + 64];

			snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."), base);
			/* the object the tool loads here: its PERFBUF_NO_FETCH
			 * build where the kernel lacks fetch-and-add */
			snprintf(nofetch, sizeof(nofetch), "%.*s/nofetch/%s",
				 (int)(base - g.gl_pathv[f] - 1), g.gl_pathv[f], base);
			if (!kfeat_has(KFEAT_FETCH) && access(nofetch, R_OK) == 0)
				failed |= load_all(nofetch, name);
			else
				failed |= load_all(g.gl_pathv[f], name);
			found++;
		}
		globfree(&g);
	}
	if (!found) {
		printf("FAIL bpf_load: no BPF objects next to %s: run 'make'\n", exe);
		return 1;
	}
	return failed;
}
