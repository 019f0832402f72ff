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
		perfbuf_record_copy(rec, &r, sizeof(r));
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

	n = perfbuf_parse_cpus(s, cpus, MAX_CPUS);
	if (n <= 0) {
		fprintf(stderr, "perfbuf stress: --cpus wants a CPU list like 0 or 0-1,3, not '%s'\n", s);
		return -1;
	}
	if (n > MAX_CPUS) {
		fprintf(stderr, "perfbuf stress: --cpus lists more than %d CPUs\n", MAX_CPUS);
		return -1;
	}
	n_on = perfbuf_online_cpus(online, MAX_CPUS);
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

int cmd_stress(int argc, char **argv)
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
	static int cpus[MAX_CPUS];
	struct producer *prod = NULL;
	struct cpu_result *res = NULL;
	struct stress st = {};
	struct perfbuf *pb = NULL;
	struct emit *skel = NULL;
	long long size = 64, batch = 16, pages = 64, latency = 10, delay_us = 0, v;
	double rate = 0, duration = 3, secs;
	bool json = false, have_rate = false, have_max = false, all_ok = true;
	bool ordered = false;
	__u64 t0, t_end, tot_off = 0, tot_rcv = 0, tot_lost = 0, tot_fail = 0;
	int stop = 0, n_cpus = 0, opt, err = 0, ret = 1;
	char *end;

	optind = 1;
	opterr = 0;	/* one message of our own per bad option */
	while ((opt = getopt_long(argc, argv, ":s:b:r:md:c:p:l:jh", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			size = parse_u(optarg);
			if (size < (long long)sizeof(struct emit_rec) || size > EMIT_MAX_SIZE) {
				fprintf(stderr, "perfbuf stress: --size wants %zu..%d bytes, not '%s'\n",
					sizeof(struct emit_rec), EMIT_MAX_SIZE, optarg);
				return 1;
			}
			break;
		case 'b':
			batch = parse_u(optarg);
			if (batch < 1 || batch > EMIT_MAX_BATCH) {
				fprintf(stderr, "perfbuf stress: --batch wants 1..%d records, not '%s'\n",
					EMIT_MAX_BATCH, optarg);
				return 1;
			}
			break;
		case 'r':
			rate = parse_rate(optarg);
			if (rate <= 0) {
				fprintf(stderr, "perfbuf stress: --rate wants records/s like 1000, 10k or 2M/s, not '%s'\n",
					optarg);
				return 1;
			}
			have_rate = true;
			break;
		case 'm':
			have_max = true;
			break;
		case 'd':
			errno = 0;
			duration = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(duration > 0) || duration > 86400) {
				fprintf(stderr, "perfbuf stress: --duration wants seconds > 0 (e.g. 1 or 0.5), not '%s'\n",
					optarg);
				return 1;
			}
			break;
		case 'c':
			n_cpus = parse_cpu_list(optarg, cpus);
			if (n_cpus < 0)
				return 1;
			break;
		case 'p':
			pages = parse_u(optarg);
			if (pages < 1 || perfbuf_page_cnt_check((size_t)pages)) {
				fprintf(stderr, "perfbuf stress: --pages wants a power of two 1..%d, not '%s'\n",
					1 << 20, optarg);
				return 1;
			}
			break;
		case 'l':
			latency = parse_u(optarg);
			if (latency < 1 || latency > 60000) {
				fprintf(stderr, "perfbuf stress: --latency wants 1..60000 ms, not '%s'\n",
					optarg);
				return 1;
			}
			break;
		case OPT_CONSUMER_DELAY:
			delay_us = parse_u(optarg);
			if (delay_us < 0 || delay_us > MAX_DELAY_US) {
				fprintf(stderr, "perfbuf stress: --consumer-delay wants 0..%d microseconds, not '%s'\n",
					MAX_DELAY_US, optarg);
				return 1;
			}
			break;
		case 'j':
			json = true;
			break;
		case OPT_ORDERED:
			ordered = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return cli_bad_option("stress", opt, argv);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "perfbuf stress: unexpected argument '%s'; run 'perfbuf stress --help'\n",
			argv[optind]);
		return 1;
	}
	if (have_rate && have_max) {
		fprintf(stderr, "perfbuf stress: --rate and --max are exclusive\n");
		return 1;
	}
	/* header + u32 size + payload, 8-aligned, must fit data_size - 8 */
	v = (8 + 4 + size + 7) & ~7LL;
	if (v > pages * PAGE_SZ - 8) {
		fprintf(stderr, "perfbuf stress: records of %lld bytes do not fit a ring of %lld pages; use more --pages\n",
			size, pages);
		return 1;
	}
	if (cli_need_privileges("perfbuf stress", CLI_BPF) ||
	    cli_need_fds("perfbuf stress", 0))
		return 1;
	if (!n_cpus) {
		n_cpus = perfbuf_online_cpus(cpus, MAX_CPUS);
		if (n_cpus <= 0) {
			fprintf(stderr, "perfbuf stress: cannot read the online CPUs\n");
			return 1;
		}
	}

	libbpf_set_print(NULL);
	st.size = (__u64)size;
	st.seen = calloc(MAX_CPUS, sizeof(*st.seen));
	prod = calloc((size_t)n_cpus, sizeof(*prod));
	res = calloc((size_t)n_cpus, sizeof(*res));
	if (!st.seen || !prod || !res) {
		fprintf(stderr, "perfbuf stress: out of memory\n");
		goto cleanup;
	}
	skel = emit_open_load(false, 0);
	if (!skel) {
		fprintf(stderr, "perfbuf stress: loading the BPF program failed: %s%s\n",
			strerror(errno), cli_hint(errno));
		goto cleanup;
	}
	{
		PERFBUF_OPTS(perfbuf_opts, o, .page_cnt = (size_t)pages,
			     .cpus = cpus, .cpu_cnt = (size_t)n_cpus,
			     .latency_ms = (int)latency, .ordered = ordered,
			     .max_record_size = (size_t)size);

		pb = cli_perfbuf_new("perfbuf stress", bpf_map__fd(skel->maps.events),
				     on_record, &st, &o);
	}
	if (!pb)
		goto cleanup;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = perfbuf_now_ns();
	t_end = t0 + (__u64)(duration * 1e9);
	for (int i = 0; i < n_cpus; i++) {
		prod[i] = (struct producer){
			.prog_fd = bpf_program__fd(skel->progs.emit),
			.cpu = cpus[i],
			.size = (__u64)size,
			.batch = (__u64)batch,
			.rate = rate,
			.stop = &stop,
		};
		err = producer_start(&prod[i]);
		if (err) {
			fprintf(stderr, "perfbuf stress: starting the producer of CPU %d: %s\n",
				cpus[i], strerror(-err));
			goto stop;
		}
	}
	while (!exiting && perfbuf_now_ns() < t_end) {
		__u64 left_ms = (t_end - perfbuf_now_ns()) / 1000000 + 1;

		err = perfbuf__poll(pb, left_ms < 100 ? (int)left_ms : 100);
		if (err == -EINTR)
			continue;
		if (err < 0) {
			fprintf(stderr, "perfbuf stress: poll: %s\n", strerror(-err));
			goto stop;
		}
		/* a slow consumer: the producers overrun the rings meanwhile,
		 * which is what the LOST accounting is checked against */
		if (delay_us) {
			__u64 now = perfbuf_now_ns(), ns = (__u64)delay_us * 1000;
			struct timespec ts;

			if (now >= t_end)
				break;
			if (ns > t_end - now)
				ns = t_end - now;
			ts.tv_sec = (time_t)(ns / 1000000000ULL);
			ts.tv_nsec = (long)(ns % 1000000000ULL);
			nanosleep(&ts, NULL);	/* a signal cuts it short: fine */
		}
	}
	err = 0;
