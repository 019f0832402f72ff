// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tracepoints to suggest for a kernel function that cannot be probed
 * (no kprobes, fentry refused): those that fit it, or none. A hint that
 * does not fit (any function pointed at openat) sends a user to events
 * that are not the ones they asked for, so each rule below is specific,
 * and a tracepoint is named only when this kernel has it.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "hint.h"
#include "tracefs.h"

/*
 * Functions reached from several syscalls, or with tracepoints of their
 * own under other names. A word without ':' is a syscall (its sys_enter_
 * or, for a return probe, sys_exit_ tracepoint), else CATEGORY:NAME.
 */
static const struct {
	const char *func;
	const char *why;
	const char *tps;
} known[] = {
	{ "do_sys_openat2", "of the syscalls that reach it", "open openat openat2 creat" },
	{ "do_sys_open", "of the syscalls that reach it", "open openat creat" },
	{ "do_filp_open", "of the syscalls that reach it", "open openat openat2 creat" },
	{ "vfs_read", "of the syscalls that reach it", "read pread64" },
	{ "vfs_write", "of the syscalls that reach it", "write pwrite64" },
	{ "vfs_readv", "of the syscalls that reach it", "readv preadv preadv2" },
	{ "vfs_writev", "of the syscalls that reach it", "writev pwritev pwritev2" },
	{ "do_execveat_common", "of the syscalls that reach it",
	  "execve execveat sched:sched_process_exec" },
	{ "bprm_execve", "of exec", "sched:sched_process_exec" },
	{ "kernel_clone", "of the syscalls that reach it",
	  "clone clone3 fork vfork sched:sched_process_fork" },
	{ "do_exit", "of the syscalls that reach it", "exit exit_group sched:sched_process_exit" },
	{ "do_group_exit", "of the syscalls that reach it", "exit_group sched:sched_process_exit" },
	{ "do_unlinkat", "of the syscalls that reach it", "unlink unlinkat" },
	{ "do_rmdir", "of the syscalls that reach it", "rmdir unlinkat" },
	{ "do_mkdirat", "of the syscalls that reach it", "mkdir mkdirat" },
	{ "do_renameat2", "of the syscalls that reach it", "rename renameat renameat2" },
	{ "do_linkat", "of the syscalls that reach it", "link linkat" },
	{ "do_symlinkat", "of the syscalls that reach it", "symlink symlinkat" },
	{ "do_faccessat", "of the syscalls that reach it", "access faccessat faccessat2" },
	{ "do_epoll_wait", "of the syscalls that reach it", "epoll_wait epoll_pwait epoll_pwait2" },
	{ "do_sys_poll", "of the syscalls that reach it", "poll ppoll" },
	{ "core_sys_select", "of the syscalls that reach it", "select pselect6" },
	{ "hrtimer_nanosleep", "of the syscalls that reach it", "nanosleep clock_nanosleep" },
	{ "__schedule", "of the scheduler", "sched:sched_switch" },
	{ "schedule", "of the scheduler", "sched:sched_switch" },
	{ "finish_task_switch", "of the scheduler", "sched:sched_switch" },
	{ "context_switch", "of the scheduler", "sched:sched_switch" },
	{ "try_to_wake_up", "of the scheduler", "sched:sched_waking sched:sched_wakeup" },
	{ "wake_up_process", "of the scheduler", "sched:sched_waking sched:sched_wakeup" },
	{ "wake_up_new_task", "of the scheduler", "sched:sched_wakeup_new" },
	{ "set_task_cpu", "of the scheduler", "sched:sched_migrate_task" },
};

/* Prefixes of a syscall's own functions and of the helpers named for it */
static const char *const sys_pfx[] = { "__x64_sys_", "__ia32_sys_",
	"__arm64_sys_", "__se_sys_", "__do_sys_", "__sys_", "do_sys_", "ksys_",
	"sys_", "do_" };

/* Categories named other than the functions' prefix */
static const struct { const char *pfx, *cat; } cat_alias[] = {
	{ "blk", "block" }, { "sk", "sock" }, { "kmalloc", "kmem" },
};

static bool tp_exists(const char *cat, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/events/%s%s%s", tracefs_path(), cat,
		 name ? "/" : "", name ? name : "");
	return path_exists(path);
}

