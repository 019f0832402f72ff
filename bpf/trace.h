/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * trace: the generic programs behind `perfbuf trace`. One program per
 * probe kind; each attachment carries a cookie, the probe's index, which
 * selects its struct trace_probe_cfg in the `cfgs` map.
 *
 * A record is struct trace_record followed by data[]:
 *  - tracepoints: bytes [0, raw_size) of the tracepoint record (ctx),
 *    then the slots listed in the probe's config, packed in slot order
 *    (the argv slot last), each str_len[i] bytes (0 = could not be
 *    read): strings with their NUL; a user buffer's bytes and a NUL; the
 *    argv slot's arguments, each a TRACE_ARG_* byte then the string and
 *    its NUL, then TRACE_ARGV_END. Bit i of str_cut: slot i was cut (at
 *    str_size bytes, or an argv with more arguments than were read).
 *  - kprobe/uprobe/fentry/raw tracepoints: raw_size / 8 u64 arguments;
 *  - kretprobe/uretprobe: one u64, the return value;
 *  - fexit: the return value, then the arguments (raw_size / 8 - 1);
 *  - kprobe, uprobe, fentry, fexit: then the probe's string slots, as a
 *    tracepoint's (offsets into the u64s above; typed arguments);
 * then, with --kstack/--ustack, at data + stack_off (8-aligned), the
 * kernel frames (kstack_n u64 addresses, leaf first), then the user
 * frames (ustack_n); stack_off is TRACE_NO_STACK_ROOM when the data left
 * no room for them.
 */
#ifndef TRACE_H
#define TRACE_H

#define TRACE_COMM_LEN 16
#define TRACE_MAX_PROBES 4096	/* attachments (a glob can match many) */
/* probe_cookie of the kprobe program all kprobes share where the kernel
 * has no attach cookies: the probe's index from map kprobe_ip */
#define TRACE_BY_IP 0xffffffffULL
#define TRACE_RAW_MAX 1024	/* tracepoint record bytes copied */
#define TRACE_MAX_STRS 4	/* slots read per record */
#define TRACE_STR_SIZE 255	/* default --string-size: bytes of a string */
#define TRACE_STR_SIZE_MAX 4096	/* largest --string-size */
#define TRACE_ARGV_MAX 32	/* argv arguments read */
#define TRACE_REC_MAX 32768	/* a per-CPU map value's limit */
#define TRACE_DATA_MAX (TRACE_REC_MAX - 56)	/* data[] room */
#define TRACE_ROOM 16384	/* no slot starts at or past it: power of two,
				 * room + a slot's bytes < TRACE_DATA_MAX */
#define TRACE_MAX_ARGS 6
#define TRACE_STACK_MAX 127	/* frames per stack (perf_event_max_stack) */
#define TRACE_NO_STACK_ROOM 0xffff
#define TRACE_MAX_SYSCALLS 1024	/* syscall numbers traced through sys_enter */
#define TRACE_LAT_DEPTH 16	/* entry times kept per thread and function:
				 * calls nested deeper get no duration */
#define TRACE_LAT_THREADS 16384	/* threads x functions in calls at once (LRU) */

/* What a string slot reads. */
enum trace_str_kind {
	TRACE_STR_DATA_LOC = 1,	/* __data_loc u32 at off: kernel string */
	TRACE_STR_REL_LOC,	/* __rel_loc u32 at off: relative to off + 4 */
	TRACE_STR_USER_PTR,	/* user pointer (u64) at off: user string */
	TRACE_BYTES_DATA_LOC,	/* __data_loc array, not chars: raw bytes */
	TRACE_BYTES_REL_LOC,
	TRACE_BUF_USER_PTR,	/* user buffer (u64) at off, len_off its length */
	TRACE_ARGV_USER_PTR,	/* user char *argv[] (u64) at off */
	TRACE_STR_ANY_PTR,	/* a kernel function's char * (u64) at off:
				 * the kernel read, or the user's when it
				 * faults (user_first: the other way) */
};

