// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "emit_util.h"
#include "common/producer.h"
#include "test.h"

struct emit *emit_load(__u32 max_entries)
{
	return emit_open_load(false, max_entries);
}

int emit_run(struct emit *skel, int cpu, __u64 count, __u64 size)
{
	return emit_once(emit_prog_fd(skel, false), cpu, count, size);
}

int emit_stats_cpu(struct emit *skel, int cpu, struct emit_stats *out)
{
	return emit_stats_read(bpf_map__fd(skel->maps.stats), cpu, out);
}

bool emit_payload_ok(const void *buf, size_t len, int cpu, __u64 seq)
{
	const struct emit_rec *r = buf;
	const unsigned char *p = buf;

	if (len < sizeof(*r) || r->seq != seq || (int)r->cpu != cpu ||
	    r->size > len)
		return false;
	for (size_t i = sizeof(*r); i < r->size; i++)
		if (p[i] != (unsigned char)i)
			return false;
	return true;
}

static void *busy_main(void *arg)
{
	struct busy *b = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(b->cpu, &set);
	while (!__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE)) {
		__u64 t0 = perfbuf_now_ns();

		/* again and again: offline, the kernel moved us away */
		sched_setaffinity(0, sizeof(set), &set);
		while (perfbuf_now_ns() - t0 < 10000000ULL)
			;
	}
	return NULL;
}

bool busy_start(struct busy *b, int cpu)
{
	b->cpu = cpu;
	b->stop = 0;
	b->started = !pthread_create(&b->thread, NULL, busy_main, b);
	return b->started;
}

void busy_stop(struct busy *b)
{
	if (!b->started)
		return;
	__atomic_store_n(&b->stop, 1, __ATOMIC_RELEASE);
	pthread_join(b->thread, NULL);
	b->started = false;
}

bool emit_cpus01_online(void)
{
	int cpus[64], n = perfbuf_cpus__online(cpus, 64);

	return n >= 2 && cpus[0] == 0 && cpus[1] == 1;
}

int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the DIR's own fd */
}

/* Ring mappings only: thread stacks glibc caches, and valgrind's own
 * mappings, come and go on their own. */
int count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "[perf_event]") != NULL;
	fclose(f);
	return n;
}

void leak_base_take(struct leak_base *b)
{
	b->fds = count_fds();
	b->maps = count_maps();
}

void leak_base_check(const struct leak_base *b, const char *fds, const char *maps)
{
	ASSERT_EQ(count_fds(), b->fds, fds);
	ASSERT_EQ(count_maps(), b->maps, maps);
}

bool emit_fixture_load(struct emit_fixture *f, __u32 max_entries, bool cpus01)
{
	memset(f, 0, sizeof(*f));
	if (!test_root_or_skip())
		return false;
	if (cpus01 && !emit_cpus01_online()) {
		test__skip = "needs CPUs 0 and 1 online";
		return false;
	}
	f->skel = emit_load(max_entries);
	return ASSERT_OK_PTR(f->skel, "emit_load");
}

bool emit_fixture_collect(struct emit_fixture *f, perfbuf_record_fn fn, void *ctx,
			  const struct perfbuf_opts *o)
{
	f->pb = perfbuf__new(bpf_map__fd(f->skel->maps.events), fn, ctx, o);
	if (!ASSERT_OK_PTR(f->pb, "perfbuf__new"))
		return false;
	f->cpu = perfbuf__ring_cpu(f->pb, 0);
	return true;
}

bool emit_fixture_open(struct emit_fixture *f, bool cpus01, perfbuf_record_fn fn,
		       void *ctx, const struct perfbuf_opts *o)
{
	return emit_fixture_load(f, 0, cpus01) && emit_fixture_collect(f, fn, ctx, o);
}

void emit_fixture_close(struct emit_fixture *f)
{
	perfbuf__free(f->pb);
	emit__destroy(f->skel);
}
