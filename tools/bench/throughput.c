// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench part "throughput": every peer flat out and at 1 k/s, then
 * the offered-rate sweep and its plot. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common/say.h"
#include "output/file.h"

/* the consumer rows' pairs of rounds: odd, for a median of them */
#define PAIR_ROUNDS 11
#define PAIR_ROUNDS_QUICK 9

static struct point flat_point(enum peer p)
{
	return (struct point){
		.peer = p, .secs = env.secs, .batch = env.batch,
		.lat_mask = 15, .n_prod = 1, .cons_cpu = env.cons_cpu,
	};
}

/* 1 k records/s per producer, one record per program run, every latency
 * taken. */
static struct point low_point(enum peer p, double secs)
{
	return (struct point){
		.peer = p, .rate = 1000, .secs = secs, .batch = 1,
		.n_prod = 1, .cons_cpu = env.cons_cpu,
	};
}

static bool have(const struct result *r, enum peer p)
{
	return env.peer_on[p] && !r[p].err;
}

static void throughput_rows(const struct result *sat, const struct result *low)
{
	char b1[32], b2[32], b3[32], b4[32];

	emit_md("| consumer | delivered M/s | offered M/s | loss %% | consumer ns/record | "
		"latency p50 / p99 at 1 k/s | latency p50 / p99 flat out |\n"
		"|---|---:|---:|---:|---:|---:|---:|\n");
	for (int p = 0; p < N_PEERS; p++) {
		const struct result *r = &sat[p], *l = &low[p];

		if (!env.peer_on[p])
			continue;
		if (r->err) {
			emit_md("| %s | failed: %s | | | | | |\n", peer_name[p], strerror(-r->err));
			continue;
		}
		if (kind_peer(p)) {
			emit_md("| %s | %.2f | %.2f | %.3f | %.1f | - | - |\n",
				peer_name[p], rate_of(r), mps(r->offered, r->secs),
				loss_pct(r), r->cpu_ns_per_rec);
			continue;
		}
		emit_md("| %s | %.2f | %.2f | %.3f | %.1f | %s / %s%s | %s / %s |\n",
			peer_name[p], rate_of(r), mps(r->offered, r->secs),
			loss_pct(r), r->cpu_ns_per_rec,
			fmt_lat(b1, sizeof(b1), l->p50), fmt_lat(b2, sizeof(b2), l->p99),
			l->err ? " (failed)" : "",
			fmt_lat(b3, sizeof(b3), r->p50), fmt_lat(b4, sizeof(b4), r->p99));
	}
}

/*
 * The consumer rows' ratios, perfbuf / libbpf raw. One round of each is at
 * the mercy of the second it ran in (the producer's rate, other jobs, the
 * host moving the vCPUs, the pages a ring got): 6.5 to 11.3 ns a record
 * for the same build on an idle machine. So the two run in pairs of
 * rounds, A then B, then B then A, each pair's ratio taken, and the median
 * of the pairs' ratios is the figure, with their range (paired_ratios()).
 */

/* One pair of rounds, @b first when @swap: false on failure. */
static bool pair_round(enum peer a, enum peer b, bool swap, double secs,
		       struct result *ra, struct result *rb)
{
	struct point pa = flat_point(a), pb = flat_point(b);
	bool ok;

	pa.secs = pb.secs = secs;
	if (swap)
		ok = !run_point(&pb, rb) && !run_point(&pa, ra);
	else
		ok = !run_point(&pa, ra) && !run_point(&pb, rb);
	if (!ok)
		cli_say("perfbuf-bench", "a pair of %s and %s: %s\n", peer_name[a],
			peer_name[b], strerror(-(ra->err ?: rb->err)));
	return ok && ra->received && rb->received;
}

