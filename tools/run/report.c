// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfbuf report of a `perfbuf run --record` capture: the maps' types
 * from its CAP_RUN_TYPE frames (checked as hostile input by libperfbuf),
 * its records decoded as run decoded them live, through the same sinks.
 * No object, no root.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "record/ledger_io.h"
#include "record/meta.h"
#include "run_capture.h"
#include "output/agg.h"
#include "output/sink.h"

#define RPROG "perfbuf report"
#define MAX_CPUS 1024

struct run_rep {
	struct run_map maps[RUN_MAX_MAPS];
	int nmaps;
	struct run_decoder *dec;
	struct trace_sink *sink;
	struct trace_sink_opts so;
	const struct run_report_opts *o;
	bool begun;		/* the sink began: it may sum up */
	__u64 events, lost;
	__u64 cpu_recv[MAX_CPUS], cpu_lost[MAX_CPUS];
	char why[256];
};

/* "NAME\n" and a type's text, or nothing after the name: hex */
static int add_type(struct run_rep *rp, const struct cap_view *f)
{
	const char *p = f->data, *nl = memchr(p, '\n', f->len);
	struct run_map *m = &rp->maps[rp->nmaps];
	char *text;

	if (!nl || f->cpu != (__u32)rp->nmaps || rp->nmaps == RUN_MAX_MAPS || rp->dec) {
		snprintf(rp->why, sizeof(rp->why), "a bad map frame (map %u)", f->cpu);
		return -EBADMSG;
	}
	*m = (struct run_map){ .name = strndup(p, nl - p) };
	text = strndup(nl + 1, f->len - (nl + 1 - p));
	rp->nmaps++;
	if (!m->name || !text) {
		free(text);
		return -ENOMEM;
	}
	if (*text && !(m->type = perfbuf_type__from_text(text))) {
		snprintf(rp->why, sizeof(rp->why), "map %.64s: a bad record type", m->name);
		free(text);
		return -EBADMSG;
	}
	free(text);
	return run_map_columns(m);
}

static int begin(struct run_rep *rp)
{
	struct agg_sink_opts ao = { .prog = RPROG, .fd = 1, .json = rp->o->json,
		.clock = rp->so.clock, .specs = rp->o->aggs, .nspecs = rp->o->naggs,
		.max_keys = (size_t)rp->o->agg_keys, .own_records = true };
	int err;

	rp->dec = run_decoder__new(RPROG, rp->maps, rp->nmaps);
	rp->sink = rp->o->naggs ? trace_sink_agg_new(&ao) :
		   rp->o->json ? trace_sink_json_new(&rp->so) : trace_sink_text_new(&rp->so);
	if (!rp->dec || !rp->sink)
		return -ENOMEM;
	err = trace_sink__begin(rp->sink, run_decoder__schema(rp->dec));
	rp->begun = !err;
	return err;
}

static int records(struct run_rep *rp, const struct cap_view *f)
{
	const unsigned char *p = f->data, *end = p + f->len;

	while (p < end) {
		struct cap_run_record h;
		const struct tv_event *e;

		if ((size_t)(end - p) < sizeof(h))
			goto bad;
		memcpy(&h, p, sizeof(h));
		p += sizeof(h);
		if (h.len > (size_t)(end - p) || h.map >= (__u32)rp->nmaps)
			goto bad;
		e = run_decoder__decode(rp->dec, h.map, p, h.len, h.cpu, h.time_ns,
					h.flags & PERFBUF_RECF_LATE);
		if (h.cpu >= 0 && h.cpu < MAX_CPUS)
			rp->cpu_recv[h.cpu]++;
		if (e) {
			trace_sink__event(rp->sink, e);
			rp->events++;
		}
		p += (h.len + 7) & ~7U;
	}
	return trace_sink__flush(rp->sink);
bad:
	snprintf(rp->why, sizeof(rp->why), "at byte %llu: a record past its frame's end, or of no map",
		 (unsigned long long)f->offset);
	return -EBADMSG;
}

