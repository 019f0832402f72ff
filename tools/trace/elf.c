// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ELF side of uprobe targets, checked before libbpf attaches: a file
 * that is not ELF, or SYMBOL+OFFSET past the function's end, get a line
 * saying so (libbpf says "Unknown error 4001" or the kernel EINVAL).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

/* @name's entry in symbol table section @scn: 0, or -ENOENT. */
static int find_func(Elf *elf, Elf_Scn *scn, const char *name, __u64 *size)
{
	GElf_Shdr sh;
	Elf_Data *d;
	GElf_Sym sym;

	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
	    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
		return -ENOENT;
	d = elf_getdata(scn, NULL);
	for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
		const char *n;
		int type;

		if (!gelf_getsym(d, i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		n = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (n && !strcmp(n, name)) {
			*size = sym.st_size;
			return 0;
		}
	}
	return -ENOENT;
}

int elf_func_size(const char *path, const char *name, __u64 *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = -ENOENT;
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (fd < 0)
		return -errno;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		close(fd);
		return -EINVAL;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		err = -ENOEXEC;
	while (err == -ENOENT && (scn = elf_nextscn(elf, scn)))
		err = find_func(elf, scn, name, size);
	elf_end(elf);
	close(fd);
	return err;
}