static int paired_run(enum peer a, enum peer b, struct paired *out)
{
	double ratio[PAIR_ROUNDS], ans[PAIR_ROUNDS], bns[PAIR_ROUNDS], rate[PAIR_ROUNDS];
	int rounds = env.quick ? PAIR_ROUNDS_QUICK : PAIR_ROUNDS, n = 0;
	double secs = env.quick ? 1 : 2;

	printf("%s / %s: %d pairs of %.0f s rounds...\n", peer_key[a],
	       peer_key[b], rounds, secs);
	for (int i = 0; i < rounds; i++) {
		struct result ra = {}, rb = {};

		if (!pair_round(a, b, i & 1, secs, &ra, &rb))
			continue;
		ans[n] = ra.cpu_ns_per_rec;
		bns[n] = rb.cpu_ns_per_rec;
		ratio[n] = ans[n] / bns[n];
		printf("  %.1f / %.1f ns a record: %.2fx\n", ans[n], bns[n], ratio[n]);
		rate[n++] = (mps(ra.offered, ra.secs) + mps(rb.offered, rb.secs)) / 2;
	}
	if (!n)
		return -EIO;
	paired_ratios(ratio, n, out);
	out->a = median_double(ans, n);
	out->b = median_double(bns, n);
	out->mps = median_double(rate, n);
	return 0;
}

static void paired_line(const char *what, const struct paired *p, bool target)
{
	emit_md("| %s | %.2fx | %s | %s | %.1f / %.1f | %.2f–%.2fx | %d | %.2f |\n",
		what, p->ratio, target ? "<= 1.00x" : "-",
		target ? met(p->ratio <= 1.0) : "", p->a, p->b, p->lo,
		p->hi, p->n, p->mps);
}

/*
 * The two consumer rows, when their peers are on: paired rounds. Then
 * perfbuf's iterator and the floor against the same peer, with the default
 * row's work and no callback: what the call per record costs, and how
 * much any loop could still save, this host's caches being what they are.
 */
static void paired_targets(void)
{
	static const struct { enum peer a, b; const char *what; bool target; } rows[] = {
		{ PB_DEFAULT, LB_RAW,
		  "consumer ns/record: perfbuf default / libbpf raw, same watermark", true },
		{ PB_KIND, LB_KIND,
		  "consumer ns/record, the same callback (counts by kind): perfbuf / libbpf raw", true },
		{ PB_ITER, LB_RAW,
		  "the default callback's work in perfbuf's inline iterator, no callback / libbpf raw",
		  false },
		{ LB_FLOOR, LB_RAW,
		  "the floor: the same work in a bare loop, no callback / libbpf raw",
		  false },
	};
	enum { N_ROWS = sizeof(rows) / sizeof(rows[0]) };
	struct paired p[N_ROWS];
	bool ok[N_ROWS], any = false;

	for (int i = 0; i < N_ROWS; i++) {
		ok[i] = env.peer_on[rows[i].a] && env.peer_on[rows[i].b] &&
			!paired_run(rows[i].a, rows[i].b, &p[i]);
		any |= ok[i];
	}
	if (!any)
		return;
	emit_md("\nThe consumer rows in pairs of rounds: each pair runs both peers flat out for "
		"%.0f s each, one after the other, the order swapped every pair; the ratio is the "
		"median of the pairs' ratios.\n\n"
		"| target | ratio | wanted | | ns/record (medians) | pairs' range | pairs | offered M/s |\n"
		"|---|---:|---:|---|---:|---:|---:|---:|\n", env.quick ? 1.0 : 2.0);
	for (int i = 0; i < N_ROWS; i++)
		if (ok[i])
			paired_line(rows[i].what, &p[i], rows[i].target);
}

