// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The parts of `perfbuf record` that are its own: usage, the flight
 * recorder's size, the capture's header and closing summary. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/rings.h"
#include "common/say.h"
#include "ledger_io.h"
#include "record.h"

const char record_usage[] =
"Usage: perfbuf record [OPTIONS] PROBE...\n"
"\n"
"Write the probes' events to a capture file as the rings hold them (no\n"
"decoding on the way); `perfbuf report FILE` prints them later, on any\n"
"machine, exactly as `perfbuf trace` would have.\n"
"\n"
"Probes: as perfbuf trace (see perfbuf trace --help).\n"
"\n"
"Options:\n"
"  -o, --output FILE           the capture (default " RECORD_DEFAULT_OUTPUT "); created 0600\n"
"  -p, --pid PID               only this process, all its threads (the ID of a\n"
"                              thread is refused); the run ends when it does\n"
"      --comm NAME             only tasks with this command name\n"
"      --cpu N                 only events on CPU N\n"
"  -d, --duration SEC          stop after SEC seconds\n"
"  -n, --count N               stop after N events (whole ring spans: a few more)\n"
"      --pages N               ring pages per CPU, a power of two (default: from\n"
"                              the budget)\n"
"      --buffer-size SIZE      ring memory for all CPUs together (8M, 512M);\n"
"                              default: a budget from the CPUs and memory\n"
"      --string-size N         bytes kept of each string argument (default 255)\n"
"      --buffers[=escaped|hex] read the syscall buffers the call reads (report\n"
"                              prints them)\n"
"      --latency MS            longest an event waits in a ring (default 10)\n"
"      --realtime PRIO         read at SCHED_FIFO priority PRIO, 1-99 (default 1:\n"
"                              other jobs on the CPUs do not delay the reader into\n"
"                              losses); 0: the normal scheduler\n"
"      --flight-recorder SIZE  keep only the newest SIZE bytes per CPU (K, M, G):\n"
"                              nothing is written until SIGUSR1 (a snapshot),\n"
"                              or the end (-d, Ctrl-C, SIGTERM)\n"
"      --stats                 a line on stderr every second\n"
"      --metrics [ADDR:]PORT   serve Prometheus metrics at http://ADDR:PORT/metrics\n"
"                              (ADDR: 127.0.0.1 unless given)\n"
"  -v, --verbose               libbpf debug output\n"
"  -h, --help                  this help\n"
"\n"
"Examples:\n"
"  perfbuf record -o exec.cap -d 10 tracepoint:sched:sched_process_exec\n"
"  perfbuf report exec.cap\n"
"  perfbuf record --flight-recorder 4M -o last.cap 'tracepoint:syscalls:sys_enter_open*' &\n"
"  kill -USR1 %1          # the newest 4 MiB per CPU into last.cap\n";

bool record_parse_size(const char *prog, const char *arg, long *pages)
{
	unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE), v;
	long n;

	if (!cli_parse_size(prog, "--flight-recorder", arg, page, 1ULL << 32, &v))
		return false;
	for (n = 1; (unsigned long long)n * 2 * page <= v; n *= 2)
		;
	if ((unsigned long long)n * page != v)
		cli_say(prog, "--flight-recorder %s: using %llu KiB per CPU (a power of two of pages)\n",
			arg, (unsigned long long)n * page / 1024);
	*pages = n;
	return true;
}

/* The CPUs of the collector's rings, in runs: "0-63", "0-3,8". */
static void cpu_list(struct perfbuf *pb, char *buf, size_t sz)
{
	size_t len = 0, n = perfbuf__ring_cnt(pb);

	buf[0] = '\0';
	for (size_t i = 0; i < n && len < sz; ) {
		int first = perfbuf__ring_cpu(pb, i), last = first;

		while (++i < n && perfbuf__ring_cpu(pb, i) == last + 1)
			last++;
		len += (size_t)snprintf(buf + len, sz - len, "%s%d", len ? "," : "", first);
		if (last > first && len < sz)
			len += (size_t)snprintf(buf + len, sz - len, "-%d", last);
	}
}

int record_begin(struct capture_out *c, struct perfbuf *pb,
		 const struct probe_set *set, long pages, bool flight,
		 const char *options)
{
	struct cap_meta m = {
		.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_TIME,
		.sample_id_all = true, .page_cnt = (int)pages,
	};

	capture_meta_now(&m);
	cpu_list(pb, m.cpus, sizeof(m.cpus));
	rings_mapped(pb, &m.ring_bytes, &(size_t){ 0 });
	snprintf(m.mode, sizeof(m.mode), flight ? "flight-recorder" : "stream");
	snprintf(m.options, sizeof(m.options), "%s", options);
	return capture_out_begin(c, &m, set);
}

