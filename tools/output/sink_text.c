// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text sink: a header, then one line per event (TIME per --time, CPU,
 * PID, TID, COMM, the probe's label and name=value fields; strings
 * quoted), cut at max_cols if asked, then with --kstack/--ustack a line
 * per frame, a tab first. Lost records and CPU notices are '#' lines
 * where they happened (and on stderr); the summary goes to stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "sink.h"

struct text_sink {
	struct buf_sink b;	/* first: the shared part */
	struct trace_sink_opts o;
	bool tty;		/* the output is a terminal */
	/* perfbuf run, one map: its fields in columns, these wide */
	const struct tv_probe *columns;
	size_t *widths;
};

static struct text_sink *text_of(struct trace_sink *s)
{
	return (struct text_sink *)s;
}

/* Only an event line starts with a digit (its TIME). */
static bool text_is_event(const char *p, size_t n)
{
	return n && *p >= '0' && *p <= '9';
}

static void pad_to(struct outbuf *o, size_t start, size_t width);

/* perfbuf run with one map: TIME CPU and the record's field names,
 * each column as wide as its name (at least 8) */
static int text_columns(struct text_sink *t, const struct tv_probe *p)
{
	struct outbuf *o = &t->b.ob;
	size_t start = o->len;

	t->columns = p;
	t->widths = calloc(p->nfields ? p->nfields : 1, sizeof(*t->widths));
	if (!t->widths)
		return -ENOMEM;
	out_mem(o, trace_clock_header(&t->o.clock), strlen(trace_clock_header(&t->o.clock)));
	pad_to(o, start, 10);
	out_lit(o, "CPU");
	for (int i = 0; i < p->nfields; i++) {
		size_t n = strlen(p->names[i]);

		t->widths[i] = n > 8 ? n : 8;
		out_c(o, ' ');
		start = o->len;
		out_mem(o, p->names[i], n);
		if (i + 1 < p->nfields)
			while (o->len - start < t->widths[i])
				out_c(o, ' ');
	}
	out_c(o, '\n');
	return 0;
}

static int text_begin(struct trace_sink *s, const struct tv_schema *schema)
{
	struct text_sink *t = text_of(s);
	struct outbuf *o = &t->b.ob;
	char line[128];
	int n;

	if (schema->nprobes == 1 && schema->probes[0].typed)
		return text_columns(t, &schema->probes[0]);
	/* perfbuf run's maps: no task columns (a record has its own) */
	if (schema->nprobes && schema->probes[0].typed)
		n = snprintf(line, sizeof(line), "%-10s %-3s %s\n",
			     trace_clock_header(&t->o.clock), "CPU", "MAP FIELDS");
	else
		n = snprintf(line, sizeof(line), "%-10s %-3s %-7s %-7s %-16s %s\n",
			     trace_clock_header(&t->o.clock), "CPU", "PID", "TID",
			     "COMM", "PROBE ARGS");
	out_mem(o, line, n);
	return 0;
}

static void pad_to(struct outbuf *o, size_t start, size_t width)
{
	while (o->len - start < width)
		out_c(o, ' ');
	out_c(o, ' ');
}

/* The time per --time (clock.h), a '*' when late */
static void text_time(struct outbuf *o, const struct trace_clock *c, __u64 t,
		      bool late)
{
	size_t start = o->len;
	char buf[40];

	out_mem(o, buf, trace_clock_text(c, t, buf, sizeof(buf)));
	if (late)
		out_c(o, '*');
	pad_to(o, start, 10);
}

/* A string, quoted (strace's way: a space or '=' in it cannot pass for
 * the next field), "..." after it when it was cut. */
static void text_str(struct outbuf *o, const char *s, size_t n, bool cut)
{
	out_c(o, '"');
	out_text_str(o, s, n);
	out_c(o, '"');
	if (cut)
		out_lit(o, "...");
}

/* ["a", "b"...]: a cut element; ? an unreadable one */
static void text_strs(struct outbuf *o, const struct tv_field *f)
{
	out_c(o, '[');
	for (size_t i = 0; i < f->len; i++) {
		const struct tv_str *e = &f->strs[i];

		if (i)
			out_lit(o, ", ");
		if (e->flags & TV_F_UNREAD)
			out_c(o, '?');
		else
			text_str(o, e->data, e->len, e->flags & TV_F_CUT);
	}
	out_c(o, ']');
}

