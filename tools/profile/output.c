// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Folded stacks (comm;root;...;leaf COUNT, sorted, equal lines merged:
 * what flamegraph.pl, inferno and speedscope read) and JSON Lines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

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

/* A JSON string: printable ASCII as is, '"' and '\\' escaped, any other
 * byte as \u00XX (names and commands are bytes, not always UTF-8). */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			fputc(c, f);
		else
			fprintf(f, "\\u00%02x", c);
	}
	fputc('"', f);
}

/* frames [from, to) of @st, root first */
static void json_frames(FILE *f, const struct prof_stack *st, __u32 from,
			__u32 to, struct sym_names *n)
{
	fputc('[', f);
	for (__u32 i = from; i < to; i++) {
		if (i > from)
			fputc(',', f);
		json_str(f, names_frame(n, &st->frames[i]));
	}
	fputc(']', f);
}

int out_json(FILE *f, struct prof_run *run, struct sym_names *n,
	     double seconds)
{
	const struct prof_counts *c = &run->counts;
	struct line *v;
	long cnt = lines(run, n, true, &v);

	if (cnt < 0)
		return (int)cnt;
	for (long i = 0; i < cnt; i++) {
		const struct prof_stack *st = v[i].st;
		__u32 k = 0;

		/* user frames first, kernel frames on top */
		while (k < st->nframes && st->frames[st->nframes - 1 - k].file ==
		       SYM_KERNEL_FILE)
			k++;
		fprintf(f, "{\"type\":\"stack\",\"pid\":%u,\"comm\":", st->pid);
		json_str(f, st->comm);
		fprintf(f, ",\"count\":%llu,\"ustack\":", (unsigned long long)v[i].count);
		json_frames(f, st, 0, st->nframes - k, n);
		fputs(",\"kstack\":", f);
		json_frames(f, st, st->nframes - k, st->nframes, n);
		fputs("}\n", f);
	}
	fprintf(f, "{\"type\":\"summary\",\"engine\":\"%s\",\"hz\":%u,\"seconds\":%.3f,\"samples\":%llu,\"stacks\":%ld,\"lost\":%llu,\"throttled\":%llu,\"stack_errors\":%llu}\n",
		run->o->engine == PROF_ENGINE_BPF ? "bpf" : "perf", run->o->hz,
		seconds, (unsigned long long)c->samples, cnt,
		(unsigned long long)c->lost, (unsigned long long)c->throttled,
		(unsigned long long)c->stack_errors);
	lines_free(v, (size_t)cnt);
	return ferror(f) ? -EIO : 0;
}
