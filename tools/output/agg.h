/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --aggregate (trace, report): bpftrace's maps, kept in userspace over
 * the exact stream of decoded events (values.h).
 *   agg_parse.c  an expression, "hist(count) by comm,pid", into a spec
 *   agg.c        a map: its keys (any fields of an event), its values,
 *                bounded by a key limit; sorted as bpftrace sorts them
 *   agg_text.c   a map as bpftrace prints it (hist and lhist bars too)
 *   sink_agg.c   the sink that feeds the maps and prints them at the end
 *                and every --interval, text or JSON
 * Nothing here knows BPF or the rings: the maps are fed by the same
 * values the text and JSON sinks print.
 */
#ifndef PERFBUF_OUTPUT_AGG_H
#define PERFBUF_OUTPUT_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "buf.h"
#include "values.h"

enum agg_fn { AGG_COUNT, AGG_SUM, AGG_MIN, AGG_MAX, AGG_AVG, AGG_HIST, AGG_LHIST };

#define AGG_MAX_KEYS	8	/* by K1,...,K8 */
#define AGG_NAME_MAX	32
#define AGG_LHIST_MAX	1000	/* buckets between MIN and MAX, as bpftrace */
#define AGG_HIST_SLOTS	66	/* < 0, 0, then [2^k, 2^(k+1)) for k 0..63 */
#define AGG_DEFAULT_KEYS 10000
#define AGG_MAX_MAPS	16	/* --aggregate options of a command */

/* The names of an event's own values a key or F may be, besides its
 * fields: the task's and CPU's, as in --filter, and the probe; the
 * stacks, keys only (they turn on --kstack, --ustack). */
enum agg_builtin {
	AGG_B_FIELD,	/* a field of the probe, by name */
	AGG_B_COMM, AGG_B_PID, AGG_B_TID, AGG_B_CPU, AGG_B_PROBE,
	AGG_B_KSTACK, AGG_B_USTACK,
};

/* A name in an expression: a builtin, or a field looked up by name in
 * each probe (sink_agg.c resolves it against the schema). */
struct agg_ref {
	enum agg_builtin b;
	char *name;		/* as written, "args." or "args->" taken off */
};

/* One --aggregate, parsed. */
struct agg_spec {
	const char *text;	/* as given: messages, JSON's "expr" */
	char name[AGG_NAME_MAX];	/* "@", "@count", "@lat": the map's */
	bool named;		/* "@NAME = ..." given */
	enum agg_fn fn;
	struct agg_ref val;	/* F; unused for count() */
	long long min, max, step;	/* lhist */
	int nkeys;
	struct agg_ref keys[AGG_MAX_KEYS];
};

/* @text into @s: 0, or -EINVAL with a line on stderr starting with
 * @prog that says what is wrong and what to write. */
int agg_spec_parse(const char *prog, const char *text, struct agg_spec *s);
void agg_spec_free(struct agg_spec *s);
/* One more --aggregate @text into @v[*@n] (AGG_MAX_MAPS of them at most):
 * 0, or -EINVAL (said, @prog first). Every command's --aggregate. */
int agg_specs_add(const char *prog, struct agg_spec *v, int *n, const char *text);
/* comm, pid and tid as fields of those names, for events without a task
 * (perfbuf run's records: their own fields) */
void agg_spec_task_as_fields(struct agg_spec *s);
/* Does @s have a key of builtin @b (AGG_B_KSTACK: the programs must
 * take kernel stacks)? */
bool agg_spec_has_key(const struct agg_spec *s, enum agg_builtin b);
/* The maps' names: "@" for a lone unnamed one (bpftrace's @[comm] =
 * count()), else its function's, "@count", "@hist", numbered on repeats
 * ("@count_2"). -EINVAL (said) when two have one name. */
int agg_specs_name(const char *prog, struct agg_spec *s, int n);

/* ---- agg.c: a map ---------------------------------------------------- */

/* A key's parts, as agg_map__update() takes them. */
enum agg_kind { AGG_K_U, AGG_K_S, AGG_K_HEX, AGG_K_STR, AGG_K_STACK };

#define AGG_STR_MAX	4096	/* bytes of a string key kept */
#define AGG_STACK_MAX	16384	/* of a stack key: its frames' names */

struct agg_part {
	enum agg_kind kind;
	__u64 v;		/* AGG_K_U, _S (as __s64), _HEX */
	/* AGG_K_STR: len bytes; AGG_K_STACK: the frames' names, leaf
	 * first, each ended by '\n' (names have none) */
	const char *s;
	size_t len;
};

