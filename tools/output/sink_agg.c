// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The aggregation sink (--aggregate): each event into the maps whose
 * names it has (a probe without F or a key is no part of that map, as a
 * bpftrace statement belongs to its probe), the maps printed every
 * --interval (then emptied) and before the summary: bpftrace's text
 * (agg_text.c) or a JSON object per key. Beside each map, what it does
 * not hold: the events lost (per probe when the losses are told apart,
 * else of any probe), those of keys past the limit, those whose F was
 * not a number.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg.h"
#include "perfbuf.h"
#include "common/say.h"

/* A map and where its names are in each probe's fields. */
struct agg_slot {
	struct agg_map *map;
	const struct agg_spec *spec;
	/* [probe][0]: F, [probe][1 + k]: key k; a field's index, -1 for a
	 * builtin; NULL row: the probe lacks one of them */
	int (*idx)[1 + AGG_MAX_KEYS];
	bool *covers;		/* [probe] */
	__u64 no_number;	/* events whose F was not an integer */
};

struct agg_sink {
	struct buf_sink b;	/* first: the shared part */
	struct agg_sink_opts o;
	const struct tv_schema *schema;
	struct agg_slot *slots;
	__u64 next_ns;		/* the next --interval print */
	__u64 lost_in;		/* LOST records' counts (without o.lost) */
	__u64 *lost_seen;	/* [1 + probe]: lost as of the last print */
	const struct tv_summary *end;	/* the summary, while the last print
					 * is made: its lost is the run's */
	/* each key's text, when it is built: a list's, a stack's */
	char scratch[AGG_MAX_KEYS][AGG_STACK_MAX];
};

static struct agg_sink *agg_of(struct trace_sink *s)
{
	return (struct agg_sink *)s;
}

static bool agg_is_event(const char *p, size_t n)
{
	(void)p;
	(void)n;
	return false;	/* no line is an event: the maps are no record of them */
}

/* @name's index in probe @p's fields, -1 when it has none */
static int field_index(const struct tv_probe *p, const char *name)
{
	for (int i = 0; i < p->nfields; i++)
		if (!strcmp(p->names[i], name))
			return i;
	return -1;
}

/* @name is no probe's: said with where names come from; -EINVAL */
static int no_field(const struct agg_sink *g, const struct agg_spec *s, const char *name)
{
	char fields[512] = "";
	size_t n = 0;

	if (!g->o.own_records) {
		cli_say(g->o.prog, "--aggregate '%s': no probe has a field '%s' (perfbuf list -v PROBE shows their fields; builtins: comm pid tid cpu probe kstack ustack)\n",
			s->text, name);
		return -EINVAL;
	}
	/* each map's records' fields, in their order (a name once) */
	for (int p = 0; p < g->schema->nprobes; p++)
		for (int i = 0; i < g->schema->probes[p].nfields && n < sizeof(fields); i++) {
			const char *f = g->schema->probes[p].names[i];
			bool seen = false;

			for (int q = 0; q < p && !seen; q++)
				seen = field_index(&g->schema->probes[q], f) >= 0;
			if (!seen)
				n += (size_t)snprintf(fields + n, sizeof(fields) - n, "%s%s",
						      n ? " " : "", f);
		}
	cli_say(g->o.prog, "--aggregate '%s': no record has a field '%s' (the records' fields: %s; also cpu, and probe: the map)\n",
		s->text, name, n ? fields : "none");
	return -EINVAL;
}

/* Where slot @a's names are in each probe; -EINVAL (said) when a field is
 * no probe's */
static int resolve(struct agg_sink *g, struct agg_slot *a)
{
	const struct agg_spec *s = a->spec;
	int nrefs = 1 + s->nkeys;

	for (int r = s->fn == AGG_COUNT ? 1 : 0; r < nrefs; r++) {
		const struct agg_ref *ref = r ? &s->keys[r - 1] : &s->val;
		bool found = ref->b != AGG_B_FIELD;

		for (int p = 0; p < g->schema->nprobes; p++) {
			int i = ref->b == AGG_B_FIELD ?
				field_index(&g->schema->probes[p], ref->name) : -1;

			a->idx[p][r] = i;
			found |= i >= 0;
			if (ref->b == AGG_B_FIELD && i < 0)
				a->covers[p] = false;
		}
		if (!found)
			return no_field(g, s, ref->name);
	}
	return 0;
}