static void lost(struct run_rep *rp, const struct cap_view *f)
{
	struct cap_lost l;
	struct tv_lost tl;

	if (f->len < sizeof(l))
		return;
	memcpy(&l, f->data, sizeof(l));
	tl = (struct tv_lost){ .time_ns = l.time_ns, .cpu = (int)f->cpu, .count = l.lost };
	trace_sink__lost(rp->sink, &tl);
	rp->lost += l.lost;
	if (f->cpu < MAX_CPUS)
		rp->cpu_lost[f->cpu] += l.lost;
}

/* The summary, the programs' ledger as the capture kept it (the last
 * LEDGER frame @r's fold passed) */
static void summary(struct run_rep *rp, const struct cap_reader *r, const char *path)
{
	static struct tv_cpu_summary cpus[MAX_CPUS];
	struct tv_summary sum = { .cpus = cpus, .lost = rp->lost };
	char word[CAP_LEDGER_WORD_MAX];
	struct ledger_view v;

	for (int i = 0; i < rp->nmaps; i++)
		sum.received += rp->maps[i].received;
	sum.printed = rp->events;
	sum.discarded = sum.received - sum.printed;
	for (int c = 0; c < MAX_CPUS; c++)
		if (rp->cpu_recv[c] || rp->cpu_lost[c])
			cpus[sum.ncpus++] = (struct tv_cpu_summary){ .cpu = c,
				.received = rp->cpu_recv[c], .lost = rp->cpu_lost[c] };
	if (capture_ledger_read(RPROG, path, r, &v, word) > 0)
		ledger_view_summary(&v, &sum, word);
	trace_sink__summary(rp->sink, &sum);
	ledger_view_free(&v);
}

static int fold(struct run_rep *rp, struct cap_reader *r)
{
	struct cap_view f;
	int n, err = 0;

	cap_reader__rewind(r);
	while (!err && (n = cap_reader__next(r, &f)) > 0) {
		if (f.type == CAP_RUN_TYPE) {
			err = add_type(rp, &f);
			continue;
		}
		if (f.type != CAP_RUN_RECORDS && f.type != CAP_LOST)
			continue;
		if (!rp->dec && (err = begin(rp)))
			break;
		if (f.type == CAP_LOST)
			lost(rp, &f);
		else
			err = records(rp, &f);
	}
	if (!err && n < 0) {
		snprintf(rp->why, sizeof(rp->why), "damaged %s", cap_reader__error(r));
		err = -EBADMSG;
	}
	if (!err && !rp->dec)
		err = begin(rp);
	return err;
}

int run_report(struct cap_reader *r, const char *path, const struct cap_meta *meta,
	       const struct run_report_opts *o)
{
	static struct run_rep rp;
	const char *done = o->naggs ? "in the maps above" : "printed";
	int err, ret = 0;

	memset(&rp, 0, sizeof(rp));
	rp.o = o;
	rp.so = (struct trace_sink_opts){ .fd = 1, .max_cols = out_file_is_regular(1) ? 0 : o->width,
		.clock = { .mode = o->time, .start_ns = meta->start_mono_ns,
			   .wall_off_ns = (__s64)(meta->start_wall_ns - meta->start_mono_ns) } };
	err = fold(&rp, r);
	if (rp.begun && err != -EPIPE) {
		trace_sink__flush(rp.sink);
		summary(&rp, r, path);
	}
	if (err == -ENOMEM) {
		cli_say(RPROG, "out of memory\n");
		ret = 1;
	} else if (err == -EBADMSG) {
		cli_say(RPROG, "%s: %s; the %llu events before it are %s\n",
			path, rp.why, (unsigned long long)rp.events, done);
		ret = 1;
	} else if (err == -EINVAL) {
		ret = 1;
	} else if (err && err != -EPIPE) {
		cli_say(RPROG, "writing stdout failed: %s\n", strerror(-err));
		ret = 1;
	} else if (cap_reader__truncated(r)) {
		cli_say(RPROG, "%s: cut short (no closing frame: the recording did not end cleanly); the %llu events in it are %s\n",
			path, (unsigned long long)rp.events, done);
		ret = 1;
	}
	trace_sink__end(rp.sink);
	run_decoder__free(rp.dec);
	for (int i = 0; i < rp.nmaps; i++)
		run_map_free(&rp.maps[i]);
	return ret;
}