struct agg_entry;
struct agg_map;

/* A map of @spec (which must outlive it), at most @max_keys keys. NULL
 * with errno ENOMEM. */
struct agg_map *agg_map__new(const struct agg_spec *spec, size_t max_keys);
void agg_map__free(struct agg_map *m);
/* The value @v (@sgn: an __s64; ignored by count()) into the entry of
 * key @parts. 1 when the key limit kept a new key out for the first
 * time (the caller says so), 0 otherwise: the event is then counted in
 * agg_map__other(). -ENOMEM when out of memory. */
int agg_map__update(struct agg_map *m, const struct agg_part *parts,
		    __u64 v, bool sgn);
/* Forget every key (--interval). */
void agg_map__reset(struct agg_map *m);
size_t agg_map__nkeys(const struct agg_map *m);
/* Events whose key the limit kept out, since the last reset. */
__u64 agg_map__other(const struct agg_map *m);
/* The entries as bpftrace orders them (by value, a hist by its total,
 * ascending; ties by key), into a malloc'ed array of agg_map__nkeys();
 * NULL with errno ENOMEM (or for no keys). */
const struct agg_entry **agg_map__sorted(const struct agg_map *m);

/* An entry's key, part @i (< spec->nkeys). */
void agg_entry__part(const struct agg_entry *e, int i, struct agg_part *p);
/* count, sum, min, max, avg: the value, as bpftrace prints it (avg: the
 * sum / count, rounded toward zero); *@sgn whether it is an __s64 */
__u64 agg_entry__value(const struct agg_entry *e, const struct agg_map *m,
		       bool *sgn);
/* count and sum of an entry (avg, JSON) */
__u64 agg_entry__count(const struct agg_entry *e);
/* hist and lhist: the buckets, *@n of them */
const __u64 *agg_entry__buckets(const struct agg_entry *e,
				const struct agg_map *m, int *n);
const struct agg_spec *agg_map__spec(const struct agg_map *m);

/* hist: the slot of @v (bpftrace's: 0 below zero, 1 for 0, 2 + log2) */
int agg_hist_slot(__u64 v, bool sgn);
/* lhist: the slot of @v among 0 (< MIN), 1..N, N + 1 (>= MAX) */
int agg_lhist_slot(const struct agg_spec *s, __u64 v, bool sgn);
/* lhist: N, the buckets between MIN and MAX */
int agg_lhist_buckets(const struct agg_spec *s);

/* ---- agg_text.c: bpftrace's text ------------------------------------- */

/* Map @m as bpftrace prints it (@[bash, 12]: 3; hist blocks), nothing
 * for a map with no key. */
void agg_text_map(struct outbuf *o, const struct agg_map *m);
/* The key of @e as JSON object members, "comm":"bash","pid":12 */
void agg_json_key(struct outbuf *o, const struct agg_map *m,
		  const struct agg_entry *e);
/* hist or lhist buckets of @e as JSON: [{"min":0,"max":0,"count":3},...] */
void agg_json_buckets(struct outbuf *o, const struct agg_map *m,
		      const struct agg_entry *e);

/* ---- sink_agg.c: the sink ------------------------------------------- */

struct agg_sink_opts {
	const char *prog;	/* what messages start with */
	int fd;			/* the output */
	bool json;		/* JSON Lines, else bpftrace's text */
	struct trace_clock clock;	/* JSON's time_ns (--time) */
	const struct agg_spec *specs;	/* named (agg_specs_name()) */
	int nspecs;
	size_t max_keys;	/* per map */
	long interval_ms;	/* printed and reset this often; 0: at the end */
	/* Events lost so far, exact, into *@count: of probe @probe (its id
	 * in the schema), of every probe for -1. 0, or -ENOENT when losses
	 * are not told apart by probe (the sink then asks for -1 and says
	 * "of any probe"). NULL: the sink counts the LOST records it gets. */
	int (*lost)(void *ctx, int probe, __u64 *count);
	void *ctx;
	/* The events are one's own records (perfbuf run's): a name no
	 * record has is said with the records' fields, not trace's words */
	bool own_records;
};

/* A sink feeding the maps of @o->specs (they must outlive it), printing
 * them every interval and before the summary. NULL with errno set
 * (ENOMEM). Its begin() fails with -EINVAL (said) when a name is no
 * probe's field. */
struct trace_sink *trace_sink_agg_new(const struct agg_sink_opts *o);

#endif
