// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench part "python": the Python package's reader (numpy batches)
 * against bcc's perf_buffer_poll with .event() and against a C consumer
 * (libbpf's raw perf buffer, a callback copying each record: c_reader.c),
 * all three run by python/bench/readers.py with the same producer: a full
 * ring read and decoded; a producer flat out; one paced at 1 M records/s
 * into 256-page rings (1 MiB per CPU: 13 ms of records), the losses. bcc needs kernel headers:
 * scripts/setup.sh --bench unpacks Debian's 6.1 ones into the build tree
 * and make bench passes them as BCC_KERNEL_SOURCE. */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define READERS "python/bench/readers.py"
#define LIVE_RATE 1e6

struct py_result {
	bool ok;
	double drain_secs;
	__u64 records, offered, received, lost, enospc;
	char why[160];
};

static __u64 json_u64(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* readers.py's one JSON line, or why there is none. */
static void run_reader(const char *reader, const char *args, struct py_result *r)
{
	char cmd[PATH_MAX + 512], build[PATH_MAX], line[1024] = "", *p;
	FILE *f;

	snprintf(build, sizeof(build), "%s", env.self);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 " READERS " --reader %s --build %s "
		 "--size %d %s 2>&1", reader, dirname(build), REC_SIZE, args);
	memset(r, 0, sizeof(*r));
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f) && line[0] != '{')
		snprintf(r->why, sizeof(r->why), "%s", line);
	if (f)
		pclose(f);
	if (line[0] != '{') {
		if ((p = strchr(r->why, '\n')))
			*p = '\0';
		return;
	}
	r->ok = true;
	p = strstr(line, "\"drain_secs\": ");
	r->drain_secs = p ? strtod(p + 14, NULL) : 0;
	r->records = json_u64(line, "\"records\": ");
	r->offered = json_u64(line, "\"offered\": ");
	r->received = json_u64(line, "\"received\": ");
	r->lost = json_u64(line, "\"lost\": ");
	r->enospc = json_u64(line, "\"enospc\": ");
}

static const char *const reader_name[] = {
	"perfbuf Python, `batch.array()`", "bcc Python, `.event()`", "C, libbpf raw + callback",
};
static const char *const reader_key[] = { "perfbuf", "bcc", "c" };
#define N_READERS 3

static void drain_table(void)
{
	struct py_result r[N_READERS];
	double rate[N_READERS];
	char args[64];

	snprintf(args, sizeof(args), "--mode drain --pages %zu", env.pages);
	emit_md("\n#### Python readers: a full ring read and decoded\n\n"
		"%zu pages of %d-byte records written on CPU0, then read on CPU1; "
		"the median of 7 rounds.\n\n"
		"| reader | records | M records/s | vs bcc | vs C |\n|---|---|---|---|---|\n",
		env.pages, REC_SIZE);
	for (int i = 0; i < N_READERS; i++) {
		run_reader(reader_key[i], args, &r[i]);
		rate[i] = r[i].ok && r[i].drain_secs > 0 ? r[i].records / r[i].drain_secs / 1e6 : 0;
	}
	for (int i = 0; i < N_READERS; i++) {
		if (!r[i].ok)
			emit_md("| %s | unavailable: %s | | | |\n", reader_name[i], r[i].why);
		else
			emit_md("| %s | %llu | %.2f | %.1fx | %.3fx |\n", reader_name[i],
				(unsigned long long)r[i].records, rate[i],
				rate[1] > 0 ? rate[i] / rate[1] : 0,
				rate[2] > 0 ? rate[i] / rate[2] : 0);
	}
}

/* A producer process for a few seconds at @rate (0: flat out) into rings
 * of @pages, each reader in turn; delivered/s ratios when @ratios. */
static void live_table(double rate, size_t pages, bool ratios)
{
	struct py_result r[N_READERS];
	double got[N_READERS], secs = env.quick ? 2 : 3;
	char args[96];

	snprintf(args, sizeof(args), "--mode live --pages %zu --rate %.0f --secs %.0f",
		 pages, rate, secs);
	emit_md("\n#### Python readers: live, %s\n\n"
		"A producer process on CPU0 (BPF_PROG_TEST_RUN, 256 %d-byte records a run) "
		"%s, %zu-page rings, for %.0f s; the reader decodes every record on CPU1.\n\n"
		"| reader | offered | received | M received/s | lost (reader) | "
		"lost (BPF side) | lost %% |\n|---|---|---|---|---|---|---|\n",
		rate ? "1 M records/s" : "flat out", REC_SIZE,
		rate ? "paced at 1 M records/s" : "flat out", pages, secs);
	for (int i = 0; i < N_READERS; i++) {
		run_reader(reader_key[i], args, &r[i]);
		got[i] = r[i].ok ? r[i].received / secs / 1e6 : 0;
		if (!r[i].ok) {
			emit_md("| %s | unavailable: %s | | | | | |\n", reader_name[i], r[i].why);
			continue;
		}
		emit_md("| %s | %llu | %llu | %.2f | %llu | %llu | %.3f |\n", reader_name[i],
			(unsigned long long)r[i].offered, (unsigned long long)r[i].received,
			got[i], (unsigned long long)r[i].lost, (unsigned long long)r[i].enospc,
			r[i].offered ? 100.0 * (r[i].offered - r[i].received) / r[i].offered : 0);
	}
	if (!ratios)
		return;
	if (got[0] > 0 && got[1] > 0)
		ratio_line("Python: perfbuf / bcc, delivered and decoded/s", got[0], got[1], 10, false);
	if (got[0] > 0 && got[2] > 0)
		ratio_line("Python perfbuf / C, delivered and decoded/s", got[0], got[2], 0.5, false);
}

int bench_python(void)
{
	if (access(READERS, R_OK)) {
		emit_md("\n#### Python readers\n\nskipped: run from the source tree (%s)\n", READERS);
		return 0;
	}
	drain_table();
	live_table(0, env.pages, true);
	live_table(LIVE_RATE, 256, false);
	return 0;
}
