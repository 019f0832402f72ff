/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The rings' memory, as every command sizes it: --pages (per CPU),
 * --buffer-size (a total for all CPUs) or a default budget that follows
 * the machine (docs/many-cpus.md gives the formula); RLIMIT_MEMLOCK made
 * room for it; and the memory mapped, said.
 */
#ifndef TOOLS_COMMON_RINGS_H
#define TOOLS_COMMON_RINGS_H

#include <stdbool.h>
#include <stddef.h>

struct perfbuf;

/* --pages and --buffer-size in a command's --help, as trace and run show
 * them (record words its own around the capture) */
#define RINGS_HELP \
"      --pages N        ring pages per CPU, a power of two (default: from the\n" \
"                       budget)\n" \
"      --buffer-size SIZE  ring memory for all CPUs together (8M, 512M), each\n" \
"                       CPU's ring a power of two within its share; default:\n" \
"                       a budget from the CPUs and memory (1 MiB per CPU on\n" \
"                       few CPUs, 16-32 MiB in all at 64-256)\n"

/* The default budget of @ncpus CPUs on a machine of @mem bytes: a share
 * per CPU of 2 MiB x 17 / (ncpus + 16), kept within 16-4096 pages, all of
 * it within mem / 64. */
unsigned long long rings_default_bytes(long ncpus, unsigned long long mem);

/* The data pages of each CPU's ring: @pages (--pages) when non-zero, else
 * @bytes (--buffer-size), or the default budget when 0, shared by the
 * possible CPUs (perfbuf_ring__budget_pages()). 0 after one line when a
 * share is less than a page. */
long rings_pages(const char *prog, long pages, unsigned long long bytes);

/* Room in RLIMIT_MEMLOCK for @rings rings of @pages data pages where the
 * kernel charges them to it (without CAP_IPC_LOCK, past
 * kernel.perf_event_mlock_kb per online CPU): the soft limit is raised if
 * the hard one allows; if not, one line with the numbers (and "or a
 * smaller @size_opt", the command's option of the rings' size, when it
 * has one). 0 or -ENOMEM. */
int rings_need_memlock(const char *prog, long pages, long rings, const char *size_opt);

/* The ring data @pb maps now (a header page more per ring), added to
 * *@bytes, its open rings to *@rings. */
void rings_mapped(struct perfbuf *pb, unsigned long long *bytes, size_t *rings);

/* "PROG: ring memory: 2.0 MiB mapped in 2 rings of 1 MiB" on stderr */
void rings_say_mapped(const char *prog, struct perfbuf *pb);

/* "1.5 MiB" */
void rings_fmt_bytes(unsigned long long bytes, char *buf, size_t sz);

#endif
