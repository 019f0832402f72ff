// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A program's ledger as the outputs show it (ledger.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "common/say.h"

/* Each CPU whose two sides disagree, said: never hidden */
static void say_mismatch(const struct perfbuf_ledger *l, const char *prog)
{
	for (size_t i = 0; i < perfbuf_ledger__cpu_cnt(l); i++) {
		struct perfbuf_ledger_cpu c = { .sz = sizeof(c) };

		if (perfbuf_ledger__cpu(l, i, &c) || !c.mismatch)
			continue;
		cli_say(prog, "CPU %d: the BPF programs wrote %llu events and lost %llu to a full ring, the reader received %llu and counted %llu lost: the counts disagree\n",
			c.cpu, (unsigned long long)c.written,
			(unsigned long long)c.full,
			(unsigned long long)c.received,
			(unsigned long long)c.lost);
	}
}

/* Kind @k of @l into @out, named */
static int view_kind(struct perfbuf_ledger *l, size_t k, const char *name,
		     struct tv_kind_summary *out)
{
	struct perfbuf_ledger_kind s = { .sz = sizeof(s) };
	char buf[32];

	if (perfbuf_ledger__kind(l, k, &s))
		return -EINVAL;
	if (!name)
		name = perfbuf_ledger__kind_name(l, k);
	if (!name)
		snprintf(buf, sizeof(buf), "kind %zu", k);
	*out = (struct tv_kind_summary){ .offered = s.offered,
		.received = s.received, .lost = s.lost,
		.no_reader = s.no_reader, .failed = s.failed };
	out->name = strdup(name ? name : buf);
	return out->name ? 0 : -ENOMEM;
}

int ledger_view_read(struct ledger_view *v, struct perfbuf_ledger *l,
		     const struct perfbuf *pb, const char *prog, size_t nkinds,
		     ledger_name_fn name, void *ctx)
{
	size_t cnt = perfbuf_ledger__kind_cnt(l);
	int err = perfbuf_ledger__read(l, pb);

	memset(v, 0, sizeof(*v));
	if (err < 0) {
		cli_say(prog, "reading the BPF programs' ledger failed: %s\n",
			strerror(-err));
		return err;
	}
	v->mismatch = err;
	if (err)
		say_mismatch(l, prog);
	v->kinds = calloc(cnt ? cnt : 1, sizeof(*v->kinds));
	if (!v->kinds)
		return -ENOMEM;
	for (size_t k = 0; k < cnt; k++) {
		struct tv_kind_summary *o = &v->kinds[v->nkinds];

		err = view_kind(l, k, k < nkinds && name ? name(ctx, k) : NULL, o);
		if (err) {
			ledger_view_free(v);
			return err;
		}
		v->no_reader += o->no_reader;
		v->failed += o->failed;
		if (k < nkinds || o->offered)
			v->nkinds++;
		else
			free((char *)o->name);
	}
	return 0;
}

void ledger_view_free(struct ledger_view *v)
{
	for (size_t k = 0; v->kinds && k < v->nkinds; k++)
		free((char *)v->kinds[k].name);
	free(v->kinds);
	memset(v, 0, sizeof(*v));
}

void ledger_view_summary(const struct ledger_view *v, struct tv_summary *sum,
			 const char *word)
{
	sum->kinds = v->kinds;
	sum->nkinds = v->nkinds;
	sum->kind_word = word;
	sum->no_reader = v->no_reader;
	sum->failed = v->failed;
	sum->ledger_mismatch = v->mismatch;
}

int ledger_cpu_end(const struct perfbuf_ledger *l)
{
	int end = 0;

	for (size_t i = 0; i < perfbuf_ledger__cpu_cnt(l); i++) {
		struct perfbuf_ledger_cpu c = { .sz = sizeof(c) };

		if (!perfbuf_ledger__cpu(l, i, &c) && c.cpu >= end)
			end = c.cpu + 1;
	}
	return end;
}

int ledger_cpu_reasons(struct perfbuf_ledger *l, int ncpu,
		       __u64 (*out)[LEDGER_REASONS])
{
	int err = perfbuf_ledger__read(l, NULL);

	if (err < 0)
		return err;
	memset(out, 0, sizeof(*out) * ncpu);
	for (size_t i = 0; i < perfbuf_ledger__cpu_cnt(l); i++) {
		struct perfbuf_ledger_cpu c = { .sz = sizeof(c) };

		if (perfbuf_ledger__cpu(l, i, &c) || c.cpu < 0 || c.cpu >= ncpu)
			continue;
		out[c.cpu][LEDGER_FULL] = c.full;
		out[c.cpu][LEDGER_NO_READER] = c.no_reader;
		out[c.cpu][LEDGER_FAILED] = c.failed;
	}
	return 0;
}
