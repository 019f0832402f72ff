// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for out_json_str(), perfbuf trace's JSON string
 * escaper: for any bytes, the output must be one JSON string (quotes,
 * then no raw control character, DEL, '"' or invalid UTF-8, and only
 * \" \\ \n \t \r \b \f \uXXXX escapes), valid UTF-8 in the input must be
 * copied as is, and decoding it back, \u00XX (XX < 0x80) and \udcXX (XX
 * >= 0x80: surrogateescape) each to the byte XX, must give the input
 * exactly. abort() on any violation.
 */
#define _GNU_SOURCE	/* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "output/buf.h"

/*
 * Length of the well-formed UTF-8 sequence at s, 0 if there is none:
 * the table of Unicode 15, section 3.9, table 3-7 (written apart from
 * the escaper's own check on purpose).
 */
static size_t utf8_seq(const uint8_t *s, size_t n)
{
	static const struct { uint8_t lo, hi, len, lo2, hi2; } t[] = {
		{ 0x00, 0x7f, 1, 0, 0 },
		{ 0xc2, 0xdf, 2, 0x80, 0xbf },
		{ 0xe0, 0xe0, 3, 0xa0, 0xbf },
		{ 0xe1, 0xec, 3, 0x80, 0xbf },
		{ 0xed, 0xed, 3, 0x80, 0x9f },
		{ 0xee, 0xef, 3, 0x80, 0xbf },
		{ 0xf0, 0xf0, 4, 0x90, 0xbf },
		{ 0xf1, 0xf3, 4, 0x80, 0xbf },
		{ 0xf4, 0xf4, 4, 0x80, 0x8f },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (s[0] < t[i].lo || s[0] > t[i].hi)
			continue;
		if (t[i].len == 1)
			return 1;
		if (n < t[i].len || s[1] < t[i].lo2 || s[1] > t[i].hi2)
			return 0;
		for (size_t j = 2; j < t[i].len; j++)
			if (s[j] < 0x80 || s[j] > 0xbf)
				return 0;
		return t[i].len;
	}
	return 0;
}

static int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Decode the string body b[0, n) into out (n bytes at most: no escape is
 * shorter than what it stands for); raw[i]: out[i] was copied, not
 * escaped. Returns the decoded length; abort()s on invalid JSON.
 */
static size_t decode(const uint8_t *b, size_t n, uint8_t *out, bool *raw)
{
	size_t i = 0, o = 0, l;

	while (i < n) {
		uint8_t c = b[i];

		if (c < 0x20 || c == 0x7f || c == '"')
			abort();	/* raw: invalid JSON, or a DEL */
		if (c != '\\') {
			l = utf8_seq(b + i, n - i);
			if (!l)
				abort();	/* invalid UTF-8 in the output */
			memcpy(out + o, b + i, l);
			memset(raw + o, 1, l);
			i += l;
			o += l;
			continue;
		}
		if (i + 1 >= n)
			abort();	/* a lone backslash escapes the quote */
		raw[o] = false;
		switch (b[i + 1]) {
		case '"': out[o++] = '"'; break;
		case '\\': out[o++] = '\\'; break;
		case 'n': out[o++] = '\n'; break;
		case 't': out[o++] = '\t'; break;
		case 'r': out[o++] = '\r'; break;
		case 'b': out[o++] = '\b'; break;
		case 'f': out[o++] = '\f'; break;
		case 'u': {
			int v = 0;

			if (i + 6 > n)
				abort();
			for (int k = 2; k < 6; k++) {
				int h = hexval(b[i + k]);

				if (h < 0)
					abort();
				v = v << 4 | h;
			}
			/* \u00XX: a control byte; \udcXX: byte XX of
			 * invalid UTF-8; nothing else maps to one byte */
			if (v >= 0xdc80 && v <= 0xdcff)
				v -= 0xdc00;
			else if (v >= 0x80)
				abort();
			out[o++] = v;
			i += 4;
			break;
		}
		default:
			abort();	/* not a JSON escape */
		}
		i += 2;
	}
	return o;
}

static struct outbuf out = { .fd = -1 };	/* into a memfd */

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	uint8_t *got, *back;
	bool *raw;
	off_t n;
	size_t l;

	/* once: a 1 MiB buffer per input would be most of the time */
	if (out.fd < 0 &&
	    outbuf_init(&out, memfd_create("fuzz_json", MFD_CLOEXEC), NULL))
		abort();
	out_json_str(&out, (const char *)in, len);
	if (outbuf_flush(&out))
		abort();
	n = lseek(out.fd, 0, SEEK_CUR);
	if (n < 0)
		abort();
	got = malloc(n + 1);
	back = malloc(n + 1);
	raw = malloc((n + 1) * sizeof(*raw));
	if (!got || !back || !raw || pread(out.fd, got, n, 0) != n ||
	    ftruncate(out.fd, 0) || lseek(out.fd, 0, SEEK_SET))
		abort();
	if (n < 2 || got[0] != '"' || got[n - 1] != '"')
		abort();
	l = decode(got + 1, n - 2, back, raw);
	if (l != len || memcmp(back, in, len))
		abort();	/* does not map back to the input */
	/* valid UTF-8 is copied, and only it: a non-ASCII byte is escaped
	 * exactly when it does not belong to a well-formed sequence */
	for (size_t i = 0, k; i < len; i += k) {
		bool valid;

		k = utf8_seq(in + i, len - i);
		valid = k > 0;
		if (!valid)
			k = 1;
		for (size_t j = i; in[i] >= 0x80 && j < i + k; j++)
			if (raw[j] != valid)
				abort();
	}
	free(got);
	free(back);
	free(raw);
	return 0;
}
