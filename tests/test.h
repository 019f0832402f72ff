/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A minimal harness in the style of the BPF selftests. A test file lists
 * its subtests with TEST(); each prints one line: PASS, FAIL or SKIP.
 * Exit status 1 if any failed. tests/run.sh adds the lines up.
 */
#ifndef PERFBUF_TEST_H
#define PERFBUF_TEST_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfbuf.h"

extern int test__failed;	/* assertions failed in the current subtest */
extern const char *test__skip;	/* reason, when the subtest skipped */

#define ASSERT_TRUE(cond, name) ({					\
	bool ___ok = (cond);						\
	if (!___ok) {							\
		fprintf(stderr, "  %s:%d: %s: unexpected false\n",	\
			__FILE__, __LINE__, (name));			\
		test__failed++;						\
	}								\
	___ok;								\
})

/* Integers of up to 64 bits, signed or not, compared as numbers: both
 * widened to __int128 (u64 above 2^63 stays positive, -1 negative);
 * pointers through their address. */
#define ___test_wide(x) _Generic((x),					\
	unsigned long long: (__int128)(unsigned long long)(x),		\
	unsigned long: (__int128)(unsigned long)(x),			\
	default: (__int128)(long long)(x))
void test__print_op(const char *file, int line, const char *name,
		    __int128 a, const char *op, __int128 b);
#define ASSERT_OP(a, op, b, name) ({					\
	__int128 ___a = ___test_wide(a), ___b = ___test_wide(b);	\
	bool ___ok = ___a op ___b;					\
	if (!___ok) {							\
		test__print_op(__FILE__, __LINE__, (name), ___a, #op, ___b); \
		test__failed++;						\
	}								\
	___ok;								\
})

#define ASSERT_EQ(a, b, name) ASSERT_OP(a, ==, b, name)
#define ASSERT_NEQ(a, b, name) ASSERT_OP(a, !=, b, name)
#define ASSERT_LT(a, b, name) ASSERT_OP(a, <, b, name)
#define ASSERT_LE(a, b, name) ASSERT_OP(a, <=, b, name)
#define ASSERT_GT(a, b, name) ASSERT_OP(a, >, b, name)
#define ASSERT_GE(a, b, name) ASSERT_OP(a, >=, b, name)
#define ASSERT_OK(res, name) ASSERT_EQ(res, 0, name)
#define ASSERT_ERR(res, name) ASSERT_LT(res, 0, name)
#define ASSERT_OK_PTR(p, name) ({					\
	bool ___ok = (p) != NULL;					\
	if (!___ok) {							\
		fprintf(stderr, "  %s:%d: %s: NULL (errno %d: %s)\n",	\
			__FILE__, __LINE__, (name), errno,		\
			strerror(errno));				\
		test__failed++;						\
	}								\
	___ok;								\
})
#define ASSERT_MEMEQ(a, b, n, name) ASSERT_TRUE(!memcmp((a), (b), (n)), name)

#define TEST_SKIP(why) do { test__skip = (why); return; } while (0)

struct test_case {
	const char *name;
	void (*fn)(void);
};

#define TEST(name) static void test_##name(void)
#define TEST_ENTRY(name) { #name, test_##name }

/* Run the listed subtests (all, or those named on the command line; a
 * name that matches none is one line on stderr and exit 1, nothing run). */
int test_main(int argc, char **argv, const struct test_case *cases, size_t n);

/* Fault in @n fresh anonymous pages (page-fault software events), then unmap. */
void touch_new_pages(int n);
/* Burn @ms of this thread's CPU time (what CPU-time counters count). */
void spin_ms(int ms);
#define TEST_MAIN(...)							\
	int main(int argc, char **argv)					\
	{								\
		static const struct test_case cases[] = { __VA_ARGS__ };	\
		return test_main(argc, argv, cases,			\
				 sizeof(cases) / sizeof(cases[0]));	\
	}

/* @normal, or @quick under valgrind (tests/test_memcheck.sh sets
 * PERFBUF_TEST_VALGRIND; it runs 30 times slower there): for a count that
 * repeats one path for volume or timing, which runs @quick times. */
long test_count(long normal, long quick);

/* Helpers for tests that need BPF: NULL reason means we can run. */
const char *test_need_root(void);
/* The same for a helper that sets a subtest up: false, and the subtest
 * marked skipped, without root. */
bool test_root_or_skip(void);
#define TEST_NEED_ROOT() do {						\
	if (test_need_root())						\
		TEST_SKIP(test_need_root());				\
} while (0)

/* Capture the library's last warning into test_warning (restore with the
 * returned printer). */
extern char test_warning[1024];
perfbuf_print_fn test_capture_warnings(void);

#endif
