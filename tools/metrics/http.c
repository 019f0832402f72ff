// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* HTTP/1.1 request heads and response heads (http.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "expo.h"
#include "http.h"

const char *http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 431: return "Request Header Fields Too Large";
	case 503: return "Service Unavailable";
	default: return "Bad Request";
	}
}

/* The end of the head: after "\r\n\r\n" (or "\n\n"), or NULL */
static const char *head_end(const char *buf, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (buf[i + 1] == '\n')
			return buf + i + 2;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return buf + i + 3;
	}
	return NULL;
}

static bool is_token(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] >= 127)
			return false;
	return true;
}

/* "METHOD SP TARGET SP HTTP/1.x": status, and @r->http10 */
static int request_line(const char *s, size_t n, struct http_req *r)
{
	const char *sp1 = memchr(s, ' ', n), *sp2, *ver;
	size_t mlen, tlen, vlen;

	if (!sp1)
		return 400;
	sp2 = memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - s));
	if (!sp2)
		return 400;
	mlen = (size_t)(sp1 - s);
	tlen = (size_t)(sp2 - sp1 - 1);
	ver = sp2 + 1;
	vlen = n - (size_t)(ver - s);
	if (!is_token(s, mlen) || !is_token(sp1 + 1, tlen) ||
	    vlen != 8 || memcmp(ver, "HTTP/1.", 7) || (ver[7] != '0' && ver[7] != '1'))
		return 400;
	r->http10 = ver[7] == '0';
	r->head = mlen == 4 && !memcmp(s, "HEAD", 4);
	if (!r->head && !(mlen == 3 && !memcmp(s, "GET", 3)))
		return 405;
	/* /metrics, with a query string or not */
	if (tlen >= 8 && !memcmp(sp1 + 1, "/metrics", 8) &&
	    (tlen == 8 || sp1[9] == '?'))
		return 200;
	return 404;
}

/* What the headers ask for; the response decides once all are read */
struct asked {
	bool close;		/* Connection: close */
	bool keep_alive;	/* Connection: keep-alive */
	bool body;		/* a body we do not read */
};

/* Does header line @s (@n bytes, its name checked) have name @name? Its
 * value then. */
static const char *header(const char *s, size_t n, const char *name,
			  size_t *vlen)
{
	size_t k = strlen(name);

	if (n <= k || strncasecmp(s, name, k) || s[k] != ':')
		return NULL;
	s += k + 1;
	n -= k + 1;
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	*vlen = n;
	return s;
}

/* Connection's value: a comma-separated list of tokens (RFC 9110 7.6.1) */
static void connection(const char *v, size_t n, struct asked *a)
{
	while (n) {
		const char *comma = memchr(v, ',', n);
		size_t k = comma ? (size_t)(comma - v) : n, t = k;
		const char *tok = v;

		while (t && (*tok == ' ' || *tok == '\t'))
			tok++, t--;
		while (t && (tok[t - 1] == ' ' || tok[t - 1] == '\t'))
			t--;
		if (t == 5 && !strncasecmp(tok, "close", 5))
			a->close = true;
		else if (t == 10 && !strncasecmp(tok, "keep-alive", 10))
			a->keep_alive = true;
		v += k + !!comma;
		n -= k + !!comma;
	}
}

/* A header line: false when it is malformed. A field name is a token
 * right before its colon: "Content-Length : 26" or a folded line is a
 * 400 (RFC 9112 5.1), never a header skipped, lest its body pass for a
 * request. The headers that matter: Connection, and a body announced. */
static bool header_line(const char *s, size_t n, struct asked *a)
{
	const char *colon = memchr(s, ':', n), *v;
	size_t vlen;

	if (!colon || !is_token(s, (size_t)(colon - s)))
		return false;
	if ((v = header(s, n, "Connection", &vlen)))
		connection(v, vlen, a);
	else if ((v = header(s, n, "Content-Length", &vlen)))
		a->body |= vlen != 1 || *v != '0';
	else if (header(s, n, "Transfer-Encoding", &vlen))
		a->body = true;
	return true;
}

/* Empty lines before a request line are ignored (RFC 9112 2.2) */
static size_t empty_lines(const char *buf, size_t len)
{
	size_t i = 0;

	for (;;) {
		if (i < len && buf[i] == '\n')
			i++;
		else if (i + 1 < len && buf[i] == '\r' && buf[i + 1] == '\n')
			i += 2;
		else
			return i;
	}
}

size_t http_parse(const char *buf, size_t len, size_t max, struct http_req *r)
{
	size_t skip = empty_lines(buf, len);
	const char *end = head_end(buf + skip, len - skip), *s = buf + skip;
	struct asked a = {};
	bool first = true;

	*r = (struct http_req){};
	if (!end) {
		if (len < max)
			return 0;
		*r = (struct http_req){ .status = 431, .close = true };
		return max;
	}
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = (size_t)(nl - s);

		if (n && s[n - 1] == '\r')
			n--;
		if (first) {
			r->status = request_line(s, n, r);
			first = false;
		} else if (n && !header_line(s, n, &a)) {
			r->status = 400;
		}
		s = nl + 1;
	}
	r->close = a.close || a.body || (r->http10 && !a.keep_alive) ||
		   (r->status != 200 && r->status != 404);
	return (size_t)(end - buf);
}

size_t http_head(char *out, size_t sz, const struct http_req *r,
		 size_t body_len)
{
	/* HTTP/1.0 closes unless the response says keep-alive */
	int n = snprintf(out, sz, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s\r\n",
			 r->status, http_reason(r->status),
			 r->status == 200 ? EXPO_CONTENT_TYPE : "text/plain; charset=utf-8",
			 body_len, r->status == 405 ? "Allow: GET, HEAD\r\n" : "",
			 r->close ? "Connection: close\r\n" :
			 r->http10 ? "Connection: keep-alive\r\n" : "");

	return n < 0 ? 0 : (size_t)n < sz ? (size_t)n : sz - 1;
}
