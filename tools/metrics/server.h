/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A small HTTP/1.1 server for GET /metrics, in a thread of its own with its
 * own epoll: the event loop never waits for it, whatever its clients do.
 * Non-blocking sockets; at most max_conns connections (a new one evicts
 * the oldest idle one, so a flood of idle sockets never locks the scraper
 * out; so does a new one that finds no fd left, and with no connection to
 * close the listener rests a quarter second or until an fd is free); a
 * request must arrive whole within timeout_ms of its first byte
 * (a client sending a byte a second is closed), a connection with no
 * request is closed after idle_ms, a response not taken by the client
 * within timeout_ms is dropped. Requests: GET or HEAD; /metrics gets the
 * rendered exposition (rendered at most once per cache_ms, the same bytes
 * shared by every connection sending it), any other path 404, another
 * method 405, anything unparsable 400 (then closed). No request bodies.
 */
#ifndef PERFBUF_METRICS_SERVER_H
#define PERFBUF_METRICS_SERVER_H

#include <stddef.h>
#include <sys/socket.h>

#include "expo.h"

struct metrics_server;

/* Fills @e (empty) with the exposition; runs in the server's thread. */
typedef void (*metrics_render_fn)(void *ctx, struct expo *e);

struct metrics_server_opts {
	size_t sz;
	int max_conns;		/* 0: 256 */
	int timeout_ms;		/* a request's arrival, a response's sending;
				 * 0: 10000 */
	int idle_ms;		/* a connection with no request; 0: 60000 */
	int cache_ms;		/* a rendering reused; 0: 100, < 0: never */
};

/* "[ADDR:]PORT" (ADDR an IPv4 address, [IPv6] or a host name; default
 * 127.0.0.1; PORT 0..65535, 0: any free one) into @ss: 0, or -EINVAL
 * with @why set to what is wrong. */
int metrics_addr_parse(const char *arg, struct sockaddr_storage *ss,
		       socklen_t *len, const char **why);

/* Listen on @arg (see metrics_addr_parse()) and serve from a new thread.
 * NULL with errno: EINVAL (a bad address), EADDRINUSE, EACCES, ... */
struct metrics_server *metrics_server__new(const char *arg,
					   metrics_render_fn fn, void *ctx,
					   const struct metrics_server_opts *opts);
/* The port listened on (the one chosen, for port 0). */
int metrics_server__port(const struct metrics_server *s);
/* "http://ADDR:PORT/metrics" into @buf: the address bound (an IPv6 one
 * in brackets) and the port. 0, -ENOSPC (@sz too small) or -errno. */
int metrics_server__url(const struct metrics_server *s, char *buf, size_t sz);
/* Stop the thread, close every connection. NULL is a no-op. */
void metrics_server__free(struct metrics_server *s);

#endif
