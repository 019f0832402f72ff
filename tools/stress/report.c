// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf stress: each CPU's verdict (offered == received + lost, lost ==
 * -ENOSPC, gaps explained), the table and the JSON object. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "common/cli.h"
#include "emit.h"
#include "emit.skel.h"
#include "stress.h"

/* One line on stderr: what broke on the CPU of @r. */
static void say_broken(const struct cpu_result *r, const struct cpu_seen *c)
{
	cli_say("perfbuf stress", "CPU %d: accounting broken: offered %llu, received %llu, lost %llu, -ENOSPC %llu, other failures %llu, sequence errors %llu",
		r->cpu, (unsigned long long)r->offered,
		(unsigned long long)r->received, (unsigned long long)r->lost,
		(unsigned long long)r->enospc, (unsigned long long)r->failed,
		(unsigned long long)r->seq_errors);
	if (c->seq_errors)
		fprintf(stderr, " (first: seq %llu where %llu was due)",
			(unsigned long long)c->first_bad_seq,
			(unsigned long long)c->first_bad_want);
	if (r->bad)
		fprintf(stderr, ", %llu records with a wrong cpu or size",
			(unsigned long long)r->bad);
	fprintf(stderr, "\n");
}

/* CPU @i's counts, BPF's and the collector's, and whether they add up.
 * 0 or -errno (said). */
static int cpu_result(struct stress_run *run, int i)
{
	int cpu = run->o.cpus[i], err;
	struct cpu_result *r = &run->res[i];
	struct cpu_seen *c = &run->st.seen[cpu];
	struct perfbuf_cpu_stats cs = { .sz = sizeof(cs) };
	struct emit_stats es;

	err = emit_stats_read(bpf_map__fd(run->skel->maps.stats), cpu, &es);
	if (!err)
		err = perfbuf__stats(run->pb, (size_t)i, &cs);
	if (err) {
		cli_say("perfbuf stress", "reading the counters of CPU %d: %s\n",
			cpu, strerror(-err));
		return err;
	}
	*r = (struct cpu_result){
		.cpu = cpu, .offered = es.attempts, .received = c->received,
		.lost = c->lost, .enospc = es.enospc,
		.failed = es.e2big + es.enoent + es.eopnotsupp + es.other,
		.seq_errors = c->seq_errors, .bad = c->bad,
		.high_water = cs.high_water, .ring_bytes = cs.data_size,
		.lost_kernel = cs.lost_kernel,
	};
	r->ok = r->offered == r->received + r->lost && r->lost == r->enospc &&
		!r->failed && !r->seq_errors && !r->bad && c->next_seq == r->offered;
	if (!r->ok)
		say_broken(r, c);
	return 0;
}

/* Every CPU's result and the totals. 0 or -errno (said). */
int stress_results(struct stress_run *run)
{
	run->all_ok = true;
	for (int i = 0; i < run->o.n_cpus; i++) {
		struct cpu_result *r = &run->res[i];
		int err = cpu_result(run, i);

		if (err)
			return err;
		run->all_ok &= r->ok;
		run->tot_off += r->offered;
		run->tot_rcv += r->received;
		run->tot_lost += r->lost;
		run->tot_fail += r->failed;
	}
	if (run->st.order_errors) {
		cli_say("perfbuf stress", "order broken: %llu records older than the one before them, not flagged late\n",
			(unsigned long long)run->st.order_errors);
		run->all_ok = false;
	}
	return 0;
}

