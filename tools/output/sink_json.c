// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The JSON Lines sink: one object per line, each with a "type": event,
 * lost, cpu, summary. Every field is written (the text sink hides some),
 * pointers and byte strings as JSON strings. The probes' and fields'
 * names are escaped once, at begin, not per event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "sink.h"

struct json_probe {
	char *head;		/* ,"probe":"spec","args":{ */
	char **keys;		/* "name": per field */
	int nkeys;
};

struct json_sink {
	struct buf_sink b;	/* first: the shared part */
	struct trace_clock clock;	/* time_ns per --time */
	bool no_kstack, no_ustack;	/* trace_sink_opts' */
	struct json_probe *probes;
	int nprobes;
};

static struct json_sink *json_of(struct trace_sink *s)
{
	return (struct json_sink *)s;
}

static bool json_is_event(const char *p, size_t n)
{
	static const char ev[] = "{\"type\":\"event\"";

	return n >= sizeof(ev) - 1 && !memcmp(p, ev, sizeof(ev) - 1);
}

/* "time_ns": on the --time clock; wall time (past 2^53 ns) a string */
static void json_time(struct trace_sink *s, __u64 mono_ns)
{
	struct json_sink *j = json_of(s);

	out_int(&j->b.ob, trace_clock_ns(&j->clock, mono_ns), false, true);
}

static void json_free_probes(struct json_sink *j)
{
	for (int i = 0; i < j->nprobes; i++) {
		for (int k = 0; k < j->probes[i].nkeys; k++)
			free(j->probes[i].keys[k]);
		free(j->probes[i].keys);
		free(j->probes[i].head);
	}
	free(j->probes);
	j->probes = NULL;
	j->nprobes = 0;
}

static int json_begin(struct trace_sink *s, const struct tv_schema *schema)
{
	struct json_sink *j = json_of(s);

	json_free_probes(j);
	j->probes = calloc(schema->nprobes ? schema->nprobes : 1,
			   sizeof(*j->probes));
	if (!j->probes)
		return -ENOMEM;
	j->nprobes = schema->nprobes;
	for (int i = 0; i < schema->nprobes; i++) {
		const struct tv_probe *p = &schema->probes[i];
		struct json_probe *jp = &j->probes[i];

		jp->head = out_render_json(&j->b.ob, ",\"probe\":", p->spec,
					   ",\"args\":{");
		jp->keys = calloc(p->nfields ? p->nfields : 1, sizeof(char *));
		if (!jp->head || !jp->keys)
			return -ENOMEM;
		for (; jp->nkeys < p->nfields; jp->nkeys++) {
			jp->keys[jp->nkeys] = out_render_json(&j->b.ob, "",
							      p->names[jp->nkeys], ":");
			if (!jp->keys[jp->nkeys])
				return -ENOMEM;
		}
	}
	return 0;
}

/* ["a","b",null]: null for an element that could not be read */
static void json_strs(struct outbuf *o, const struct tv_field *f)
{
	out_c(o, '[');
	for (size_t i = 0; i < f->len; i++) {
		if (i)
			out_c(o, ',');
		if (f->strs[i].flags & TV_F_UNREAD)
			out_lit(o, "null");
		else
			out_json_str(o, f->strs[i].data, f->strs[i].len);
	}
	out_c(o, ']');
}

static void json_value(struct outbuf *o, const struct tv_field *f)
{
	char buf[64];
	size_t n = tv_addr_text(f, buf, sizeof(buf));

	if (n) {	/* an address: "127.0.0.1", "[::1]:80" */
		out_json_str(o, buf, n);
		return;
	}
	if (out_number(o, f, true))
		return;
	switch (f->type) {
	case TV_PTR:	/* an unreadable string: null, its address in "unreadable" */
		if (f->flags & TV_F_UNREAD) {
			out_lit(o, "null");
			break;
		}
		out_c(o, '"');
		out_hex(o, f->u);
		out_c(o, '"');
		break;
	case TV_STR:
		out_json_str(o, f->data, f->len);
		break;
	case TV_BYTES:
		out_c(o, '"');
		out_hexbytes(o, f->data, f->len);
		out_c(o, '"');
		break;
	case TV_STRS:
		json_strs(o, f);
		break;
	case TV_JSON:
		out_mem(o, f->data, f->len);
		break;
	}
}