static int agg_begin(struct trace_sink *s, const struct tv_schema *schema)
{
	struct agg_sink *g = agg_of(s);
	int np = schema->nprobes ? schema->nprobes : 1, err;

	g->schema = schema;
	g->lost_seen = calloc((size_t)np + 1, sizeof(*g->lost_seen));
	if (!g->lost_seen)
		return -ENOMEM;
	for (int i = 0; i < g->o.nspecs; i++) {
		struct agg_slot *a = &g->slots[i];

		a->spec = &g->o.specs[i];
		a->map = agg_map__new(a->spec, g->o.max_keys);
		a->idx = calloc((size_t)np, sizeof(*a->idx));
		a->covers = malloc((size_t)np * sizeof(*a->covers));
		if (!a->map || !a->idx || !a->covers)
			return -ENOMEM;
		memset(a->covers, 1, (size_t)np * sizeof(*a->covers));
		err = resolve(g, a);
		if (err)
			return err;
	}
	if (g->o.interval_ms)
		g->next_ns = perfbuf_now_ns() + (__u64)g->o.interval_ms * 1000000ULL;
	return 0;
}

/* Field @idx of @e (fields the record does not hold are left out) */
static const struct tv_field *field_at(const struct tv_event *e, int idx)
{
	if (idx < e->nfields && e->fields[idx].idx == idx)
		return &e->fields[idx];
	for (int k = 0; k < e->nfields; k++)
		if (e->fields[k].idx == idx)
			return &e->fields[k];
	return NULL;
}

/* A list (execve's argv) as one key: its strings, a space between */
static void strs_part(char *buf, const struct tv_field *f, struct agg_part *p)
{
	size_t n = 0;

	for (size_t i = 0; i < f->len; i++) {
		size_t len = f->strs[i].len;

		if (n + len + 1 > AGG_STR_MAX)
			len = AGG_STR_MAX - n - 1;
		if (i && n < AGG_STR_MAX)
			buf[n++] = ' ';
		memcpy(buf + n, f->strs[i].data, len);
		n += len;
		if (n + 1 >= AGG_STR_MAX)
			break;
	}
	p->kind = AGG_K_STR;
	p->s = buf;
	p->len = n;
}

/* A stack as one key: its frames' names, leaf first, each ended by a
 * newline; one that does not fit ends in a "..." frame, never cut in a
 * name */
static void stack_part(char *buf, const char *const *frames, int n, struct agg_part *p)
{
	size_t len = 0;

	for (int i = 0; frames && i < n; i++) {
		size_t k = strlen(frames[i]);

		if (len + k + 1 > AGG_STACK_MAX - 4) {
			memcpy(buf + len, "...\n", 4);
			len += 4;
			break;
		}
		memcpy(buf + len, frames[i], k);
		buf[len + k] = '\n';
		len += k + 1;
	}
	p->kind = AGG_K_STACK;
	p->s = buf;
	p->len = len;
}

/* A JSON value as a key (run's enums, bools, structs): a string without
 * escapes by its text, as a name prints, an integer as a number, the
 * rest (true, an object, a string with an escape in it) by its JSON
 * text, quotes and escapes as they are */
static void json_part(const struct tv_field *f, struct agg_part *p)
{
	const char *s = f->data;
	size_t n = f->len;
	char num[24], *end;

	if (n >= 2 && s[0] == '"' && s[n - 1] == '"' && !memchr(s, '\\', n)) {
		p->s = s + 1;
		p->len = n - 2;
		return;
	}
	if (n && n < sizeof(num)) {
		memcpy(num, s, n);
		num[n] = '\0';
		errno = 0;
		p->v = num[0] == '-' ? (__u64)strtoll(num, &end, 10) : strtoull(num, &end, 10);
		if (!errno && end != num && !*end)
			p->kind = num[0] == '-' ? AGG_K_S : AGG_K_U;
	}
}

/* Field @f as a key part: integers as numbers, addresses in hex, the
 * rest by its bytes */
static void field_part(char *buf, const struct tv_field *f, struct agg_part *p)
{
	p->v = f->u;
	p->kind = AGG_K_STR;
	p->s = f->data;
	p->len = f->len;
	switch (f->type) {
	case TV_INT:
		p->kind = f->is_signed ? AGG_K_S : AGG_K_U;
		break;
	case TV_PTR:
		p->kind = AGG_K_HEX;
		break;
	case TV_STRS:
		strs_part(buf, f, p);
		break;
	case TV_JSON:
		json_part(f, p);
		break;
	default:	/* TV_STR, TV_BYTES, TV_ARRAY */
		break;
	}
}

