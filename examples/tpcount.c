// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tpcount: count the hits of one tracepoint, exactly: offered = received +
 * lost + no reader, the losses at the end of the run included (perfbuf__drain()). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <perfbuf.h>

#include "summary.h"
#include "tpcount.h"
#include "tpcount.skel.h"

static volatile sig_atomic_t exiting;

static void sig_handler(int sig)
{
	exiting = 1;
}

static int handle_record(void *ctx, const struct perfbuf_record *rec)
{
	return PERFBUF_CONTINUE;	/* the collector counts them (perfbuf__stats()) */
}

int main(int argc, char **argv)
{
	PERFBUF_OPTS(perfbuf_opts, opts, .page_cnt = 64);
	char category[64], name[64], what[128];
	struct tpcount_bpf *skel;
	struct perfbuf *pb = NULL;
	int opt, pid = 0, err;

	while ((opt = getopt(argc, argv, "p:P:")) != -1) {
		if (opt == 'p')
			pid = atoi(optarg) > 0 ? atoi(optarg) : -1;
		else if (opt == 'P')	/* perfbuf__new() checks it */
			opts.page_cnt = strtoul(optarg, NULL, 10);
		else
			pid = -1;	/* usage below */
	}
	if (optind != argc - 1 || pid < 0 ||
	    sscanf(argv[optind], "%63[^:]:%63s", category, name) != 2) {
		fprintf(stderr, "usage: %s [-p PID] [-P PAGES] CATEGORY:NAME\n", argv[0]);
		return 1;
	}
	skel = tpcount_bpf__open();
	if (!skel) {
		fprintf(stderr, "Failed to open BPF skeleton: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->target_pid = pid;
	err = tpcount_bpf__load(skel);
	if (err) {
		fprintf(stderr, "Failed to load BPF skeleton: %s\n", strerror(-err));
		goto cleanup;
	}
	/* the reader first: a hit before its rings are in the map is no reader's */
	pb = perfbuf__new(bpf_map__fd(skel->maps.events), handle_record, NULL, &opts);
	if (!pb) {
		err = -errno;	/* the library said why on stderr */
		goto cleanup;
	}
	skel->links.count_hit = bpf_program__attach_tracepoint(skel->progs.count_hit,
							       category, name);
	if (!skel->links.count_hit) {
		err = -errno;
		fprintf(stderr, "Failed to attach to %s:%s: %s\n", category, name, strerror(errno));
		goto cleanup;
	}
	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);
	fprintf(stderr, "Counting %s:%s... Hit Ctrl-C to end.\n", category, name);
	while (!exiting && ((err = perfbuf__poll(pb, 100)) >= 0 || err == -EINTR))
		;
	if (!exiting)
		fprintf(stderr, "Error polling the perf buffer: %s\n", strerror(-err));
	tpcount_bpf__detach(skel);	/* no new records: then take the rest */
	perfbuf__quiesce(pb);
	err = perfbuf__drain(pb) < 0 || !exiting ? -1 : 0;
	snprintf(what, sizeof(what), "%s:%s", category, name);
	if (print_summary(what, bpf_map__fd(skel->maps.perfbuf_ledger), pb, false))
		err = -1;
cleanup:
	perfbuf__free(pb);
	tpcount_bpf__destroy(skel);
	return err < 0 ? 1 : 0;
}
