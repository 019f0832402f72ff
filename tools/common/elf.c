// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The function symbols of an ELF file (elf.h says what is read). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf.h"

struct esym {
	__u64 addr, size;
	char *name;		/* without its version */
	char *ver;		/* the version it defines (NULL: none) */
	bool hidden;		/* NAME@VER, not the default NAME@@VER */
	bool weak;
};

/* A .dynsym's versions: .gnu.version (a word per symbol) and the names of
 * .gnu.version_d's definitions by their index (the index 1 is the file's
 * own name: no version) */
struct vers {
	Elf_Data *versym;
	char **name;
	size_t n;
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

/* By address, then name, then version (none first): one function's
 * entries from .symtab and .dynsym next to each other */
static int by_addr(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;
	int c = x->addr < y->addr ? -1 : x->addr > y->addr;

	c = c ?: strcmp(x->name, y->name);
	if (c || !x->ver || !y->ver)
		return c ?: !!x->ver - !!y->ver;
	return strcmp(x->ver, y->ver);
}

/* One entry per function, name and version: a .symtab entry and its
 * .dynsym one (which alone knows its version) become one */
static void merge_dups(struct sym_elf *e)
{
	size_t k = 0;

	for (size_t i = 0; i < e->n; i++) {
		struct esym *p = k ? &e->v[k - 1] : NULL, *s = &e->v[i];

		if (!p || p->addr != s->addr || strcmp(p->name, s->name) ||
		    (p->ver && s->ver && strcmp(p->ver, s->ver))) {
			e->v[k++] = *s;
			continue;
		}
		if (!p->ver) {
			p->ver = s->ver;
			p->hidden = s->hidden;
			s->ver = NULL;
		}
		p->weak = p->weak && s->weak;
		free(s->name);
		free(s->ver);
	}
	e->n = k;
}

void elfsyms_free(struct sym_elf *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++) {
		free(e->v[i].name);
		free(e->v[i].ver);
	}
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

/* @vs with the version definitions of @elf (none: nothing set) */
static int read_vers(Elf *elf, struct vers *vs)
{
	Elf_Scn *scn = NULL, *def = NULL;
	GElf_Shdr sh, def_sh;
	GElf_Verdef vd;
	GElf_Verdaux va;
	Elf_Data *d;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_GNU_versym)
			vs->versym = elf_getdata(scn, NULL);
		if (sh.sh_type == SHT_GNU_verdef) {
			def = scn;
			def_sh = sh;
		}
	}
	d = def ? elf_getdata(def, NULL) : NULL;
	for (size_t off = 0; d && gelf_getverdef(d, (int)off, &vd); off += vd.vd_next) {
		const char *s = gelf_getverdaux(d, (int)(off + vd.vd_aux), &va) ?
				elf_strptr(elf, def_sh.sh_link, va.vda_name) : NULL;
		char **v;

		if (s && vd.vd_ndx >= vs->n) {
			v = realloc(vs->name, (vd.vd_ndx + 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			memset(v + vs->n, 0, (vd.vd_ndx + 1 - vs->n) * sizeof(*v));
			vs->name = v;
			vs->n = vd.vd_ndx + 1;
		}
		if (s && !(vd.vd_flags & VER_FLG_BASE))
			vs->name[vd.vd_ndx] = (char *)s;
		if (!vd.vd_next)
			break;
	}
	return 0;
}

/* Symbol @i's version into @s: .dynsym's from @vs; a .symtab name's own
 * "NAME@VER" or "NAME@@VER" split */
static int sym_version(struct esym *s, const struct vers *vs, size_t i)
{
	char *at = strchr(s->name, '@');
	GElf_Versym w;

	if (at) {
		s->hidden = at[1] != '@';
		s->ver = strdup(at + 1 + !s->hidden);
		*at = '\0';
		return s->ver ? 0 : -ENOMEM;
	}
	if (!vs->versym || !gelf_getversym(vs->versym, (int)i, &w) ||
	    (size_t)(w & 0x7fff) >= vs->n || !vs->name[w & 0x7fff])
		return 0;
	s->hidden = w & 0x8000;
	s->ver = strdup(vs->name[w & 0x7fff]);
	return s->ver ? 0 : -ENOMEM;
}

/* The functions of one symbol table section. */
static int read_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
		       struct sym_elf *e)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t cnt = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	struct vers vs = { 0 };
	struct esym *v;
	int err = 0;

	if (!d || !cnt)
		return 0;
	v = realloc(e->v, (e->n + cnt) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	e->v = v;
	if (sh->sh_type == SHT_DYNSYM)
		err = read_vers(elf, &vs);
	for (size_t i = 0; i < cnt && !err; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value ||
		    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		e->v[e->n] = (struct esym){ sym.st_value, sym.st_size, strdup(name),
					    .weak = GELF_ST_BIND(sym.st_info) == STB_WEAK };
		if (!e->v[e->n].name)
			continue;
		err = sym_version(&e->v[e->n], &vs, i);
		e->n++;
	}
	free(vs.name);
	return err;
}

/* .symtab (every function, when the file has one) and .dynsym (the
 * exported ones, with their versions): merge_dups() makes one of each */
static int read_syms(Elf *elf, struct sym_elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err = 0;

	while ((scn = elf_nextscn(elf, scn)) && !err)
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			err = read_symtab(elf, scn, &sh, e);
	return err;
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
	merge_dups(e);
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

/* Does symbol @s answer to @name: NAME (any version), NAME@VER or
 * NAME@@VER (that version, default or not, as libbpf 1.3 takes them) */
static bool sym_is(const struct esym *s, const char *name)
{
	const char *at = strchr(name, '@');
	size_t len = at ? (size_t)(at - name) : strlen(name);

	if (strncmp(s->name, name, len) || s->name[len])
		return false;
	if (!at)
		return true;
	at += at[1] == '@' ? 2 : 1;
	return s->ver && !strcmp(s->ver, at);
}

int elfsyms_find(const struct sym_elf *e, const char *name, __u64 *off, __u64 *size)
{
	const struct esym *found = NULL;

	for (size_t i = 0; i < e->n; i++) {
		const struct esym *s = &e->v[i];

		if (!sym_is(s, name) || (found && found->addr == s->addr))
			continue;
		/* libbpf's rule: a weak definition yields to a strong one */
		if (found && !found->weak && !s->weak)
			return -EEXIST;
		if (!found || (found->weak && !s->weak))
			found = s;
	}
	if (!found)
		return -ENOENT;
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct seg *g = &e->segs[i];

		if (found->addr >= g->vaddr && found->addr < g->vaddr + g->filesz) {
			*off = found->addr - g->vaddr + g->off;
			*size = found->size;
			return 0;
		}
	}
	return -ENOENT;
}

int elfsyms_offset(const struct sym_elf *e, const char *name, __u64 *off)
{
	__u64 size;

	return elfsyms_find(e, name, off, &size);
}

int elfsyms_versions(const struct sym_elf *e, const char *name, char *buf, size_t sz)
{
	size_t len = strcspn(name, "@"), used = 0;
	int n = 0;

	if (sz)
		*buf = '\0';
	for (size_t i = 0; i < e->n; i++) {
		const struct esym *s = &e->v[i];
		int w;

		if (!s->ver || strncmp(s->name, name, len) || s->name[len])
			continue;
		w = snprintf(buf + used, sz - used, "%s%s%s%s%s", n ? ", " : "", s->name,
			     s->hidden ? "@" : "@@", s->ver, s->hidden ? "" : " (the default)");
		if (w > 0 && (size_t)w < sz - used)
			used += (size_t)w;
		n++;
	}
	return n;
}
