// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perfbuf.h"
#include "test.h"

int test__failed;
const char *test__skip;

static bool verbose;

/* A value of ASSERT_OP: from a type of 64 bits or fewer, so it fits one
 * of long long and unsigned long long. */
static void print_wide(__int128 v)
{
	if (v < 0)
		fprintf(stderr, "%lld", (long long)v);
	else
		fprintf(stderr, "%llu", (unsigned long long)v);
}

void test__print_op(const char *file, int line, const char *name,
		    __int128 a, const char *op, __int128 b)
{
	fprintf(stderr, "  %s:%d: %s: ", file, line, name);
	print_wide(a);
	fprintf(stderr, " %s ", op);
	print_wide(b);
	fprintf(stderr, " is false\n");
}

/* Library warnings are expected in error-path tests: show them with -v. */
static int quiet_print(enum perfbuf_print_level level, const char *fmt,
		       va_list ap)
{
	if (!verbose || level == PERFBUF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static bool known_case(const char *name, const struct test_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, cases[i].name))
			return true;
	return false;
}

int test_main(int argc, char **argv, const struct test_case *cases, size_t n)
{
	int failed = 0, first = 1;

	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = true;
		first = 2;
	}
	/* a misspelt name would run nothing and pass: refuse it first */
	for (int a = first; a < argc; a++)
		if (!known_case(argv[a], cases, n)) {
			fprintf(stderr, "%s: no subtest named '%s'; nothing run "
				"(give none to run them all)\n", argv[0], argv[a]);
			return 1;
		}
	perfbuf_set_print(quiet_print);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < n; i++) {
		bool want = argc <= first;

		for (int a = first; a < argc; a++)
			want |= !strcmp(argv[a], cases[i].name);
		if (!want)
			continue;
		test__failed = 0;
		test__skip = NULL;
		cases[i].fn();
		if (test__failed) {
			printf("FAIL %s\n", cases[i].name);
			failed++;
		} else if (test__skip) {
			printf("SKIP %s (%s)\n", cases[i].name, test__skip);
		} else {
			printf("PASS %s\n", cases[i].name);
		}
	}
	return failed ? 1 : 0;
}

const char *test_need_root(void)
{
	return geteuid() == 0 ? NULL : "needs root (CAP_BPF, CAP_PERFMON)";
}

long test_count(long normal, long quick)
{
	return getenv("PERFBUF_TEST_VALGRIND") ? quick : normal;
}

bool test_root_or_skip(void)
{
	if (!test_need_root())
		return true;
	test__skip = test_need_root();
	return false;
}

char test_warning[1024];

static int capture(enum perfbuf_print_level level, const char *fmt, va_list ap)
{
	if (level == PERFBUF_WARN)
		vsnprintf(test_warning, sizeof(test_warning), fmt, ap);
	return 0;
}

perfbuf_print_fn test_capture_warnings(void)
{
	test_warning[0] = '\0';
	return perfbuf_set_print(capture);
}

void touch_new_pages(int n)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, ps * n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	for (int i = 0; i < n; i++)
		((volatile char *)p)[i * ps] = 1;
	munmap(p, ps * n);
}

/* Burn @ms of this thread's CPU time, not of wall time: the counters and
 * samplers here count CPU time, and a preempted thread must still reach it.
 * Mostly in user mode: reading this clock is a system call (no vDSO), and
 * a sampler with exclude_kernel drops the ticks that land in it (a loop of
 * clock reads gave 9 samples of 20 ms at 0.1 ms). */
void spin_ms(int ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (volatile int i = 0; i < 20000; i++)
			;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}
