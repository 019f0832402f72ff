// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf-bench, part nats: `perfbuf trace --nats` against
 * `perfbuf trace --json -o FILE` on the storm of the trace part (storm.c),
 * in the same run: the events the stream acknowledged against the events
 * the file got, and the rings' losses. One local nats-server with
 * JetStream, its store on tmpfs as the JSON file is; the stream deleted
 * after every run (each starts empty). The rows: batches of the default
 * size and of other sizes (--nats-batch), one event per message as
 * before batching, and one event per message with 16 times as many
 * asynchronous publishes in flight (--nats-window: pipelining instead of
 * batching).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <nats/nats.h>

#include "bench.h"
#include "common/say.h"
#include "nats/options.h"	/* NATS_DEFAULT_BATCH_TEXT */

#define NATS_PAGES "1024"
#define NATS_STREAM "PBBENCH"

/* The rows: the untraced storm, the JSON file, then --nats's variants. */
enum { NR_NONE, NR_JSON, NR_DEFAULT, NR_EV1, NR_PIPE, NR_B64, NR_B1024,
       NR_64K, NR_1M, NR_N };

static const char *const nr_name[NR_N] = {
	"nothing",
	"`trace --json -o FILE`",
	"`trace --nats` (default: " NATS_DEFAULT_BATCH_TEXT " batches)",
	"`--nats-batch 1` (an event a message)",
	"`--nats-batch 1 --nats-window 16384` (pipelined)",
	"`--nats-batch 64`",
	"`--nats-batch 1024`",
	"`--nats-batch 64K`",
	"`--nats-batch 1M` (as much as the server takes)",
};

/* --nats-batch and --nats-window of each --nats row ("": the default) */
static const char *const nr_batch[NR_N] = {
	[NR_DEFAULT] = "", [NR_EV1] = "1", [NR_PIPE] = "1", [NR_B64] = "64",
	[NR_B1024] = "1024", [NR_64K] = "64K", [NR_1M] = "1M",
};

struct nats_run {
	double rate;		/* the storm's syscalls/s; 0: failed */
	__u64 calls;
	__u64 got;		/* events written (JSON) or acknowledged */
	__u64 lost;		/* lost in the rings */
	__u64 dropped;		/* NATS: published, not acknowledged */
	double tracer_ns, server_ns;	/* CPU per event during the storm */
};

struct nats_env {
	char tool[PATH_MAX];
	char dir[PATH_MAX];	/* tmpfs: the server's store, the JSON file */
	char url[64];
	pid_t server;
	double secs;
};

/* CPU time of @pid so far, in ns (utime + stime); 0 if gone. */
static __u64 cpu_ns(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');	/* the command name may hold blanks */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return 0;
	return (ut + st) * (1000000000ULL / sysconf(_SC_CLK_TCK));
}

/* A free TCP port on 127.0.0.1, 0 if none. */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = 0;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* nats-server with JetStream on a free port, its store under @e->dir:
 * 0 once it says it is ready, or -1 (said why). */
static int server_start(struct nats_env *e)
{
	char port[16], store[PATH_MAX + 8], log[PATH_MAX + 16];
	char *argv[] = { "nats-server", "-a", "127.0.0.1", "-p", port, "-js",
			 "-sd", store, NULL };
	int p = free_port();

	snprintf(port, sizeof(port), "%d", p);
	snprintf(store, sizeof(store), "%s/js", e->dir);
	snprintf(log, sizeof(log), "%s/nats-server.log", env.out);
	snprintf(e->url, sizeof(e->url), "nats://127.0.0.1:%d", p);
	e->server = p ? spawn_tracer(argv, log, "Server is ready") : -1;
	if (e->server > 0)
		return 0;
	emit_md("skipped: nats-server did not start (see %s; `make setup` installs it)\n\n",
		log);
	return -1;
}

static void server_stop(struct nats_env *e)
{
	if (e->server <= 0)
		return;
	kill(e->server, SIGTERM);
	waitpid(e->server, NULL, 0);
	e->server = 0;
}

/* The stream gone, so that the next run starts with an empty one. */
static void stream_delete(const struct nats_env *e)
{
	natsConnection *nc = NULL;
	jsCtx *js = NULL;

	if (natsConnection_ConnectTo(&nc, e->url) == NATS_OK &&
	    natsConnection_JetStream(&js, nc, NULL) == NATS_OK)
		js_DeleteStream(js, NATS_STREAM, NULL, NULL);
	jsCtx_Destroy(js);
	natsConnection_Destroy(nc);
}

/* trace --json's last line: {"type":"summary","received":N,...,"lost":N */
static int json_summary(const char *path, struct nats_run *r)
{
	char buf[8192], *p;
	FILE *f = fopen(path, "r");
	long end;
	size_t n;

	if (!f)
		return -ENOENT;
	fseek(f, 0, SEEK_END);
	end = ftell(f);
	fseek(f, end > (long)sizeof(buf) - 1 ? end - (long)sizeof(buf) + 1 : 0, SEEK_SET);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strstr(buf, "{\"type\":\"summary\",");
	if (!p || sscanf(p, "{\"type\":\"summary\",\"received\":%llu,",
			 (unsigned long long *)&r->got) != 1 ||
	    !(p = strstr(p, "\"lost\":")))
		return -EBADMSG;
	r->lost = strtoull(p + 7, NULL, 10);
	return 0;
}