/* Key part of @ref for @e, its text (when built) in @buf: false when
 * the event lacks the field */
static bool key_part(char *buf, const struct agg_ref *ref, int idx,
		     const struct tv_event *e, struct agg_part *p)
{
	const struct tv_field *f;

	memset(p, 0, sizeof(*p));
	switch (ref->b) {
	case AGG_B_KSTACK:
		stack_part(buf, e->kstack, e->nkstack, p);
		return true;
	case AGG_B_USTACK:
		stack_part(buf, e->ustack, e->nustack, p);
		return true;
	case AGG_B_COMM:
		p->kind = AGG_K_STR;
		p->s = e->comm;
		p->len = e->comm_len;
		return true;
	case AGG_B_PID:
	case AGG_B_TID:
		p->v = ref->b == AGG_B_PID ? e->pid : e->tid;
		return true;
	case AGG_B_CPU:
		p->v = (__u64)e->cpu;
		return true;
	case AGG_B_PROBE:
		p->kind = AGG_K_STR;
		p->s = e->probe->spec;
		p->len = strlen(e->probe->spec);
		return true;
	default:
		f = field_at(e, idx);
		if (f)
			field_part(buf, f, p);
		return f;
	}
}

/* F of @e: false when it is not an integer (or missing) */
static bool value_of(const struct agg_slot *a, const int *idx, const struct tv_event *e,
		     __u64 *v, bool *sgn)
{
	const struct agg_ref *ref = &a->spec->val;
	const struct tv_field *f;

	*sgn = false;
	switch (ref->b) {
	case AGG_B_FIELD:
		f = field_at(e, idx[0]);
		if (!f || (f->type != TV_INT && f->type != TV_PTR))
			return false;
		*v = f->u;
		*sgn = f->type == TV_INT && f->is_signed;
		return true;
	case AGG_B_PID:
		*v = e->pid;
		return true;
	case AGG_B_TID:
		*v = e->tid;
		return true;
	case AGG_B_CPU:
		*v = (__u64)e->cpu;
		return true;
	default:	/* comm, probe: no number */
		return false;
	}
}

static void agg_slot_event(struct agg_sink *g, struct agg_slot *a, const struct tv_event *e)
{
	const int *idx = a->idx[e->probe->id];
	struct agg_part parts[AGG_MAX_KEYS];
	__u64 v = 0;
	bool sgn = false;
	int err;

	if (a->spec->fn != AGG_COUNT && !value_of(a, idx, e, &v, &sgn)) {
		a->no_number++;
		return;
	}
	for (int k = 0; k < a->spec->nkeys; k++)
		if (!key_part(g->scratch[k], &a->spec->keys[k], idx[1 + k], e, &parts[k])) {
			a->no_number++;
			return;
		}
	err = agg_map__update(a->map, parts, v, sgn);
	if (err > 0)
		cli_say(g->o.prog, "--aggregate '%s': %zu keys, the limit: events of further keys are counted apart (--aggregate-keys N raises it)\n",
			a->spec->text, agg_map__nkeys(a->map));
	else if (err < 0)
		cli_say(g->o.prog, "--aggregate '%s': out of memory at %zu keys: events of further keys are counted apart\n",
			a->spec->text, agg_map__nkeys(a->map));
}

static void agg_event(struct trace_sink *s, const struct tv_event *e)
{
	struct agg_sink *g = agg_of(s);

	for (int i = 0; i < g->o.nspecs; i++)
		if (g->slots[i].covers[e->probe->id])
			agg_slot_event(g, &g->slots[i], e);
}

/* Losses and CPU changes: on stderr (the output holds the maps) */
static void agg_lost(struct trace_sink *s, const struct tv_lost *l)
{
	agg_of(s)->lost_in += l->count;
	fprintf(stderr, "lost %llu events on CPU #%d\n", (unsigned long long)l->count, l->cpu);
}

static void agg_notice(struct trace_sink *s, const struct tv_notice *n)
{
	(void)s;
	fprintf(stderr, "CPU %d %s\n", n->cpu,
		n->kind == TV_CPU_ONLINE ? "came online: traced" : "went offline");
}

/* Events of slot @a's probes lost since the last print, into *@n: false
 * when they are of any probe (not told apart) */
