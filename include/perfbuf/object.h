/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libperfbuf-object: a person's own BPF object, run as `perfbuf run` runs it:
 * opened, its `const volatile` globals set by name (checked against the
 * BTF of .rodata), loaded, every program libbpf can auto-attach from its
 * SEC name attached, and its maps and the type of their records at hand.
 * Handles and plain C types only (Python's ctypes calls it as C does).
 * Problems are said at PERFBUF_WARN (perfbuf_set_print()), a line each.
 */
#ifndef PERFBUF_OBJECT_H
#define PERFBUF_OBJECT_H

#include "common.h"
#include "ledger.h"
#include "type.h"

#ifdef __cplusplus
extern "C" {
#endif

struct perfbuf_object;
struct bpf_object;

/**
 * @brief Open BPF object file @path (not loaded yet).
 * @return the object, or NULL with errno (open(2)'s: ENOENT, EACCES, ...;
 *         ENOEXEC: not an ELF object; EBADMSG: a corrupt .BTF section,
 *         refused before libbpf sees it; ENOMEM; libbpf's error otherwise)
 */
PERFBUF_API struct perfbuf_object *perfbuf_object__open(const char *path);

/**
 * @brief Set `const volatile` global NAME from "NAME=VALUE", before the
 *        load: integers (decimal, 0x hex, negative for signed types),
 *        bools (true/false/1/0), enums (a value's name or number), char
 *        arrays (the string, NUL-padded).
 * @return 0, -ENOENT (no such variable in .rodata), -EINVAL (no '=', a
 *         bad value), -ENAMETOOLONG (a NAME of 128 characters or more),
 *         -ERANGE (does not fit), -EBUSY (already loaded)
 */
PERFBUF_API int perfbuf_object__set(struct perfbuf_object *obj,
				    const char *assignment);

/** @brief Load the programs and create the maps. 0 or a negative errno
 *  (the verifier's log at PERFBUF_DEBUG). */
PERFBUF_API int perfbuf_object__load(struct perfbuf_object *obj);

/**
 * @brief Attach every program that libbpf can auto-attach from its SEC
 *        name; each failure said (program, section, reason).
 * @return programs attached (> 0; 0 for an object without programs), or
 *         -ENOENT when there were programs and none was attached
 */
PERFBUF_API int perfbuf_object__attach(struct perfbuf_object *obj);

/** @brief Detach every program attached (the maps stay: a reader drains
 *  them after, with perfbuf__quiesce() first). 0 or a negative errno;
 *  -ECHILD in a child forked since the open, whose links are the
 *  parent's probes. */
PERFBUF_API int perfbuf_object__detach(struct perfbuf_object *obj);

/** @brief Programs in the object. */
PERFBUF_API int perfbuf_object__prog_cnt(const struct perfbuf_object *obj);
/** @brief Program @i's name, or NULL. */
PERFBUF_API const char *perfbuf_object__prog_name(const struct perfbuf_object *obj,
						  int i);

/** @brief Program @i's fd (loaded objects: for BPF_PROG_TEST_RUN, a
 *  perf event, an attach of one's own), owned by @obj: valid until
 *  perfbuf_object__free(). -EINVAL for a bad index, -ENOENT before the
 *  load or when the program was not loaded. */
PERFBUF_API int perfbuf_object__prog_fd(const struct perfbuf_object *obj,
					int i);

/** @brief Maps in the object (.rodata and the like included). */
PERFBUF_API int perfbuf_object__map_cnt(const struct perfbuf_object *obj);
/** @brief Map @i's name, or NULL. */
PERFBUF_API const char *perfbuf_object__map_name(const struct perfbuf_object *obj,
						 int i);
/** @brief Map @i's type (BPF_MAP_TYPE_*), or -EINVAL. */
PERFBUF_API int perfbuf_object__map_type(const struct perfbuf_object *obj,
					 int i);
/** @brief The fd of map @name (loaded objects), or -ENOENT. */
PERFBUF_API int perfbuf_object__map_fd(const struct perfbuf_object *obj,
				       const char *name);

/**
 * @brief The type of map @map's records (perfbuf_type__from_file() on the
 *        object's file). The caller frees it.
 */
PERFBUF_API struct perfbuf_type *
perfbuf_object__type(const struct perfbuf_object *obj, const char *map,
		     const char *name);

/** @brief libbpf's object, for what this API does not cover: borrowed.
 *  @obj owns it and closes it in perfbuf_object__free(): never
 *  bpf_object__close() it (a double free then); it is valid until that
 *  free. Prefer the accessors above (perfbuf_object__prog_fd(),
 *  perfbuf_object__map_fd()), which hand out nothing a caller can free. */
PERFBUF_API struct bpf_object *perfbuf_object__bpf(const struct perfbuf_object *obj);

/** @brief Detach, unload and free. NULL is a no-op. In a child forked
 *  since the open: free without detaching (the probes are the parent's). */
PERFBUF_API void perfbuf_object__free(struct perfbuf_object *obj);

/**
 * @brief The ledger of a loaded object (perfbuf_object__load()): its map
 *        PERFBUF_LEDGER_MAP, the kinds named from the object's own BTF
 *        (no privilege needed), @opts' names first.
 * @return the ledger, or NULL with errno (ENOENT: the object has no
 *         ledger map, its programs do not use perfbuf_output(); EINVAL as
 *         perfbuf_ledger__new())
 */
PERFBUF_API struct perfbuf_ledger *
perfbuf_ledger__from_object(const struct perfbuf_object *obj,
			    const struct perfbuf_ledger_opts *opts);

#ifdef __cplusplus
}
#endif

#endif /* PERFBUF_OBJECT_H */
