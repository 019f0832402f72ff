/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Drive bpf/emit.bpf.c from tests. */
#ifndef EMIT_UTIL_H
#define EMIT_UTIL_H

#include <pthread.h>
#include <stdbool.h>

#include "perfbuf.h"
#include "emit.skel.h"
#include "emit.h"

/* Open and load emit with a PERF_EVENT_ARRAY of max_entries (0: CPUs). */
struct emit *emit_load(__u32 max_entries);
/* Run emit on @cpu: @count records of @size bytes. Returns 0 or -errno. */
int emit_run(struct emit *skel, int cpu, __u64 count, __u64 size);
/* The BPF-side outcome counters of @cpu. */
int emit_stats_cpu(struct emit *skel, int cpu, struct emit_stats *out);
/* Check a record's payload: header fields and byte i == i after it. */
bool emit_payload_ok(const void *buf, size_t len, int cpu, __u64 seq);
/* Are CPUs 0 and 1 online (the two-CPU tests need them)? */
bool emit_cpus01_online(void);
/* A thread spinning on @cpu until busy_stop() (it pins itself again when
 * the CPU comes back from offline): cpu-clock samplers need a CPU that
 * runs, an idle one may tick rarely. */
struct busy {
	pthread_t thread;
	int cpu;
	int stop;
	bool started;
};
bool busy_start(struct busy *b, int cpu);
void busy_stop(struct busy *b);
/* Number of open fds and of perf ring mappings of this process. */
int count_fds(void);
int count_maps(void);
/* Both, taken before a test makes a collector and asserted the same at
 * its end (@fds, @maps: the assertions' names). */
struct leak_base {
	int fds, maps;
};
void leak_base_take(struct leak_base *b);
void leak_base_check(const struct leak_base *b, const char *fds, const char *maps);

/* The tests on real rings: emit loaded, a collector on its map; cpu is
 * its first ring's. Each step false: the subtest skipped (no root; with
 * @cpus01, CPUs 0 and 1 not both online) or an assertion failed; then
 * emit_fixture_close() still applies. */
struct emit_fixture {
	struct emit *skel;
	struct perfbuf *pb;
	int cpu;
};
/* Emit with a PERF_EVENT_ARRAY of @max_entries (0: CPUs) loaded */
bool emit_fixture_load(struct emit_fixture *f, __u32 max_entries, bool cpus01);
/* A collector on its map, records to @fn(@ctx) */
bool emit_fixture_collect(struct emit_fixture *f, perfbuf_record_fn fn, void *ctx,
			  const struct perfbuf_opts *o);
/* Both, @max_entries 0 */
bool emit_fixture_open(struct emit_fixture *f, bool cpus01, perfbuf_record_fn fn,
		       void *ctx, const struct perfbuf_opts *o);
void emit_fixture_close(struct emit_fixture *f);

#endif
