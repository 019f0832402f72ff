/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perfbuf capture files: what `perfbuf record` writes and `perfbuf report`
 * reads (docs/record.md, "The capture file format", is the reference).
 *
 *   file   = header frame*
 *   header = "PERFBUF-CAPTURE\n" (16 bytes), u32 version, u32 header size
 *            (32), u64 flags (0)
 *   frame  = u32 type, u32 cpu, u64 len, u32 crc32 (zlib's, of the
 *            payload), u32 0, payload[len], zero padding to 8 bytes
 *
 * All integers little-endian (the machine's: captures are decoded on the
 * same architecture). A frame is complete or it is damage: a reader takes
 * every frame before the first that is cut short or fails its CRC.
 */
#ifndef PERFBUF_CAPTURE_H
#define PERFBUF_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>
#include <linux/types.h>
#include "output/file.h"

#define CAP_MAGIC "PERFBUF-CAPTURE\n"
#define CAP_MAGIC_LEN 16
#define CAP_VERSION 1

struct cap_header {
	char magic[CAP_MAGIC_LEN];
	__u32 version;
	__u32 header_size;
	__u64 flags;
};

enum cap_type {
	CAP_META = 1,		/* text, "key=value\n" lines */
	CAP_FORMAT = 2,		/* "group:name\n" then a tracepoint format file */
	CAP_PROBES = 3,		/* the tool's probe table, text */
	CAP_DATA = 4,		/* a ring's bytes as they are: whole records */
	CAP_LOST = 5,		/* struct cap_lost: losses a drain settled */
	CAP_CPU = 6,		/* struct cap_cpu: a CPU came online, went offline */
	CAP_SNAPSHOT = 7,	/* struct cap_snapshot: a flight-recorder
				 * snapshot's frames follow */
	CAP_END = 8,		/* text: the closing summary; the last frame */
	CAP_RUN_TYPE = 9,	/* perfbuf run: a map read, cpu = its index:
				 * "NAME\n", then its record type as
				 * perfbuf_type__to_text() writes it, or
				 * nothing (hex) */
	CAP_RUN_RECORDS = 10,	/* perfbuf run: records, each a struct
				 * cap_run_record and its bytes, 8-aligned */
	CAP_LEDGER = 11,	/* text: the programs' ledger at the end,
				 * per kind (ledger_io.c) */
	CAP_TYPE_MAX = CAP_LEDGER,
};

struct cap_frame {
	__u32 type;
	__u32 cpu;
	__u64 len;
	__u32 crc;
	__u32 reserved;
};

struct cap_lost {
	__u64 lost;
	__u64 time_ns;
};

#define CAP_CPU_ONLINE 1
#define CAP_CPU_OFFLINE 2

struct cap_cpu {
	__u32 kind;
	__u32 reserved;
	__u64 time_ns;
};

struct cap_run_record {
	__u32 map;		/* CAP_RUN_TYPE's index */
	__s32 cpu;		/* -1: a ring buffer's (no CPU) */
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	__u32 len;		/* bytes that follow (then padding to 8) */
	__u32 flags;		/* PERFBUF_RECF_LATE */
};

struct cap_snapshot {
	__u64 seq;		/* from 1 */
	__u64 time_ns;		/* CLOCK_MONOTONIC when it was taken */
};

/* zlib's crc32() of @len bytes at @p, continuing @crc (0 to start). */
__u32 cap_crc32(__u32 crc, const void *p, size_t len);

/* ---- writing -------------------------------------------------------- */

struct cap_writer;

/* Create @path (0600, never through a symlink, not a file with other hard
 * links; an existing file replaced only at the close: out_file__open())
 * and write the header. NULL with errno. */
struct cap_writer *cap_writer__open(const char *prog, const char *path);
/* Write one frame whose payload is @iov (@cnt pieces). 0 or a negative
 * errno; after an error every later call returns it (the file then ends
 * with complete frames, or a cut one that readers report). */
int cap_writer__frame(struct cap_writer *w, __u32 type, __u32 cpu,
		      const struct iovec *iov, int cnt);
/* One frame of @len bytes at @buf. */
int cap_writer__put(struct cap_writer *w, __u32 type, __u32 cpu,
		    const void *buf, size_t len);
/* Bytes written so far (headers included). */
__u64 cap_writer__bytes(const struct cap_writer *w);
/* The first error, 0 if none. */
int cap_writer__error(const struct cap_writer *w);
/* The capture written so far becomes the file at the path, and is
 * written on there (out_file__publish(), @keep as there). 0 or -errno,
 * said on stderr. */
int cap_writer__publish(struct cap_writer *w, bool keep);
/* Close (fsync first when @sync); 0 or the first error (the close's
 * said on stderr: out_file__commit()). */
int cap_writer__close(struct cap_writer *w, bool sync);
/* Close without a capture: a file @path that was there stays as it was,
 * one made by cap_writer__open() is removed. */
void cap_writer__discard(struct cap_writer *w);

/* ---- reading -------------------------------------------------------- */

struct cap_reader;

/* A frame as read: @data points into the reader's mapping. */
struct cap_view {
	__u32 type;
	__u32 cpu;
	const void *data;
	size_t len;
	__u64 offset;		/* of the frame header in the file */
};

/* Map @path read-only and check its header. NULL with errno; @why (if
 * not NULL) gets one line on what is wrong (not a capture, a newer format
 * version, empty). */
struct cap_reader *cap_reader__open(const char *path, char *why, size_t why_sz);
/* The same over @len bytes at @buf (kept by the caller). */
struct cap_reader *cap_reader__open_mem(const void *buf, size_t len,
					char *why, size_t why_sz);
/* The next frame: 1, 0 at the end (after CAP_END, or where the bytes end
 * after a whole frame: truncated() then), or -EBADMSG on damage (error()
 * says where and what; later calls return it again). Frames of types this
 * version does not know are skipped. */
int cap_reader__next(struct cap_reader *r, struct cap_view *f);
/* The frame of @type furthest into the file that next() has returned
 * (across rewinds), into @v: false when it met none. What a caller wants
 * at the end (the ledger) once it has read the frames for its own ends. */
bool cap_reader__last(const struct cap_reader *r, __u32 type, struct cap_view *v);
/* What the last -EBADMSG was: "at byte N: ..." */
const char *cap_reader__error(const struct cap_reader *r);
/* Was the file cut while mapped (what was read past its end: zeros)? */
bool cap_reader__shrunk(const struct cap_reader *r);
/* Damage found by a reader's user in the frame just read (@what: a
 * format with one %llu, @v): said by cap_reader__error(); -EBADMSG. */
int cap_reader__damage(struct cap_reader *r, const char *what,
		       unsigned long long v);
/* Did the file end without its CAP_END frame (cut short: a crash)? */
bool cap_reader__truncated(const struct cap_reader *r);
/* Start again at the first frame. */
void cap_reader__rewind(struct cap_reader *r);
void cap_reader__close(struct cap_reader *r);

#endif
