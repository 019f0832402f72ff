// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A target for the function latency and struct member tests of `perfbuf
 * trace` (tests/test_trace_latency.sh), built with -g:
 * `latency_target N` does, in this order,
 *   pb_sleep_ms(1) N times and pb_sleep_ms(20) N times: each one
 *   nanosleep() of that many ms (the syscall's tracepoints see the same),
 *   returning the ms;
 *   pb_nest(3): pb_nest(2): pb_nest(1): recursive, each level sleeping
 *   2 ms after its inner call returns (durations 2, 4, 6 ms, innermost
 *   first); then pb_point(p) for p->x = 0..9 (p->y = 100 + x,
 *   p->name = "pN", p->next->x = 1000 + x; p->next NULL for x = 9). */
#include <stdlib.h>
#include <time.h>

struct point {
	int x;
	long y;
	const char *name;
	struct point *next;
};

__attribute__((noinline, used)) int pb_sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
	return ms;	/* its return says which call it was */
}

__attribute__((noinline, used)) int pb_nest(int depth)
{
	int r = depth > 1 ? pb_nest(depth - 1) : 0;

	pb_sleep_ms(2);
	return r + 1;
}

__attribute__((noinline, used)) long pb_point(struct point *p)
{
	asm volatile("" ::: "memory");
	return p->x + p->y + (p->next ? p->next->x : 0) + p->name[1] - '0';
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "p0", "p1", "p2", "p3", "p4",
					     "p5", "p6", "p7", "p8", "p9" };
	int n = argc > 1 ? atoi(argv[1]) : 1;
	volatile long sum = 0;
	long want = 3;

	for (int x = 0; x < 10; x++)	/* the names' page in: a probe reads it */
		sum -= names[x][0];
	want -= 10 * 'p';

	for (int i = 0; i < n; i++)
		pb_sleep_ms(1);
	for (int i = 0; i < n; i++)
		pb_sleep_ms(20);
	sum += pb_nest(3);
	for (int x = 0; x < 10; x++) {
		struct point next = { .x = 1000 + x };
		struct point p = { .x = x, .y = 100 + x, .name = names[x],
				   .next = x < 9 ? &next : NULL };

		sum += pb_point(&p);
		want += x + 100 + x + (x < 9 ? 1000 + x : 0) + x;
	}
	return sum == want ? 0 : 1;
}
