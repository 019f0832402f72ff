/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What `perfbuf trace` decodes a record into, before anything is
 * formatted: typed values handed to a sink (sink.h). The decoder
 * (decode.c) fills them from live records or, later, from a capture file;
 * sinks (text, JSON Lines, files, the network) only read them. Nothing
 * here knows tracefs, BPF or an output format.
 *
 * Bytes are raw: a string is the bytes the kernel gave, up to its NUL,
 * with no escaping, so each sink escapes them its own way.
 */
#ifndef PERFBUF_OUTPUT_VALUES_H
#define PERFBUF_OUTPUT_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

/* A probe as sinks see it: index @id in the schema, names of its fields.
 * Events name their probe and each field's index, so a sink can prepare
 * per probe what it writes every time (JSON keys, a capture's header). */
struct tv_probe {
	int id;
	const char *spec;		/* tracepoint:sched:sched_switch */
	const char *label;		/* sched_switch: short, for text */
	int nfields;
	const char *const *names;	/* nfields field names */
	/* the records of one's own BPF program (perfbuf run): events carry
	 * no task (pid, tid, comm), text puts the fields in columns headed
	 * by their names */
	bool typed;
};

struct tv_schema {
	int nprobes;
	const struct tv_probe *probes;
};

enum tv_type {
	TV_INT,		/* .u or .i: an integer of .width bytes, .is_signed */
	TV_PTR,		/* .u: an address */
	TV_STR,		/* .data/.len: a string's bytes, no NUL */
	TV_BYTES,	/* .data/.len: bytes with no structure (hex) */
	TV_ARRAY,	/* .data/.len: integers of .width bytes, .is_signed */
	TV_STRS,	/* .strs/.len: a list of .len strings (execve's argv) */
	TV_JSON,	/* .data/.len: a JSON value (a struct as an object, a
			 * bool, an enum's name), written as it is */
};

/* How a value is meant to be read, beyond its type: sinks that know a
 * hint may render it (a name for a number, an address as IPv4), the
 * others print the plain type. */
enum tv_hint {
	TV_HINT_NONE,
	TV_HINT_HEX,		/* an integer best read in hex (flags, masks) */
	TV_HINT_SYMBOLIC,	/* __print_symbolic(): .names maps values */
	TV_HINT_FLAGS,		/* __print_flags(): .names maps bits */
	TV_HINT_IPV4,		/* TV_BYTES/TV_ARRAY/TV_INT: an IPv4 address,
				 * in network order in memory */
	TV_HINT_IPV6,		/* TV_BYTES/TV_ARRAY: an IPv6 address */
	TV_HINT_SOCKADDR,	/* TV_ARRAY: a struct sockaddr_in or _in6 */
	TV_HINT_KSYM,		/* TV_PTR: a kernel address (a symbol) */
	TV_HINT_ERRNO,		/* TV_INT: negative errno on failure */
};

/* Flags of a field (tv_field.flags), and of a TV_STRS element. */
#define TV_F_CUT	1	/* TV_STR/TV_BYTES: the source was longer;
				 * TV_STRS: the list was */
#define TV_F_HIDDEN	2	/* not in the short (text) form: __syscall_nr */
#define TV_F_UNREAD	4	/* TV_PTR in place of a string BPF could not read;
				 * a TV_STRS element that could not be read */

/* An element of a TV_STRS list. */
struct tv_str {
	const char *data;	/* len bytes, no NUL */
	size_t len;
	unsigned char flags;	/* TV_F_CUT, TV_F_UNREAD */
};

/* One value pair, for TV_HINT_SYMBOLIC and TV_HINT_FLAGS. */
struct tv_name {
	__u64 value;
	const char *name;
};