/* The byte before each argument of an argv slot. */
enum trace_arg_mark {
	TRACE_ARG_WHOLE = 0,
	TRACE_ARG_CUT,		/* cut at str_size */
	TRACE_ARG_FAULT,	/* unreadable: an empty string follows */
	TRACE_ARGV_END,		/* the end of the list: nothing follows */
};

/*
 * A struct member of an argument (p->x, file->f_path.dentry->d_name.name):
 * from the pointer in the u64 at data + arg_off, nsteps reads, each at the
 * address so far plus off[i]: the first nsteps - 1 read a pointer, the
 * last the member's size bytes (0: the member is an array, its address is
 * the value; a string slot reads it). The value is a u64 at data +
 * mem_off + 8 * k (member k), and a byte at data + mem_off +
 * 8 * TRACE_MAX_MEMBERS + k is 1 when a read failed (the value 0).
 */
#define TRACE_MAX_MEMBERS 4
#define TRACE_MEMBER_STEPS 6

struct trace_member_cfg {
	unsigned char arg_off;	/* the argument's u64 in data[]: < 64 */
	unsigned char nsteps;	/* 1..TRACE_MEMBER_STEPS */
	unsigned char size;	/* of the last read: 1, 2, 4, 8; 0 address */
	unsigned char user;	/* a process's memory, not the kernel's */
	unsigned short off[TRACE_MEMBER_STEPS];
};

struct trace_str_cfg {
	unsigned short off;	/* field offset in the tracepoint record */
	unsigned char kind;	/* enum trace_str_kind */
	unsigned char user_first;	/* TRACE_STR_ANY_PTR */
	unsigned short len_off;	/* TRACE_BUF_USER_PTR: its u64 length */
};

/* One probe's configuration, at key = cookie in the cfgs map. */
struct trace_probe_cfg {
	unsigned int raw_size;	/* tracepoints: record bytes to copy */
	unsigned int nstr;
	struct trace_str_cfg str[TRACE_MAX_STRS];
	int argv_slot;		/* the TRACE_ARGV_USER_PTR slot, read last; -1 */
	/* function latency (bpf/trace_latency.bpf.h): an entry probe pushes
	 * the time on its thread's stack, its return probe pops it and
	 * writes duration_ns, a u64 at data + lat_off (0: unknown) */
	unsigned char lat;	/* enum trace_lat */
	unsigned char lat_off;	/* TRACE_LAT_RETURN: 8-aligned, < 64 */
	unsigned short pad;
	unsigned int lat_entry;	/* TRACE_LAT_RETURN: the entry probe's index */
	unsigned char nmem;	/* struct members read (trace_member_cfg) */
	unsigned char mem_off;	/* where their values go in data[]: 8-aligned */
	unsigned short pad2;
	struct trace_member_cfg mem[TRACE_MAX_MEMBERS];
};

enum trace_lat {
	TRACE_LAT_NONE,
	TRACE_LAT_ENTRY,
	TRACE_LAT_RETURN,
};

struct trace_record {
	unsigned long long time_ns;	/* 0: the perf sample's time is the
					 * record's (CLOCK_MONOTONIC) */
	unsigned long long cookie;	/* the probe's index */
	unsigned int pid;		/* process (tgid) */
	unsigned int tid;
	char comm[TRACE_COMM_LEN];
	unsigned short raw_size;
	unsigned short str_len[TRACE_MAX_STRS];
	unsigned short str_cut;		/* bit i: slot i was cut */
	unsigned short stack_off;	/* where the stacks start in data[];
					 * TRACE_NO_STACK_ROOM: did not fit */
	unsigned char kstack_n;		/* kernel frames */
	unsigned char ustack_n;		/* user frames */
	unsigned char data[];
};
_Static_assert(sizeof(struct trace_record) == TRACE_REC_MAX - TRACE_DATA_MAX,
	       "TRACE_DATA_MAX: the record's header changed");

#endif
