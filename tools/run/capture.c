// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf run --record: the records into a capture file (the format of
 * tools/record/capture.h) with their maps' types (CAP_RUN_TYPE frames),
 * so that perfbuf report decodes them with neither the object nor root.
 * Records are batched into CAP_RUN_RECORDS frames of up to 256 KiB.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/ledger_io.h"
#include "record/meta.h"
#include "run.h"
#include "run_capture.h"
#include "common/say.h"

#define BATCH (256 * 1024)

struct run_capture {
	struct cap_writer *w;
	unsigned char *buf;
	size_t len;
	__u64 records;
};

int run_capture__check(const char *prog, const struct run_map *maps, int n)
{
	size_t sz = 1 << 20;
	char *text = malloc(sz);
	int err = text ? 0 : -ENOMEM;

	for (int i = 0; !err && i < n; i++) {
		struct perfbuf_type *back;

		if (!maps[i].type)
			continue;
		back = perfbuf_type__to_text(maps[i].type, text, sz) < sz ?
		       perfbuf_type__from_text(text) : NULL;
		if (!back) {
			cli_say(prog, "--record: map %s's record type (struct %s, %zu bytes) cannot be kept in a capture (perfbuf report reads types of at most 16 MiB and 1 MiB of text); run without --record\n",
				maps[i].name, perfbuf_type__name(maps[i].type),
				perfbuf_type__size(maps[i].type));
			err = -E2BIG;
		}
		perfbuf_type__free(back);
	}
	free(text);
	return err;
}

struct run_capture *run_capture__open(const char *prog, const char *path, const struct run_map *maps,
				      int n, int *err)
{
	struct run_capture *c = calloc(1, sizeof(*c));
	struct cap_meta m = {};
	char *text = malloc(1 << 20);

	*err = -ENOMEM;
	if (!c || !text || !(c->buf = malloc(BATCH)))
		goto fail;
	c->w = cap_writer__open(prog, path);
	if (!c->w) {
		*err = -errno;
		goto fail;
	}
	capture_meta_now(&m);
	snprintf(m.mode, sizeof(m.mode), "run");
	snprintf(m.cpus, sizeof(m.cpus), "-");
	*err = capture_meta_write(c->w, &m);
	for (int i = 0; !*err && i < n; i++) {
		size_t len = (size_t)snprintf(text, 1 << 20, "%s\n", maps[i].name);

		if (maps[i].type)
			len += perfbuf_type__to_text(maps[i].type, text + len, (1 << 20) - len);
		*err = len < (1 << 20) ? cap_writer__put(c->w, CAP_RUN_TYPE, i, text, len)
				       : -E2BIG;
	}
	if (*err)
		goto fail;
	free(text);
	return c;
fail:
	free(text);
	run_capture__discard(c);
	return NULL;
}

int run_capture__flush(struct run_capture *c)
{
	int err = c->len ? cap_writer__put(c->w, CAP_RUN_RECORDS, 0, c->buf, c->len) : 0;

	c->len = 0;
	return err ?: cap_writer__error(c->w);
}

int run_capture__record(struct run_capture *c, int map, int cpu, __u64 time_ns,
			__u32 flags, const void *data, size_t sz)
{
	struct cap_run_record h = { .map = map, .cpu = cpu, .time_ns = time_ns,
				    .len = (__u32)sz, .flags = flags };
	size_t need = sizeof(h) + ((sz + 7) & ~7UL);
	int err = 0;

	if (need > BATCH)
		return -E2BIG;
	if (c->len + need > BATCH)
		err = run_capture__flush(c);
	memcpy(c->buf + c->len, &h, sizeof(h));
	memcpy(c->buf + c->len + sizeof(h), data, sz);
	memset(c->buf + c->len + sizeof(h) + sz, 0, need - sizeof(h) - sz);
	c->len += need;
	c->records++;
	return err;
}

int run_capture__lost(struct run_capture *c, int cpu, __u64 time_ns, __u64 lost)
{
	struct cap_lost l = { .lost = lost, .time_ns = time_ns };
	int err = run_capture__flush(c);

	return err ?: cap_writer__put(c->w, CAP_LOST, (__u32)cpu, &l, sizeof(l));
}

int run_capture__publish(struct run_capture *c)
{
	return cap_writer__publish(c->w, false);
}

int run_capture__ledger(struct run_capture *c, const struct ledger_view *v)
{
	return run_capture__flush(c) ?: capture_ledger_write(c->w, v, "kind");
}

int run_capture__close(struct run_capture *c, const char *summary)
{
	int err = 0;

	if (!c)
		return 0;
	if (c->w && summary) {
		err = run_capture__flush(c);
		if (!err)
			err = cap_writer__put(c->w, CAP_END, 0, summary, strlen(summary));
	}
	if (c->w) {
		int cerr = cap_writer__close(c->w, summary != NULL);

		err = err ?: cerr;
	}
	free(c->buf);
	free(c);
	return err;
}

void run_capture__discard(struct run_capture *c)
{
	if (!c)
		return;
	cap_writer__discard(c->w);
	free(c->buf);
	free(c);
}

__u64 run_capture__records(const struct run_capture *c)
{
	return c->records;
}
