// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fork() watched (internal.h: perfbuf_fork_gen()). Both libraries link a
 * copy of this file, each hidden: libperfbuf for its rings, collectors and
 * samplers, libperfbuf-object for its objects; each counts the same forks.
 */
#include <pthread.h>

#include "internal.h"

static __u32 fork_gen;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void fork_child(void)
{
	__atomic_add_fetch(&fork_gen, 1, __ATOMIC_RELAXED);
}

static void fork_watch(void)
{
	/* ENOMEM: no detection, as before; nothing better to do */
	pthread_atfork(NULL, NULL, fork_child);
}

__u32 perfbuf_fork_gen(void)
{
	pthread_once(&fork_once, fork_watch);
	return __atomic_load_n(&fork_gen, __ATOMIC_RELAXED);
}

bool perfbuf_forked(__u32 gen)
{
	return __atomic_load_n(&fork_gen, __ATOMIC_RELAXED) != gen;
}