static void throughput_targets(const struct result *sat, const struct result *low)
{
	const struct result *d = &sat[PB_DEFAULT];
	char b[32];

	if (!have(sat, PB_DEFAULT))
		return;
	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	if (have(sat, LB_DEFAULT))
		ratio_line("perfbuf default / libbpf perf_buffer default", rate_of(d),
			   rate_of(&sat[LB_DEFAULT]), 60, false);
	if (have(sat, LB_RAW))
		ratio_line("delivered share of offered: perfbuf default / libbpf raw, same watermark",
			   delivered_share(d), delivered_share(&sat[LB_RAW]), 1.0, false);
	if (have(sat, LB_RINGBUF))
		ratio_line("perfbuf default / libbpf ring_buffer", rate_of(d),
			   rate_of(&sat[LB_RINGBUF]), 3, false);
	emit_md("| perfbuf default: records lost at %zu pages | %llu | 0 | %s |\n",
		env.pages, (unsigned long long)(d->offered - d->received),
		met(d->offered == d->received));
	if (!low[PB_DEFAULT].err)
		emit_md("| perfbuf default: p99 latency at 1 k/s | %s | <= 10 ms (latency_ms) | %s |\n",
			fmt_lat(b, sizeof(b), low[PB_DEFAULT].p99),
			met(low[PB_DEFAULT].p99 <= LATENCY_NS));
	if (have(sat, PB_TS))
		info_line("consumer ns/record: perfbuf timestamps / perfbuf default",
			  sat[PB_TS].cpu_ns_per_rec, d->cpu_ns_per_rec);
	if (have(sat, PB_ORDERED))
		info_line("consumer ns/record: perfbuf ordered / perfbuf default",
			  sat[PB_ORDERED].cpu_ns_per_rec, d->cpu_ns_per_rec);
}

/*
 * Every selected peer flat out, @reps interleaved rounds (the producer is
 * the bottleneck of the watermark peers and moves with whatever else runs:
 * each peer's median round is kept), then at 1 k records/s.
 */
static void throughput_table(int reps, struct result *sat, struct result *low)
{
	struct result rounds[N_PEERS][MAX_REPS];
	double low_secs = env.quick ? 1 : 2;

	printf("flat out, %d rounds of %.0f s per peer...\n", reps, env.secs);
	for (int i = 0; i < reps; i++)
		for (int p = 0; p < N_PEERS; p++) {
			struct point pt = flat_point(p);

			if (env.peer_on[p] && run_point(&pt, &rounds[p][i]))
				cli_say("perfbuf-bench", "%s: %s\n", peer_name[p],
					strerror(-rounds[p][i].err));
		}
	for (int p = 0; p < N_PEERS; p++)
		if (env.peer_on[p])
			sat[p] = median_result(rounds[p], reps);
	printf("1 k records/s, %.0f s per peer...\n", low_secs);
	for (int p = 0; p < N_PEERS; p++) {
		struct point pt = low_point(p, low_secs);

		if (env.peer_on[p] && !kind_peer(p) && run_point(&pt, &low[p]))
			cli_say("perfbuf-bench", "%s: %s\n", peer_name[p],
				strerror(-low[p].err));
	}
	emit_section("Throughput and latency");
	emit_md("%d-byte records, producer on CPU%d (%d records per BPF_PROG_TEST_RUN), "
		"consumer on CPU%d, %zu pages per CPU (ringbuf: the same total), "
		"flat out: median of %d interleaved %.0f s runs; latency = consumer clock - bpf_ktime_get_ns() at emit "
		"(1 in 16 records flat out, every record at 1 k/s).\n\n",
		REC_SIZE, env.prod_cpu, env.batch, env.cons_cpu, env.pages, reps, env.secs);
	throughput_rows(sat, low);
	throughput_targets(sat, low);
	paired_targets();
}

/* ---- offered-rate sweep ---------------------------------------------- */

static int batch_for(double rate)
{
	/* ~50 k program runs/s at most when paced */
	long b = (long)(rate / 50000);

	return b < 1 ? 1 : b > env.batch ? env.batch : (int)b;
}

static bool swept(int p)
{
	return env.peer_on[p] && peer_swept[p];
}

