// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tool's error words (tools/cli.c): libbpf's own error codes and the
 * kernel's ENOTSUPP named (not "Unknown error 4001"), a long option given
 * a value it does not take said so (not "unknown option '-'"); a refused
 * BPF program named with the verifier's last lines (tools/common/loaderr.c).
 */
#define _GNU_SOURCE	/* memfd_create */
#include <getopt.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/libbpf.h>

#include "test.h"
#include "common/cli.h"
#include "common/loaderr.h"

TEST(libbpf_errors_named)
{
	char want[128];

	for (int err = __LIBBPF_ERRNO__START; err < __LIBBPF_ERRNO__END; err++) {
		libbpf_strerror(err, want, sizeof(want));
		ASSERT_TRUE(!strcmp(cli_strerror(-err), want) &&
			    !strstr(want, "Unknown error"), "libbpf's name");
	}
	ASSERT_TRUE(!strcmp(cli_strerror(-LIBBPF_ERRNO__FORMAT), cli_strerror(LIBBPF_ERRNO__FORMAT)),
		    "either sign");
	ASSERT_TRUE(strstr(cli_strerror(-524), "ENOTSUPP") != NULL, "524: the kernel's ENOTSUPP");
	ASSERT_TRUE(!strcmp(cli_strerror(-EINVAL), strerror(EINVAL)), "errno: strerror()");
}

/* stderr into a memfd from stderr_begin() to stderr_end(), which returns
 * what was written there (to free) */
static int err_fd = -1, err_saved = -1;

static void stderr_begin(void)
{
	fflush(stderr);
	err_fd = memfd_create("err", MFD_CLOEXEC);
	err_saved = dup(2);
	dup2(err_fd, 2);
}

static char *stderr_end(void)
{
	char *out = calloc(1, 1024);

	fflush(stderr);
	dup2(err_saved, 2);
	close(err_saved);
	if (out && pread(err_fd, out, 1023, 0) < 0)
		out[0] = '\0';
	close(err_fd);
	return out;
}

/* What cli_bad_option() prints for @argv after getopt_long() refused it. */
static char *bad_option(char **argv, int argc)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 256 },
		{ "pages", required_argument, NULL, 257 },
		{},
	};
	int opt;

	stderr_begin();
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":v", longopts, NULL)) != -1)
		if (opt == '?' || opt == ':') {
			cli_bad_option("trace", opt, argv);
			break;
		}
	return stderr_end();
}

