// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* proctrack: every exec() and process exit on the machine, one stream in
 * time order across CPUs (opts.ordered), with CPUs coming and going. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <perfbuf.h>

#include "proctrack.h"
#include "summary.h"
#include "proctrack.skel.h"

static volatile sig_atomic_t exiting;

static void sig_handler(int sig)
{
	exiting = 1;
}

static int handle_record(void *ctx, const struct perfbuf_record *rec)
{
	/* '*': delivered after a newer record (its writer was interrupted) */
	char late = rec->flags & PERFBUF_RECF_LATE ? '*' : ' ';
	struct proctrack_event e = {};

	if (rec->kind == PERFBUF_REC_LOST)
		fprintf(stderr, "lost %llu events on CPU #%d\n", rec->lost, rec->cpu);
	else if (rec->kind == PERFBUF_REC_CPU_ONLINE)
		fprintf(stderr, "CPU %d came online: traced\n", rec->cpu);
	else if (rec->kind == PERFBUF_REC_CPU_OFFLINE)	/* after its last records */
		fprintf(stderr, "CPU %d went offline\n", rec->cpu);
	else if (perfbuf_record__copy(rec, &e, sizeof(e)) && e.kind == PROC_EXEC)
		printf("%-17.6f%c EXEC %-7d %-7d %-16s %s\n", rec->time_ns / 1e9, late,
		       e.pid, e.ppid, e.comm, e.filename);
	else
		printf("%-17.6f%c EXIT %-7d %-7d %-16s [%u] (%.1f ms)\n", rec->time_ns / 1e9,
		       late, e.pid, e.ppid, e.comm, e.exit_code, e.duration_ns / 1e6);
	return PERFBUF_CONTINUE;
}

int main(int argc, char **argv)
{
	PERFBUF_OPTS(perfbuf_opts, opts, .ordered = true);
	struct proctrack_bpf *skel;
	struct perfbuf *pb = NULL;
	long min_ms = 0;
	int err;

	if (argc > 2 || (argc == 2 && (min_ms = strtol(argv[1], NULL, 10)) <= 0)) {
		fprintf(stderr, "usage: %s [MIN_MS]: no exits of processes that ran less\n",
			argv[0]);
		return 1;
	}
	skel = proctrack_bpf__open();
	if (!skel) {
		fprintf(stderr, "Failed to open BPF skeleton: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->min_duration_ns = min_ms * 1000000ULL;
	err = proctrack_bpf__load(skel);
	/* the reader before the programs: no event finds an empty slot */
	if (!err && !(pb = perfbuf__new(bpf_map__fd(skel->maps.events), handle_record, NULL, &opts)))
		err = -errno;
	else if (!err)
		err = proctrack_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "Failed to load, read or attach the BPF skeleton: %s\n", strerror(-err));
		goto cleanup;
	}
	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);
	printf("%-18s %-4s %-7s %-7s %-16s %s\n", "TIME(s)", "EVENT", "PID", "PPID",
	       "COMM", "FILENAME/EXIT CODE");
	while (!exiting) {
		err = perfbuf__poll(pb, 100);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "Error polling the perf buffer: %s\n", strerror(-err));
			goto cleanup;
		}
		fflush(stdout);
	}
	proctrack_bpf__detach(skel);	/* no new records, then the rest */
	perfbuf__quiesce(pb);
	err = perfbuf__drain(pb);
	if (print_summary("proctrack", bpf_map__fd(skel->maps.perfbuf_ledger), pb, false))
		err = -1;
cleanup:
	perfbuf__free(pb);
	proctrack_bpf__destroy(skel);
	return err < 0 ? 1 : 0;
}
