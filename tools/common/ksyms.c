// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Kernel symbols from /proc/kallsyms (ksyms.h): the function at an
 * address, the address and module of a function. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"

struct ksym {
	__u64 addr;
	const char *name;	/* in the names buffer */
	const char *mod;	/* there too; "" built in */
};

struct sym_ksyms {
	struct ksym *v;
	size_t n;
	char *names;
	bool hidden;
};

static struct sym_ksyms *the_ksyms;	/* ksyms_get()'s */

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

/* @s (@len bytes, its NUL too) into the names buffer; its offset, or -1 */
static long put_name(struct sym_ksyms *k, size_t *used, size_t *cap,
		     const char *s, size_t len)
{
	if (*used + len > *cap) {
		char *p = realloc(k->names, *cap ? *cap * 2 : 1 << 20);

		if (!p)
			return -1;
		k->names = p;
		*cap = *cap ? *cap * 2 : 1 << 20;
	}
	memcpy(k->names + *used, s, len);
	*used += len;
	return (long)(*used - len);
}

/* text symbols only ("T", "t", "W", "w"); names and modules are kept in
 * one buffer and pointed to once it stops moving (offsets until then) */
static int ksyms_read(struct sym_ksyms *k, FILE *f)
{
	size_t cap = 0, used = 0, names_cap = 0, *offs = NULL;
	char line[512], name[256], mod[128], type;
	unsigned long long addr;
	long name_off, mod_off;
	int n;

	if (put_name(k, &used, &names_cap, "", 1) < 0)	/* offset 0: "" */
		return -ENOMEM;
	while (fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, mod);
		if (n < 3 || !strchr("TtWw", type))
			continue;
		if (k->n == cap) {
			cap = cap ? cap * 2 : 65536;
			k->v = realloc(k->v, cap * sizeof(*k->v));
			offs = realloc(offs, 2 * cap * sizeof(*offs));
			if (!k->v || !offs)
				goto nomem;
		}
		name_off = put_name(k, &used, &names_cap, name, strlen(name) + 1);
		mod_off = n < 4 ? 0 : put_name(k, &used, &names_cap, mod, strlen(mod) + 1);
		if (name_off < 0 || mod_off < 0)
			goto nomem;
		k->v[k->n].addr = addr;
		offs[2 * k->n] = (size_t)name_off;
		offs[2 * k->n++ + 1] = (size_t)mod_off;
	}
	k->hidden = true;
	for (size_t i = 0; i < k->n; i++) {
		k->v[i].name = k->names + offs[2 * i];
		k->v[i].mod = k->names + offs[2 * i + 1];
		k->hidden &= !k->v[i].addr;
	}
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
		errno = err ? -err : ENOENT;
		return NULL;
	}
	qsort(k->v, k->n, sizeof(*k->v), by_addr);
	return k;
}

const struct sym_ksyms *ksyms_get(void)
{
	if (!the_ksyms)
		the_ksyms = ksyms_load();
	return the_ksyms;
}

void ksyms_release(void)
{
	ksyms_free(the_ksyms);
	the_ksyms = NULL;
}

bool ksyms_hidden(const struct sym_ksyms *k)
{
	return k->hidden;
}

/* sorted by address: the first listing found is the lowest */
bool ksyms_find(const struct sym_ksyms *k, const char *name, const char **mod,
		__u64 *addr)
{
	for (size_t i = 0; i < k->n; i++) {
		if (strcmp(k->v[i].name, name))
			continue;
		if (mod)
			*mod = k->v[i].mod;
		if (addr)
			*addr = k->v[i].addr;
		return true;
	}
	return false;
}

__u64 ksyms_addr(const struct sym_ksyms *k, const char *name)
{
	__u64 addr = 0;

	return ksyms_find(k, name, NULL, &addr) ? addr : 0;
}

const char *ksyms_name(const struct sym_ksyms *k, __u64 addr)
{
	size_t lo = 0, hi = k->n;

	if (k->hidden)
		return NULL;
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

size_t ksyms_cnt(const struct sym_ksyms *k)
{
	return k->n;
}

__u64 ksyms_nth_addr(const struct sym_ksyms *k, size_t i)
{
	return i < k->n ? k->v[i].addr : 0;
}