void stress_print_json(const struct stress_run *run)
{
	const struct stress_opts *o = &run->o;
	double secs = run->secs;

	printf("{\"type\":\"stress\",");
	if (o->ordered)
		printf("\"ordered\":true,\"late\":%llu,\"order_errors\":%llu,",
		       (unsigned long long)run->st.late,
		       (unsigned long long)run->st.order_errors);
	printf("\"offered\":%llu,\"received\":%llu,\"lost\":%llu,"
	       "\"failed\":%llu,\"seconds\":%.3f,\"rate_mps\":%.4f,"
	       "\"offered_mps\":%.4f,\"size\":%lld,\"batch\":%lld,\"pages\":%lld,"
	       "\"consumer_delay_us\":%lld,\"ok\":%s,\"per_cpu\":[",
	       (unsigned long long)run->tot_off, (unsigned long long)run->tot_rcv,
	       (unsigned long long)run->tot_lost, (unsigned long long)run->tot_fail,
	       secs, run->tot_rcv / secs / 1e6, run->tot_off / secs / 1e6, o->size,
	       o->batch, o->pages, o->delay_us, run->all_ok ? "true" : "false");
	for (int i = 0; i < o->n_cpus; i++) {
		const struct cpu_result *r = &run->res[i];

		printf("%s{\"cpu\":%d,\"offered\":%llu,\"received\":%llu,\"lost\":%llu,"
		       "\"enospc\":%llu,\"failed\":%llu,\"seq_errors\":%llu,"
		       "\"rate_mps\":%.4f,\"loss_pct\":%.3f,\"high_water\":%llu,"
		       "\"ring_bytes\":%llu,\"ok\":%s}",
		       i ? "," : "", r->cpu, (unsigned long long)r->offered,
		       (unsigned long long)r->received, (unsigned long long)r->lost,
		       (unsigned long long)r->enospc, (unsigned long long)r->failed,
		       (unsigned long long)r->seq_errors, r->received / secs / 1e6,
		       r->offered ? 100.0 * r->lost / r->offered : 0.0,
		       (unsigned long long)r->high_water,
		       (unsigned long long)r->ring_bytes, r->ok ? "true" : "false");
	}
	printf("]}\n");
}

void stress_print_table(const struct stress_run *run)
{
	const struct stress_opts *o = &run->o;
	double secs = run->secs;

	printf("%lld-byte records, batch %lld, %s, %lld pages/CPU, %.2f s\n",
	       o->size, o->batch, o->rate > 0 ? "paced" : "flat out", o->pages, secs);
	if (o->rate > 0)
		printf("rate %.0f records/s per CPU\n", o->rate);
	if (o->delay_us)
		printf("consumer sleeps %lld us after each poll round\n", o->delay_us);
	printf("%-5s %12s %12s %10s %9s %7s %9s %5s\n", "CPU", "OFFERED",
	       "RECEIVED", "LOST", "RATE(M/s)", "LOSS%", "HIGHWATER", "OK");
	for (int i = 0; i < o->n_cpus; i++) {
		const struct cpu_result *r = &run->res[i];

		printf("%-5d %12llu %12llu %10llu %9.3f %7.3f %8.1f%% %5s\n",
		       r->cpu, (unsigned long long)r->offered,
		       (unsigned long long)r->received,
		       (unsigned long long)r->lost, r->received / secs / 1e6,
		       r->offered ? 100.0 * r->lost / r->offered : 0.0,
		       r->ring_bytes ? 100.0 * r->high_water / r->ring_bytes : 0.0,
		       r->ok ? "yes" : "NO");
	}
	printf("%-5s %12llu %12llu %10llu %9.3f %7.3f %9s %5s\n", "total",
	       (unsigned long long)run->tot_off, (unsigned long long)run->tot_rcv,
	       (unsigned long long)run->tot_lost, run->tot_rcv / secs / 1e6,
	       run->tot_off ? 100.0 * run->tot_lost / run->tot_off : 0.0, "",
	       run->all_ok ? "yes" : "NO");
	if (run->tot_fail)
		printf("%llu helper failures other than -ENOSPC\n",
		       (unsigned long long)run->tot_fail);
	if (o->ordered)
		printf("ordered: %llu late, %llu out of order\n",
		       (unsigned long long)run->st.late,
		       (unsigned long long)run->st.order_errors);
}
