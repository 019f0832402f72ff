/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The examples' last line: what became of every event the BPF program
 * offered, offered = received + lost + no reader. The program counts each
 * output's outcome in its perfbuf_ledger map (perfbuf_output(),
 * perfbuf/bpf.h); the reader counts what it received and what the kernel
 * reported lost (perfbuf__stats()); perfbuf_ledger__read() checks the two
 * sides against each other, per CPU. Call it after the final drain, the
 * programs detached: nothing is left in the rings then.
 */
#ifndef EXAMPLES_SUMMARY_H
#define EXAMPLES_SUMMARY_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <perfbuf.h>

/*
 * The line for @what, from the ledger map @ledger_fd and the reader @pb.
 * @kept: @pb is a flight recorder, whose reader sees only the newest
 * records: "written" into the rings (the program's count) stands for
 * "received", and the sides are not compared. 0, or -1 when the counts
 * cannot be read or disagree (said on stderr).
 */
static int print_summary(const char *what, int ledger_fd, const struct perfbuf *pb,
			 bool kept)
{
	unsigned long long offered = 0, received = 0, lost = 0, no_reader = 0, failed = 0;
	struct perfbuf_ledger *l = perfbuf_ledger__new(ledger_fd, NULL);
	int bad = l ? perfbuf_ledger__read(l, kept ? NULL : pb) : -errno;

	for (size_t k = 0; bad >= 0 && k < perfbuf_ledger__kind_cnt(l); k++) {
		struct perfbuf_ledger_kind s = { .sz = sizeof(s) };

		perfbuf_ledger__kind(l, k, &s);
		offered += s.offered;
		no_reader += s.no_reader;	/* no ring in the CPU's slot */
		failed += s.failed;
		received += kept ? s.received : 0;
		lost += kept ? s.lost : 0;
	}
	perfbuf_ledger__free(l);
	for (size_t r = 0; !kept && r < perfbuf__ring_cnt(pb); r++) {
		struct perfbuf_cpu_stats st = { .sz = sizeof(st) };

		if (!perfbuf__stats(pb, r, &st)) {
			received += st.samples;
			lost += st.lost_total;	/* LOST records and the final drain's */
		}
	}
	if (bad < 0) {
		fprintf(stderr, "Reading the ledger failed: %s\n", strerror(-bad));
		return -1;
	}
	if (bad)	/* never hidden: the library's debug output says how */
		fprintf(stderr, "The BPF program's and the reader's counts disagree on %d CPU%s\n",
			bad, bad == 1 ? "" : "s");
	printf("%s: %llu offered %s %llu %s + %llu lost + %llu no reader", what, offered,
	       offered == received + lost + no_reader + failed ? "=" : "!=", received,
	       kept ? "written" : "received", lost, no_reader);
	if (failed)
		printf(" + %llu failed", failed);
	printf("\n");
	return bad ? -1 : 0;
}

#endif /* EXAMPLES_SUMMARY_H */