static bool lost_of(struct agg_sink *g, const struct agg_slot *a, __u64 *n)
{
	__u64 c, sum = 0;

	if (!g->o.lost) {
		*n = g->lost_in;
		return false;
	}
	for (int p = 0; p < g->schema->nprobes; p++) {
		if (!a->covers[p])
			continue;
		if (g->o.lost(g->o.ctx, p, &c))
			goto any;
		sum += c - g->lost_seen[1 + p];
	}
	*n = sum;
	return true;
any:
	if (g->end)
		c = g->end->lost;
	else if (g->o.lost(g->o.ctx, -1, &c))
		c = g->lost_seen[0];
	*n = c > g->lost_seen[0] ? c - g->lost_seen[0] : 0;
	return false;
}

/* What the losses are at this print, for the next one's differences */
static void lost_mark(struct agg_sink *g)
{
	__u64 c;

	if (!g->o.lost) {
		g->lost_seen[0] += g->lost_in;	/* the run's, as of now */
		g->lost_in = 0;
		return;
	}
	for (int p = -1; p < g->schema->nprobes; p++)
		if (!g->o.lost(g->o.ctx, p, &c))
			g->lost_seen[1 + p] = c;
}

/* "# @: 12 events of its probes lost": what the map above misses */
static void text_notes(struct agg_sink *g, const struct agg_slot *a)
{
	struct outbuf *o = &g->b.ob;
	char line[256];
	int len;
	__u64 lost;
	bool mine = lost_of(g, a, &lost);

	if (lost) {
		len = snprintf(line, sizeof(line), "# %s: %llu events %s lost: not counted above\n",
			       a->spec->name, (unsigned long long)lost,
			       mine ? "of its probes" : "(of any probe)");
		out_mem(o, line, (size_t)len);
	}
	if (agg_map__other(a->map)) {
		len = snprintf(line, sizeof(line), "# %s: %llu events of keys past the limit of %zu (--aggregate-keys): not shown above\n",
			       a->spec->name, (unsigned long long)agg_map__other(a->map),
			       g->o.max_keys);
		out_mem(o, line, (size_t)len);
	}
	if (a->no_number) {
		len = snprintf(line, sizeof(line), "# %s: %llu events without %s%s: not counted above\n",
			       a->spec->name, (unsigned long long)a->no_number,
			       a->spec->fn == AGG_COUNT ? "a key" : "an integer ",
			       a->spec->fn == AGG_COUNT ? "" : a->spec->val.name);
		out_mem(o, line, (size_t)len);
	}
}

/* {"type":"aggregate","time_ns":T,"map":"@","expr":"count() by comm", */
static void json_head(struct agg_sink *g, const struct agg_slot *a, const char *type,
		      __u64 now)
{
	struct outbuf *o = &g->b.ob;

	out_lit(o, "{\"type\":");
	out_json_str(o, type, strlen(type));
	out_lit(o, ",\"time_ns\":");
	out_int(o, trace_clock_ns(&g->o.clock, now), false, true);
	out_lit(o, ",\"map\":");
	out_json_str(o, a->spec->name, strlen(a->spec->name));
	out_lit(o, ",\"expr\":");
	out_json_str(o, a->spec->text, strlen(a->spec->text));
	out_c(o, ',');
}

/* ,"value":N or ,"count":N,"buckets":[...] */
static void json_value(struct agg_sink *g, const struct agg_slot *a, const struct agg_entry *e)
{
	struct outbuf *o = &g->b.ob;
	bool sgn;
	__u64 v = agg_entry__value(e, a->map, &sgn);

	if (a->spec->fn == AGG_HIST || a->spec->fn == AGG_LHIST) {
		out_lit(o, ",\"count\":");
		out_int(o, agg_entry__count(e), false, true);
		out_lit(o, ",\"buckets\":");
		agg_json_buckets(o, a->map, e);
		return;
	}
	out_lit(o, ",\"value\":");
	out_int(o, v, sgn, true);
	if (a->spec->fn == AGG_AVG) {
		out_lit(o, ",\"count\":");
		out_int(o, agg_entry__count(e), false, true);
	}
}

