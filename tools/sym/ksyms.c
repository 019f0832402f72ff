// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Kernel symbols from /proc/kallsyms: the function at an address. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym.h"

struct ksym {
	__u64 addr;
	const char *name;	/* in the names buffer */
};

struct sym_ksyms {
	struct ksym *v;
	size_t n;
	char *names;
};

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void ksyms_free(struct sym_ksyms *k)
{
	if (!k)
		return;
	free(k->v);
	free(k->names);
	free(k);
}

/* text symbols only ("T", "t", "W", "w"); names are kept in one buffer
 * and pointed to after it stops moving */
static int ksyms_read(struct sym_ksyms *k, FILE *f)
{
	size_t cap = 0, names_len = 0, names_cap = 0, *offs = NULL;
	char line[512], name[256], type;
	unsigned long long addr;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 ||
		    !strchr("TtWw", type) || !addr)
			continue;
		size_t len = strlen(name) + 1;

		if (k->n == cap) {
			cap = cap ? cap * 2 : 65536;
			k->v = realloc(k->v, cap * sizeof(*k->v));
			offs = realloc(offs, cap * sizeof(*offs));
			if (!k->v || !offs)
				goto nomem;
		}
		if (names_len + len > names_cap) {
			names_cap = names_cap ? names_cap * 2 : 1 << 20;
			k->names = realloc(k->names, names_cap);
			if (!k->names)
				goto nomem;
		}
		memcpy(k->names + names_len, name, len);
		k->v[k->n].addr = addr;
		offs[k->n++] = names_len;
		names_len += len;
	}
	for (size_t i = 0; i < k->n; i++)
		k->v[i].name = k->names + offs[i];
	free(offs);
	return 0;
nomem:
	free(offs);
	return -ENOMEM;
}

struct sym_ksyms *ksyms_load(void)
{
	struct sym_ksyms *k = calloc(1, sizeof(*k));
	FILE *f = fopen("/proc/kallsyms", "re");
	int err;

	if (!k || !f) {
		err = errno;
		free(k);
		if (f)
			fclose(f);
		errno = err;
		return NULL;
	}
	err = ksyms_read(k, f);
	fclose(f);
	if (err || !k->n) {
		ksyms_free(k);
		/* no address shown: kernel.kptr_restrict hides them */
		errno = err ? -err : EPERM;
		return NULL;
	}
	qsort(k->v, k->n, sizeof(*k->v), by_addr);
	return k;
}

__u64 ksyms_addr(const struct sym_ksyms *k, const char *name)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->v[i].name, name))
			return k->v[i].addr;
	return 0;
}

const char *ksyms_name(const struct sym_ksyms *k, __u64 addr)
{
	size_t lo = 0, hi = k->n;

	/* the last symbol at or below addr */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (k->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? k->v[lo - 1].name : NULL;
}