/* trace --nats's closing lines: received, lost; the NATS counts in
 * events. Acknowledged events: acknowledged lines less the lines that
 * are not events (lost records, the summary), all of them published. */
static int nats_summary(const char *log, struct nats_run *r)
{
	unsigned long long rec = 0, lost = 0, pub = 0, ack = 0, drop = 0;
	char line[1024];
	FILE *f = fopen(log, "r");
	int got = 0;

	while (f && fgets(line, sizeof(line), f)) {
		got += sscanf(line, "perfbuf trace: %llu events received, %llu lost",
			      &rec, &lost) == 2;
		got += sscanf(line, "NATS events: %llu published, %llu acknowledged (%*u duplicates), %*u retried, %llu dropped",
			      &pub, &ack, &drop) == 3;
	}
	if (f)
		fclose(f);
	if (got != 2)
		return -EBADMSG;
	r->lost = lost;
	r->dropped = drop;
	r->got = ack > pub - rec ? ack - (pub - rec) : 0;
	return 0;
}

/* One run of row @k. */
static void nats_once(int k, struct nats_env *e, struct nats_run *r)
{
	char out[PATH_MAX + 16], log[PATH_MAX + 32], pid_s[16];
	char *argv[24] = { e->tool, "trace", "-p", pid_s, "--pages", NATS_PAGES };
	int n = 6;
	__u64 t0, s0;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (k == NR_NONE) {
		r->rate = run_storm(e->secs, false, &r->calls);
		return;
	}
	snprintf(pid_s, sizeof(pid_s), "%d", (int)getpid());
	snprintf(out, sizeof(out), "%s/out.json", e->dir);
	snprintf(log, sizeof(log), "%s/nats-%d.log", env.out, k);
	if (k == NR_JSON) {
		argv[n++] = "--json";
		argv[n++] = "-o";
		argv[n++] = out;
	} else {
		argv[n++] = "--nats";
		argv[n++] = e->url;
		argv[n++] = "--nats-stream";
		argv[n++] = NATS_STREAM;
		if (*nr_batch[k]) {
			argv[n++] = "--nats-batch";
			argv[n++] = (char *)nr_batch[k];
		}
		if (k == NR_PIPE) {
			argv[n++] = "--nats-window";
			argv[n++] = "16384";
		}
	}
	argv[n++] = "tracepoint:" STORM_TP;
	pid = spawn_tracer(argv, log, "Attached");
	if (pid < 0)
		return;
	t0 = cpu_ns(pid);
	s0 = cpu_ns(e->server);
	r->rate = run_storm(e->secs, false, &r->calls);
	r->tracer_ns = cpu_ns(pid) - t0;
	r->server_ns = k == NR_JSON ? 0 : cpu_ns(e->server) - s0;
	if (stop_tracer(pid) ||
	    (k == NR_JSON ? json_summary(out, r) : nats_summary(log, r)))
		r->rate = 0;
	if (r->calls) {
		r->tracer_ns /= r->calls;
		r->server_ns /= r->calls;
	}
	unlink(out);
	if (k != NR_JSON)
		stream_delete(e);
}

/* by events delivered, then (the untraced storm) by rate */
static int cmp_got(const void *a, const void *b)
{
	const struct nats_run *x = a, *y = b;

	if (x->got != y->got)
		return x->got < y->got ? -1 : 1;
	return x->rate < y->rate ? -1 : x->rate > y->rate;
}

static void nats_row(int k, const struct nats_run *r, double ratio,
		     __u64 lost_all)
{
	if (k == NR_NONE) {
		emit_md("| %s | %.3f M | | | | | | | |\n", nr_name[k], r->rate / 1e6);
	} else if (!r->rate) {
		emit_md("| %s | failed (see %s/nats-%d.log) | | | | | | | |\n",
			nr_name[k], env.out, k);
	} else {
		emit_md("| %s | %.3f M | %llu | %.2fx | %llu | %llu | %llu | %.0f | ",
			nr_name[k], r->rate / 1e6, (unsigned long long)r->got, ratio,
			(unsigned long long)r->lost, (unsigned long long)lost_all,
			(unsigned long long)r->dropped, r->tracer_ns);
		if (k == NR_JSON)
			emit_md("|\n");
		else
			emit_md("%.0f |\n", r->server_ns);
	}
}

/* The median over the rounds of row @k's events / the JSON run's of the
 * same round (other jobs on the machine move both alike). */
static double round_ratio(struct nats_run runs[NR_N][MAX_REPS], int k, int reps)
{
	double r[MAX_REPS];

	for (int i = 0; i < reps; i++)
		r[i] = runs[NR_JSON][i].got ? (double)runs[k][i].got / runs[NR_JSON][i].got : 0;
	return median_double(r, reps);
}