/* A JSON object per key, then one for what the map does not hold */
static void json_map(struct agg_sink *g, const struct agg_slot *a, __u64 now)
{
	const struct agg_entry **v = agg_map__sorted(a->map);
	struct outbuf *o = &g->b.ob;
	__u64 lost;
	bool mine = lost_of(g, a, &lost);

	for (size_t i = 0; v && i < agg_map__nkeys(a->map); i++) {
		json_head(g, a, "aggregate", now);
		out_lit(o, "\"key\":{");
		agg_json_key(o, a->map, v[i]);
		out_c(o, '}');
		json_value(g, a, v[i]);
		out_lit(o, "}\n");
	}
	free(v);
	if (!lost && !agg_map__other(a->map) && !a->no_number)
		return;
	json_head(g, a, "aggregate_missing", now);
	out_lit(o, "\"lost\":");
	out_int(o, lost, false, true);
	if (mine)
		out_lit(o, ",\"lost_of\":\"probe\"");
	else
		out_lit(o, ",\"lost_of\":\"any\"");
	out_lit(o, ",\"past_key_limit\":");
	out_int(o, agg_map__other(a->map), false, true);
	out_lit(o, ",\"no_value\":");
	out_int(o, a->no_number, false, true);
	out_lit(o, "}\n");
}

/* Every map, then emptied; --interval's prints start with the time of
 * day, as bpftrace's time() */
static void print_maps(struct agg_sink *g, bool final)
{
	struct outbuf *o = &g->b.ob;
	__u64 now = perfbuf_now_ns();

	if (!g->o.json && g->o.interval_ms && !final) {
		char line[32];
		time_t t = time(NULL);
		struct tm tm;

		out_mem(o, line, strftime(line, sizeof(line), "%H:%M:%S\n", localtime_r(&t, &tm)));
	}
	for (int i = 0; i < g->o.nspecs; i++) {
		struct agg_slot *a = &g->slots[i];

		if (g->o.json) {
			json_map(g, a, now);
		} else {
			agg_text_map(o, a->map);
			text_notes(g, a);
		}
		agg_map__reset(a->map);
		a->no_number = 0;
	}
	lost_mark(g);
	g->b.base.err = o->err;
}

/* Every poll round: the maps out when an interval is over */
static int agg_flush(struct trace_sink *s)
{
	struct agg_sink *g = agg_of(s);
	__u64 now;

	if (g->next_ns && (now = perfbuf_now_ns()) >= g->next_ns) {
		print_maps(g, false);
		g->next_ns += (__u64)g->o.interval_ms * 1000000ULL;
		if (g->next_ns < now)
			g->next_ns = now + (__u64)g->o.interval_ms * 1000000ULL;
	}
	return buf_sink_flush(s);
}

/* The maps to the output, then the summary (text: on stderr) */
static int agg_summary(struct trace_sink *s, const struct tv_summary *sum)
{
	struct agg_sink *g = agg_of(s);
	struct tv_summary as = *sum;
	int err, werr;

	as.aggregated = true;
	g->end = sum;
	if (!g->o.lost)
		g->lost_in = sum->lost > g->lost_seen[0] ? sum->lost - g->lost_seen[0] : 0;
	print_maps(g, true);
	g->end = NULL;
	err = buf_sink_flush(s);
	if (g->o.json)
		werr = buf_sink_summary(s, sum->output_failed || err ? 2 : -1, &as,
					json_summary_line);
	else
		werr = buf_sink_summary(s, 2, &as, text_summary_lines);
	return err ?: werr;
}

static void agg_end(struct trace_sink *s)
{
	struct agg_sink *g = agg_of(s);

	for (int i = 0; g->slots && i < g->o.nspecs; i++) {
		agg_map__free(g->slots[i].map);
		free(g->slots[i].idx);
		free(g->slots[i].covers);
	}
	free(g->slots);
	free(g->lost_seen);
	buf_sink_end(s);
}

static const struct trace_sink_ops agg_ops = {
	.name = "aggregate",
	.begin = agg_begin,
	.event = agg_event,
	.lost = agg_lost,
	.notice = agg_notice,
	.flush = agg_flush,
	.summary = agg_summary,
	.end = agg_end,
};

struct trace_sink *trace_sink_agg_new(const struct agg_sink_opts *o)
{
	struct agg_sink *g = buf_sink_new(sizeof(*g), &agg_ops, o->fd, agg_is_event);

	if (!g)
		return NULL;
	g->o = *o;
	if (!g->o.max_keys)
		g->o.max_keys = AGG_DEFAULT_KEYS;
	g->slots = calloc(o->nspecs ? (size_t)o->nspecs : 1, sizeof(*g->slots));
	if (!g->slots) {
		buf_sink_end(&g->b.base);
		errno = ENOMEM;
		return NULL;
	}
	return &g->b.base;
}
