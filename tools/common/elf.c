// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The function symbols of an ELF file (elf.h says what is read). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf.h"

struct esym {
	__u64 addr, size;
	char *name;
};

struct seg {
	__u64 off, filesz, vaddr;
};

struct sym_elf {
	struct esym *v;
	size_t n;
	struct seg *segs;
	size_t nsegs;
};

static int by_addr(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void elfsyms_free(struct sym_elf *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i].name);
	free(e->v);
	free(e->segs);
	free(e);
}

static int read_segs(Elf *elf, struct sym_elf *e)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	e->segs = calloc(n ?: 1, sizeof(*e->segs));
	if (!e->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			e->segs[e->nsegs++] = (struct seg){ ph.p_offset, ph.p_filesz,
							    ph.p_vaddr };
	}
	return 0;
}

/* The functions of one symbol table section. */
static int read_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
		       struct sym_elf *e)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t cnt = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	struct esym *v;

	if (!d || !cnt)
		return 0;
	v = realloc(e->v, (e->n + cnt) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	e->v = v;
	for (size_t i = 0; i < cnt; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value ||
		    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		e->v[e->n] = (struct esym){ sym.st_value, sym.st_size, strdup(name) };
		if (e->v[e->n].name)
			e->n++;
	}
	return 0;
}

/* .symtab when the file has one (every function), else .dynsym. */
static int read_syms(Elf *elf, struct sym_elf *e)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr sh, dyn_sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			return read_symtab(elf, scn, &sh, e);
		if (sh.sh_type == SHT_DYNSYM) {
			dyn = scn;
			dyn_sh = sh;
		}
	}
	return dyn ? read_symtab(elf, dyn, &dyn_sh, e) : 0;
}

struct sym_elf *elfsyms_load(const char *path)
{
	struct sym_elf *e;
	int fd, err;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = EINVAL;
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	e = calloc(1, sizeof(*e));
	err = !e ? -ENOMEM : !elf || elf_kind(elf) != ELF_K_ELF ? -ENOEXEC :
	      read_segs(elf, e) ?: read_syms(elf, e);
	if (elf)
		elf_end(elf);
	close(fd);
	if (err) {
		elfsyms_free(e);
		errno = -err;
		return NULL;
	}
	if (e->n)
		qsort(e->v, e->n, sizeof(*e->v), by_addr);
	return e;
}

const char *elfsyms_name(const struct sym_elf *e, __u64 off)
{
	__u64 addr = 0;
	size_t lo = 0, hi = e->n, i;
	bool in_seg = false;

	for (i = 0; i < e->nsegs && !in_seg; i++) {
		in_seg = off >= e->segs[i].off &&
			 off < e->segs[i].off + e->segs[i].filesz;
		if (in_seg)
			addr = off - e->segs[i].off + e->segs[i].vaddr;
	}
	if (!in_seg)
		return NULL;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (e->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	i = lo - 1;
	/* within the symbol; a size 0 symbol reaches to the next one */
	if (e->v[i].size && addr >= e->v[i].addr + e->v[i].size)
		return NULL;
	return e->v[i].name;
}

const char *elfsyms_nth(const struct sym_elf *e, size_t i)
{
	return i < e->n ? e->v[i].name : NULL;
}

int elf_func_size(const char *path, const char *name, __u64 *size)
{
	struct sym_elf *e = elfsyms_load(path);
	int err = -ENOENT;

	if (!e)
		return -errno;
	for (size_t i = 0; i < e->n && err; i++)
		if (!strcmp(e->v[i].name, name)) {
			*size = e->v[i].size;
			err = 0;
		}
	elfsyms_free(e);
	return err;
}

int elfsyms_offset(const struct sym_elf *e, const char *name, __u64 *off)
{
	const struct esym *found = NULL;

	for (size_t i = 0; i < e->n; i++) {
		if (strcmp(e->v[i].name, name))
			continue;
		/* two functions of one name (local ones): which one is meant
		 * is libbpf's rule to apply, not ours */
		if (found && found->addr != e->v[i].addr)
			return -EEXIST;
		found = &e->v[i];
	}
	if (!found)
		return -ENOENT;
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct seg *g = &e->segs[i];

		if (found->addr >= g->vaddr && found->addr < g->vaddr + g->filesz) {
			*off = found->addr - g->vaddr + g->off;
			return 0;
		}
	}
	return -ENOENT;
}
