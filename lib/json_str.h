/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one JSON string escaper, for its three writers: libperfbuf's
 * records as JSON (src/type_json.c: nested structs' strings), the tool's
 * outputs (tools/output/buf.c: every JSON field and name) and
 * nats-tail's host names (tools/nats/tail_out.c). Valid UTF-8
 * passes as it is; '"', '\\' and \n \t \r get their short escapes, other
 * control characters and DEL \u00XX; each byte that is not valid UTF-8
 * becomes \udcXX, XX being the byte (PEP 383's surrogateescape: the lone
 * low surrogates U+DC80..U+DCFF stand for bytes, never for a character,
 * so a reader gets the original bytes back, where \u00ff would be ÿ).
 * Inline, with the writer's own @put: each writer's copy is compiled
 * with its output (the trace sink's hot path keeps its runs of bytes).
 * utf8_len() is also nats-tail's check of a message's strings
 * (tools/nats/tail_check.c); fuzz/fuzz_json.c keeps an oracle of its own.
 */
#ifndef PERFBUF_JSON_STR_H
#define PERFBUF_JSON_STR_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at @s (@n bytes left): 1 for ASCII,
 * 0 when the bytes there are not UTF-8 (overlong, a surrogate, past
 * U+10FFFF, cut) */
static inline size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* The inside of a JSON string for the @n bytes at @str (no quotes),
 * handed to @put(@ctx, bytes, len) in runs */
static inline void json_str_escape(const char *str, size_t n,
				   void (*put)(void *ctx, const char *p, size_t len),
				   void *ctx)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0, l;

	while (i < n) {
		unsigned char c = s[i];
		char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

		/* DEL is valid JSON, but escaped it cannot upset a terminal */
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			run++;
			continue;
		}
		l = c >= 0x80 ? utf8_len(s + i, n - i) : 0;
		if (l) {
			i += l;
			run += l;
			continue;
		}
		if (run)
			put(ctx, str + i - run, run);
		run = 0;
		switch (c) {
		case '"': put(ctx, "\\\"", 2); break;
		case '\\': put(ctx, "\\\\", 2); break;
		case '\n': put(ctx, "\\n", 2); break;
		case '\t': put(ctx, "\\t", 2); break;
		case '\r': put(ctx, "\\r", 2); break;
		default:
			if (c >= 0x80) {	/* a byte of invalid UTF-8 */
				e[2] = 'd';
				e[3] = 'c';
			}
			put(ctx, e, sizeof(e));
		}
		i++;
	}
	if (run)
		put(ctx, str + i - run, run);
}

#endif