TEST(bad_options_said)
{
	static const struct {
		const char *argv[4];
		int argc;
		const char *want, *what;
	} cases[] = {
		{ { "trace", "--json=yes", "x" }, 3,
		  "perfbuf trace: --json takes no value, not '--json=yes'; run 'perfbuf trace --help'\n",
		  "--json=yes" },
		{ { "trace", "--nope" }, 2,
		  "perfbuf trace: unknown option '--nope'; run 'perfbuf trace --help'\n", "--nope" },
		{ { "trace", "--pages" }, 2,
		  "perfbuf trace: --pages needs a value; run 'perfbuf trace --help'\n",
		  "--pages without a value" },
		{ { "trace", "-x" }, 2,
		  "perfbuf trace: unknown option '-x'; run 'perfbuf trace --help'\n", "-x" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[4];
		char *s;

		/* getopt permutes the pointers: a copy of them */
		memcpy(argv, cases[i].argv, sizeof(argv));
		s = bad_option(argv, cases[i].argc);
		ASSERT_TRUE(s && !strcmp(s, cases[i].want), cases[i].what);
		free(s);
	}
}

/* libbpf's print callback (what loaderr_capture() set) given @line */
static void libbpf_says(libbpf_print_fn_t fn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fn(LIBBPF_WARN, fmt, ap);
	va_end(ap);
}

/* What loaderr_say() prints after libbpf printed @log (NULL: a failed
 * load with no verifier log) */
static char *load_said(const char *log)
{
	libbpf_print_fn_t fn;

	loaderr_capture(false);
	fn = libbpf_set_print(NULL);
	libbpf_says(fn, "libbpf: prog '%s': BPF program load failed: %s\n", "trace_tp",
		    "Invalid argument");
	if (log)
		libbpf_says(fn, "libbpf: prog 'trace_tp': -- BEGIN PROG LOAD LOG --\n%s"
			    "processed 4 insns (limit 1000000) max_states_per_insn 0\n"
			    "-- END PROG LOAD LOG --\n", log);
	libbpf_set_print(fn);
	stderr_begin();
	loaderr_say("perfbuf trace", "the BPF programs", -EINVAL);
	return stderr_end();
}

TEST(load_failure_names_program_and_reason)
{
	char *s = load_said("0: (85) call unknown#175\ninvalid func unknown#175\n");

	ASSERT_TRUE(s && strstr(s, "perfbuf trace: loading the BPF programs failed: program 'trace_tp'"),
		    "the program named");
	ASSERT_TRUE(s && strstr(s, "the verifier says: 0: (85) call unknown#175 | invalid func unknown#175\n"),
		    "the log's last lines, its statistics aside");
	ASSERT_TRUE(s && !strstr(s, "-v"), "no 'run with -v'");
	ASSERT_TRUE(s && !strchr(s, '\n')[1], "one line");
	free(s);
	s = load_said(NULL);
	ASSERT_TRUE(s && strstr(s, "program 'trace_tp': Invalid argument") && !strstr(s, "-v"),
		    "no log: named, no 'run with -v'");
	free(s);
}

/* A map the kernel would not create: the map named, not a program '?' */
TEST(load_failure_names_map)
{
	libbpf_print_fn_t fn;
	char *s;

	loaderr_capture(false);
	fn = libbpf_set_print(NULL);
	libbpf_says(fn, "libbpf: map '%s': failed to create: %s(%d)\n", "events",
		    "Operation not permitted", -1);
	libbpf_set_print(fn);
	stderr_begin();
	loaderr_say("perfbuf trace", "the BPF programs", -EPERM);
	s = stderr_end();
	ASSERT_TRUE(s && strstr(s, "perfbuf trace: loading the BPF programs failed: map 'events' could not be created: Operation not permitted"),
		    "the map named");
	ASSERT_TRUE(s && !strstr(s, "program '?'"), "no program guessed");
	ASSERT_TRUE(s && strchr(s, '\n') && !strchr(s, '\n')[1], "one line");
	free(s);
}

/* Sizes and durations, exactly: integers all the way (a double took
 * 17179869188G, 2^64 + 4G bytes, as 4G) */
TEST(units_exact)
{
	static const struct { const char *arg; int err; unsigned long long v; } sizes[] = {
		{ "4096", 0, 4096 }, { "64K", 0, 65536 }, { "64k", 0, 65536 },
		{ "8MB", 0, 8ULL << 20 }, { "1.5K", 0, 1536 }, { "2T", 0, 2ULL << 40 },
		{ "18446744073709551615", 0, ~0ULL },
		{ "18446744073709551616", -ERANGE, 0 }, { "17179869188G", -ERANGE, 0 },
		{ "16777216T", -ERANGE, 0 }, { "", -EINVAL, 0 }, { "-1", -EINVAL, 0 },
		{ "+1", -EINVAL, 0 }, { "1e3", -EINVAL, 0 }, { "5 ", -EINVAL, 0 },
		{ "1.K", -EINVAL, 0 }, { "12Q", -EINVAL, 0 }, { "1KK", -EINVAL, 0 },
	}, durs[] = {
		{ "5", 0, 5000000000ULL }, { "0.5", 0, 500000000ULL },
		{ "500ms", 0, 500000000ULL }, { "2m", 0, 120000000000ULL },
		{ "1.5s", 0, 1500000000ULL }, { "100us", 0, 100000ULL }, { "7ns", 0, 7 },
		{ "2h", 0, 7200000000000ULL }, { "7d", 0, 604800000000000ULL },
		{ "0.0000000015", 0, 1 }, { "213503d", 0, 213503ULL * 86400 * 1000000000 },
		{ "213504d", -ERANGE, 0 }, { "5M", -EINVAL, 0 }, { "5sec", -EINVAL, 0 },
		{ "s", -EINVAL, 0 }, { ".5", -EINVAL, 0 },
	};
	unsigned long long v;
	char buf[32];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		v = 0;
		ASSERT_EQ(units_size(sizes[i].arg, &v), sizes[i].err, sizes[i].arg);
		if (!sizes[i].err)
			ASSERT_EQ(v, sizes[i].v, sizes[i].arg);
	}
	for (size_t i = 0; i < sizeof(durs) / sizeof(*durs); i++) {
		v = 0;
		ASSERT_EQ(units_duration(durs[i].arg, &v), durs[i].err, durs[i].arg);
		if (!durs[i].err)
			ASSERT_EQ(v, durs[i].v, durs[i].arg);
	}
	/* what is said reads back */
	ASSERT_TRUE(!strcmp(units_size_str(4096, buf, sizeof(buf)), "4K"), "4K");
	ASSERT_TRUE(!strcmp(units_size_str(1536, buf, sizeof(buf)), "1536"), "1536");
	ASSERT_TRUE(!strcmp(units_duration_str(1000000, buf, sizeof(buf)), "1ms"), "1ms");
	ASSERT_TRUE(!strcmp(units_duration_str(86400000000000000ULL, buf, sizeof(buf)), "1000d"), "1000d");
	ASSERT_TRUE(!strcmp(units_duration_str(1500000000ULL, buf, sizeof(buf)), "1500ms"), "1500ms");
}

TEST_MAIN(TEST_ENTRY(libbpf_errors_named), TEST_ENTRY(bad_options_said),
	  TEST_ENTRY(load_failure_names_program_and_reason), TEST_ENTRY(load_failure_names_map),
	  TEST_ENTRY(units_exact))
