// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfbuf trace` output buffer: one big buffer written with write(2),
 * so a closed reader shows up as EPIPE (SIGPIPE is ignored) and nothing
 * is allocated or formatted with stdio per event.
 *
 * JSON strings: valid UTF-8 is copied, '"', '\\', control characters and
 * DEL are escaped (\u00XX), and each byte that is not part of valid UTF-8
 * becomes \udcXX, XX being the byte: the lone low surrogate U+DC80..U+DCFF
 * of PEP 383's "surrogateescape", which no valid UTF-8 decodes to. Any
 * byte sequence yields JSON, "y\xff" and "y\xc3\xbf" (ÿ) stay apart, and
 * the bytes come back exactly: in Python,
 * s.encode("utf-8", "surrogateescape").
 * Text strings: printable ASCII as is, anything else as \n, \t, \\, \"
 * or \xXX, so one event stays one line and a quoted string ends at its
 * closing quote.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_str.h"
#include "buf.h"
#include "values.h"

int outbuf_init(struct outbuf *o, int fd,
		bool (*is_event)(const char *p, size_t n))
{
	*o = (struct outbuf){ .fd = fd, .line = -1, .is_event = is_event };
	o->buf = malloc(OUT_CAP);
	return o->buf ? 0 : -ENOMEM;
}

void outbuf_free(struct outbuf *o)
{
	free(o->buf);
	o->buf = NULL;
}

/* Whole event lines in buf[0, n): the lines are the sink's, and it tells
 * which start an event. */
static __u64 events_in(const struct outbuf *o, size_t n)
{
	const char *p = o->buf, *end = o->buf + n, *nl;
	__u64 cnt = 0;

	while ((nl = memchr(p, '\n', end - p))) {
		if (o->is_event(p, nl - p))
			cnt++;
		p = nl + 1;
	}
	return cnt;
}

int outbuf_flush(struct outbuf *o)
{
	size_t done = 0;

	while (done < o->len && !o->err) {
		ssize_t n = write(o->fd, o->buf + done, o->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->err = n < 0 ? -errno : -EIO;
		else
			done += n;
	}
	/* after an error the output is dropped: the reader is gone, or the
	 * disk is full (short write, then ENOSPC) */
	o->ev_written += done == o->len ? o->ev_buffered : events_in(o, done);
	o->ev_buffered = 0;
	o->len = 0;
	o->line = -1;
	return o->err;
}

void outbuf_event(struct outbuf *o)
{
	if (o->len > OUT_CAP - OUT_ROOM)
		outbuf_flush(o);
	o->ev_buffered++;
}

void out_mem(struct outbuf *o, const void *p, size_t n)
{
	if (o->len + n > OUT_CAP) {
		outbuf_flush(o);
		/* records are at most a few KiB: say so, should it change */
		if (n > OUT_CAP) {
			if (!o->err)
				o->err = -EMSGSIZE;
			return;
		}
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

void out_u64(struct outbuf *o, __u64 v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930"
		"31323334353637383940414243444546474849505152535455565758596061"
		"6263646566676869707172737475767778798081828384858687888990919293"
		"949596979899";
	char tmp[24], *p = tmp + sizeof(tmp);

	/* two digits per division: numbers are most of an event */
	while (v >= 100) {
		unsigned int d = (unsigned int)(v % 100) * 2;

		v /= 100;
		*--p = pairs[d + 1];
		*--p = pairs[d];
	}
	if (v >= 10) {
		*--p = pairs[v * 2 + 1];
		*--p = pairs[v * 2];
	} else {
		*--p = (char)('0' + v);
	}
	out_mem(o, p, tmp + sizeof(tmp) - p);
}

void out_s64(struct outbuf *o, __s64 v)
{
	if (v < 0) {
		out_c(o, '-');
		out_u64(o, -(__u64)v);
	} else {
		out_u64(o, v);
	}
}

void out_hex(struct outbuf *o, __u64 v)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	out_mem(o, p, tmp + sizeof(tmp) - p);
}

static void put_run(void *o, const char *p, size_t n)
{
	out_mem(o, p, n);
}

void out_json_str(struct outbuf *o, const char *str, size_t n)
{
	out_c(o, '"');
	json_str_escape(str, n, put_run, o);
	out_c(o, '"');
}

void out_text_str(struct outbuf *o, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"') {
			out_c(o, c);
			continue;
		}
		switch (c) {
		case '\\': out_lit(o, "\\\\"); break;
		case '"': out_lit(o, "\\\""); break;
		case '\n': out_lit(o, "\\n"); break;
		case '\t': out_lit(o, "\\t"); break;
		default: {
			char e[4] = { '\\', 'x', "0123456789abcdef"[c >> 4],
				      "0123456789abcdef"[c & 15] };
			out_mem(o, e, sizeof(e));
		}
		}
	}
}


void out_hexbytes(struct outbuf *o, const void *p, size_t n)
{
	const unsigned char *d = p;

	for (size_t i = 0; i < n; i++) {
		char h[2] = { "0123456789abcdef"[d[i] >> 4],
			      "0123456789abcdef"[d[i] & 15] };
		out_mem(o, h, 2);
	}
}

/* Rendered at the end of the buffer, then taken out: before any event. */
char *out_render_json(struct outbuf *o, const char *pre, const char *s,
		      const char *post)
{
	size_t mark = o->len;
	char *r;

	out_mem(o, pre, strlen(pre));
	out_json_str(o, s, strlen(s));
	out_mem(o, post, strlen(post));
	r = strndup(o->buf + mark, o->len - mark);
	o->len = mark;
	return r;
}

void out_int(struct outbuf *o, __u64 v, bool sgn, bool json)
{
	/* 2^53: the largest a double (JavaScript, jq) holds exactly */
	const __u64 exact = 1ULL << 53;
	bool quote = json && (sgn ? (__s64)v > (__s64)exact || (__s64)v < -(__s64)exact
				  : v > exact);

	if (quote)
		out_c(o, '"');
	if (sgn)
		out_s64(o, (__s64)v);
	else
		out_u64(o, v);
	if (quote)
		out_c(o, '"');
}

void out_ints(struct outbuf *o, const void *p, size_t n, unsigned int width,
	      bool sgn, bool json)
{
	const unsigned char *d = p;

	out_c(o, '[');
	for (size_t i = 0; width && i + width <= n; i += width) {
		if (i)
			out_c(o, ',');
		out_int(o, tv_load(d + i, width, sgn), sgn, json);
	}
	out_c(o, ']');
}
