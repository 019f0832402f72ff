// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the record type finder and decoder, on two kinds
 * of hostile input:
 *  - an ELF object (real BPF objects are the seeds): the type found in its
 *    BTF or DWARF (perfbuf_type__from_file()), and the object opened (not
 *    loaded) as perfbuf run and Python's Object() open one
 *    (perfbuf_object__open(): libbpf 1.1 must see no BTF it would follow
 *    past its table). The mutator changes bytes
 *    inside the .BTF, .BTF.ext and .debug_* sections only, so the ELF
 *    stays readable and the mutants reach the BTF and DWARF readers;
 *  - else a type's text (perfbuf_type__from_text(), a capture's), a NUL,
 *    then a record's bytes.
 * A type that is accepted must decode any bytes without reading past
 * them (the record is copied into a buffer of exactly its size).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/libbpf.h>

#include "perfbuf.h"
#include "object/type_priv.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static bool is_elf(const uint8_t *data, size_t size)
{
	return size >= sizeof(Elf64_Ehdr) && !memcmp(data, ELFMAG, SELFMAG) &&
	       data[EI_CLASS] == ELFCLASS64;
}

/* Section @i's header, when it and its name lie within the input */
static const Elf64_Shdr *section(const uint8_t *data, size_t size, unsigned int i,
				 const char **name)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
	const Elf64_Shdr *sh, *strs;

	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size || eh->e_shoff % 8 ||
	    (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum ||
	    i >= eh->e_shnum || eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (const Elf64_Shdr *)(data + eh->e_shoff) + i;
	strs = (const Elf64_Shdr *)(data + eh->e_shoff) + eh->e_shstrndx;
	if (strs->sh_offset > size || sh->sh_name >= size - strs->sh_offset ||
	    sh->sh_type == SHT_NOBITS || sh->sh_offset > size ||
	    sh->sh_size > size - sh->sh_offset)
		return NULL;
	*name = (const char *)data + strs->sh_offset + sh->sh_name;
	if (!memchr(*name, 0, size - strs->sh_offset - sh->sh_name))
		return NULL;
	return sh;
}

static bool fuzzed_section(const char *name)
{
	return !strcmp(name, ".BTF") || !strcmp(name, ".BTF.ext") ||
	       !strncmp(name, ".debug_", 7);
}

/* An ELF object: the bytes of one of its BTF or DWARF sections mutated in
 * place, its size kept (the headers, offsets and other sections as they
 * were). Anything else: libFuzzer's own mutations. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	const Elf64_Shdr *pick[64];
	unsigned int n = 0;
	const char *name;

	if (!is_elf(data, size))
		return LLVMFuzzerMutate(data, size, max_size);
	for (unsigned int i = 0; n < 64; i++) {
		const Elf64_Shdr *sh = section(data, size, i, &name);

		if (!sh && i >= ((const Elf64_Ehdr *)data)->e_shnum)
			break;
		if (sh && sh->sh_size && fuzzed_section(name))
			pick[n++] = sh;
	}
	if (n) {
		const Elf64_Shdr *sh = pick[seed % n];

		/* shorter: its tail keeps the old bytes, the section its size */
		LLVMFuzzerMutate(data + sh->sh_offset, sh->sh_size, sh->sh_size);
	}
	return size;
}

static void decode(const struct perfbuf_type *t, const uint8_t *rec, size_t rec_sz)
{
	static char json[1 << 16], text[1 << 16];
	char *copy = malloc(rec_sz ? rec_sz : 1);
	int fit;

	memcpy(copy, rec, rec_sz);
	fit = perfbuf_type__fit(t, rec_sz);
	if (fit >= 0)
		perfbuf_type__json(t, 0, copy, (size_t)fit, json, sizeof(json));
	for (int i = 0; i < perfbuf_type__field_cnt(t); i++) {
		__u64 v;

		perfbuf_type__read_int(t, i, copy, rec_sz, &v);
		perfbuf_type__enum_at(t, i, 0, NULL);
	}
	perfbuf_type__to_text(t, text, sizeof(text));
	free(copy);
}

/* The object in a memfd, its type found as perfbuf run finds one (the
 * marker, else struct event) and by name, each decoding a record of 0xa5
 * bytes of its size (up to 64 KiB) */
static void from_object(const uint8_t *data, size_t size)
{
	static uint8_t rec[1 << 16];
	const char *names[] = { NULL, "event" };
	int fd = memfd_create("fuzz-type", MFD_CLOEXEC);
	char path[64];

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(rec, 0xa5, sizeof(rec));
	for (int i = 0; i < 2; i++) {
		struct perfbuf_type *t = perfbuf_type__from_file(path, NULL, names[i]);
		size_t sz = t ? perfbuf_type__size(t) : 0;

		if (t)
			decode(t, rec, sz < sizeof(rec) ? sz : sizeof(rec));
		perfbuf_type__free(t);
	}
	perfbuf_object__free(perfbuf_object__open(path));
	close(fd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	perfbuf_set_print(NULL);
	libbpf_set_print(NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul;
	struct perfbuf_type *t;

	if (is_elf(data, size)) {
		from_object(data, size);
		return 0;
	}
	nul = memchr(data, 0, size);
	if (!nul)
		return 0;
	t = perfbuf_type__from_text((const char *)data);
	if (!t)
		return 0;
	decode(t, nul + 1, size - (size_t)(nul + 1 - data));
	perfbuf_type__free(t);
	return 0;
}
