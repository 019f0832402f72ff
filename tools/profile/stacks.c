// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Distinct stacks and their sample counts: a hash table keyed by process,
 * command and frames. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

struct prof_stacks {
	struct prof_stack **v;	/* in order of first sight */
	size_t n, cap;
	size_t *slots;		/* index + 1 into v; 0: empty */
	size_t nslots;
	__u64 samples;
};

struct prof_stacks *stacks_new(void)
{
	return calloc(1, sizeof(struct prof_stacks));
}

void stacks_free(struct prof_stacks *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	free(s->slots);
	free(s);
}

static __u64 mix(__u64 h, __u64 v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

static __u64 hash(__u32 pid, const char *comm, const struct sym_frame *f,
		  __u32 n)
{
	__u64 h = mix(pid, n), c = 0;

	memcpy(&c, comm, strnlen(comm, 8));
	h = mix(h, c);
	for (__u32 i = 0; i < n; i++)
		h = mix(mix(h, f[i].file), f[i].file == SYM_NO_FILE ||
			f[i].file == SYM_KERNEL_FILE ? f[i].addr : f[i].off);
	return h;
}

static bool same(const struct prof_stack *st, __u32 pid, const char *comm,
		 const struct sym_frame *f, __u32 n)
{
	if (st->pid != pid || st->nframes != n || strncmp(st->comm, comm, 16))
		return false;
	for (__u32 i = 0; i < n; i++) {
		const struct sym_frame *a = &st->frames[i];

		if (a->file != f[i].file ||
		    (a->file == SYM_NO_FILE || a->file == SYM_KERNEL_FILE ?
		     a->addr != f[i].addr : a->off != f[i].off))
			return false;
	}
	return true;
}

static int grow(struct prof_stacks *s)
{
	size_t nslots = s->nslots ? s->nslots * 2 : 1024;
	size_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		const struct prof_stack *st = s->v[i];
		size_t j = hash(st->pid, st->comm, st->frames, st->nframes) &
			   (nslots - 1);

		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = i + 1;
	}
	free(s->slots);
	s->slots = slots;
	s->nslots = nslots;
	return 0;
}

static struct prof_stack *new_stack(struct prof_stacks *s, __u32 pid,
				    __u32 tid, const char *comm,
				    const struct sym_frame *f, __u32 n)
{
	struct prof_stack *st = malloc(sizeof(*st) + n * sizeof(*f));

	if (!st)
		return NULL;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct prof_stack **v = realloc(s->v, cap * sizeof(*v));

		if (!v) {
			free(st);
			return NULL;
		}
		s->v = v;
		s->cap = cap;
	}
	st->pid = pid;
	st->tid = tid;
	memset(st->comm, 0, sizeof(st->comm));
	strncpy(st->comm, comm, sizeof(st->comm) - 1);
	st->nframes = n;
	st->count = 0;
	memcpy(st->frames, f, n * sizeof(*f));
	s->v[s->n++] = st;
	return st;
}

int stacks_add(struct prof_stacks *s, __u32 pid, __u32 tid, const char *comm,
	       const struct sym_frame *frames, __u32 n)
{
	size_t j;

	if ((s->n + 1) * 2 > s->nslots && grow(s))
		return -ENOMEM;
	j = hash(pid, comm, frames, n) & (s->nslots - 1);
	for (; s->slots[j]; j = (j + 1) & (s->nslots - 1)) {
		struct prof_stack *st = s->v[s->slots[j] - 1];

		if (same(st, pid, comm, frames, n)) {
			st->count++;
			s->samples++;
			return 0;
		}
	}
	if (!new_stack(s, pid, tid, comm, frames, n))
		return -ENOMEM;
	s->slots[j] = s->n;
	s->v[s->n - 1]->count = 1;
	s->samples++;
	return 0;
}

size_t stacks_cnt(const struct prof_stacks *s)
{
	return s->n;
}

struct prof_stack *stacks_get(const struct prof_stacks *s, size_t i)
{
	return i < s->n ? s->v[i] : NULL;
}

__u64 stacks_samples(const struct prof_stacks *s)
{
	return s->samples;
}
