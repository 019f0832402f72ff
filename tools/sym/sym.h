/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Symbols for the addresses of stacks (perfbuf profile, perfbuf trace
 * --kstack/--ustack): processes as they were seen (their executable
 * mappings and thread names, kept after they exit), kernel symbols from
 * /proc/kallsyms, ELF symbols of mapped files (libelf), and the names of
 * frames built from them.
 */
#ifndef PERFBUF_SYM_H
#define PERFBUF_SYM_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

#include "common/elf.h"
#include "common/ksyms.h"

/* A frame: a kernel address, or a user address resolved to a file and
 * offset with its process's mappings of the moment. */
#define SYM_NO_FILE 0xffffffffu		/* in no file: named in hex */
#define SYM_KERNEL_FILE 0xfffffffeu	/* a kernel address */

struct sym_frame {
	__u32 file;		/* SYM_KERNEL_FILE, SYM_NO_FILE or a file id */
	__u64 off;		/* file offset (user frames in a file) */
	__u64 addr;		/* the address as sampled */
};

/* ---- mappings: pid -> [start, end) -> (file, offset) (maps.c) ---- */

struct sym_maps;

struct sym_maps *maps_new(void);
void maps_free(struct sym_maps *m);
/* an MMAP/MMAP2 record: the mapping of @pid from now on */
void maps_add(struct sym_maps *m, pid_t pid, __u64 start, __u64 len,
	      __u64 pgoff, const char *path);
/* an exec (COMM with PERF_RECORD_MISC_COMM_EXEC): the old mappings go */
void maps_exec(struct sym_maps *m, pid_t pid);
/* @addr of @pid as (file id, file offset); reads /proc/PID/maps the first
 * time a pid is seen, and again (at most every 100 ms) when the address is
 * in none of the mappings known; the file's symbols are read the first
 * time it is seen here. false: unknown (the file is SYM_NO_FILE). */
bool maps_resolve(struct sym_maps *m, pid_t pid, __u64 addr, __u32 *file,
		  __u64 *off);
/* the frame of user address @addr of @pid (maps_resolve()) */
struct sym_frame maps_frame(struct sym_maps *m, pid_t pid, __u64 addr);
/* the path of file @id, NULL if none */
const char *maps_file_path(const struct sym_maps *m, __u32 id);
/* the symbols of file @id (read when first sampled), NULL if none */
const struct sym_elf *maps_file_elf(const struct sym_maps *m, __u32 id);

/* comm of @tid: from COMM records, else /proc/.../comm at first sight */
struct sym_comms;
struct sym_comms *comms_new(void);
void comms_free(struct sym_comms *c);
void comms_set(struct sym_comms *c, __u32 tid, const char *comm);
const char *comms_get(struct sym_comms *c, __u32 pid, __u32 tid);

/* ---- symbols (common/ksyms.h; ELF: common/elf.h) ---- */

/* ELF files' symbols: common/elf.h (elfsyms_load(), elfsyms_name()) */

/* ---- naming frames (names.c) ---- */

struct sym_names;
struct sym_names *names_new(struct sym_maps *maps);
void names_free(struct sym_names *n);
/* the frame's name: function, "_[k]" suffixed in the kernel; FILE+0xOFF
 * in a file without a symbol there; the address in hex if in no file.
 * Valid until names_free(). */
const char *names_frame(struct sym_names *n, const struct sym_frame *f);

#endif
