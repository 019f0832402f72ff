// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench part "ledger": what perfbuf_output() (perfbuf/bpf.h)
 * adds to a write in the kernel, against bpf_perf_event_output() alone:
 * tests/bpf/ledger_test.bpf.o's two programs, `ledger_emit` and
 * `raw_emit`, run in turns by BPF_PROG_TEST_RUN on the producer's CPU
 * (batches of 512 writes) into a 1024-page ring that a collector empties
 * between pairs. The traced thread pays this per event. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"
#include "perfbuf/object.h"

#define LEDGER_BATCH 512

static int prog_fd(const struct perfbuf_object *o, const char *name)
{
	for (int i = 0; i < perfbuf_object__prog_cnt(o); i++)
		if (!strcmp(perfbuf_object__prog_name(o, i), name))
			return perfbuf_object__prog_fd(o, i);
	return -ENOENT;
}

/* ns per write of one batch of program @fd, @size bytes each; < 0: failed */
static double batch_ns(int fd, __u64 size)
{
	__u64 args[3] = { 0, LEDGER_BATCH, size };
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args, .ctx_size_in = sizeof(args),
		    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = (__u32)env.prod_cpu);
	__u64 t0 = perfbuf_now_ns();

	if (bpf_prog_test_run_opts(fd, &o) || o.retval)
		return -1;
	return (double)(perfbuf_now_ns() - t0) / LEDGER_BATCH;
}

static int on_rec(void *ctx, const struct perfbuf_record *rec)
{
	(void)ctx;
	(void)rec;
	return PERFBUF_CONTINUE;
}

/* @n pairs at @size bytes, order swapped each pair: a table row */
static int ledger_row(const struct perfbuf_object *o, struct perfbuf *pb,
		      __u64 size, int n)
{
	int led = prog_fd(o, "ledger_emit"), raw = prog_fd(o, "raw_emit");
	double l[n], r[n], d[n], ml, mr, md;

	for (int i = 0; i < n; i++) {
		if (i & 1) {
			r[i] = batch_ns(raw, size);
			l[i] = batch_ns(led, size);
		} else {
			l[i] = batch_ns(led, size);
			r[i] = batch_ns(raw, size);
		}
		if (l[i] < 0 || r[i] < 0)
			return -EIO;
		d[i] = l[i] - r[i];
		perfbuf__drain(pb);
	}
	/* median_double() sorts: the quartiles of d after it */
	ml = median_double(l, n);
	mr = median_double(r, n);
	md = median_double(d, n);
	emit_md("| %llu | %.1f | %.1f | %+.1f | %+.1f to %+.1f | %d |\n",
		(unsigned long long)size, ml, mr, md, d[n / 4], d[3 * n / 4], n);
	return 0;
}

int bench_ledger(void)
{
	PERFBUF_OPTS(perfbuf_opts, po, .page_cnt = 1024, .cpus = &env.prod_cpu, .cpu_cnt = 1);
	char obj[PATH_MAX + 32];
	struct perfbuf_object *o;
	struct perfbuf *pb = NULL;
	int n = env.quick ? 100 : 300, err;

	emit_section("The ledger: perfbuf_output() against bpf_perf_event_output()");
	snprintf(obj, sizeof(obj), "%s", env.self);
	snprintf(strrchr(obj, '/') + 1, 40, "tests/bpf/ledger_test.bpf.o");
	o = perfbuf_object__open(obj);
	if (o && !perfbuf_object__load(o))
		pb = perfbuf__new(perfbuf_object__map_fd(o, "events"), on_rec, NULL, &po);
	if (!pb) {
		emit_md("skipped: cannot load %s and read its map (%s)\n", obj, strerror(errno));
		perfbuf_object__free(o);
		return 0;
	}
	printf("\nledger: %d pairs of %d-write batches at 64 and 200 bytes...\n", n,
	       LEDGER_BATCH);
	emit_md("BPF_PROG_TEST_RUN on CPU%d, batches of %d writes into a 1024-page ring "
		"emptied between pairs, the order swapped each pair; ns per write, medians.\n\n"
		"| bytes | perfbuf_output() | bpf_perf_event_output() | difference (pairs) | "
		"p25 to p75 | pairs |\n|---:|---:|---:|---:|---:|---:|\n", env.prod_cpu, LEDGER_BATCH);
	err = ledger_row(o, pb, 64, n) ?: ledger_row(o, pb, 200, n);
	if (err)
		emit_md("\n(a test run failed: %s)\n", strerror(-err));
	perfbuf__free(pb);
	perfbuf_object__free(o);
	return 0;
}