static void text_value(struct outbuf *o, const struct tv_field *f)
{
	bool cut = f->flags & TV_F_CUT;
	char buf[256];
	size_t n;

	/* an address as one; names of a value beside it: 1(TCP_ESTABLISHED) */
	if ((n = tv_addr_text(f, buf, sizeof(buf)))) {
		out_mem(o, buf, n);
		return;
	}
	switch (f->type) {
	case TV_INT:
		out_number(o, f, false);
		if ((n = tv_names_text(f, buf, sizeof(buf)))) {
			out_c(o, '(');
			out_text_str(o, buf, n);
			out_c(o, ')');
		}
		break;
	case TV_ARRAY:
		out_number(o, f, false);
		break;
	case TV_PTR:	/* an unreadable string: never taken for a value */
		if (f->flags & TV_F_UNREAD)
			out_lit(o, "<unreadable ");
		out_hex(o, f->u);
		if (f->flags & TV_F_UNREAD)
			out_c(o, '>');
		break;
	case TV_STR:
		text_str(o, f->data, f->len, cut);
		return;
	case TV_BYTES:
		out_hexbytes(o, f->data, f->len);
		break;
	case TV_STRS:
		text_strs(o, f);
		break;
	case TV_JSON:	/* printable already: JSON escapes control bytes */
		out_mem(o, f->data, f->len);
		break;
	}
	if (cut)
		out_lit(o, "...");
}

/* --kstack/--ustack: a line per frame, leaf first, after the event's
 * (a tab first: never taken for an event line) */
static void text_stack(struct outbuf *o, const char *const *frames, int n)
{
	for (int i = 0; frames && i < n; i++) {
		out_c(o, '\t');
		out_text_str(o, frames[i], strlen(frames[i]));
		out_c(o, '\n');
	}
}

/* PID TID COMM, padded */
static void text_task(struct outbuf *o, const struct tv_event *e)
{
	size_t start = o->len;

	out_u64(o, e->pid);
	pad_to(o, start, 7);
	start = o->len;
	out_u64(o, e->tid);
	pad_to(o, start, 7);
	start = o->len;
	out_text_str(o, e->comm, e->comm_len);
	pad_to(o, start, 16);
}

/* perfbuf run: the values under their names (a field the record does
 * not hold: an empty column) */
static void text_row(struct text_sink *t, const struct tv_event *e)
{
	struct outbuf *o = &t->b.ob;
	int k = 0;

	for (int i = 0; i < t->columns->nfields; i++) {
		size_t start = o->len;

		if (k < e->nfields && e->fields[k].idx == i)
			text_value(o, &e->fields[k++]);
		if (i + 1 < t->columns->nfields)
			pad_to(o, start, t->widths[i]);
	}
}

static void text_event(struct trace_sink *s, const struct tv_event *e)
{
	struct text_sink *t = text_of(s);
	struct outbuf *o = &t->b.ob;
	size_t start;

	outbuf_event(o);
	o->line = o->len;
	text_time(o, &t->o.clock, e->time_ns, e->late);
	start = o->len;
	out_s64(o, e->cpu);
	pad_to(o, start, 3);
	if (t->columns) {
		text_row(t, e);
	} else {
		if (!e->probe->typed)
			text_task(o, e);
		out_mem(o, e->probe->label, strlen(e->probe->label));
		for (int i = 0; i < e->nfields; i++) {
			const struct tv_field *f = &e->fields[i];

			if (f->flags & TV_F_HIDDEN)
				continue;
			out_c(o, ' ');
			out_mem(o, f->name, strlen(f->name));
			out_c(o, '=');
			text_value(o, f);
		}
	}
	/* --width: cut to max_cols (0: never) */
	if (t->o.max_cols && o->line >= 0 &&
	    o->len - o->line > (size_t)t->o.max_cols) {
		o->len = o->line + t->o.max_cols - 3;
		out_lit(o, "...");
	}
	out_c(o, '\n');
	if (!t->o.no_kstack)
		text_stack(o, e->kstack, e->nkstack);
	if (!t->o.no_ustack)
		text_stack(o, e->ustack, e->nustack);
	s->err = o->err;	/* a full buffer is written on the way */
}

/*
 * "# TIME CPU 1: 12 events lost", "# TIME CPU 1 went offline": in the
 * output, where the gap is (a '#' line is never an event; TIME left out
 * when unknown). The line of old goes to stderr too, unless the output
 * is a terminal (the same screen): true when it should.
 */
static bool text_mark(struct trace_sink *s, __u64 time_ns, const char *what)
{
	struct text_sink *t = text_of(s);
	struct outbuf *o = &t->b.ob;
	char tm[40];

	out_lit(o, "# ");
	if (time_ns) {
		out_mem(o, tm, trace_clock_text(&t->o.clock, time_ns, tm, sizeof(tm)));
		out_c(o, ' ');
	}
	out_mem(o, what, strlen(what));
	out_c(o, '\n');
	s->err = o->err;
	return !t->tty;
}

static void text_lost(struct trace_sink *s, const struct tv_lost *l)
{
	char what[80];

	snprintf(what, sizeof(what), "CPU %d: %llu event%s lost", l->cpu,
		 (unsigned long long)l->count, l->count == 1 ? "" : "s");
	if (text_mark(s, l->time_ns, what))
		fprintf(stderr, "lost %llu events on CPU #%d\n",
			(unsigned long long)l->count, l->cpu);
}

