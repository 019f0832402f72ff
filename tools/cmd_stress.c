// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf stress: load the perf buffer from BPF and check that every record
 * is accounted for. One producer thread per chosen CPU runs bpf/emit.bpf.c
 * with BPF_PROG_TEST_RUN on its own CPU; this thread consumes. At the end the
 * producers stop, the rings are drained (perfbuf__drain() also reports the
 * losses no LOST record carried), and per CPU:
 *   offered == received + lost,  lost == BPF-side -ENOSPC count,
 *   every sequence gap == the LOST count reported in it.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "perfbuf.h"
#include "commands.h"
#include "emit.h"
#include "emit.skel.h"
#include "producer.h"

#define MAX_CPUS 1024
#define PAGE_SZ 4096
#define MAX_DELAY_US 10000000	/* 10 s */

enum { OPT_CONSUMER_DELAY = 256, OPT_ORDERED };	/* long-only options */

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

struct cpu_seen {
	__u64 received;
	__u64 lost;
	__u64 next_seq;		/* the seq the next record must carry */
	__u64 seq_errors;	/* records whose seq a LOST count did not explain */
	__u64 bad;		/* wrong cpu or size in the record */
	__u64 first_bad_seq, first_bad_want;
};

struct stress {
	struct cpu_seen *seen;	/* indexed by CPU number */
	__u64 size;
	/* --ordered: the stream's time order */
	__u64 last_ns;
	__u64 late;		/* flagged late by the library */
	__u64 order_errors;	/* older than the one before, not flagged */
};

static void check_order(struct stress *s, const struct perfbuf_record *rec)
{
	if (rec->flags & PERFBUF_RECF_LATE)
		s->late++;
	else if (rec->time_ns < s->last_ns)
		s->order_errors++;
	else
		s->last_ns = rec->time_ns;
}

static int on_record(void *ctx, const struct perfbuf_record *rec)
{
	struct stress *s = ctx;
	struct cpu_seen *c;
	struct emit_rec r;

	if (rec->cpu < 0 || rec->cpu >= MAX_CPUS)
		return 0;
	c = &s->seen[rec->cpu];
	if (rec->time_ns)
		check_order(s, rec);
	if (rec->kind == PERFBUF_REC_LOST) {
		c->lost += rec->lost;
		c->next_seq += rec->lost;	/* the gap it explains */
		return 0;
	}
	if (rec->kind != PERFBUF_REC_SAMPLE)
		return 0;
	/* raw payloads are only 4-byte aligned, and may wrap the ring end */
	if (rec->data_sz >= sizeof(r))
		memcpy(&r, rec->data, sizeof(r));
	else
		perfbuf_record__copy(rec, &r, sizeof(r));
	c->received++;
	if (r.seq != c->next_seq) {
		if (!c->seq_errors) {
			c->first_bad_seq = r.seq;
			c->first_bad_want = c->next_seq;
		}
		c->seq_errors++;
	}
	if ((int)r.cpu != rec->cpu || r.size != s->size)
		c->bad++;
	c->next_seq = r.seq + 1;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: perfbuf stress [OPTIONS]\n"
"\n"
"Load the perf buffer from BPF and check that every record is accounted\n"
"for. A producer thread pinned to each CPU runs a BPF program (with\n"
"BPF_PROG_TEST_RUN) that writes BATCH records of SIZE bytes per run, each\n"
"with a per-CPU sequence number; this thread reads them. At the end, per\n"
"CPU: offered == received + lost, lost == the BPF-side -ENOSPC count, and\n"
"every sequence gap is explained by a LOST record. Exit status 1 if not.\n"
"\n"
"Options:\n"
"  -s, --size BYTES     record payload size, %zu..%d (default 64)\n"
"  -b, --batch N        records per BPF program run, 1..%d (default 16)\n"
"  -r, --rate N         records/s per CPU, suffixes k and M, e.g. 10k/s\n"
"  -m, --max            as fast as possible (default)\n"
"  -d, --duration S     seconds to run, fractions allowed (default 3)\n"
"  -c, --cpus LIST      producer CPUs, e.g. 0 or 0-1,3 (default: online CPUs)\n"
"  -p, --pages N        ring data pages per CPU, power of two (default 64)\n"
"  -l, --latency MS     bound on the wait of records below the watermark\n"
"                       (default 10)\n"
"      --consumer-delay USEC\n"
"                       a slow consumer: sleep USEC after each poll round,\n"
"                       0..%d (default 0); the rings overflow meanwhile\n"
"      --ordered        one stream in time order across CPUs; check the order\n"
"                       (no record older than the one before unless flagged\n"
"                       late) and count late records\n"
"  -j, --json           print one JSON object instead of the table\n"
"  -h, --help           this text\n"
"\n"
"Examples:\n"
"  perfbuf stress                           # every CPU, flat out, 3 s\n"
"  perfbuf stress --rate 1k --duration 1    # gentle: expect zero loss\n"
"  perfbuf stress --pages 1 --cpus 0        # overload a 4 KiB ring\n"
"  perfbuf stress --rate 100k --consumer-delay 20000   # a slow consumer\n"
"  perfbuf stress --size 1024 --json | python3 -m json.tool\n",
		sizeof(struct emit_rec), EMIT_MAX_SIZE, EMIT_MAX_BATCH,
		MAX_DELAY_US);
}