static void gnuplot(const char *dir)
{
	char cmd[PATH_MAX * 2 + 64];
	struct out_file out;
	FILE *gp;
	int idx = 0;

	snprintf(cmd, sizeof(cmd), "%s/bench.gp", dir);
	gp = out_file__open(&out, "perfbuf-bench", cmd) ? NULL : out_file__stream(&out);
	if (!gp) {
		out_file__discard(&out);
		return;
	}
	fprintf(gp,
		"set terminal png size 900,600 noenhanced\n"
		"set output '%s/bench.png'\n"
		"set title 'perf buffer consumers: 64-byte records, producer CPU%d, consumer CPU%d, %zu pages'\n"
		"set xlabel 'offered: records/s asked of the producer (M/s)'\n"
		"set ylabel 'delivered (M records/s)'\n"
		"set logscale xy\n"
		"set xrange [0.03:%g]\n"
		"set xtics add ('flat out' %g)\n"
		"set key top left\n"
		"set grid\n"
		"plot ", dir, env.prod_cpu, env.cons_cpu, env.pages, FLAT_OUT_X * 1.5,
		FLAT_OUT_X);
	for (int p = 0; p < N_PEERS; p++)
		if (swept(p))
			fprintf(gp, "'%s/bench.dat' index %d using 3:2 with linespoints title '%s', ",
				dir, idx++, peer_name[p]);
	fprintf(gp, "x with lines dashtype 2 lc rgb 'gray' title 'delivered = offered'\n");
	out_file__commit(&out, false);
	snprintf(cmd, sizeof(cmd), "gnuplot '%s/bench.gp' 2>&1", dir);
	if (system(cmd) == 0)
		printf("\nplot: %s/bench.png\n", dir);
	else
		printf("\nno plot: gnuplot failed or is missing (scripts/setup.sh --bench installs gnuplot-nox)\n");
}

/* One data set of bench.dat: peer @p at each offered rate, then flat out
 * (@sat, already measured), plotted at x = FLAT_OUT_X. */
static void sweep_peer(FILE *dat, int p, const double *rates, int n_rates,
		       double secs, const struct result *sat)
{
	fprintf(dat, "# %s: offered_mps delivered_mps asked_mps loss_pct\n",
		peer_key[p]);
	for (int i = 0; i <= n_rates; i++) {
		double rate = i < n_rates ? rates[i] * 1e6 : 0;
		struct point pt = flat_point(p);
		struct result r;

		pt.rate = rate;
		pt.secs = secs;
		pt.batch = batch_for(rate);
		if (i == n_rates)
			r = *sat;
		else if (run_point(&pt, &r))
			continue;
		if (r.err)
			continue;
		fprintf(dat, "%.4f %.4f %.4f %.3f\n", mps(r.offered, r.secs),
			rate_of(&r), rate > 0 ? rate / 1e6 : FLAT_OUT_X, loss_pct(&r));
	}
	fprintf(dat, "\n\n");
}

static void bench_sweep(const struct result *sat)
{
	static const double rates_full[] = { 0.05, 0.1, 0.2, 0.5, 1, 2, 4, 8, 12 };
	static const double rates_quick[] = { 0.1, 1, 4 };
	const double *rates = env.quick ? rates_quick : rates_full;
	int n_rates = env.quick ? 3 : (int)(sizeof(rates_full) / sizeof(rates_full[0]));
	double secs = env.quick ? 1 : 2;
	char path[PATH_MAX];
	int n_peers = 0;
	struct out_file out;
	FILE *dat;

	for (int p = 0; p < N_PEERS; p++)
		n_peers += swept(p);
	snprintf(path, sizeof(path), "%s/bench.dat", env.out);
	dat = out_file__open(&out, "perfbuf-bench", path) ? NULL : out_file__stream(&out);
	if (!dat || !n_peers) {
		out_file__discard(&out);
		return;
	}
	printf("\nsweep: %d offered rates x %d peers, %.0f s each...\n",
	       n_rates, n_peers, secs);
	for (int p = 0; p < N_PEERS; p++)
		if (swept(p))
			sweep_peer(dat, p, rates, n_rates, secs, &sat[p]);
	out_file__commit(&out, false);
	gnuplot(env.out);
}

/* The part: the table, then (a whole run without --no-sweep) the sweep. */
int bench_throughput(void)
{
	struct result sat[N_PEERS] = {}, low[N_PEERS] = {};

	throughput_table(env.quick ? 1 : MAX_REPS, sat, low);
	if (!env.only && !env.no_sweep)
		bench_sweep(sat);
	return 0;
}
