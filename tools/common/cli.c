// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What every subcommand shares: bad options, privileges, fds, setting up
 * the collector. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cli.h"
#include "kernel_btf.h"
#include "load_log.h"
#include "rings.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

int cli_parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	/* digits, a '-' before them at most: no blanks, no '+' */
	if (!isdigit((unsigned char)s[*s == '-']))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

bool cli_parse_num(const char *prog, const char *opt, const char *arg,
		   long min, long max, long *out)
{
	if (!cli_parse_long(arg, min, max, out))
		return true;
	cli_say(prog, "%s wants a number from %ld to %ld, not '%s'\n", opt, min, max, arg);
	return false;
}

/* "trace": perfbuf trace's; "perfbuf-bench": a program of its own */
static void prog_name(const char *cmd, char *prog, size_t sz)
{
	snprintf(prog, sz, "%s%s", strncmp(cmd, "perfbuf", 7) ? "perfbuf " : "", cmd);
}

int cli_bad_option(const char *cmd, int ret, char **argv)
{
	const char *arg = argv[optind - 1];
	char prog[64];

	prog_name(cmd, prog, sizeof(prog));
	if (ret == ':')
		cli_say(prog, "%s needs a value; run '%s --help'\n",
			arg, prog);
	else if (optopt && !strncmp(arg, "--", 2) && strchr(arg, '='))
		/* getopt's optopt: a known long option given a value */
		cli_say(prog, "%.*s takes no value, not '%s'; run '%s --help'\n",
			(int)(strchr(arg, '=') - arg), arg, arg, prog);
	else if (optopt && optopt < 256)
		cli_say(prog, "unknown option '-%c'; run '%s --help'\n",
			optopt, prog);
	else
		cli_say(prog, "unknown option '%s'; run '%s --help'\n",
			arg, prog);
	return 1;
}

int cli_options(const struct cli_opts *c, int argc, char **argv, void *ctx)
{
	int opt;

	optind = 1;
	opterr = 0;	/* one line of our own instead of getopt's */
	while ((opt = getopt_long(argc, argv, c->shortopts, c->longopts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(c->usage, stdout);
			return 1;
		}
		if (opt == '?' || opt == ':') {
			cli_bad_option(c->cmd, opt, argv);
			return -1;
		}
		if (!c->set(opt, optarg, ctx))
			return -1;
	}
	if (c->no_operands && optind < argc) {
		char prog[64];

		prog_name(c->cmd, prog, sizeof(prog));
		cli_say(prog, "unexpected argument '%s'; run '%s --help'\n",
			argv[optind], prog);
		return -1;
	}
	return 0;
}

static void append(char *buf, size_t size, const char *s)
{
	size_t n = strlen(buf);

	snprintf(buf + n, size - n, "%s%s", n ? ", " : "", s);
}

/* tracefs is mode 0700 root unless mounted with mode=/gid=; not mounted at
 * all, trace mounts it (tracefs_ensure) and says what that needs. */
static bool tracefs_refused(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing/events",
					    "/sys/kernel/debug/tracing/events" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		DIR *d = opendir(dirs[i]);

		if (d) {
			closedir(d);
			return false;
		}
		if (errno == EACCES)
			return true;
	}
	return false;
}

/* Effective capabilities, not the uid: a root shell with its capabilities
 * dropped fails later and less clearly, a non-root one granted CAP_BPF and
 * CAP_PERFMON works. Tracing programs need both whatever
 * kernel.unprivileged_bpf_disabled and kernel.perf_event_paranoid say. */
int cli_need_privileges(const char *prog, unsigned int need)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};
	char missing[160] = "";

#define HAS(c) (d[(c) / 32].effective & (1U << ((c) % 32)))
	if (syscall(SYS_capget, &hdr, d))
		return 0;	/* let the kernel say no later */
	/* CAP_SYS_ADMIN stands for both before Linux 5.8, and still works */
	if ((need & CLI_BPF) && !HAS(CAP_SYS_ADMIN)) {
		if (!HAS(CAP_BPF))
			append(missing, sizeof(missing), "CAP_BPF");
		if (!HAS(CAP_PERFMON))
			append(missing, sizeof(missing), "CAP_PERFMON");
	}
	if ((need & CLI_TRACEFS) && !HAS(CAP_DAC_OVERRIDE) &&
	    !HAS(CAP_DAC_READ_SEARCH) && tracefs_refused())
		append(missing, sizeof(missing),
		       "CAP_DAC_READ_SEARCH (tracefs is root's only)");