/* A non-negative integer, or -1. */
static long long parse_u(const char *s)
{
	char *end;
	long long v;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	return errno || *end ? -1 : v;
}

/* "1000", "1000/s", "2.5k", "1M/s": records/s, or -1. */
static double parse_rate(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || isinf(v))
		return -1;
	if (*end == 'k' || *end == 'K')
		v *= 1e3, end++;
	else if (*end == 'm' || *end == 'M')
		v *= 1e6, end++;
	if (!strcmp(end, "/s"))
		end += 2;
	return *end ? -1 : v;
}

/* "0-2,4" against the online CPUs: the count, or -1 after one message. */
static int parse_cpu_list(const char *s, int *cpus)
{
	int online[MAX_CPUS], n_on, n;

	n = perfbuf_cpus__parse(s, cpus, MAX_CPUS);
	if (n <= 0) {
		fprintf(stderr, "perfbuf stress: --cpus wants a CPU list like 0 or 0-1,3, not '%s'\n", s);
		return -1;
	}
	if (n > MAX_CPUS) {
		fprintf(stderr, "perfbuf stress: --cpus lists more than %d CPUs\n", MAX_CPUS);
		return -1;
	}
	n_on = perfbuf_cpus__online(online, MAX_CPUS);
	for (int i = 0; i < n; i++) {
		bool ok = n_on < 0;	/* cannot tell: let the kernel decide */

		for (int j = 0; j < n_on && !ok; j++)
			ok = online[j] == cpus[i];
		for (int j = 0; j < i; j++)
			if (cpus[j] == cpus[i]) {
				fprintf(stderr, "perfbuf stress: --cpus lists CPU %d twice\n", cpus[i]);
				return -1;
			}
		if (!ok) {
			fprintf(stderr, "perfbuf stress: CPU %d in --cpus is not online\n", cpus[i]);
			return -1;
		}
	}
	return n;
}

struct cpu_result {
	int cpu;
	__u64 offered, received, lost, enospc, failed, seq_errors, bad;
	__u64 high_water, ring_bytes, lost_kernel;
	bool ok;
};

struct stress_opts {
	long long size, batch, pages, latency, delay_us;
	double rate, duration;	/* rate 0: flat out */
	bool json, ordered, have_rate, have_max;
	int n_cpus;		/* 0: the online CPUs */
	int cpus[MAX_CPUS];
};

struct stress_run {
	struct stress_opts o;
	struct stress st;
	struct producer *prod;
	struct cpu_result *res;
	struct perfbuf *pb;
	struct emit *skel;
	int stop;		/* the producers' flag */
	double secs;
	__u64 tot_off, tot_rcv, tot_lost, tot_fail;
	bool all_ok;
};

/* A number option checked against [lo, hi]; false after a message. */
static bool opt_range(long long *v, const char *arg, long long lo, long long hi,
		      const char *what)
{
	*v = parse_u(arg);
	if (*v >= lo && *v <= hi)
		return true;
	fprintf(stderr, "perfbuf stress: %s, not '%s'\n", what, arg);
	return false;
}

/* One option into @o; false after a message. */
static bool stress_option(int opt, const char *arg, struct stress_opts *o)
{
	char what[96], *end;

	switch (opt) {
	case 's':
		snprintf(what, sizeof(what), "--size wants %zu..%d bytes",
			 sizeof(struct emit_rec), EMIT_MAX_SIZE);
		return opt_range(&o->size, arg, sizeof(struct emit_rec),
				 EMIT_MAX_SIZE, what);
	case 'b':
		snprintf(what, sizeof(what), "--batch wants 1..%d records",
			 EMIT_MAX_BATCH);
		return opt_range(&o->batch, arg, 1, EMIT_MAX_BATCH, what);
	case 'r':
		o->rate = parse_rate(arg);
		o->have_rate = true;
		if (o->rate > 0)
			return true;
		fprintf(stderr, "perfbuf stress: --rate wants records/s like 1000, 10k or 2M/s, not '%s'\n",
			arg);
		return false;
	case 'm':
		o->have_max = true;
		return true;
	case 'd':
		errno = 0;
		o->duration = strtod(arg, &end);
		if (!errno && end != arg && !*end && o->duration > 0 &&
		    o->duration <= 86400)
			return true;
		fprintf(stderr, "perfbuf stress: --duration wants seconds > 0 (e.g. 1 or 0.5), not '%s'\n",
			arg);
		return false;
	case 'c':
		o->n_cpus = parse_cpu_list(arg, o->cpus);
		return o->n_cpus >= 0;
	case 'p':
		o->pages = parse_u(arg);
		if (o->pages >= 1 && !perfbuf_ring__check_page_cnt((size_t)o->pages))
			return true;
		fprintf(stderr, "perfbuf stress: --pages wants a power of two 1..%d, not '%s'\n",
			1 << 20, arg);
		return false;
	case 'l':
		return opt_range(&o->latency, arg, 1, 60000,
				 "--latency wants 1..60000 ms");
	case OPT_CONSUMER_DELAY:
		snprintf(what, sizeof(what), "--consumer-delay wants 0..%d microseconds",
			 MAX_DELAY_US);
		return opt_range(&o->delay_us, arg, 0, MAX_DELAY_US, what);
	case 'j':
		o->json = true;
		return true;
	default:	/* OPT_ORDERED */
		o->ordered = true;
		return true;
	}
}

