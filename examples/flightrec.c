// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* flightrec: a flight recorder of system calls. Each CPU's ring keeps its
 * newest records; nothing is read until a dump (SIGUSR1, exit), in time order. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <perfbuf.h>

#include "flightrec.h"
#include "flightrec.skel.h"
#include "summary.h"

static volatile sig_atomic_t exiting, dump_asked;

static void sig_handler(int sig)
{
	*(sig == SIGUSR1 ? &dump_asked : &exiting) = 1;
}

static int handle_record(void *ctx, const struct perfbuf_record *rec)
{
	struct flightrec_event e;

	if (rec->kind == PERFBUF_REC_LOST)	/* written while a dump paused it */
		printf("lost %llu records on CPU #%d\n", rec->lost, rec->cpu);
	else if (rec->kind == PERFBUF_REC_CPU_ONLINE || rec->kind == PERFBUF_REC_CPU_OFFLINE)
		printf("CPU %d went %s\n", rec->cpu,
		       rec->kind == PERFBUF_REC_CPU_ONLINE ? "online" : "offline");
	else if (perfbuf_record__copy(rec, &e, sizeof(e)) == sizeof(e))
		printf("%-17.6f %-3d %-7d %-7d %-16s %-8llu %ld\n", rec->time_ns / 1e9,
		       rec->cpu, e.pid, e.tid, e.comm, e.seq, e.nr);
	return PERFBUF_CONTINUE;
}

static void dump(struct perfbuf *pb, struct flightrec_bpf *skel, const char *why)
{
	int n;

	printf("--- dump (%s)\n%-17s %-3s %-7s %-7s %-16s %-8s %s\n", why, "TIME(s)",
	       "CPU", "PID", "TID", "COMM", "SEQ", "SYSCALL");
	n = perfbuf__snapshot(pb);	/* each ring is paused only for its copy */
	printf("--- %d records of %llu written\n", n, (unsigned long long)skel->bss->next_seq);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	PERFBUF_OPTS(perfbuf_opts, opts, .overwrite = true, .timestamps = true);
	struct flightrec_bpf *skel;
	struct perfbuf *pb = NULL;
	int opt, pid = 0, err;

	while ((opt = getopt(argc, argv, "p:")) != -1)
		if (opt != 'p' || sscanf(optarg, "%d", &pid) != 1 || pid <= 0)
			pid = -1;	/* usage below */
	if (optind != argc || pid < 0) {
		fprintf(stderr, "usage: %s [-p PID]; then kill -USR1 dumps\n", argv[0]);
		return 1;
	}
	skel = flightrec_bpf__open();
	if (!skel) {
		fprintf(stderr, "Failed to open BPF skeleton: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->target_pid = pid;
	err = flightrec_bpf__load(skel);
	/* the reader before the programs: no system call finds an empty slot */
	if (!err && !(pb = perfbuf__new(bpf_map__fd(skel->maps.events), handle_record, NULL, &opts)))
		err = -errno;
	else if (!err)
		err = flightrec_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "Failed to load, read or attach the BPF skeleton: %s\n", strerror(-err));
		goto cleanup;
	}
	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);
	signal(SIGUSR1, sig_handler);
	fprintf(stderr, "Recording; kill -USR1 %d dumps, Ctrl-C dumps and ends.\n", getpid());
	/* poll follows CPU hotplug, and returns -EINTR on a signal */
	while (!exiting && ((err = perfbuf__poll(pb, 100)) >= 0 || err == -EINTR)) {
		if (dump_asked) {
			dump_asked = 0;
			dump(pb, skel, "SIGUSR1");
		}
	}
	flightrec_bpf__detach(skel);
	dump(pb, skel, exiting ? "exit" : strerror(-err));
	if (print_summary("syscalls", bpf_map__fd(skel->maps.perfbuf_ledger), pb, true))
		exiting = 0;
cleanup:
	perfbuf__free(pb);
	flightrec_bpf__destroy(skel);
	return exiting ? 0 : 1;	/* ended by a signal, or by an error */
}