#undef HAS
	if (!missing[0])
		return 0;
	cli_say(prog, "missing %s; run it as root with its full capabilities, or grant them (man perfbuf)\n",
		missing);
	return -EPERM;
}

int cli_need_fds(const char *prog, unsigned int extra)
{
	int cpus = perfbuf_cpus__possible(NULL, 0);
	rlim_t need = 64 + 2 * (rlim_t)(cpus > 0 ? cpus : 1) + extra;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max >= need) {
		rl.rlim_cur = need;
		if (!setrlimit(RLIMIT_NOFILE, &rl))
			return 0;
	}
	cli_say(prog, "%s (RLIMIT_NOFILE %llu, %llu needed: 2 per CPU, the BPF objects and links); raise 'ulimit -n'\n",
		strerror(EMFILE), (unsigned long long)rl.rlim_max,
		(unsigned long long)need);
	return -EMFILE;
}

/* The library's warnings while a collector is set up: kept, to become the
 * reason in the tool's one line if the set-up fails. */
static char setup_log[2048];

static int keep_warning(enum perfbuf_print_level level, const char *fmt,
			va_list ap)
{
	size_t n = strlen(setup_log);

	if (level != PERFBUF_WARN || n >= sizeof(setup_log) - 1)
		return 0;
	return vsnprintf(setup_log + n, sizeof(setup_log) - n, fmt, ap);
}

static void replay(perfbuf_print_fn fn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fn(PERFBUF_WARN, fmt, ap);
	va_end(ap);
}

/* The library's printer while something is set up: its warnings kept */
static perfbuf_print_fn setup_begin(void)
{
	setup_log[0] = '\0';
	return perfbuf_set_print(keep_warning);
}

/* After the set-up: the warnings of one that worked replayed to @prev;
 * for one that failed with @err, one line, "@prog: @what failed: " with
 * the library's last warning as the reason, the address-space limit when
 * out of memory and @enomem_hint then */
static void setup_end(const char *prog, const char *what, perfbuf_print_fn prev,
		      bool ok, int err, const char *enomem_hint)
{
	char *last, *nl;

	perfbuf_set_print(prev);
	if (ok) {
		if (prev && setup_log[0])
			replay(prev, "%s", setup_log);
		return;
	}
	/* the last warning, if any, says why; some failures log nothing */
	while ((nl = strrchr(setup_log, '\n')) && !nl[1])
		*nl = '\0';
	last = strrchr(setup_log, '\n');
	last = last ? last + 1 : setup_log;
	if (!strncmp(last, "perfbuf: ", 9))
		last += 9;
	cli_say(prog, "%s failed: %s%s%s%s%s%s\n", what,
		strerror(err), *last ? " (" : "", last, *last ? ")" : "",
		err == ENOMEM || !*last ? cli_hint(err) : "",
		err == ENOMEM ? enomem_hint : "");
}

struct perfbuf *cli_perfbuf_new(const char *prog, int map_fd,
				perfbuf_record_fn fn, void *ctx,
				const struct perfbuf_opts *opts, const char *size_opt)
{
	char hint[64] = "";

	perfbuf_print_fn prev;
	struct perfbuf *pb;
	int err;

	/* a ring per online CPU now: the kernel charges what is mapped */
	if (rings_need_memlock(prog, opts && opts->page_cnt ? (long)opts->page_cnt : 64,
			       sysconf(_SC_NPROCESSORS_ONLN), size_opt)) {
		errno = ENOMEM;
		return NULL;
	}
	prev = setup_begin();
	pb = perfbuf__new(map_fd, fn, ctx, opts);
	err = errno;
	if (size_opt)
		snprintf(hint, sizeof(hint), "; try a smaller %s", size_opt);
	setup_end(prog, "setting up the perf buffer", prev, pb, err, hint);
	errno = err;
	return pb;
}