/* The options, checked together: -1 to exit 1 (said why), 1 to exit 0
 * (--help), 0 to run. */
static int parse_options(int argc, char **argv, struct stress_opts *o)
{
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "batch", required_argument, NULL, 'b' },
		{ "rate", required_argument, NULL, 'r' },
		{ "max", no_argument, NULL, 'm' },
		{ "duration", required_argument, NULL, 'd' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "pages", required_argument, NULL, 'p' },
		{ "latency", required_argument, NULL, 'l' },
		{ "consumer-delay", required_argument, NULL, OPT_CONSUMER_DELAY },
		{ "ordered", no_argument, NULL, OPT_ORDERED },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int opt;

	optind = 1;
	opterr = 0;	/* one message of our own per bad option */
	while ((opt = getopt_long(argc, argv, ":s:b:r:md:c:p:l:jh", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 1;
		}
		if (opt == '?' || opt == ':')
			return cli_bad_option("stress", opt, argv) ? -1 : 1;
		if (!stress_option(opt, optarg, o))
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "perfbuf stress: unexpected argument '%s'; run 'perfbuf stress --help'\n",
			argv[optind]);
		return -1;
	}
	if (o->have_rate && o->have_max) {
		fprintf(stderr, "perfbuf stress: --rate and --max are exclusive\n");
		return -1;
	}
	if (cli_need_stdout("perfbuf stress"))
		return 1;
	/* header + u32 size + payload, 8-aligned, must fit data_size - 8 */
	if (((8 + 4 + o->size + 7) & ~7LL) > o->pages * PAGE_SZ - 8) {
		fprintf(stderr, "perfbuf stress: records of %lld bytes do not fit a ring of %lld pages; use more --pages\n",
			o->size, o->pages);
		return -1;
	}
	return 0;
}

/* Privileges, CPUs, memory, the BPF program and the rings: 0 or -1
 * after a message. */
static int stress_setup(struct stress_run *run)
{
	struct stress_opts *o = &run->o;

	if (cli_need_privileges("perfbuf stress", CLI_BPF) ||
	    cli_need_fds("perfbuf stress", 0))
		return -1;
	if (!o->n_cpus) {
		o->n_cpus = perfbuf_cpus__online(o->cpus, MAX_CPUS);
		if (o->n_cpus <= 0) {
			fprintf(stderr, "perfbuf stress: cannot read the online CPUs\n");
			return -1;
		}
	}
	libbpf_set_print(NULL);
	run->st.size = (__u64)o->size;
	run->st.seen = calloc(MAX_CPUS, sizeof(*run->st.seen));
	run->prod = calloc((size_t)o->n_cpus, sizeof(*run->prod));
	run->res = calloc((size_t)o->n_cpus, sizeof(*run->res));
	if (!run->st.seen || !run->prod || !run->res) {
		fprintf(stderr, "perfbuf stress: out of memory\n");
		return -1;
	}
	run->skel = emit_open_load(false, 0);
	if (!run->skel) {
		fprintf(stderr, "perfbuf stress: loading the BPF program failed: %s%s\n",
			strerror(errno), cli_hint(errno));
		return -1;
	}
	{
		PERFBUF_OPTS(perfbuf_opts, po, .page_cnt = (size_t)o->pages,
			     .cpus = o->cpus, .cpu_cnt = (size_t)o->n_cpus,
			     .latency_ms = (int)o->latency, .ordered = o->ordered,
			     .max_record_size = (size_t)o->size);

		run->pb = cli_perfbuf_new("perfbuf stress",
					  bpf_map__fd(run->skel->maps.events),
					  on_record, &run->st, &po);
	}
	return run->pb ? 0 : -1;
}