/* Append tracepoint CAT:NAME (or syscall @word's) to @out when the kernel
 * has it */
static void add_tp(struct kfunc_hint *h, const char *word, size_t n, bool ret)
{
	char cat[64], name[128];
	const char *colon = memchr(word, ':', n);
	size_t len = strlen(h->tps);

	if (colon) {
		snprintf(cat, sizeof(cat), "%.*s", (int)(colon - word), word);
		snprintf(name, sizeof(name), "%.*s", (int)(n - (colon - word) - 1), colon + 1);
	} else {
		snprintf(cat, sizeof(cat), "syscalls");
		snprintf(name, sizeof(name), "sys_%s_%.*s", ret ? "exit" : "enter", (int)n, word);
	}
	if (!tp_exists(cat, name))
		return;
	snprintf(h->tps + len, sizeof(h->tps) - len, "%stracepoint:%s:%s",
		 len ? " " : "", cat, name);
}

/* The table's entry for @func */
static bool from_table(struct kfunc_hint *h, const char *func, bool ret)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const char *w = known[i].tps;

		if (strcmp(func, known[i].func))
			continue;
		while (*w) {
			size_t n = strcspn(w, " ");

			add_tp(h, w, n, ret);
			w += n + (w[n] == ' ');
		}
		h->why = known[i].why;
		return h->tps[0];
	}
	return false;
}

/* A syscall's own function or a helper named for it: its tracepoint */
static bool from_syscall(struct kfunc_hint *h, const char *func, bool ret)
{
	for (size_t i = 0; i < sizeof(sys_pfx) / sizeof(sys_pfx[0]); i++) {
		size_t n = strlen(sys_pfx[i]);

		if (strncmp(func, sys_pfx[i], n) || !func[n])
			continue;
		add_tp(h, func + n, strlen(func + n), ret);
		if (h->tps[0]) {
			h->why = "of its syscall";
			return true;
		}
	}
	return false;
}

/* A tracepoint of the function's own name, in any category (kmalloc's
 * kmem:kmalloc, tcp_retransmit_skb's tcp:) */
static bool from_name(struct kfunc_hint *h, const char *func)
{
	char path[512];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "%s/events", tracefs_path());
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !tp_exists(e->d_name, func))
			continue;
		snprintf(h->tps, sizeof(h->tps), "tracepoint:%s:%s", e->d_name, func);
		h->why = "named for it";
		break;
	}
	if (d)
		closedir(d);
	return h->tps[0];
}

/* Words of the scheduler's functions (its tracepoints are sched:) */
static const char *const sched_words[] = { "schedule", "sched_", "wake_up",
	"enqueue_task", "dequeue_task", "pick_next_task", "task_tick",
	"update_curr", "migrate_task" };

static bool sched_func(const char *f)
{
	for (size_t i = 0; i < sizeof(sched_words) / sizeof(sched_words[0]); i++)
		if (strstr(f, sched_words[i]))
			return true;
	return false;
}

/* The category its name starts with (tcp_sendmsg: tcp), the scheduler's
 * for its functions */
static bool from_subsystem(struct kfunc_hint *h, const char *func)
{
	const char *f = func + strspn(func, "_");
	size_t n = strcspn(f, "_");
	char cat[64];

	if (sched_func(f))
		snprintf(cat, sizeof(cat), "sched");
	else
		snprintf(cat, sizeof(cat), "%.*s", (int)(n < 63 ? n : 0), f);
	for (size_t i = 0; i < sizeof(cat_alias) / sizeof(cat_alias[0]); i++)
		if (!strcmp(cat, cat_alias[i].pfx))
			snprintf(cat, sizeof(cat), "%s", cat_alias[i].cat);
	if (!cat[0] || !strcmp(cat, "syscalls") || !tp_exists(cat, NULL))
		return false;
	snprintf(h->tps, sizeof(h->tps), "'tracepoint:%s:*'", cat);
	h->why = !strcmp(cat, "sched") ? "of the scheduler" : "of its subsystem";
	return true;
}

bool kfunc_hint(const char *func, bool ret, struct kfunc_hint *h)
{
	h->tps[0] = '\0';
	h->why = NULL;
	return from_table(h, func, ret) || from_syscall(h, func, ret) ||
	       from_name(h, func) || from_subsystem(h, func);
}