static void text_notice(struct trace_sink *s, const struct tv_notice *n)
{
	char what[80];

	snprintf(what, sizeof(what), "CPU %d %s", n->cpu,
		 n->kind == TV_CPU_ONLINE ? "came online: traced" : "went offline");
	if (text_mark(s, n->time_ns, what))
		fprintf(stderr, "%s\n", what);
}

/* The ledger's kinds: what each offered and what became of it (FAILED
 * only when some failed) */
static void text_kind_lines(struct outbuf *o, const struct tv_summary *sum)
{
	bool failed = false;
	char line[128];
	int len;

	for (size_t i = 0; i < sum->nkinds; i++)
		failed |= sum->kinds[i].failed != 0;
	if (!sum->nkinds)
		return;
	len = snprintf(line, sizeof(line), "OFFERED    RECEIVED   LOST       NO READER  %s%s\n",
		       failed ? "FAILED     " : "",
		       !strcmp(sum->kind_word, "probe") ? "PROBE" : "KIND");
	out_mem(o, line, len);
	for (size_t i = 0; i < sum->nkinds; i++) {
		const struct tv_kind_summary *k = &sum->kinds[i];

		len = snprintf(line, sizeof(line), "%-10llu %-10llu %-10llu %-10llu ",
			       (unsigned long long)k->offered,
			       (unsigned long long)k->received,
			       (unsigned long long)k->lost,
			       (unsigned long long)k->no_reader);
		out_mem(o, line, len);
		if (failed) {
			len = snprintf(line, sizeof(line), "%-10llu ",
				       (unsigned long long)k->failed);
			out_mem(o, line, len);
		}
		out_mem(o, k->name, strlen(k->name));
		out_c(o, '\n');
	}
}

void text_summary_lines(struct outbuf *o, const struct tv_summary *sum)
{
	out_lit(o, "\n");
	out_u64(o, sum->received);
	out_lit(o, " events received: ");
	out_u64(o, sum->printed);
	if (sum->aggregated)
		out_lit(o, " aggregated, ");
	else
		out_lit(o, " printed, ");
	out_u64(o, sum->discarded);
	out_lit(o, " discarded (past -n); ");
	if (sum->unwritten || sum->unwritten_why) {
		const char *why = sum->unwritten_why ? sum->unwritten_why : "output failed";

		out_u64(o, sum->unwritten);
		out_lit(o, " not written: ");
		out_mem(o, why, strlen(why));
		out_lit(o, "; ");
	}
	if (sum->undecoded) {
		out_u64(o, sum->undecoded);
		out_lit(o, " not decoded (wrong size); ");
	}
	out_u64(o, sum->lost);
	out_lit(o, " lost");
	if (sum->nkinds && (sum->no_reader || sum->failed)) {
		out_lit(o, "; never in a ring: ");
		out_u64(o, sum->no_reader);
		out_lit(o, " without a reader, ");
		out_u64(o, sum->failed);
		out_lit(o, " failed");
	}
	out_lit(o, "\nCPU  RECEIVED       LOST\n");
	for (size_t i = 0; i < sum->ncpus; i++) {
		const struct tv_cpu_summary *c = &sum->cpus[i];
		char line[64];
		int len = snprintf(line, sizeof(line), "%-4d %-14llu %llu\n",
				   c->cpu, (unsigned long long)c->received,
				   (unsigned long long)c->lost);

		out_mem(o, line, len);
	}
	text_kind_lines(o, sum);
	if (sum->rings) {
		char line[96];
		int len = snprintf(line, sizeof(line), "ring memory: %llu KiB mapped in %zu rings of %llu KiB\n",
				   sum->ring_bytes >> 10, sum->rings,
				   sum->ring_bytes / sum->rings >> 10);

		out_mem(o, line, len);
	}
}

/* Always to stderr: the output has events only. */
static int text_summary(struct trace_sink *s, const struct tv_summary *sum)
{
	return buf_sink_summary(s, 2, sum, text_summary_lines);
}

static void text_end(struct trace_sink *s)
{
	free(text_of(s)->widths);
	buf_sink_end(s);
}

static const struct trace_sink_ops text_ops = {
	.name = "text",
	.begin = text_begin,
	.event = text_event,
	.lost = text_lost,
	.notice = text_notice,
	.flush = buf_sink_flush,
	.summary = text_summary,
	.end = text_end,
};

struct trace_sink *trace_sink_text_new(const struct trace_sink_opts *o)
{
	struct text_sink *t = buf_sink_new(sizeof(*t), &text_ops, o->fd,
					   text_is_event);

	if (!t)
		return NULL;
	t->o = *o;
	t->tty = isatty(o->fd);
	return &t->b.base;
}
