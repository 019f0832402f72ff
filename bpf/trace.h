/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * trace: the generic programs behind `perfbuf trace`. One program per
 * probe kind; each attachment carries a cookie, the probe's index, which
 * selects its struct trace_probe_cfg in the `cfgs` map.
 *
 * A record is struct trace_record followed by data[]:
 *  - tracepoints: bytes [0, raw_size) of the tracepoint record (ctx),
 *    then the strings listed in the probe's config, packed, each
 *    str_len[i] bytes (NUL included; 0 = could not be read);
 *  - kprobe/uprobe/fentry/raw tracepoints: raw_size / 8 u64 arguments;
 *  - kretprobe/uretprobe/fexit: one u64, the return value.
 */
#ifndef TRACE_H
#define TRACE_H

#define TRACE_COMM_LEN 16
#define TRACE_MAX_PROBES 4096	/* attachments (a glob can match many) */
#define TRACE_RAW_MAX 1024	/* tracepoint record bytes copied */
#define TRACE_MAX_STRS 4	/* strings read per record */
#define TRACE_STR_MAX 256	/* bytes per string, NUL included */
#define TRACE_DATA_MAX 4096	/* data[] room: power of two, >= raw + strs */
#define TRACE_MAX_ARGS 6

/* What a string slot reads. */
enum trace_str_kind {
	TRACE_STR_DATA_LOC = 1,	/* __data_loc u32 at off: kernel string */
	TRACE_STR_REL_LOC,	/* __rel_loc u32 at off: relative to off + 4 */
	TRACE_STR_USER_PTR,	/* user pointer (u64) at off: user string */
	TRACE_BYTES_DATA_LOC,	/* __data_loc array, not chars: raw bytes */
	TRACE_BYTES_REL_LOC,
};

struct trace_str_cfg {
	unsigned short off;	/* field offset in the tracepoint record */
	unsigned char kind;	/* enum trace_str_kind */
	unsigned char pad;
};

/* One probe's configuration, at key = cookie in the cfgs map. */
struct trace_probe_cfg {
	unsigned int raw_size;	/* tracepoints: record bytes to copy */
	unsigned int nstr;
	struct trace_str_cfg str[TRACE_MAX_STRS];
};

struct trace_record {
	unsigned long long time_ns;	/* bpf_ktime_get_ns() */
	unsigned long long cookie;	/* the probe's index */
	unsigned int pid;		/* process (tgid) */
	unsigned int tid;
	char comm[TRACE_COMM_LEN];
	unsigned short raw_size;
	unsigned short str_len[TRACE_MAX_STRS];
	unsigned short pad[3];
	unsigned char data[];
};

#endif
