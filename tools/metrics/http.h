/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The HTTP/1.1 of the metrics server: a request head parsed, a response
 * head written. Only what GET /metrics needs; no bodies. */
#ifndef PERFBUF_METRICS_HTTP_H
#define PERFBUF_METRICS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct http_req {
	int status;	/* 200 (/metrics), 404, 405, 400, 431 */
	bool head;	/* HEAD: no body */
	bool http10;	/* HTTP/1.0: open only with "Connection: keep-alive" */
	bool close;	/* Connection: close, HTTP/1.0 without keep-alive, a
			 * body, an error */
};

/* A request head at @buf (@len bytes so far, at most @max; empty lines
 * before it ignored): the bytes it took (those lines and the head,
 * "\r\n\r\n" included) with @r set; 0 when incomplete;
 * when @len reached @max with no end: @max and status 431. */
size_t http_parse(const char *buf, size_t len, size_t max, struct http_req *r);

/* The status line and headers for @r and a body of @body_len bytes (the
 * exposition's type for 200, text/plain otherwise): the length written. */
size_t http_head(char *out, size_t sz, const struct http_req *r,
		 size_t body_len);
/* The short body of a status other than 200 ("Not Found\n") */
const char *http_reason(int status);

#endif