/* ,"names":{"newstate":"TCP_ESTABLISHED","flags":"A|B"}: the names the
 * format file gives the values of fields (__print_symbolic/_flags),
 * beside their numbers in "args"; nothing when none has one. */
static void json_names(struct outbuf *o, const struct json_probe *jp,
		       const struct tv_event *e)
{
	bool first = true;
	char buf[256];
	size_t n;

	for (int i = 0; i < e->nfields; i++) {
		const struct tv_field *f = &e->fields[i];
		const char *key = jp->keys[f->idx];

		if (!(n = tv_names_text(f, buf, sizeof(buf))))
			continue;
		if (first)
			out_lit(o, ",\"names\":{");
		else
			out_c(o, ',');
		first = false;
		out_mem(o, key, strlen(key));
		out_json_str(o, buf, n);
	}
	if (!first)
		out_c(o, '}');
}

/* One name of the "cut" list: the field's key ("name":) as a string,
 * with [k] for element @k of a list (-1: the field itself). */
static void json_cut_name(struct outbuf *o, bool *first, const char *key,
			  long k)
{
	if (*first)
		out_lit(o, ",\"cut\":[");
	else
		out_c(o, ',');
	*first = false;
	out_mem(o, key, strlen(key) - 2);	/* "name, without its ": */
	if (k >= 0) {
		out_c(o, '[');
		out_u64(o, k);
		out_c(o, ']');
	}
	out_c(o, '"');
}

/* ,"cut":["filename","argv[4]"]: the arguments longer than what was read
 * (--string-size), after "args"; nothing when none was. */
static void json_cuts(struct outbuf *o, const struct json_probe *jp,
		      const struct tv_event *e)
{
	bool first = true;

	for (int i = 0; i < e->nfields; i++) {
		const struct tv_field *f = &e->fields[i];
		const char *key = jp->keys[f->idx];

		for (size_t k = 0; f->type == TV_STRS && k < f->len; k++)
			if (f->strs[k].flags & TV_F_CUT)
				json_cut_name(o, &first, key, k);
		if (f->flags & TV_F_CUT)
			json_cut_name(o, &first, key, -1);
	}
	if (!first)
		out_c(o, ']');
}

/* ,"unreadable":{"filename":"0x1"}: the addresses of the strings BPF
 * could not read (null in "args": an address there would read like a
 * name), after "args"; nothing when every one was read. */
static void json_unreadable(struct outbuf *o, const struct json_probe *jp,
			    const struct tv_event *e)
{
	bool first = true;

	for (int i = 0; i < e->nfields; i++) {
		const struct tv_field *f = &e->fields[i];
		const char *key = jp->keys[f->idx];

		if (f->type != TV_PTR || !(f->flags & TV_F_UNREAD))
			continue;
		if (first)
			out_lit(o, ",\"unreadable\":{");
		else
			out_c(o, ',');
		first = false;
		out_mem(o, key, strlen(key));
		out_c(o, '"');
		out_hex(o, f->u);
		out_c(o, '"');
	}
	if (!first)
		out_c(o, '}');
}

/* --kstack/--ustack: ["leaf", ..., "root"] */
static void json_frames(struct outbuf *o, const char *const *frames, int n)
{
	out_c(o, '[');
	for (int i = 0; i < n; i++) {
		if (i)
			out_c(o, ',');
		out_json_str(o, frames[i], strlen(frames[i]));
	}
	out_c(o, ']');
}

