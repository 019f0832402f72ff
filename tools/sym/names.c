// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Names for frames, at the end of a run: kernel addresses from
 * /proc/kallsyms, user (file, offset) pairs from the file's ELF symbols
 * (read when the file was first sampled), or as file+0xOFFSET when the
 * file has no symbol there, anything else as the address in hex. Each
 * distinct frame is named once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym.h"
#include "common/say.h"

struct cached {
	__u32 file;
	__u64 key;
	char *name;
};

struct sym_names {
	struct sym_maps *maps;
	struct sym_ksyms *ksyms;
	bool ksyms_tried;
	struct cached *cache;	/* open addressing; name NULL: empty */
	size_t cap, cnt;
};

struct sym_names *names_new(struct sym_maps *maps)
{
	struct sym_names *n = calloc(1, sizeof(*n));

	if (n)
		n->maps = maps;
	return n;
}

void names_free(struct sym_names *n)
{
	if (!n)
		return;
	ksyms_free(n->ksyms);
	for (size_t i = 0; i < n->cap; i++)
		free(n->cache[i].name);
	free(n->cache);
	free(n);
}

static char *name_of(struct sym_names *n, const struct sym_frame *f)
{
	const char *sym = NULL;
	char buf[512];

	if (f->file == SYM_KERNEL_FILE) {
		if (!n->ksyms_tried) {
			n->ksyms_tried = true;
			n->ksyms = ksyms_load();
			if (!n->ksyms)
				cli_say("perfbuf profile", "reading /proc/kallsyms: %s; kernel frames print as addresses\n",
					strerror(errno));
			else if (ksyms_hidden(n->ksyms))
				cli_say("perfbuf profile", "/proc/kallsyms hides the addresses (kernel.kptr_restrict); kernel frames print as addresses\n");
		}
		sym = n->ksyms ? ksyms_name(n->ksyms, f->addr) : NULL;
		if (sym)
			snprintf(buf, sizeof(buf), "%s_[k]", sym);
	} else if (f->file != SYM_NO_FILE) {
		const struct sym_elf *e = maps_file_elf(n->maps, f->file);
		const char *path = maps_file_path(n->maps, f->file);
		const char *base = path ? strrchr(path, '/') : NULL;

		sym = e ? elfsyms_name(e, f->off) : NULL;
		if (sym) {
			snprintf(buf, sizeof(buf), "%s", sym);
		} else if (base) {
			/* no symbol: the file and offset (the same every run) */
			snprintf(buf, sizeof(buf), "%s+0x%llx", base + 1,
				 (unsigned long long)f->off);
			sym = buf;
		}
	}
	if (!sym)
		snprintf(buf, sizeof(buf), "0x%llx%s", (unsigned long long)f->addr,
			 f->file == SYM_KERNEL_FILE ? "_[k]" : "");
	return strdup(buf);
}

static size_t slot(const struct sym_names *n, __u32 file, __u64 key)
{
	size_t i = (size_t)((key ^ ((__u64)file << 40)) * 0x9e3779b97f4a7c15ULL >> 20) &
		   (n->cap - 1);

	while (n->cache[i].name &&
	       (n->cache[i].file != file || n->cache[i].key != key))
		i = (i + 1) & (n->cap - 1);
	return i;
}

static int grow(struct sym_names *n)
{
	struct sym_names old = *n;

	n->cap = old.cap ? old.cap * 2 : 4096;
	n->cache = calloc(n->cap, sizeof(*n->cache));
	if (!n->cache) {
		*n = old;
		return -ENOMEM;
	}
	for (size_t i = 0; i < old.cap; i++)
		if (old.cache[i].name)
			n->cache[slot(n, old.cache[i].file, old.cache[i].key)] =
				old.cache[i];
	free(old.cache);
	return 0;
}

const char *names_frame(struct sym_names *n, const struct sym_frame *f)
{
	__u64 key = f->file == SYM_NO_FILE || f->file == SYM_KERNEL_FILE ?
		    f->addr : f->off;
	size_t i;

	if ((n->cnt + 1) * 2 > n->cap && grow(n))
		return "[no memory]";
	i = slot(n, f->file, key);
	if (!n->cache[i].name) {
		n->cache[i] = (struct cached){ f->file, key, name_of(n, f) };
		if (!n->cache[i].name)
			return "[no memory]";
		n->cnt++;
	}
	return n->cache[i].name;
}
