// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf_object__load()'s failure, named: libbpf says which program or
 * map failed, and the verifier why, only through its print callback (its
 * load returns one errno for the whole object, and closes everything).
 * The load runs with a callback of ours that notes them (lib/load_log.h,
 * the tool's reading too) and hands every line on to the caller's
 * callback, then the caller's is put back.
 */
#define _GNU_SOURCE	/* vasprintf */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "object_priv.h"
#include "kernel_btf.h"
#include "load_log.h"

static struct load_log *note;		/* during a load */
static libbpf_print_fn_t callers;	/* the caller's callback, handed every line */

static int capture(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *s;
	va_list cp;

	va_copy(cp, ap);
	if (note && level == LIBBPF_WARN && vasprintf(&s, fmt, cp) >= 0) {
		load_log_read(note, s, 1);
		free(s);
	}
	va_end(cp);
	return callers ? callers(level, fmt, ap) : 0;
}

static bool tracing_section(const char *sec)
{
	static const char *const kinds[] = { "fentry/", "fexit/", "fmod_ret/", "lsm/",
					     "fentry.s/", "fexit.s/", "lsm.s/", "iter/" };

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strncmp(sec, kinds[i], strlen(kinds[i])))
			return true;
	return false;
}

/* One line: what failed (a program, a map, or the object) and why */
static void say(struct bpf_object *obj, const char *path, const struct load_log *n, int err)
{
	struct bpf_program *p = n->prog[0] ? bpf_object__find_program_by_name(obj, n->prog) : NULL;
	const char *sec = p ? bpf_program__section_name(p) : "";
	char btf[PATH_MAX + 300], quoted[PATH_MAX + 8];

	snprintf(quoted, sizeof(quoted), "'%s'", path);
	if (n->map[0] && !p) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, n->map);
		/* libbpf-tools size some maps at run time, in their own tool */
		bool unsized = m && (!bpf_map__value_size(m) || !bpf_map__max_entries(m));

		pr_warn("loading '%s' failed: map %s could not be created: %s%s\n", path, n->map,
			errstr(err), unsized ?
			" (the object leaves its size 0: its own tool sets it before the load)" :
			err == -ENOMEM || err == -E2BIG ?
			" (its max_entries or value size too large for this kernel?)" : "");
	} else if (p && err == -EPERM && tracing_section(sec)) {
		pr_warn("program %s (SEC(\"%s\")) failed to load: this kernel refuses %.*s programs (%s%s); run without it: --no-prog %s\n",
			n->prog, sec, (int)strcspn(sec, "/."), sec, errstr(err),
			geteuid() ? ", or CAP_BPF and CAP_PERFMON are missing" :
			" as root: kernel lockdown or an LSM", n->prog);
	} else if (p) {
		pr_warn("program %s (SEC(\"%s\")) failed to load: %s%s%s%s; run without it: --no-prog %s\n",
			n->prog, sec, errstr(err),
			n->why[0] ? ": the verifier says \"" : "", n->why,
			n->why[0] ? "\" (its whole log with -v)" :
			err == -EPERM ? " (CAP_BPF and CAP_PERFMON needed, or root)" : "",
			n->prog);
	} else if (err == -ESRCH && kernel_btf_said(btf, sizeof(btf), quoted)) {
		pr_warn("%s\n", btf);
	} else {
		pr_warn("loading '%s' failed: %s%s\n", path, errstr(err),
			err == -EPERM ? " (CAP_BPF and CAP_PERFMON needed, or root)" :
			err == -ENOMEM ? " (memory ran out)" :
			/* ESRCH here: the kernel's BTF loads (kernel_btf_said()
			 * above parsed it), so libbpf's ESRCH has another cause */
			err == -ESRCH ? "" : "; libbpf's reasons are shown with -v");
	}
}

int object_load(struct bpf_object *obj, const char *path)
{
	struct load_log n = {};
	int err;

	note = &n;
	callers = libbpf_set_print(capture);
	err = bpf_object__load(obj);
	libbpf_set_print(callers);
	note = NULL;
	if (err)
		say(obj, path, &n, err);
	return err;
}