struct tv_field {
	int idx;			/* in the probe's names[] */
	const char *name;		/* names[idx] */
	unsigned char type;		/* enum tv_type */
	unsigned char hint;		/* enum tv_hint */
	unsigned char width;		/* TV_INT, TV_ARRAY elements: 1/2/4/8 */
	unsigned char flags;		/* TV_F_* */
	bool is_signed;
	union {
		__u64 u;
		__s64 i;
	};
	const void *data;		/* TV_STR, TV_BYTES, TV_ARRAY */
	size_t len;			/* bytes at data; TV_STRS: elements */
	const struct tv_str *strs;	/* TV_STRS */
	const struct tv_name *names;	/* TV_HINT_SYMBOLIC/FLAGS, nnames */
	int nnames;
};

struct tv_event {
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	int cpu;
	bool late;		/* older than an event delivered before it */
	__u32 pid, tid;
	const char *comm;	/* comm_len bytes, no NUL */
	size_t comm_len;
	const struct tv_probe *probe;
	int nfields;
	const struct tv_field *fields;
	/* --kstack, --ustack: the frames' names, leaf first (NULL: not
	 * asked for; asked for, a stack may have no frame) */
	const char *const *kstack;
	const char *const *ustack;
	int nkstack, nustack;
};

/* Records the kernel could not write: @time_ns 0 when unknown. */
struct tv_lost {
	__u64 time_ns;
	int cpu;
	__u64 count;
};

enum tv_notice_kind {
	TV_CPU_ONLINE,		/* a CPU came online: traced from now on */
	TV_CPU_OFFLINE,		/* a CPU went offline, its ring drained */
};

struct tv_notice {
	enum tv_notice_kind kind;
	__u64 time_ns;
	int cpu;
};

struct tv_cpu_summary {
	int cpu;
	__u64 received, lost;
};

/* One kind of a ledger (perfbuf/ledger.h): a probe of `perfbuf trace`,
 * a kind of one's own program. offered = received + lost + no_reader +
 * failed. */
struct tv_kind_summary {
	const char *name;	/* the probe's spec, the kind's name */
	__u64 offered, received, lost, no_reader, failed;
};

struct tv_summary {
	__u64 received;		/* events the rings delivered: printed +
				 * discarded + undecoded */
	__u64 lost;		/* records the kernel dropped (ring full) */
	__u64 printed;		/* events handed to the sink */
	__u64 discarded;	/* received past -n, not handed on */
	__u64 unwritten;	/* meant for the output, which failed before
				 * they reached it whole */
	const char *unwritten_why;	/* why: "disk full (FILE)" */
	__u64 undecoded;	/* received, of a size their type does not
				 * fit (perfbuf run): not printed, not past -n */
	size_t ncpus;
	const struct tv_cpu_summary *cpus;
	/* the programs' ledger, when they keep one (nkinds 0: none): per
	 * kind, and the totals the kernel does not count (no ring in the
	 * CPU's slot, other failures); kind_word names a kind in the text
	 * and JSON ("probe": "probes":[{"probe":NAME,...}]) */
	const struct tv_kind_summary *kinds;
	size_t nkinds;
	const char *kind_word;
	__u64 no_reader, failed;
	int ledger_mismatch;	/* CPUs whose ledger and reader disagree */
	unsigned long long ring_bytes;	/* ring memory mapped at the end */
	size_t rings;			/* in so many rings */
	bool output_failed;	/* the output is gone: the summary goes to
				 * stderr */
	bool aggregated;	/* --aggregate: the events went into maps
				 * (text says "aggregated", not "printed") */
};

/* The @width-byte integer at @p (1, 2, 4, else 8), sign-extended when
 * @sgn: cast to __s64 for its value. */
static inline __u64 tv_load(const void *p, unsigned int width, bool sgn)
{
	__u8 u8; __u16 u16; __u32 u32; __u64 v = 0;

	switch (width) {
	case 1: memcpy(&u8, p, 1); v = u8; break;
	case 2: memcpy(&u16, p, 2); v = u16; break;
	case 4: memcpy(&u32, p, 4); v = u32; break;
	default: memcpy(&v, p, 8); return v;
	}
	if (sgn && (v >> (width * 8 - 1)) & 1)
		v |= ~0ULL << (width * 8);
	return v;
}

#endif
