// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Folded stacks (comm;root;...;leaf COUNT, sorted, equal lines merged:
 * what flamegraph.pl, inferno and speedscope read) and JSON Lines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "output/buf.h"

struct line {
	char *text;		/* comm;frames */
	const struct prof_stack *st;	/* the first stack of the line */
	__u64 count;
};

/* ';' separates frames and ' ' the count: neither in a name */
static void put_name(char **p, char *end, const char *s)
{
	for (; *s && *p < end; s++)
		*(*p)++ = *s == ';' ? ':' : (*s == '\n' ? ' ' : *s);
}

/* "comm;root;...;leaf", after "pid;" if @pid */
static char *fold(const struct prof_stack *st, struct sym_names *n, bool pid)
{
	size_t cap = 96 + st->nframes * 256;
	char *buf = malloc(cap), *p = buf, *end = buf + cap - 1;

	if (!buf)
		return NULL;
	if (pid)
		p += snprintf(p, 32, "%u;", st->pid);
	put_name(&p, end, st->comm);
	for (__u32 i = 0; i < st->nframes; i++) {
		if (p < end)
			*p++ = ';';
		put_name(&p, end, names_frame(n, &st->frames[i]));
	}
	*p = '\0';
	return buf;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

static void lines_free(struct line *v, size_t cnt)
{
	for (size_t i = 0; v && i < cnt; i++)
		free(v[i].text);
	free(v);
}

/* The stacks as they print: named, sorted, and those that print the same
 * merged (several processes of one name, several addresses of one
 * function). @pid keeps processes apart. The number of lines, or -ENOMEM. */
static long lines(struct prof_run *run, struct sym_names *n, bool pid,
		  struct line **out)
{
	size_t cnt = stacks_cnt(run->stacks), i, j, k = 0;
	struct line *v = calloc(cnt ?: 1, sizeof(*v));

	for (i = 0; v && i < cnt; i++) {
		v[i].st = stacks_get(run->stacks, i);
		v[i].count = v[i].st->count;
		v[i].text = fold(v[i].st, n, pid);
		if (!v[i].text) {
			lines_free(v, cnt);
			v = NULL;
		}
	}
	if (!v)
		return -ENOMEM;
	qsort(v, cnt, sizeof(*v), by_text);
	for (i = 0; i < cnt; i = j) {
		v[k] = v[i];
		for (j = i + 1; j < cnt && !strcmp(v[j].text, v[i].text); j++) {
			v[k].count += v[j].count;
			free(v[j].text);
		}
		k++;
	}
	*out = v;
	return (long)k;
}

int out_folded(FILE *f, struct prof_run *run, struct sym_names *n)
{
	struct line *v;
	long cnt = lines(run, n, false, &v);

	if (cnt < 0)
		return (int)cnt;
	for (long i = 0; i < cnt; i++)
		fprintf(f, "%s %llu\n", v[i].text, (unsigned long long)v[i].count);
	lines_free(v, (size_t)cnt);
	return ferror(f) ? -EIO : 0;
}

/* JSON Lines through the trace tool's output buffer: one escaper for
 * every JSON string perfbuf writes (valid UTF-8 kept, bytes of invalid
 * UTF-8 \udcXX: docs/tracing.md, JSON field rules) */
static bool is_stack_line(const char *p, size_t n)
{
	return n > 15 && !memcmp(p, "{\"type\":\"stack\"", 15);
}

static void json_frames(struct outbuf *o, const struct prof_stack *st,
			__u32 from, __u32 to, struct sym_names *n)
{
	out_c(o, '[');
	for (__u32 i = from; i < to; i++) {
		const char *name = names_frame(n, &st->frames[i]);

		if (i > from)
			out_c(o, ',');
		out_json_str(o, name, strlen(name));
	}
	out_c(o, ']');
}

static void json_stack(struct outbuf *o, const struct line *l,
		       struct sym_names *n)
{
	const struct prof_stack *st = l->st;
	__u32 k = 0;

	/* user frames first, kernel frames on top */
	while (k < st->nframes && st->frames[st->nframes - 1 - k].file ==
	       SYM_KERNEL_FILE)
		k++;
	outbuf_event(o);
	out_lit(o, "{\"type\":\"stack\",\"pid\":");
	out_u64(o, st->pid);
	out_lit(o, ",\"comm\":");
	out_json_str(o, st->comm, strnlen(st->comm, sizeof(st->comm)));
	out_lit(o, ",\"count\":");
	out_u64(o, l->count);
	out_lit(o, ",\"ustack\":");
	json_frames(o, st, 0, st->nframes - k, n);
	out_lit(o, ",\"kstack\":");
	json_frames(o, st, st->nframes - k, st->nframes, n);
	out_lit(o, "}\n");
}

int out_json(int fd, struct prof_run *run, struct sym_names *n, double seconds)
{
	const struct prof_counts *c = &run->counts;
	struct outbuf o;
	struct line *v;
	long cnt = lines(run, n, true, &v);
	char tail[512];
	int err;

	if (cnt < 0)
		return (int)cnt;
	err = outbuf_init(&o, fd, is_stack_line);
	for (long i = 0; !err && i < cnt && !o.err; i++)
		json_stack(&o, &v[i], n);
	snprintf(tail, sizeof(tail), "{\"type\":\"summary\",\"engine\":\"%s\",\"hz\":%u,\"seconds\":%.3f,\"samples\":%llu,\"stacks\":%ld,\"lost\":%llu,\"throttled\":%llu,\"stack_errors\":%llu}\n",
		 run->o->engine == PROF_ENGINE_BPF ? "bpf" : "perf", run->o->hz,
		 seconds, (unsigned long long)c->samples, cnt,
		 (unsigned long long)c->lost, (unsigned long long)c->throttled,
		 (unsigned long long)c->stack_errors);
	if (!err) {
		out_mem(&o, tail, strlen(tail));
		err = outbuf_flush(&o);
		outbuf_free(&o);
	}
	lines_free(v, (size_t)cnt);
	return err;
}
