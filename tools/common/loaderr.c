// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A refused BPF program, named with the kernel's reason (see loaderr.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "cli.h"
#include "kfeat.h"
#include "loaderr.h"
#include "say.h"

/* libbpf's warnings since the last load, its log of a refused program
 * among them (a verifier log can be long: the end is what matters) */
static char kept[16384];
static size_t kept_len;
static bool verbose;

static int keep(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	va_list copy;
	int n;

	if (verbose) {
		va_copy(copy, ap);
		vfprintf(stderr, fmt, copy);
		va_end(copy);
	}
	if (level == LIBBPF_DEBUG)
		return 0;
	if (kept_len > sizeof(kept) / 2) {	/* keep the newer half */
		memmove(kept, kept + kept_len - sizeof(kept) / 4, sizeof(kept) / 4);
		kept_len = sizeof(kept) / 4;
	}
	n = vsnprintf(kept + kept_len, sizeof(kept) - kept_len, fmt, ap);
	if (n > 0)
		kept_len += (size_t)n < sizeof(kept) - kept_len ? (size_t)n :
			    sizeof(kept) - kept_len - 1;
	return 0;
}

void loaderr_capture(bool v)
{
	verbose = v;
	kept_len = 0;
	kept[0] = '\0';
	libbpf_set_print(keep);
}

/* The refused program's name from libbpf's "prog 'NAME': BPF program load
 * failed" into @name */
static void failed_prog(char *name, size_t sz)
{
	const char *hit = NULL;

	for (const char *p = kept; (p = strstr(p, "prog '")); p += 6)
		if (memmem(p, (size_t)(strchrnul(p, '\n') - p), "load failed", 11))
			hit = p;
	snprintf(name, sz, "?");
	if (hit)
		snprintf(name, sz, "%.*s", (int)strcspn(hit + 6, "'"), hit + 6);
}

/* The last @want lines of the last verifier log (its statistics line
 * aside) joined by " | " into @out; false when there was none or empty */
static bool log_tail(char *out, size_t sz, int want)
{
	char *begin = NULL, *end, *p = kept, *lines[64];
	int n = 0;

	while ((p = strstr(p, "-- BEGIN PROG LOAD LOG --")))
		begin = p++;
	if (!begin || !(end = strstr(begin, "-- END PROG LOAD LOG --")))
		return false;
	*end = '\0';
	for (p = strchr(begin, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
		if (!strncmp(p + 1, "processed ", 10) || !strncmp(p + 1, "verification time", 17) ||
		    !strncmp(p + 1, "stack depth", 11) || p[1] == '\n')
			continue;
		lines[n++ % 64] = p + 1;
	}
	out[0] = '\0';
	for (int i = n > want ? n - want : 0, len = 0; i < n && (size_t)len < sz; i++)
		len += snprintf(out + len, sz - len, "%s%.*s", len ? " | " : "",
				(int)strcspn(lines[i % 64], "\n"), lines[i % 64]);
	return n > 0;
}

void loaderr_say(const char *prog, const char *what, int err)
{
	char name[64], why[512], missing[256];

	failed_prog(name, sizeof(name));
	if (log_tail(why, sizeof(why), 3))
		cli_say(prog, "loading %s failed: program '%s': %s: the verifier says: %s\n",
			what, name, cli_strerror(err), why);
	else if (err == -EINVAL && kfeat_missing(missing, sizeof(missing)))
		cli_say(prog, "loading %s failed: program '%s': %s, with no verifier log: this kernel lacks %s; run a newer kernel\n",
			what, name, cli_strerror(err), missing);
	else
		cli_say(prog, "loading %s failed: program '%s': %s (the kernel gave no verifier log)%s\n",
			what, name, cli_strerror(err), cli_hint(err));
	kept_len = 0;
	kept[0] = '\0';
}
