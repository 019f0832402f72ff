// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tool's error words (tools/cli.c): libbpf's own error codes and the
 * kernel's ENOTSUPP named (not "Unknown error 4001"), a long option given
 * a value it does not take said so (not "unknown option '-'").
 */
#define _GNU_SOURCE	/* memfd_create */
#include <getopt.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/libbpf.h>

#include "test.h"
#include "common/cli.h"

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

/* What cli_bad_option() prints for @argv after getopt_long() refused it. */
static char *bad_option(char **argv, int argc)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 256 },
		{ "pages", required_argument, NULL, 257 },
		{},
	};
	int fd = memfd_create("err", MFD_CLOEXEC), saved, opt;
	char *out = calloc(1, 512);

	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":v", longopts, NULL)) != -1)
		if (opt == '?' || opt == ':') {
			cli_bad_option("trace", opt, argv);
			break;
		}
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	if (out && pread(fd, out, 511, 0) < 0)
		out[0] = '\0';
	close(fd);
	return out;
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

TEST_MAIN(TEST_ENTRY(libbpf_errors_named), TEST_ENTRY(bad_options_said))