struct perfbuf_sampler *cli_sampler_new(const char *prog, const struct perfbuf_event_opts *ev,
					const struct perfbuf_sampler_opts *opts)
{
	perfbuf_print_fn prev = setup_begin();
	struct perfbuf_sampler *s = perfbuf_sampler__new(ev, opts);
	int err = errno;

	setup_end(prog, "opening the sampling events", prev, s, err, "");
	errno = err;
	return s;
}

const char *cli_hint(int err)
{
	switch (err < 0 ? -err : err) {
	case ESRCH:
		return kernel_btf_why();
	case EMFILE:
	case ENFILE:
		return "; raise 'ulimit -n'";
	case ENOMEM:	/* the address-space limit, when one is set */
		return *kernel_btf_as_limit() ? kernel_btf_as_limit() : "";
	case EPERM:	/* EACCES is mostly the verifier's: no guess */
		/* the capabilities were checked first: something else said no */
		return cli_lockdown() ? "; kernel lockdown=confidentiality forbids it" :
		       "; the capabilities are there: a security module (lockdown, SELinux, AppArmor, a BPF LSM) refused it";
	default:
		return "";
	}
}

bool cli_lockdown(void)
{
	FILE *f = fopen("/sys/kernel/security/lockdown", "re");
	char buf[128] = "";
	bool on;

	if (!f)
		return false;
	/* integrity leaves BPF's kernel reads, kprobes and tracefs alone */
	on = fgets(buf, sizeof(buf), f) && strstr(buf, "[confidentiality]");
	fclose(f);
	return on;
}

const char *cli_strerror(int err)
{
	return bpf_errstr(err);
}

/* fds 0-2 that were closed: /dev/null holds their place (a BPF map
 * opened as fd 1 would take our output: "Invalid argument") */
static bool stdout_closed;

static volatile sig_atomic_t *stop_flag;

/* counted: trace takes a second one while detaching as "leave the rest
 * to the kernel" */
static void on_stop(int sig)
{
	(void)sig;
	*stop_flag = *stop_flag + 1;
}

void cli_stop_on_signals(volatile sig_atomic_t *flag, bool restart)
{
	struct sigaction sa = { .sa_handler = on_stop,
				.sa_flags = restart ? SA_RESTART : 0 };
	struct sigaction hup;

	stop_flag = flag;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* the default killed a run whose terminal closed: nothing written
	 * (a flight recorder's capture empty, a -o file left in its
	 * temporary name) */
	if (!sigaction(SIGHUP, NULL, &hup) && hup.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
}

void cli_reserve_stdio(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int nfd;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		nfd = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
		if (nfd >= 0 && nfd != fd) {	/* a lower one was free */
			dup2(nfd, fd);
			close(nfd);
		}
		if (fd == 1)
			stdout_closed = true;
	}
}

int cli_need_stdout(const char *prog)
{
	if (!stdout_closed)
		return 0;
	cli_say(prog, "stdout is closed; redirect it (>FILE, >/dev/null)%s\n",
		strcmp(prog, "perfbuf trace") ? "" : " or give -o FILE");
	return -EBADF;
}

/* Why an earlier write to stdout failed, when its errno is gone (stdio
 * keeps only ferror()): a pipe or socket whose reader left polls POLLERR,
 * the EPIPE that write got; anything else is said as EIO */
static int stdout_earlier_error(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLERR) ? EPIPE : EIO;
}

int cli_flush_stdout(const char *prog)
{
	int err;

	if (fflush(stdout) == EOF)
		err = errno ?: EIO;
	else if (ferror(stdout))
		err = stdout_earlier_error();	/* errno is a later call's */
	else
		return 0;
	if (err != EPIPE)
		cli_say(prog, "writing stdout failed: %s\n", strerror(err));
	return -err;
}

bool cli_stdout_ok(const char *prog)
{
	int err = cli_flush_stdout(prog);

	return !err || err == -EPIPE;
}

bool cli_cpu_online(int cpu)
{
	int n = perfbuf_cpus__online(NULL, 0), *cpus;
	bool found = n < 0;

	if (n <= 0 || !(cpus = calloc((size_t)n, sizeof(*cpus))))
		return found || n > 0;
	n = perfbuf_cpus__online(cpus, n);
	for (int i = 0; i < n && !found; i++)
		found = cpus[i] == cpu;
	free(cpus);
	return found;
}
