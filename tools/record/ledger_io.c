// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The CAP_LEDGER frame (docs/record.md): text, "key=value" lines:
 *   word=probe                      what a kind is (probe, kind)
 *   mismatch=N                      CPUs whose two sides disagreed
 *   kind=O,R,L,N,F,NAME             per kind, in order: offered, received,
 *                                   lost, no reader, failed, its name
 * Unknown keys are skipped, so that a newer writer may add some.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger_io.h"
#include "common/say.h"

int capture_ledger_write(struct cap_writer *w, const struct ledger_view *v,
			 const char *word)
{
	size_t cap = 64 + v->nkinds * 128, len = 0;
	char *buf;
	int err;

	if (!v->nkinds)
		return 0;
	for (size_t i = 0; i < v->nkinds; i++)
		cap += strlen(v->kinds[i].name);
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	len += (size_t)snprintf(buf, cap, "word=%s\nmismatch=%d\n", word, v->mismatch);
	for (size_t i = 0; i < v->nkinds && len < cap; i++) {
		const struct tv_kind_summary *k = &v->kinds[i];

		len += (size_t)snprintf(buf + len, cap - len, "kind=%llu,%llu,%llu,%llu,%llu,%s\n",
					(unsigned long long)k->offered,
					(unsigned long long)k->received,
					(unsigned long long)k->lost,
					(unsigned long long)k->no_reader,
					(unsigned long long)k->failed, k->name);
	}
	err = cap_writer__put(w, CAP_LEDGER, 0, buf, len < cap ? len : cap - 1);
	free(buf);
	return err;
}

/* "O,R,L,N,F,NAME" into the next kind of @v: 0, -EBADMSG, -ENOMEM */
static int parse_kind(struct ledger_view *v, const char *s)
{
	struct tv_kind_summary k = {};
	unsigned long long n[5];
	struct tv_kind_summary *more;
	int used = -1;

	if (sscanf(s, "%llu,%llu,%llu,%llu,%llu,%n", &n[0], &n[1], &n[2], &n[3], &n[4],
		   &used) != 5 || used < 0 || !s[used] ||
	    n[0] != n[1] + n[2] + n[3] + n[4])
		return -EBADMSG;	/* offered is the sum of the four */
	k = (struct tv_kind_summary){ .offered = n[0], .received = n[1], .lost = n[2],
				      .no_reader = n[3], .failed = n[4] };
	more = realloc(v->kinds, (v->nkinds + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	v->kinds = more;
	k.name = strdup(s + used);
	if (!k.name)
		return -ENOMEM;
	v->kinds[v->nkinds++] = k;
	v->no_reader += k.no_reader;
	v->failed += k.failed;
	return 0;
}

/* The frame's lines into @v and @word: 0 or -errno */
static int parse_frame(const struct cap_view *f, struct ledger_view *v, char *word)
{
	const char *p = f->data, *end = p + f->len;
	char line[4096];
	int err = 0;

	while (p < end && !err) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n >= sizeof(line))
			return -EBADMSG;
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + 1;
		if (!strncmp(line, "kind=", 5))
			err = parse_kind(v, line + 5);
		else if (!strcmp(line, "word=probe"))	/* else "kind" */
			snprintf(word, CAP_LEDGER_WORD_MAX, "probe");
		else if (!strncmp(line, "mismatch=", 9))
			v->mismatch = atoi(line + 9);
	}
	return err;
}

int capture_ledger_read(const char *prog, const char *path, const struct cap_reader *r,
			struct ledger_view *v, char word[CAP_LEDGER_WORD_MAX])
{
	struct cap_view f;
	int err;

	memset(v, 0, sizeof(*v));
	snprintf(word, CAP_LEDGER_WORD_MAX, "kind");
	/* the last one, up to any damage (the caller's reading says where) */
	if (!cap_reader__last(r, CAP_LEDGER, &f))
		return 0;
	err = parse_frame(&f, v, word);
	if (err) {
		ledger_view_free(v);
		if (err == -EBADMSG)
			cli_say(prog, "%s: a damaged ledger frame, left out\n", path);
		return err;
	}
	return 1;
}
