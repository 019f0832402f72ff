// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A target for the uprobe tests of `perfbuf trace` (tests/test_trace.sh):
 * `uprobe_target N` calls each function N times with known arguments.
 *   pb_target_add(1, 2, 3, 4, 5, 6) returns 21
 *   pb_target_neg(7) returns -7
 *   pb_target_seq(i) for i = 0..N-1: a numbered sequence (record tests) */
#include <stdlib.h>

__attribute__((noinline, used)) long pb_target_add(long a, long b, long c,
						     long d, long e, long f)
{
	asm volatile("" ::: "memory");	/* keep the call */
	return a + b + c + d + e + f;
}

__attribute__((noinline, used)) long pb_target_neg(long x)
{
	asm volatile("" ::: "memory");
	return -x;
}

__attribute__((noinline, used)) long pb_target_seq(long i)
{
	asm volatile("" ::: "memory");
	return i;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	volatile long sum = 0;

	for (int i = 0; i < n; i++)
		sum += pb_target_add(1, 2, 3, 4, 5, 6) + pb_target_neg(7) +
		       pb_target_seq(i) - i;
	return sum == 14L * n ? 0 : 1;
}
