// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A target for the uprobe tests of `perfbuf trace` (tests/test_trace.sh):
 * `uprobe_target N` calls each function N times with known arguments.
 *   pb_target_add(1, 2, 3, 4, 5, 6) returns 21
 *   pb_target_neg(7) returns -7
 *   pb_target_seq(i) for i = 0..N-1: a numbered sequence (record tests)
 *   pb_target_str(PATH, 4242, PB_GREEN, true): PATH is argv[2] ("/pb/none"
 *   without), typed arguments from DWARF (test_trace_typed.sh)
 *   pb_many_100(1) .. pb_many_499(1) once each, after the rest: 400
 *   functions for hundreds of uprobes (test_trace_many.sh) */
#include <stdbool.h>
#include <stdlib.h>

enum pb_color { PB_RED = 1, PB_GREEN = 2 };

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

__attribute__((noinline, used)) int pb_target_str(const char *path, unsigned int n,
						   enum pb_color color, bool on)
{
	asm volatile("" ::: "memory");
	return (int)n + (path[0] == '/') + (int)color + on;
}

/* pb_many_100 .. pb_many_499: each returns its argument plus its number */
#define MANY(n) __attribute__((noinline, used)) long pb_many_##n(long x) \
	{ asm volatile("" ::: "memory"); return x + n; }
#define MANY10(n) MANY(n##0) MANY(n##1) MANY(n##2) MANY(n##3) MANY(n##4) \
	MANY(n##5) MANY(n##6) MANY(n##7) MANY(n##8) MANY(n##9)
#define MANY100(n) MANY10(n##0) MANY10(n##1) MANY10(n##2) MANY10(n##3) \
	MANY10(n##4) MANY10(n##5) MANY10(n##6) MANY10(n##7) MANY10(n##8) MANY10(n##9)
MANY100(1) MANY100(2) MANY100(3) MANY100(4)
#undef MANY
#define MANY(n) sum += pb_many_##n(1) - n;
static long many_all(void)
{
	long sum = 0;

	MANY100(1) MANY100(2) MANY100(3) MANY100(4)
	return sum;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	volatile long sum = 0;
	volatile int s = 0;

	for (int i = 0; i < n; i++)
		sum += pb_target_add(1, 2, 3, 4, 5, 6) + pb_target_neg(7) +
		       pb_target_seq(i) - i;
	for (int i = 0; i < n; i++)
		s += pb_target_str(argc > 2 ? argv[2] : "/pb/none", 4242, PB_GREEN, true);
	return sum == 14L * n && many_all() == 400 ? 0 : 1;
}