stop:
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < n_cpus; i++) {
		int perr = producer_join(&prod[i]);

		if (perr && !err) {
			fprintf(stderr, "perfbuf stress: BPF_PROG_TEST_RUN on CPU %d: %s\n",
				cpus[i], strerror(-perr));
			err = perr;
		}
	}
	secs = (double)(perfbuf_now_ns() - t0) / 1e9;
	if (err)
		goto cleanup;
	/* the rest of the records, and losses no LOST record reported */
	err = perfbuf__drain(pb);
	if (err < 0) {
		fprintf(stderr, "perfbuf stress: drain: %s\n", strerror(-err));
		goto cleanup;
	}

	for (int i = 0; i < n_cpus; i++) {
		struct cpu_result *r = &res[i];
		struct cpu_seen *c = &st.seen[cpus[i]];
		struct perfbuf_cpu_stats cs;
		struct emit_stats es;

		err = emit_stats_read(bpf_map__fd(skel->maps.stats), cpus[i], &es);
		if (!err)
			err = perfbuf__stats(pb, (size_t)i, &cs);
		if (err) {
			fprintf(stderr, "perfbuf stress: reading the counters of CPU %d: %s\n",
				cpus[i], strerror(-err));
			goto cleanup;
		}
		r->cpu = cpus[i];
		r->offered = es.attempts;
		r->received = c->received;
		r->lost = c->lost;
		r->enospc = es.enospc;
		r->failed = es.e2big + es.enoent + es.eopnotsupp + es.other;
		r->seq_errors = c->seq_errors;
		r->bad = c->bad;
		r->high_water = cs.high_water;
		r->ring_bytes = cs.data_size;
		r->lost_kernel = cs.lost_kernel;
		r->ok = r->offered == r->received + r->lost && r->lost == r->enospc &&
			!r->failed && !r->seq_errors && !r->bad &&
			c->next_seq == r->offered;
		all_ok &= r->ok;
		tot_off += r->offered;
		tot_rcv += r->received;
		tot_lost += r->lost;
		tot_fail += r->failed;
		if (r->ok)
			continue;
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

	if (st.order_errors) {
		fprintf(stderr, "perfbuf stress: order broken: %llu records older than the one before them, not flagged late\n",
			(unsigned long long)st.order_errors);
		all_ok = false;
	}
	if (json) {
		printf("{\"type\":\"stress\",");
		if (ordered)
			printf("\"ordered\":true,\"late\":%llu,\"order_errors\":%llu,",
			       (unsigned long long)st.late,
			       (unsigned long long)st.order_errors);
		printf("\"offered\":%llu,\"received\":%llu,\"lost\":%llu,"
		       "\"failed\":%llu,\"seconds\":%.3f,\"rate_mps\":%.4f,"
		       "\"offered_mps\":%.4f,\"size\":%lld,\"batch\":%lld,\"pages\":%lld,"
		       "\"consumer_delay_us\":%lld,\"ok\":%s,\"per_cpu\":[",
		       (unsigned long long)tot_off, (unsigned long long)tot_rcv,
		       (unsigned long long)tot_lost, (unsigned long long)tot_fail,
		       secs, tot_rcv / secs / 1e6, tot_off / secs / 1e6, size, batch,
		       pages, delay_us, all_ok ? "true" : "false");
		for (int i = 0; i < n_cpus; i++) {
			struct cpu_result *r = &res[i];

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
	} else {
		printf("%lld-byte records, batch %lld, %s, %lld pages/CPU, %.2f s\n",
		       size, batch, rate > 0 ? "paced" : "flat out", pages, secs);
		if (rate > 0)
			printf("rate %.0f records/s per CPU\n", rate);
		if (delay_us)
			printf("consumer sleeps %lld us after each poll round\n", delay_us);
		printf("%-5s %12s %12s %10s %9s %7s %9s %5s\n", "CPU", "OFFERED",
		       "RECEIVED", "LOST", "RATE(M/s)", "LOSS%", "HIGHWATER", "OK");
		for (int i = 0; i < n_cpus; i++) {
			struct cpu_result *r = &res[i];

			printf("%-5d %12llu %12llu %10llu %9.3f %7.3f %8.1f%% %5s\n",
			       r->cpu, (unsigned long long)r->offered,
			       (unsigned long long)r->received,
			       (unsigned long long)r->lost, r->received / secs / 1e6,
			       r->offered ? 100.0 * r->lost / r->offered : 0.0,
			       r->ring_bytes ? 100.0 * r->high_water / r->ring_bytes : 0.0,
			       r->ok ? "yes" : "NO");
		}
		printf("%-5s %12llu %12llu %10llu %9.3f %7.3f %9s %5s\n", "total",
		       (unsigned long long)tot_off, (unsigned long long)tot_rcv,
		       (unsigned long long)tot_lost, tot_rcv / secs / 1e6,
		       tot_off ? 100.0 * tot_lost / tot_off : 0.0, "",
		       all_ok ? "yes" : "NO");
		if (tot_fail)
			printf("%llu helper failures other than -ENOSPC\n",
			       (unsigned long long)tot_fail);
		if (ordered)
			printf("ordered: %llu late, %llu out of order\n",
			       (unsigned long long)st.late,
			       (unsigned long long)st.order_errors);
	}
	ret = all_ok ? 0 : 1;
cleanup:
	perfbuf__free(pb);
	emit__destroy(skel);
	free(st.seen);
	free(prod);
	free(res);
	return ret;
}
