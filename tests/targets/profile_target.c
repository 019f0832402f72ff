// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program with known call paths for the tests of `perfbuf profile`
 * (built with frame pointers, nothing inlined):
 *   profile_target cpu SECONDS       main -> outer -> middle -> hot (spins)
 *   profile_target syscalls SECONDS  main -> sys_loop -> getppid() in a loop
 *   profile_target mixed SECONDS     both, about half the time each
 * With a third argument, "wait", it starts on SIGUSR1 (once the profiler is
 * ready). At the end it prints the CPU time the work used ("cpu_seconds
 * 1.98"): a cpu-clock profile should count HZ times that in samples.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

static volatile unsigned long sink;

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* until SIGUSR1 */
static void wait_start(void)
{
	sigset_t block, old;

	signal(SIGUSR1, on_usr1);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	printf("waiting\n");
	fflush(stdout);
	sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* the hot function: all the time is spent here, no calls */
__attribute__((noinline)) void hot(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) void middle(unsigned long n)
{
	hot(n);
	sink++;
}

__attribute__((noinline)) void outer(unsigned long n)
{
	middle(n);
	sink++;
}

/* The system call made here, not in libc's syscall() (built without frame
 * pointers: the walk would skip this function). */
__attribute__((noinline)) void sys_loop(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
#ifdef __x86_64__
		long ret;

		__asm__ volatile("syscall" : "=a"(ret) : "a"((long)SYS_getppid)
				 : "rcx", "r11", "memory");
		sink += (unsigned long)ret;
#else
		sink += (unsigned long)syscall(SYS_getppid);
#endif
	}
}

int main(int argc, char **argv)
{
	double end, cpu0;
	int sys;

	if ((argc != 3 && (argc != 4 || strcmp(argv[3], "wait"))) ||
	    (strcmp(argv[1], "cpu") && strcmp(argv[1], "syscalls") &&
	     strcmp(argv[1], "mixed"))) {
		fprintf(stderr, "usage: %s cpu|syscalls|mixed SECONDS [wait]\n", argv[0]);
		return 2;
	}
	/* 0: cpu, 1: syscalls, 2: mixed */
	sys = !strcmp(argv[1], "syscalls") ? 1 : !strcmp(argv[1], "mixed") ? 2 : 0;
	if (argc == 4)
		wait_start();
	cpu0 = cpu_seconds();
	end = now() + atof(argv[2]);
	/* the clock read every few ms only: the time is in hot / getppid */
	for (unsigned long round = 0; now() < end; round++) {
		if (sys == 1 || (sys == 2 && round % 2))
			sys_loop(20000);
		else
			outer(2000000);
	}
	printf("cpu_seconds %.3f\n", cpu_seconds() - cpu0);
	return 0;
}