static void json_event(struct trace_sink *s, const struct tv_event *e)
{
	struct json_sink *j = json_of(s);
	const struct json_probe *jp = &j->probes[e->probe->id];
	struct outbuf *o = &j->b.ob;

	outbuf_event(o);
	out_lit(o, "{\"type\":\"event\",\"time_ns\":");
	json_time(s, e->time_ns);
	out_lit(o, ",\"cpu\":");
	out_s64(o, e->cpu);
	if (e->late)
		out_lit(o, ",\"late\":true");
	if (!e->probe->typed) {
		out_lit(o, ",\"pid\":");
		out_u64(o, e->pid);
		out_lit(o, ",\"tid\":");
		out_u64(o, e->tid);
		out_lit(o, ",\"comm\":");
		out_json_str(o, e->comm, e->comm_len);
	}
	out_mem(o, jp->head, strlen(jp->head));
	for (int i = 0; i < e->nfields; i++) {
		const char *key = jp->keys[e->fields[i].idx];

		if (i)
			out_c(o, ',');
		out_mem(o, key, strlen(key));
		json_value(o, &e->fields[i]);
	}
	out_c(o, '}');
	json_names(o, jp, e);
	json_cuts(o, jp, e);
	json_unreadable(o, jp, e);
	if (e->kstack && !j->no_kstack) {
		out_lit(o, ",\"kstack\":");
		json_frames(o, e->kstack, e->nkstack);
	}
	if (e->ustack && !j->no_ustack) {
		out_lit(o, ",\"ustack\":");
		json_frames(o, e->ustack, e->nustack);
	}
	out_lit(o, "}\n");
	s->err = o->err;	/* a full buffer is written on the way */
}

static void json_lost(struct trace_sink *s, const struct tv_lost *l)
{
	struct outbuf *o = &json_of(s)->b.ob;

	out_lit(o, "{\"type\":\"lost\",");
	if (l->time_ns) {
		out_lit(o, "\"time_ns\":");
		json_time(s, l->time_ns);
		out_c(o, ',');
	}
	out_lit(o, "\"cpu\":");
	out_s64(o, l->cpu);
	out_lit(o, ",\"count\":");
	out_int(o, l->count, false, true);
	out_lit(o, "}\n");
	s->err = o->err;
}

static void json_notice(struct trace_sink *s, const struct tv_notice *n)
{
	struct outbuf *o = &json_of(s)->b.ob;

	out_lit(o, "{\"type\":\"cpu\",\"time_ns\":");
	json_time(s, n->time_ns);
	out_lit(o, ",\"cpu\":");
	out_s64(o, n->cpu);
	if (n->kind == TV_CPU_ONLINE)
		out_lit(o, ",\"online\":true}\n");
	else
		out_lit(o, ",\"online\":false}\n");
	s->err = o->err;
}

/* A field ,"NAME":V */
static void json_u64_field(struct outbuf *o, const char *name, __u64 v)
{
	out_lit(o, ",\"");
	out_mem(o, name, strlen(name));
	out_lit(o, "\":");
	out_int(o, v, false, true);
}

/* The ledger: ,"no_reader":N,"failed":N,"probes":[{"probe":NAME,
 * "offered":N,...}] (kind_word "probe"); ,"ledger_mismatch":N when the
 * two sides disagreed on some CPU */
static void json_kinds(struct outbuf *o, const struct tv_summary *sum)
{
	const char *w = sum->kind_word;

	if (!sum->nkinds)
		return;
	json_u64_field(o, "no_reader", sum->no_reader);
	json_u64_field(o, "failed", sum->failed);
	if (sum->ledger_mismatch)
		json_u64_field(o, "ledger_mismatch", (__u64)sum->ledger_mismatch);
	out_lit(o, ",\"");
	out_mem(o, w, strlen(w));
	out_lit(o, "s\":[");
	for (size_t i = 0; i < sum->nkinds; i++) {
		const struct tv_kind_summary *k = &sum->kinds[i];

		if (i)
			out_c(o, ',');
		out_lit(o, "{\"");
		out_mem(o, w, strlen(w));
		out_lit(o, "\":");
		out_json_str(o, k->name, strlen(k->name));
		json_u64_field(o, "offered", k->offered);
		json_u64_field(o, "received", k->received);
		json_u64_field(o, "lost", k->lost);
		json_u64_field(o, "no_reader", k->no_reader);
		json_u64_field(o, "failed", k->failed);
		out_c(o, '}');
	}
	out_c(o, ']');
}

