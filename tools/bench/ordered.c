// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench part "ordered": perfbuf default against ordered with a
 * producer on each CPU. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "common/say.h"

enum { O_DEFAULT, O_ORDERED, O_N };

static const enum peer ord_peer[O_N] = { PB_DEFAULT, PB_ORDERED };

/* Producers on both CPUs, the consumer where the scheduler puts it, every
 * record's order checked. */
static struct point ord_point(int k, double rate, double secs)
{
	return (struct point){
		.peer = ord_peer[k], .rate = rate, .secs = secs,
		.batch = rate ? 1 : env.batch, .lat_mask = rate ? 0 : 15,
		.n_prod = 2, .cons_cpu = -1, .check_order = true,
	};
}

static void ordered_rows(const struct result *sat, const struct result *low,
			 const __u64 *late, const __u64 *disorder)
{
	static const char *name[O_N] = { "perfbuf default (unordered)",
					 "perfbuf ordered" };
	char b1[32], b2[32];

	emit_md("| consumer | delivered M/s | offered M/s | loss %% | consumer ns/record | "
		"latency p50 / p99 at 1 k/s per CPU | late records | "
		"out of order, not flagged late |\n"
		"|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int k = 0; k < O_N; k++) {
		const struct result *r = &sat[k], *l = &low[k];

		if (r->err) {
			emit_md("| %s | failed: %s | | | | | | |\n", name[k], strerror(-r->err));
			continue;
		}
		emit_md("| %s | %.2f | %.2f | %.3f | %.1f | %s / %s%s | %llu | %llu |\n",
			name[k], rate_of(r), mps(r->offered, r->secs), loss_pct(r),
			r->cpu_ns_per_rec,
			fmt_lat(b1, sizeof(b1), l->p50), fmt_lat(b2, sizeof(b2), l->p99),
			l->err ? " (failed)" : "", (unsigned long long)late[k],
			(unsigned long long)disorder[k]);
	}
}

static void ordered_targets(const struct result *sat, const struct result *low,
			    const __u64 *disorder)
{
	char b[32];

	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	if (!low[O_ORDERED].err)
		emit_md("| perfbuf ordered: p99 latency at 1 k/s per CPU | %s | <= 10 ms (latency_ms) | %s |\n",
			fmt_lat(b, sizeof(b), low[O_ORDERED].p99),
			met(low[O_ORDERED].p99 <= LATENCY_NS));
	emit_md("| perfbuf ordered: records out of order, not flagged late | %llu | 0 | %s |\n",
		(unsigned long long)disorder[O_ORDERED], met(!disorder[O_ORDERED]));
	if (!sat[O_DEFAULT].err && !sat[O_ORDERED].err) {
		info_line("consumer ns/record: ordered / unordered",
			  sat[O_ORDERED].cpu_ns_per_rec, sat[O_DEFAULT].cpu_ns_per_rec);
		info_line("delivered flat out: ordered / unordered",
			  rate_of(&sat[O_ORDERED]), rate_of(&sat[O_DEFAULT]));
	}
	if (!low[O_DEFAULT].err && !low[O_ORDERED].err)
		info_line("p99 latency at 1 k/s: ordered / unordered",
			  (double)low[O_ORDERED].p99, (double)low[O_DEFAULT].p99);
}

/*
 * perfbuf default against ordered with a producer on each CPU: flat out
 * (@reps interleaved rounds, the median kept) and at 1 k records/s per
 * CPU. Late and unflagged out-of-order records are summed over every run.
 */
int bench_ordered(void)
{
	int reps = env.quick ? 1 : MAX_REPS;
	struct result rounds[O_N][MAX_REPS], sat[O_N], low[O_N];
	__u64 late[O_N] = {}, disorder[O_N] = {};
	double low_secs = env.quick ? 1 : 2;

	printf("\nordered: producers on CPU%d and CPU%d, %d rounds of %.0f s, then 1 k/s per CPU...\n",
	       env.prod_cpu, env.cons_cpu, reps, env.secs);
	for (int i = 0; i < reps; i++)
		for (int k = 0; k < O_N; k++) {
			struct point pt = ord_point(k, 0, env.secs);

			if (run_point(&pt, &rounds[k][i]))
				cli_say("perfbuf-bench", "ordered, %s: %s\n",
					peer_name[ord_peer[k]], strerror(-rounds[k][i].err));
			late[k] += rounds[k][i].late;
			disorder[k] += rounds[k][i].disorder;
		}
	for (int k = 0; k < O_N; k++) {
		struct point pt = ord_point(k, 1000, low_secs);

		sat[k] = median_result(rounds[k], reps);
		if (run_point(&pt, &low[k]))
			cli_say("perfbuf-bench", "ordered, %s: %s\n",
				peer_name[ord_peer[k]], strerror(-low[k].err));
		late[k] += low[k].late;
		disorder[k] += low[k].disorder;
	}
	emit_section("Ordered delivery");
	emit_md("%d-byte records, a producer on CPU%d and one on CPU%d (%d records per run flat out, "
		"1 per run at 1 k/s), the consumer where the scheduler puts it, %zu pages per CPU; "
		"flat out: median of %d interleaved %.0f s runs. Late and out-of-order records: all "
		"runs of the row; out of order = older than a record delivered before it, by time_ns "
		"(ordered) or, without one, the emit time in the payload (unordered).\n\n",
		REC_SIZE, env.prod_cpu, env.cons_cpu, env.batch, env.pages, reps, env.secs);
	ordered_rows(sat, low, late, disorder);
	ordered_targets(sat, low, disorder);	return 0;
}
