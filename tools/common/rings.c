// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rings' memory. The default budget follows the machine: Pixie's
 * per-CPU bandwidth model (a share of (1 + x) / (ncpus + x) of one CPU's
 * target, here 2 MiB and x = 16: few CPUs get about the target each, many
 * share about 17 x 2 MiB), bpftrace's bounds (16 to 4096 pages per CPU,
 * the lower one ours: 64 at 1024 CPUs would map 256 MiB) and its look at
 * the memory (the whole within 1/64 of it). 2-16 CPUs: 1 MiB each; 64:
 * 256 KiB (16 MiB); 256: 128 KiB (32 MiB); 1024: 64 KiB (64 MiB).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "perfbuf.h"
#include "rings.h"
#include "say.h"

#define SHARE_BYTES (2ULL << 20)	/* one CPU's target */
#define SHARE_X 16
#define MIN_PAGES 16ULL
#define MAX_PAGES 4096ULL
#define MEM_PART 64

unsigned long long rings_default_bytes(long ncpus, unsigned long long mem)
{
	unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE);
	unsigned long long n = ncpus > 0 ? (unsigned long long)ncpus : 1;
	unsigned long long share = SHARE_BYTES * (1 + SHARE_X) / (n + SHARE_X);
	unsigned long long total;

	if (share < MIN_PAGES * page)
		share = MIN_PAGES * page;
	if (share > MAX_PAGES * page)
		share = MAX_PAGES * page;
	total = share * n;
	if (mem && total > mem / MEM_PART)
		total = mem / MEM_PART;
	if (total < MIN_PAGES * page * n)
		total = MIN_PAGES * page * n;
	return total;
}

static long possible_cpus(void)
{
	int n = perfbuf_cpus__possible(NULL, 0);

	return n > 0 ? n : 1;
}

long rings_pages(const char *prog, long pages, unsigned long long bytes)
{
	long ncpus = possible_cpus(), page = sysconf(_SC_PAGESIZE);
	size_t per;

	if (pages)
		return pages;
	if (!bytes)
		bytes = rings_default_bytes(ncpus, (unsigned long long)sysconf(_SC_PHYS_PAGES) *
						   (unsigned long long)page);
	per = perfbuf_ring__budget_pages((size_t)bytes, (size_t)ncpus);
	if (!per)
		cli_say(prog, "--buffer-size %llu bytes is less than a page for each of the %ld CPUs: give %lluK or more\n",
			bytes, ncpus,
			(unsigned long long)ncpus * (unsigned long long)page >> 10);
	return (long)per;
}

static bool has_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &hdr, d))
		return false;
	return d[CAP_IPC_LOCK / 32].effective & (1U << (CAP_IPC_LOCK % 32));
}

static long read_sysctl(const char *path, long fallback)
{
	FILE *f = fopen(path, "r");
	long v = fallback;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = fallback;
		fclose(f);
	}
	return v;
}

/* What the kernel's perf_mmap() does: per user, the pages past
 * perf_event_mlock_kb x online CPUs go to RLIMIT_MEMLOCK, unless
 * CAP_IPC_LOCK or perf_event_paranoid -1. That allowance is the user's,
 * shared with their other processes: the soft limit is raised to all the
 * rings need (or the hard limit), and only a hard limit below what is
 * needed even with the whole allowance is refused here. */
int rings_need_memlock(const char *prog, long pages, long rings, const char *size_opt)
{
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long free_kb = (unsigned long long)
		read_sysctl("/proc/sys/kernel/perf_event_mlock_kb", 516) * (online > 0 ? online : 1);
	unsigned long long all_kb = (unsigned long long)(pages + 1) * (unsigned long long)page_kb *
				    (unsigned long long)rings;
	unsigned long long need_kb = all_kb > free_kb ? all_kb - free_kb : 0;
	struct rlimit rl;

	if (has_ipc_lock() || read_sysctl("/proc/sys/kernel/perf_event_paranoid", 2) < 0 ||
	    getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= all_kb << 10)
		return 0;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need_kb << 10) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= all_kb << 10 ?
			      all_kb << 10 : rl.rlim_max;
		if (rl.rlim_cur <= rl.rlim_max && !setrlimit(RLIMIT_MEMLOCK, &rl))
			return 0;
	}
	cli_say(prog, "%ld rings of %ld KiB need %llu KiB of locked memory past kernel.perf_event_mlock_kb, RLIMIT_MEMLOCK allows %llu KiB: raise 'ulimit -l' to %llu%s CAP_IPC_LOCK%s%s\n",
		rings, pages * page_kb, need_kb,
		(unsigned long long)(rl.rlim_max == RLIM_INFINITY ? rl.rlim_cur : rl.rlim_max) >> 10,
		need_kb, size_opt ? ", give" : " or give", size_opt ? ", or a smaller " : "",
		size_opt ? size_opt : "");
	return -ENOMEM;
}

void rings_mapped(struct perfbuf *pb, unsigned long long *bytes, size_t *rings)
{
	for (size_t i = 0; pb && i < perfbuf__ring_cnt(pb); i++) {
		struct perfbuf_cpu_stats st = { .sz = sizeof(st) };

		if (perfbuf__stats(pb, i, &st) || !st.online)
			continue;
		*bytes += st.data_size;
		++*rings;
	}
}

void rings_say_mapped(const char *prog, struct perfbuf *pb)
{
	unsigned long long bytes = 0;
	size_t rings = 0;
	char all[32], one[32];

	rings_mapped(pb, &bytes, &rings);
	rings_fmt_bytes(bytes, all, sizeof(all));
	rings_fmt_bytes(rings ? bytes / rings : 0, one, sizeof(one));
	cli_say(prog, "ring memory: %s mapped in %zu ring%s of %s (and a header page each)\n",
		all, rings, rings == 1 ? "" : "s", one);
}

void rings_fmt_bytes(unsigned long long bytes, char *buf, size_t sz)
{
	if (bytes >= 10ULL << 30)
		snprintf(buf, sz, "%llu GiB", bytes >> 30);
	else if (bytes >= 10ULL << 20)
		snprintf(buf, sz, "%llu MiB", bytes >> 20);
	else if (bytes >= 1ULL << 20)
		snprintf(buf, sz, "%.1f MiB", (double)bytes / (1 << 20));
	else
		snprintf(buf, sz, "%llu KiB", bytes >> 10);
}
