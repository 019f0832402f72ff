/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The output buffer the text and JSON sinks write into (buf.c): one
 * big buffer written with write(2), numbers and escaped strings
 * formatted straight into it.
 */
#ifndef PERFBUF_OUTPUT_BUF_H
#define PERFBUF_OUTPUT_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "sink.h"

#define OUT_CAP (1 << 20)
#define OUT_ROOM (64 << 10)	/* always free before an event starts */

struct outbuf {
	char *buf;
	size_t len;
	int fd;
	int err;		/* first write error, negative errno */
	long line;		/* start of the current line, -1: flushed */
	__u64 ev_buffered;	/* events in buf */
	__u64 ev_written;	/* events written whole */
	/* does the line at @p start an event? (counts a partial write) */
	bool (*is_event)(const char *p, size_t n);
};

int outbuf_init(struct outbuf *o, int fd,
		bool (*is_event)(const char *p, size_t n));
void outbuf_free(struct outbuf *o);
/* 0, or the first error: -EPIPE (reader gone), -ENOSPC, -errno */
int outbuf_flush(struct outbuf *o);
/* An event starts: room for it, counted. */
void outbuf_event(struct outbuf *o);

void out_mem(struct outbuf *o, const void *p, size_t n);
void out_u64(struct outbuf *o, __u64 v);
void out_s64(struct outbuf *o, __s64 v);
void out_hex(struct outbuf *o, __u64 v);	/* 0x1f */
void out_hexbytes(struct outbuf *o, const void *p, size_t n);	/* 1fa0 */
/* JSON string, quoted: valid UTF-8 as is (control characters \u00XX),
 * each byte of invalid UTF-8 \udcXX (PEP 383's surrogateescape) */
void out_json_str(struct outbuf *o, const char *s, size_t n);
/* text: printable ASCII as is, the rest \n, \t, \\, \", \xXX */
void out_text_str(struct outbuf *o, const char *s, size_t n);
/* An integer; @json: one beyond 2^53 (a double cannot hold it exactly)
 * as a decimal string, "18446744073709551615", as protobuf's JSON
 * mapping writes 64-bit integers, so every reader gets the exact value */
void out_int(struct outbuf *o, __u64 v, bool sgn, bool json);
/* [1,-2,3]: the whole @width-byte integers in @p[0, n), as out_int() */
void out_ints(struct outbuf *o, const void *p, size_t n, unsigned int width,
	      bool sgn, bool json);
/* @pre, @s as a JSON string, @post, in a string of their own (malloc) */
char *out_render_json(struct outbuf *o, const char *pre, const char *s,
		      const char *post);

static inline void out_c(struct outbuf *o, char c)
{
	if (o->len == OUT_CAP)
		outbuf_flush(o);
	o->buf[o->len++] = c;
}

#define out_lit(o, s) out_mem(o, s, sizeof(s) - 1)

/*
 * What the text and JSON sinks share (sink_buf.c): a sink writing into
 * an outbuf, its flush, end, and a summary written through, to another fd
 * if need be, without touching the sink's error state.
 */
struct trace_sink;
struct tv_field;
struct tv_summary;

struct buf_sink {
	struct trace_sink base;
	struct outbuf ob;
};

/* A zeroed sink of @size bytes (a struct starting with struct buf_sink)
 * writing to @fd; NULL with errno ENOMEM. */
void *buf_sink_new(size_t size, const struct trace_sink_ops *ops, int fd,
		   bool (*is_event)(const char *p, size_t n));
int buf_sink_flush(struct trace_sink *s);
void buf_sink_end(struct trace_sink *s);
/* Flush, then @write the summary to @fd (the output's when negative),
 * written through; the sink's fd and error are restored. 0 or -errno. */
int buf_sink_summary(struct trace_sink *s, int fd, const struct tv_summary *sum,
		     void (*write)(struct outbuf *o, const struct tv_summary *sum));
/* The closing summary's text (sink_text.c: lines for stderr) and JSON
 * object (sink_json.c), for the sinks that end with it too (sink_agg.c) */
void text_summary_lines(struct outbuf *o, const struct tv_summary *sum);
void json_summary_line(struct outbuf *o, const struct tv_summary *sum);
/* A TV_HINT_IPV4/IPV6/SOCKADDR field as text into @buf (@sz >= 64):
 * "127.0.0.1", "::1", "127.0.0.1:80", "[::1]:80"; its length, 0 when the
 * bytes are not such an address (then it prints as its type). */
size_t tv_addr_text(const struct tv_field *f, char *buf, size_t sz);
/* A TV_HINT_SYMBOLIC/FLAGS integer's names: "TCP_CLOSE", "A|B|0x40"
 * (flags the table does not name in hex); 0 when none applies. */
size_t tv_names_text(const struct tv_field *f, char *buf, size_t sz);
/* TV_INT and TV_ARRAY (out_int()): false for other types */
bool out_number(struct outbuf *o, const struct tv_field *f, bool json);

#endif
