/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libperfbuf-object: the C type of a BPF program's records, found and used to
 * decode them. A type is a flat table of fields (struct perfbuf_field),
 * built once from BTF (an object's, or a loaded program's, from the
 * kernel) or from DWARF, so its users never
 * see where it came from. Field 0 is the record's struct itself; the
 * members of a struct, union or array are contiguous in the table
 * (first_child .. first_child + nchildren - 1), an array having one child:
 * its element. Plain C types and integer handles only: Python's ctypes
 * walks it as C does.
 *
 * Where the type of a map's records is found (perfbuf_type__from_file()):
 *  1. the name the caller gives;
 *  2. the marker PERFBUF_EVENT(map, type) of <perfbuf/bpf.h>;
 *  3. a struct named `event` in BTF, then in DWARF (clang leaves a struct
 *     used only by a local variable out of BTF; a -g build's DWARF has it).
 * The library runs no compiler: a C header is compiled to a BPF object by
 * its caller (perfbuf run --header does), then read as any object.
 */
#ifndef PERFBUF_TYPE_H
#define PERFBUF_TYPE_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct perfbuf_type;

enum perfbuf_field_kind {
	PERFBUF_FIELD_INT = 1,	/* size 1, 2, 4, 8 (16: printed in hex) */
	PERFBUF_FIELD_BOOL,
	PERFBUF_FIELD_ENUM,	/* an integer with names for its values */
	PERFBUF_FIELD_FLOAT,	/* size 4 or 8 */
	PERFBUF_FIELD_PTR,	/* an address, printed in hex */
	PERFBUF_FIELD_STRING,	/* char[nelem]: up to the first NUL */
	PERFBUF_FIELD_ARRAY,	/* nelem elements: its child */
	PERFBUF_FIELD_STRUCT,
	PERFBUF_FIELD_UNION,
	PERFBUF_FIELD_BYTES,	/* anything else: size raw bytes */
};

struct perfbuf_field {
	const char *name;	/* "" for an array's element, an anonymous member */
	__u32 offset;		/* bytes from the start of the parent (of an
				 * array: from the start of each element) */
	__u32 size;		/* bytes, all elements of an array; a
				 * bitfield: the bytes holding its bits
				 * (1 to 9), never past its parent */
	__u32 kind;		/* enum perfbuf_field_kind */
	__u32 nelem;		/* ARRAY, STRING: elements; 0 for a flexible
				 * array member (char args[]) */
	__u32 bit_offset;	/* a bitfield: bits to shift after loading
				 * size bytes at offset (little endian) */
	__u32 bit_size;		/* a bitfield's width; 0: not a bitfield */
	__s32 parent;		/* index of the parent field; -1: field 0 */
	__s32 first_child;	/* STRUCT, UNION, ARRAY: first member; else -1 */
	__s32 nchildren;	/* members (an ARRAY: 1, its element) */
	__s32 nenum;		/* ENUM: values with a name */
	__u8 is_signed;		/* INT, ENUM */
	__u8 __pad[7];
};

/**
 * @brief The type of map @map's records in ELF object @path, by the order
 *        above (@name given: that struct, union or typedef, in BTF then
 *        DWARF; else the marker for @map, else `event`).
 * @param map  a map's name, or NULL (then any marker, if there is one)
 * @param name the type's name ("event" or "struct event"), or NULL
 * @return the type, or NULL with errno, the cause said at PERFBUF_WARN:
 *         ENOENT (no such type; without @name only at PERFBUF_DEBUG: no
 *         type is then no error), ENOEXEC (not a regular file, or not an
 *         ELF object), EINVAL (a type that is not a struct or union, or
 *         has no size), ELOOP (nested more than 32 deep, or containing
 *         itself), E2BIG (more than 65536 fields), ENOMEM
 */
PERFBUF_API struct perfbuf_type *perfbuf_type__from_file(const char *path,
							 const char *map,
							 const char *name);

/**
 * @brief The type of the records of a map that is loaded in the kernel,
 *        from the BTF of a program that uses it (@name, else the marker
 *        for @map_name, else `event`).
 * @param map_fd the map (BPF_MAP_TYPE_PERF_EVENT_ARRAY or RINGBUF)
 * @return the type, or NULL with errno as perfbuf_type__from_file()'s
 *         (ENOENT: no program using the map has BTF with the type; EPERM:
 *         without CAP_SYS_ADMIN, which the kernel wants for finding
 *         programs and their BTF by id, said at PERFBUF_WARN with @name,
 *         else at PERFBUF_DEBUG)
 */
PERFBUF_API struct perfbuf_type *perfbuf_type__from_map_fd(int map_fd,
							   const char *name);

/**
 * @brief A type from the text perfbuf_type__to_text() wrote (a capture
 *        file carries its records' type so).
 * @return the type, or NULL with errno EINVAL (malformed), ENOMEM
 */
PERFBUF_API struct perfbuf_type *perfbuf_type__from_text(const char *text);

/**
 * @brief The type as text, a line per field and per enum value: what
 *        perfbuf_type__from_text() reads.
 * @return the text's length (as snprintf: written up to @sz - 1 bytes)
 */
PERFBUF_API size_t perfbuf_type__to_text(const struct perfbuf_type *t,
					 char *buf, size_t sz);

PERFBUF_API void perfbuf_type__free(struct perfbuf_type *t);

/** @brief The type's name: "event" for struct event. */
PERFBUF_API const char *perfbuf_type__name(const struct perfbuf_type *t);
/** @brief sizeof the type. */
PERFBUF_API size_t perfbuf_type__size(const struct perfbuf_type *t);
/** @brief Number of fields in the table, field 0 included. */
PERFBUF_API int perfbuf_type__field_cnt(const struct perfbuf_type *t);
/** @brief Field @idx, or NULL with errno EINVAL. */
PERFBUF_API const struct perfbuf_field *
perfbuf_type__field(const struct perfbuf_type *t, int idx);

/**
 * @brief How many bytes of a record of @sz bytes to decode: the type's
 *        size when the record holds it (the kernel pads perf records by
 *        up to 7 bytes); fewer when the record is shorter and ends in the
 *        type's last member, an array (execsnoop's args): what is there.
 * @return bytes to decode, or -EMSGSIZE when @sz does not fit the type
 */
PERFBUF_API int perfbuf_type__fit(const struct perfbuf_type *t, size_t sz);

/**
 * @brief The integer value of INT, BOOL, ENUM or PTR field @idx of the
 *        member at @data (@sz bytes there: the parent's start), sign
 *        extended when signed, a bitfield's bits extracted.
 * @return 0, -ERANGE when the field is not within @sz, -EINVAL otherwise
 */
PERFBUF_API int perfbuf_type__read_int(const struct perfbuf_type *t, int idx,
				       const void *data, size_t sz, __u64 *val);

/**
 * @brief Field @idx of the bytes at @data (the field's own start, @sz
 *        bytes of it there: fewer than its size for a record's cut tail)
 *        as JSON: integers as numbers, enums as their names (the number
 *        when it has none), bools, strings (bytes that are not UTF-8 as
 *        \u00XX), arrays, structs and unions as objects, pointers as
 *        "0x..." strings. Field 0 with a record: the record's object.
 * @return the text's length, as snprintf (written up to @bufsz - 1 bytes)
 */
PERFBUF_API size_t perfbuf_type__json(const struct perfbuf_type *t, int idx,
				      const void *data, size_t sz, char *buf,
				      size_t bufsz);

#ifdef __cplusplus
}
#endif

#endif /* PERFBUF_TYPE_H */
