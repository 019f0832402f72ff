// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A shared library with two versions of one function, as glibc has
 * (realpath@GLIBC_2.2.5, realpath@@GLIBC_2.3), for the uprobe tests of
 * `perfbuf trace` (tests/test_trace.sh):
 *   pb_ver@PB_1 (x) returns x + 1; pb_ver@@PB_2 (the default) x + 2
 *   pb_ver_both(n) calls pb_ver@PB_1(1) and pb_ver@@PB_2(2) n times each
 * Its version script: tests/targets/uprobe_versioned.map. */

__attribute__((noinline, used)) long pb_ver_old(long x)
{
	asm volatile("" ::: "memory");	/* keep the call */
	return x + 1;
}

__attribute__((noinline, used)) long pb_ver_new(long x)
{
	asm volatile("" ::: "memory");
	return x + 2;
}

__asm__(".symver pb_ver_old, pb_ver@PB_1");
__asm__(".symver pb_ver_new, pb_ver@@PB_2");

long pb_ver_both(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += pb_ver_old(1) + pb_ver_new(2);
	return s;
}
