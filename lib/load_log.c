// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A refused BPF load, read from libbpf's warnings (see load_log.h). */
#define _GNU_SOURCE	/* strchrnul */
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "load_log.h"

#define LOG_BEGIN "-- BEGIN PROG LOAD LOG --\n"

/* The verifier's statistics, after its last word */
static bool stats_line(const char *s)
{
	return !strncmp(s, "processed ", 10) || !strncmp(s, "verification time", 17) ||
	       !strncmp(s, "stack depth", 11);
}

/* The last @want lines of the log @log into @l->why */
static void read_verifier_log(struct load_log *l, const char *log, int want)
{
	const char *end = strstr(log, "-- END PROG LOAD LOG --"), *lines[16];
	size_t len = 0;
	int n = 0;

	if (want > 16)
		want = 16;
	for (const char *p = log; *p && (!end || p < end); p = strchrnul(p, '\n') + !!*strchrnul(p, '\n'))
		if (*p != '\n' && !stats_line(p))
			lines[n++ % 16] = p;
	l->why[0] = '\0';
	for (int i = n > want ? n - want : 0; i < n && len < sizeof(l->why); i++)
		len += snprintf(l->why + len, sizeof(l->why) - len, "%s%.*s", len ? " | " : "",
				(int)strcspn(lines[i % 16], "\n"), lines[i % 16]);
}

void load_log_read(struct load_log *l, const char *msg, int lines)
{
	const char *log = strstr(msg, LOG_BEGIN);
	const char *eol = strchrnul(msg, '\n');

	if (!strncmp(msg, "libbpf: ", 8))
		msg += 8;
	/* 1.1's wordings: "prog 'P': BPF program load failed: ...",
	 * "prog 'P': failed to load: ...", "prog 'P': -- BEGIN PROG LOAD LOG",
	 * "map 'M': failed to create: ..." */
	if (log || memmem(msg, eol - msg, "load failed", 11) ||
	    memmem(msg, eol - msg, "failed to load", 14))
		sscanf(msg, "prog '%63[^']'", l->prog);
	else if (memmem(msg, eol - msg, "failed to create", 16))
		sscanf(msg, "map '%63[^']'", l->map);
	if (log)
		read_verifier_log(l, log + strlen(LOG_BEGIN), lines);
}
