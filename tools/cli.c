// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What every subcommand shares: bad options, privileges, output files. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "commands.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

int cli_bad_option(const char *cmd, int ret, char **argv)
{
	const char *arg = argv[optind - 1];

	if (ret == ':')
		fprintf(stderr, "perfbuf %s: %s needs a value; run 'perfbuf %s --help'\n",
			cmd, arg, cmd);
	else if (optopt)
		fprintf(stderr, "perfbuf %s: unknown option '-%c'; run 'perfbuf %s --help'\n",
			cmd, optopt, cmd);
	else
		fprintf(stderr, "perfbuf %s: unknown option '%s'; run 'perfbuf %s --help'\n",
			cmd, arg, cmd);
	return 1;
}

static int sysctl_int(const char *path)
{
	FILE *f = fopen(path, "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Effective capabilities, not the uid: a root shell with its capabilities
 * dropped fails later and less clearly, a non-root one granted CAP_BPF and
 * CAP_PERFMON works. */
int cli_need_privileges(const char *prog, unsigned int need)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};
	char missing[320] = "";

#define HAS(c) (d[(c) / 32].effective & (1U << ((c) % 32)))
#define MISSING(name) snprintf(missing + strlen(missing),		\
			       sizeof(missing) - strlen(missing), "%s%s", \
			       missing[0] ? ", " : "", name)
	if (syscall(SYS_capget, &hdr, d))
		return 0;	/* let the kernel say no later */
	/* CAP_SYS_ADMIN stands for both before Linux 5.8, and still works */
	if ((need & CLI_BPF) && !HAS(CAP_SYS_ADMIN)) {
		if (!HAS(CAP_BPF))
			MISSING("CAP_BPF");
		if (!HAS(CAP_PERFMON))
			MISSING("CAP_PERFMON");
		if (missing[0])
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 " (kernel.unprivileged_bpf_disabled=%d and kernel.perf_event_paranoid=%d keep BPF and perf events from other users)",
				 sysctl_int("/proc/sys/kernel/unprivileged_bpf_disabled"),
				 sysctl_int("/proc/sys/kernel/perf_event_paranoid"));
	}
	if ((need & CLI_TRACEFS) && !HAS(CAP_DAC_OVERRIDE) &&
	    !HAS(CAP_DAC_READ_SEARCH))
		MISSING("CAP_DAC_READ_SEARCH (tracefs is root's only)");
#undef MISSING
#undef HAS
	if (!missing[0])
		return 0;
	fprintf(stderr, "%s: missing %s; run it as root, e.g. with sudo\n",
		prog, missing);
	return -EPERM;
}

/* O_NOFOLLOW and no O_TRUNC at open: a planted symlink or hard-to-see
 * special file is never clobbered; only a regular file is truncated. */
int cli_open_output(const char *path)
{
	struct stat st;
	int fd, err;

	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno == ELOOP ? -ELOOP : -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto fail;
	}
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0)) {
		err = -errno;
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		err = -EISDIR;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return err;
}

FILE *cli_fopen_output(const char *path)
{
	int fd = cli_open_output(path);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return f;
}

/* The library's warnings while a collector is set up: kept, to become the
 * reason in the tool's one line if the set-up fails. */
static char setup_log[2048];

static int keep_warning(enum perfbuf_print_level level, const char *fmt,
			va_list ap)
{
	size_t n = strlen(setup_log);

	if (level == PERFBUF_DEBUG || n >= sizeof(setup_log) - 1)
		return 0;
	return vsnprintf(setup_log + n, sizeof(setup_log) - n, fmt, ap);
}

struct perfbuf *cli_perfbuf_new(const char *prog, int map_fd,
				perfbuf_record_fn fn, void *ctx,
				const struct perfbuf_opts *opts)
{
	perfbuf_print_fn prev;
	struct perfbuf *pb;
	char *last;
	int err;

	setup_log[0] = '\0';
	prev = perfbuf_set_print(keep_warning);
	pb = perfbuf__new(map_fd, fn, ctx, opts);
	err = errno;
	perfbuf_set_print(prev);
	if (pb) {
		fputs(setup_log, stderr);	/* warnings that did not stop it */
		return pb;
	}
	/* the last warning is the one that stopped it */
	while ((last = strrchr(setup_log, '\n')) && !last[1])
		*last = '\0';
	last = strrchr(setup_log, '\n');
	last = last ? last + 1 : setup_log;
	if (!strncmp(last, "perfbuf: ", 9))
		last += 9;
	fprintf(stderr, "%s: setting up the perf buffer failed: %s%s\n", prog,
		*last ? last : strerror(err), *last ? "" : cli_hint(err));
	errno = err;
	return NULL;
}

const char *cli_hint(int err)
{
	switch (err < 0 ? -err : err) {
	case EMFILE:
	case ENFILE:
		return " (raise 'ulimit -n')";
	case EPERM:
	case EACCES:
		return " (run it as root)";
	default:
		return "";
	}
}

/* libbpf's feature probes misreport EMFILE as other errors: make sure of
 * the fds up front, raising the soft limit if the hard one allows it. */
int cli_need_fds(const char *prog, unsigned int extra)
{
	int cpus = perfbuf_possible_cpus(NULL, 0);
	rlim_t need = 64 + 2 * (rlim_t)(cpus > 0 ? cpus : 1) + extra;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max >= need) {
		rl.rlim_cur = need;
		if (!setrlimit(RLIMIT_NOFILE, &rl))
			return 0;
	}
	fprintf(stderr, "%s: %s (RLIMIT_NOFILE %llu, %llu needed: 2 per CPU and the BPF objects); raise 'ulimit -n'\n",
		prog, strerror(EMFILE), (unsigned long long)rl.rlim_max,
		(unsigned long long)need);
	return -EMFILE;
}