struct cpu_line {
	int cpu;
	__u64 events, bytes, lost, unwritten;
};

/* The END frame: "key=value" lines, one "cpuN=events,bytes,lost" per CPU. */
static void end_text(char *buf, size_t sz, const struct cpu_line *cl, size_t n,
		     const struct cpu_line *tot, __u64 snapshots)
{
	size_t len = (size_t)snprintf(buf, sz, "events=%llu\nbytes=%llu\nlost=%llu\nsnapshots=%llu\n",
				      (unsigned long long)tot->events,
				      (unsigned long long)tot->bytes,
				      (unsigned long long)tot->lost,
				      (unsigned long long)snapshots);

	for (size_t i = 0; i < n && len < sz; i++)
		len += (size_t)snprintf(buf + len, sz - len, "cpu%d=%llu,%llu,%llu\n",
					cl[i].cpu, (unsigned long long)cl[i].events,
					(unsigned long long)cl[i].bytes,
					(unsigned long long)cl[i].lost);
}

/* The closing lines on stderr: what the capture holds, per CPU; events
 * whose frames a write error kept out are not counted in, but said. */
static void say_totals(const struct capture_out *c, struct perfbuf *pb, const char *path,
		       const struct cpu_line *cl, size_t n, const struct cpu_line *tot,
		       int werr)
{
	char why[256] = "";

	if (werr) {
		out_file_write_failure(werr, path, why, sizeof(why));
		cli_say("perfbuf record", "writing %s failed: %s; the capture holds the frames written before it\n",
			path, strerror(-werr));
	}
	cli_say("perfbuf record", "%llu events, %llu bytes of records in %s, ",
		(unsigned long long)tot->events, (unsigned long long)tot->bytes, path);
	if (werr)
		fprintf(stderr, "%llu not written: %s, ", (unsigned long long)tot->unwritten, why);
	fprintf(stderr, "%llu lost\n", (unsigned long long)tot->lost);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "  CPU %d: %llu events, %llu bytes, %llu lost\n",
			cl[i].cpu, (unsigned long long)cl[i].events,
			(unsigned long long)cl[i].bytes,
			(unsigned long long)cl[i].lost);
	if (c->snapshots)
		fprintf(stderr, "  %llu snapshot%s\n", (unsigned long long)c->snapshots,
			c->snapshots == 1 ? "" : "s");
	rings_say_mapped("perfbuf record", pb);
}

int record_finish(struct capture_out *c, struct perfbuf *pb,
		  struct trace *skel, const struct ledger_view *v, const char *path)
{
	size_t n = perfbuf__ring_cnt(pb);
	struct cpu_line *cl = calloc(n ? n : 1, sizeof(*cl)), tot = { .cpu = -1 };
	char *end = malloc(64 * (n + 4));
	int werr, err, nu;
	__u64 *undelivered = trace_undelivered(skel, &nu);

	if (!cl) {
		free(end);
		end = NULL;
		n = 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct perfbuf_cpu_stats st = { .sz = sizeof(st) };

		perfbuf__stats(pb, i, &st);
		cl[i] = (struct cpu_line){ .cpu = perfbuf__ring_cpu(pb, i),
			.lost = st.lost_total + trace_undelivered_of(undelivered, nu, st.cpu) };
		/* the events in the file: those of frames written whole */
		cl[i].unwritten = capture_out_unwritten(c, cl[i].cpu);
		cl[i].events = st.samples - (cl[i].unwritten < st.samples ? cl[i].unwritten : st.samples);
		cl[i].bytes = capture_out_bytes(c, cl[i].cpu);
		tot.events += cl[i].events;
		tot.unwritten += cl[i].unwritten;
		tot.bytes += cl[i].bytes;
		tot.lost += cl[i].lost;
	}
	if (end)
		end_text(end, 64 * (n + 4), cl, n, &tot, c->snapshots);
	/* the probes' ledger, for report's summary; a write that fails is
	 * the writer's error, said below with the close's */
	if (v && !capture_out_error(c) &&
	    capture_ledger_write(c->w, v, "probe") == -ENOMEM)
		cli_say("perfbuf record", "out of memory: the probes' ledger is not in %s\n",
			path);
	err = capture_out_close(c, end ? end : "");
	free(end);
	werr = capture_out_error(c);	/* the END frame's too */
	say_totals(c, pb, path, cl, n, &tot, werr);
	free(cl);
	free(undelivered);
	return werr || err ? -EIO : 0;
}