void json_summary_line(struct outbuf *o, const struct tv_summary *sum)
{
	out_lit(o, "{\"type\":\"summary\",\"received\":");
	out_int(o, sum->received, false, true);
	out_lit(o, ",\"printed\":");
	out_int(o, sum->printed, false, true);
	out_lit(o, ",\"discarded\":");
	out_int(o, sum->discarded, false, true);
	if (sum->unwritten || sum->unwritten_why) {
		const char *why = sum->unwritten_why ? sum->unwritten_why : "output failed";

		out_lit(o, ",\"not_written\":");
		out_int(o, sum->unwritten, false, true);
		out_lit(o, ",\"output_error\":");
		out_json_str(o, why, strlen(why));
	}
	if (sum->undecoded) {
		out_lit(o, ",\"undecoded\":");
		out_int(o, sum->undecoded, false, true);
	}
	out_lit(o, ",\"lost\":");
	out_int(o, sum->lost, false, true);
	out_lit(o, ",\"per_cpu\":[");
	for (size_t i = 0; i < sum->ncpus; i++) {
		if (i)
			out_c(o, ',');
		out_lit(o, "{\"cpu\":");
		out_s64(o, sum->cpus[i].cpu);
		out_lit(o, ",\"received\":");
		out_int(o, sum->cpus[i].received, false, true);
		out_lit(o, ",\"lost\":");
		out_int(o, sum->cpus[i].lost, false, true);
		out_c(o, '}');
	}
	out_c(o, ']');
	json_kinds(o, sum);
	if (sum->rings) {
		out_lit(o, ",\"ring_bytes\":");
		out_int(o, sum->ring_bytes, false, true);
		out_lit(o, ",\"rings\":");
		out_int(o, sum->rings, false, true);
	}
	out_lit(o, "}\n");
}

/* To the output, or to stderr when the output failed. */
static int json_summary(struct trace_sink *s, const struct tv_summary *sum)
{
	return buf_sink_summary(s, sum->output_failed ? 2 : -1, sum,
				json_summary_line);
}

static void json_end(struct trace_sink *s)
{
	struct json_sink *j = json_of(s);

	json_free_probes(j);
	buf_sink_end(s);
}

static const struct trace_sink_ops json_ops = {
	.name = "json",
	.begin = json_begin,
	.event = json_event,
	.lost = json_lost,
	.notice = json_notice,
	.flush = buf_sink_flush,
	.summary = json_summary,
	.end = json_end,
};

const char *trace_sink_json_line(struct trace_sink *s, enum trace_line kind,
				 const void *v, size_t *len)
{
	struct outbuf *o = &json_of(s)->b.ob;

	o->len = 0;
	switch (kind) {
	case TRACE_LINE_EVENT:
		json_event(s, v);
		break;
	case TRACE_LINE_LOST:
		json_lost(s, v);
		break;
	case TRACE_LINE_NOTICE:
		json_notice(s, v);
		break;
	default:
		json_summary_line(o, v);
		break;
	}
	o->ev_buffered = 0;
	*len = o->len;
	o->len = 0;	/* the bytes stay until the next line */
	return o->buf;
}

struct trace_sink *trace_sink_json_new(const struct trace_sink_opts *o)
{
	struct json_sink *j = buf_sink_new(sizeof(*j), &json_ops, o->fd,
					   json_is_event);

	if (!j)
		return NULL;
	j->clock = o->clock;
	j->no_kstack = o->no_kstack;
	j->no_ustack = o->no_ustack;
	return &j->b.base;
}