/* The tracer's and the server's CPU per event delivered, in ns. */
static double event_cpu_ns(const struct nats_run *r)
{
	return r->got ? (r->tracer_ns + r->server_ns) * r->calls / r->got : 0;
}

static void nats_report(const struct nats_env *e, const struct nats_run *med,
			const __u64 *lost_all, const double *ratio, int reps)
{
	const struct nats_run *json = &med[NR_JSON], *def = &med[NR_DEFAULT];
	bool loss_ok = lost_all[NR_DEFAULT] <= lost_all[NR_JSON];

	emit_md("getpgid() in a loop on CPU%d, %.0f s per run, median of %d interleaved "
		"rounds (by events delivered; vs --json: the median of each round's ratio); "
		"the tracers at `-p` (the storm's process) "
		"`--pages " NATS_PAGES "`; one nats-server on 127.0.0.1, its JetStream store "
		"and the JSON file on %s; the stream new for each run. Events: written to "
		"the file, or acknowledged by the stream; CPU: ns per storm syscall while "
		"the storm ran.\n\n", env.prod_cpu, e->secs, reps,
		strncmp(e->dir, "/dev/shm/", 9) ? env.out : "tmpfs (/dev/shm)");
	emit_md("| traced by | syscalls/s | events | vs --json | ring lost | ring lost, "
		"all rounds | dropped | tracer CPU ns | server CPU ns |\n"
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int k = 0; k < NR_N; k++)
		nats_row(k, &med[k], ratio[k], lost_all[k]);
	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	if (!json->rate || !def->rate)
		return;
	ratio_line("events acknowledged: `--nats` / written: `--json -o FILE`",
		   ratio[NR_DEFAULT], 1, 0.8, false);
	emit_md("| ring loss, all rounds: `--nats` / `--json -o FILE` | %llu / %llu | "
		"no more | %s |\n", (unsigned long long)lost_all[NR_DEFAULT],
		(unsigned long long)lost_all[NR_JSON], met(loss_ok));
	if (med[NR_EV1].rate && med[NR_PIPE].rate) {
		info_line("batched / an event a message (acknowledged)",
			  ratio[NR_DEFAULT], ratio[NR_EV1]);
		info_line("batched / pipelined (acknowledged)",
			  ratio[NR_DEFAULT], ratio[NR_PIPE]);
	}
	for (int k = NR_B64; k < NR_N; k++) {	/* what the default was chosen by */
		char what[128];

		if (!med[k].rate || !med[k].got)
			continue;
		snprintf(what, sizeof(what), "tracer + server CPU per event: default / %s",
			 nr_name[k]);
		info_line(what, event_cpu_ns(def), event_cpu_ns(&med[k]));
	}
}

/* Where the server's store and the JSON file go: tmpfs, else env.out. */
static void nats_dir(struct nats_env *e)
{
	char tmpl[] = "/dev/shm/perfbuf-bench-nats.XXXXXX";

	if (mkdtemp(tmpl))
		snprintf(e->dir, sizeof(e->dir), "%s", tmpl);
	else
		snprintf(e->dir, sizeof(e->dir), "%s", env.out);
}

/* The tmpfs directory gone (the server's store, the JSON file). */
static void nats_dir_remove(const struct nats_env *e)
{
	char cmd[PATH_MAX + 16];

	if (!strcmp(e->dir, env.out))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", e->dir);
	if (system(cmd))
		cli_say("perfbuf-bench", "could not remove %s\n", e->dir);
}

int bench_nats(void)
{
	struct nats_run runs[NR_N][MAX_REPS], med[NR_N];
	struct nats_env e = { .secs = env.quick ? 2 : 3 };
	double ratio[NR_N];
	__u64 lost_all[NR_N] = {};
	int reps = env.quick ? 1 : MAX_REPS;

	emit_section("perfbuf trace --nats vs perfbuf trace --json");
	if (!perfbuf_tool(e.tool, sizeof(e.tool))) {
		emit_md("skipped: no perfbuf tool next to perfbuf-bench\n\n");
		return 0;
	}
	nats_dir(&e);
	if (server_start(&e)) {
		nats_dir_remove(&e);
		return 0;
	}
	for (int i = 0; i < reps; i++)
		for (int k = 0; k < NR_N; k++) {
			nats_once(k, &e, &runs[k][i]);
			lost_all[k] += runs[k][i].lost;
		}
	server_stop(&e);
	nats_CloseAndWait(2000);
	nats_dir_remove(&e);
	for (int k = 0; k < NR_N; k++)
		ratio[k] = round_ratio(runs, k, reps);
	for (int k = 0; k < NR_N; k++) {
		qsort(runs[k], reps, sizeof(runs[k][0]), cmp_got);
		med[k] = runs[k][reps / 2];
	}
	nats_report(&e, med, lost_all, ratio, reps);
	return 0;
}
