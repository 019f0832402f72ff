// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's BTF, read once per run for every part of the tool (the
 * feature probes, probes, typed arguments: a parse costs ~9 ms): vmlinux's,
 * and a module's when a function is there (split BTF on top of vmlinux's).
 * libbpf 1.1's btf__find_by_name_kind() scans every type (vmlinux has
 * ~150,000): for a glob of hundreds of functions each BTF gets an index of
 * its functions sorted by name instead, made at the first look-up and
 * searched in halves.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "kbtf.h"
#include "ksyms.h"

struct kbtf {
	char mod[64];		/* "": vmlinux */
	struct btf *btf;	/* NULL: none (not tried again) */
	__u32 first;		/* its own types' first id (past its base's) */
	__u32 *funcs;		/* its own FUNC ids, by name then id; NULL
				 * until the first look-up */
	int nfuncs;
};

static struct kbtf *kbtfs;
static int nkbtfs;

static int by_name(const void *a, const void *b, void *ctx)
{
	const struct btf *btf = ctx;
	__u32 ia = *(const __u32 *)a, ib = *(const __u32 *)b;
	int c = strcmp(btf__name_by_offset(btf, btf__type_by_id(btf, ia)->name_off),
		       btf__name_by_offset(btf, btf__type_by_id(btf, ib)->name_off));

	return c ? c : (ia > ib) - (ia < ib);
}

/* @k's own functions (past its base's types), sorted */
static int index_funcs(struct kbtf *k)
{
	__u32 n = btf__type_cnt(k->btf), first = k->first;

	k->funcs = calloc(n > first ? n - first : 1, sizeof(*k->funcs));
	if (!k->funcs)
		return -ENOMEM;
	for (__u32 id = first; id < n; id++)
		if (btf_is_func(btf__type_by_id(k->btf, id)))
			k->funcs[k->nfuncs++] = id;
	qsort_r(k->funcs, k->nfuncs, sizeof(*k->funcs), by_name, k->btf);
	return 0;
}

/* @mod's BTF ("": vmlinux's) with its index, read the first time */
static struct kbtf *kbtf_get(const char *mod)
{
	struct kbtf *k, *base;
	struct btf *base_btf = NULL;

	for (int i = 0; i < nkbtfs; i++)
		if (!strcmp(kbtfs[i].mod, mod))
			return kbtfs[i].btf ? &kbtfs[i] : NULL;
	if (*mod) {
		if (!(base = kbtf_get("")))
			return NULL;
		base_btf = base->btf;	/* the array moves below */
	}
	k = realloc(kbtfs, (nkbtfs + 1) * sizeof(*k));
	if (!k)
		return NULL;
	kbtfs = k;
	k = &kbtfs[nkbtfs++];
	memset(k, 0, sizeof(*k));
	snprintf(k->mod, sizeof(k->mod), "%s", mod);
	k->btf = *mod ? btf__load_module_btf(mod, base_btf) : btf__load_vmlinux_btf();
	k->first = *mod && k->btf ? btf__type_cnt(base_btf) : 1;
	return k->btf ? k : NULL;
}

struct btf *kbtf_vmlinux(void)
{
	struct kbtf *k = kbtf_get("");

	return k ? k->btf : NULL;
}

/* @func in @k's index: the first of that name, or -ENOENT */
static int find(struct kbtf *k, const char *func)
{
	int lo = 0, hi;

	if (!k->funcs && index_funcs(k))
		return -ENOMEM;
	hi = k->nfuncs;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		const struct btf_type *t = btf__type_by_id(k->btf, k->funcs[mid]);

		if (strcmp(btf__name_by_offset(k->btf, t->name_off), func) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < k->nfuncs &&
	    !strcmp(btf__name_by_offset(k->btf, btf__type_by_id(k->btf, k->funcs[lo])->name_off), func))
		return (int)k->funcs[lo];
	return -ENOENT;
}

bool kbtf_kallsyms(const char *func, char *mod, size_t sz)
{
	const struct sym_ksyms *k = ksyms_get();
	const char *m;

	if (!k || !ksyms_find(k, func, &m, NULL))
		return false;
	snprintf(mod, sz, "%s", m);
	return true;
}

int kbtf_func(const char *func, const char *mod, const struct btf **btf)
{
	struct kbtf *k = kbtf_get("");
	char m[128];
	int id = k ? find(k, func) : -ENOENT;

	if (id < 0 && k && !mod && kbtf_kallsyms(func, m, sizeof(m)))
		mod = m;
	if (id < 0 && k && mod && *mod && (k = kbtf_get(mod)))
		id = find(k, func);
	if (id >= 0)
		*btf = k->btf;
	return id;
}

void kbtf_free(void)
{
	for (int i = 0; i < nkbtfs; i++) {
		btf__free(kbtfs[i].btf);
		free(kbtfs[i].funcs);
	}
	free(kbtfs);
	kbtfs = NULL;
	nkbtfs = 0;
	ksyms_release();
}