/* Poll until @t_end or a signal; with --consumer-delay, sleep after each
 * round: the producers overrun the rings meanwhile, which is what the
 * LOST accounting is checked against. 0 or -errno (said). */
static int consume(struct stress_run *run, __u64 t_end)
{
	while (!exiting && perfbuf_now_ns() < t_end) {
		__u64 left_ms = (t_end - perfbuf_now_ns()) / 1000000 + 1;
		__u64 now, ns = (__u64)run->o.delay_us * 1000;
		struct timespec ts;
		int err;

		err = perfbuf__poll(run->pb, left_ms < 100 ? (int)left_ms : 100);
		if (err == -EINTR)
			continue;
		if (err < 0) {
			fprintf(stderr, "perfbuf stress: poll: %s\n", strerror(-err));
			return err;
		}
		if (!ns)
			continue;
		now = perfbuf_now_ns();
		if (now >= t_end)
			break;
		if (ns > t_end - now)
			ns = t_end - now;
		ts.tv_sec = (time_t)(ns / 1000000000ULL);
		ts.tv_nsec = (long)(ns % 1000000000ULL);
		nanosleep(&ts, NULL);	/* a signal cuts it short: fine */
	}
	return 0;
}

/* Producers on each CPU for the duration, consumed meanwhile, then
 * stopped and joined; the rest drained. 0 or -errno (said). */
static int stress_run(struct stress_run *run)
{
	struct stress_opts *o = &run->o;
	__u64 t0 = perfbuf_now_ns(), t_end = t0 + (__u64)(o->duration * 1e9);
	int err = 0;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (int i = 0; i < o->n_cpus && !err; i++) {
		run->prod[i] = (struct producer){
			.prog_fd = bpf_program__fd(run->skel->progs.emit),
			.cpu = o->cpus[i], .size = (__u64)o->size,
			.batch = (__u64)o->batch, .rate = o->rate, .stop = &run->stop,
		};
		err = producer_start(&run->prod[i]);
		if (err)
			fprintf(stderr, "perfbuf stress: starting the producer of CPU %d: %s\n",
				o->cpus[i], strerror(-err));
	}
	if (!err)
		err = consume(run, t_end);
	__atomic_store_n(&run->stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < o->n_cpus; i++) {
		int perr = producer_join(&run->prod[i]);

		if (perr && !err) {
			fprintf(stderr, "perfbuf stress: BPF_PROG_TEST_RUN on CPU %d: %s\n",
				o->cpus[i], strerror(-perr));
			err = perr;
		}
	}
	run->secs = (double)(perfbuf_now_ns() - t0) / 1e9;
	if (err)
		return err;
	/* the rest of the records, and losses no LOST record reported */
	err = perfbuf__drain(run->pb);
	if (err < 0)
		fprintf(stderr, "perfbuf stress: drain: %s\n", strerror(-err));
	return err < 0 ? err : 0;
}

/* One line on stderr: what broke on the CPU of @r. */
static void say_broken(const struct cpu_result *r, const struct cpu_seen *c)
{
	fprintf(stderr, "perfbuf stress: CPU %d: accounting broken: offered %llu, received %llu, lost %llu, -ENOSPC %llu, other failures %llu, sequence errors %llu",
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
	struct perfbuf_cpu_stats cs;
	struct emit_stats es;

	err = emit_stats_read(bpf_map__fd(run->skel->maps.stats), cpu, &es);
	if (!err)
		err = perfbuf__stats(run->pb, (size_t)i, &cs);
	if (err) {
		fprintf(stderr, "perfbuf stress: reading the counters of CPU %d: %s\n",
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
static int stress_results(struct stress_run *run)
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
		fprintf(stderr, "perfbuf stress: order broken: %llu records older than the one before them, not flagged late\n",
			(unsigned long long)run->st.order_errors);
		run->all_ok = false;
	}
	return 0;
}

static void print_json(const struct stress_run *run)
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

static void print_table(const struct stress_run *run)
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

int cmd_stress(int argc, char **argv)
{
	static struct stress_run run;	/* big: the CPU list */
	int ret = 1, err;

	memset(&run, 0, sizeof(run));
	run.o = (struct stress_opts){ .size = 64, .batch = 16, .pages = 64,
				      .latency = 10, .duration = 3 };
	err = parse_options(argc, argv, &run.o);
	if (err)
		return err < 0 ? 1 : 0;
	if (!stress_setup(&run) && !stress_run(&run) && !stress_results(&run)) {
		if (run.o.json)
			print_json(&run);
		else
			print_table(&run);
		ret = run.all_ok ? 0 : 1;
	}
	perfbuf__free(run.pb);
	emit__destroy(run.skel);
	free(run.st.seen);
	free(run.prod);
	free(run.res);
	return ret;
}
