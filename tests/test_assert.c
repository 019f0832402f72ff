// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The harness's own assertions (test.h): ASSERT_OP compares integers as
 * numbers whatever their types, u64 above 2^63 included (compared as
 * long long, UINT64_MAX was -1: less than 1).
 */
#include <stdint.h>

#include "test.h"

/* @expr must fail: one failure counted, then forgotten */
#define MUST_FAIL(expr, what) do {					\
	int ___before = test__failed;					\
	(void)(expr);							\
	if (test__failed != ___before + 1) {				\
		fprintf(stderr, "  %s: passed where it must fail\n", what); \
		test__failed = ___before + 1;				\
	} else {							\
		test__failed = ___before;				\
	}								\
} while (0)

TEST(assert_u64_above_2_63)
{
	__u64 big = UINT64_MAX, half = (__u64)1 << 63;
	size_t sz = SIZE_MAX;

	ASSERT_GT(big, 1, "UINT64_MAX > 1");
	ASSERT_GT(half, 0, "2^63 > 0");
	ASSERT_GT(sz, 1, "SIZE_MAX > 1");
	ASSERT_NEQ(big, -1, "UINT64_MAX is not -1");
	ASSERT_LT(-1, 0, "-1 < 0");
	ASSERT_LT((int64_t)-1, half, "-1 < 2^63");
	ASSERT_EQ(big, UINT64_MAX, "equal");
	MUST_FAIL(ASSERT_LT(big, 1, "UINT64_MAX < 1"), "UINT64_MAX < 1");
	MUST_FAIL(ASSERT_EQ(big, -1, "UINT64_MAX == -1"), "UINT64_MAX == -1");
	MUST_FAIL(ASSERT_LE(half, 5, "2^63 <= 5"), "2^63 <= 5");
}

TEST_MAIN(
	TEST_ENTRY(assert_u64_above_2_63),
)
