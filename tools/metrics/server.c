// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The metrics server (server.h): one thread, one epoll, non-blocking
 * sockets. Every connection is in one of two states: reading a request
 * head (EPOLLIN) or sending a response (EPOLLOUT); each has a deadline,
 * and the epoll wait never sleeps past the nearest one. Nothing here takes
 * a lock the event loop holds: the render callback reads the collector's
 * stats (perfbuf__stats(), safe from another thread) and counters the
 * loop publishes.
 */
#define _GNU_SOURCE	/* accept4() */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include "http.h"
#include "server.h"

#define IN_MAX 4096		/* a request head's bytes */
#define LISTEN_PAUSE_MS 250	/* no fd for a connection: retry after */

/* A rendering, shared by the connections sending it */
struct body {
	int refs;
	size_t len;
	char data[];
};

struct conn {
	int fd;			/* -1: closed in this round, freed at its end */
	struct conn *next_dead;
	bool writing;
	bool close_after;
	long long deadline;	/* ms, CLOCK_MONOTONIC */
	long long since;	/* accepted, or its last response sent */
	size_t in_len;
	char head[256];		/* the response head */
	size_t head_len, off;	/* off: bytes of head + body sent */
	struct body *body;	/* NULL: http_reason() of the status */
	const char *small;	/* that reason */
	size_t body_len;
	char in[IN_MAX];
};

struct metrics_server {
	int listen_fd, ep, stop_fd, port;
	metrics_render_fn render;
	void *ctx;
	struct metrics_server_opts o;
	struct conn **conns;	/* max_conns slots */
	int nconns;
	struct conn *dead;	/* closed in this round */
	struct body *cache;
	long long cache_at;
	struct expo expo;
	pthread_t thread;
	bool listen_paused;	/* no fd, no connection to give one back */
	long long paused_until;	/* ms: accept again then, or at a close */
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void body_put(struct body *b)
{
	if (b && --b->refs == 0)
		free(b);
}

/* Freed at the end of the round, not here: an event of this round may
 * still name it, and a connection accepted meanwhile could get its
 * address and take that event for its own. */
static void conn_close(struct metrics_server *s, int i)
{
	struct conn *c = s->conns[i];

	/* out of the epoll set first: close() takes it out only with the
	 * socket's last reference, and a forked child (trace's detach can
	 * leave the rest to one) may hold one: its events would then keep
	 * naming this connection, freed at the end of the round */
	epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	body_put(c->body);
	c->body = NULL;
	c->next_dead = s->dead;
	s->dead = c;
	s->conns[i] = s->conns[--s->nconns];
	s->conns[s->nconns] = NULL;
	s->paused_until = 0;	/* an fd free: try the listener again */
}

static void free_dead(struct metrics_server *s)
{
	while (s->dead) {
		struct conn *c = s->dead;

		s->dead = c->next_dead;
		free(c);
	}
}

/* The exposition, rendered at most once per cache_ms */
static struct body *rendering(struct metrics_server *s)
{
	long long now = now_ms();
	struct body *b;

	if (s->cache && s->o.cache_ms >= 0 && now - s->cache_at < s->o.cache_ms)
		goto out;
	expo_reset(&s->expo);
	s->render(s->ctx, &s->expo);
	if (s->expo.oom)
		return NULL;
	b = malloc(sizeof(*b) + s->expo.len);
	if (!b)
		return NULL;
	b->refs = 1;
	b->len = s->expo.len;
	memcpy(b->data, s->expo.buf, b->len);
	body_put(s->cache);
	s->cache = b;
	s->cache_at = now;
out:
	s->cache->refs++;
	return s->cache;
}

static void want(struct metrics_server *s, struct conn *c, unsigned int ev)
{
	struct epoll_event e = { .events = ev, .data.ptr = c };

	epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &e);
}

/* A whole head in c->in: the response set up, the head's bytes dropped */
static void respond(struct metrics_server *s, struct conn *c,
		    const struct http_req *r, size_t used)
{
	struct http_req rr = *r;

	c->body = NULL;
	c->small = NULL;
	if (rr.status == 200 && !(c->body = rendering(s)))
		rr.status = 503, rr.close = true;	/* out of memory */
	if (c->body)
		c->body_len = c->body->len;
	else
		c->small = http_reason(rr.status), c->body_len = strlen(c->small) + 1;
	c->head_len = http_head(c->head, sizeof(c->head), &rr, c->body_len);
	if (rr.head)
		c->body_len = 0;
	c->off = 0;
	c->close_after = rr.close;
	memmove(c->in, c->in + used, c->in_len - used);
	c->in_len -= used;
	c->writing = true;
	c->deadline = now_ms() + s->o.timeout_ms;
	want(s, c, EPOLLOUT);
}

static void try_request(struct metrics_server *s, struct conn *c)
{
	struct http_req r;
	size_t used = http_parse(c->in, c->in_len, IN_MAX, &r);

	if (used)
		respond(s, c, &r, used);
}

/* Send what the socket takes: false when the connection is to go */
static bool send_some(struct metrics_server *s, struct conn *c)
{
	while (c->off < c->head_len + c->body_len) {
		struct iovec iov[2];
		struct msghdr mh = { .msg_iov = iov };
		const char *b = c->body ? c->body->data : c->small;
		ssize_t n;

		if (c->off < c->head_len) {
			iov[0] = (struct iovec){ c->head + c->off, c->head_len - c->off };
			iov[1] = (struct iovec){ (char *)b, c->body_len };
			mh.msg_iovlen = 2;
		} else {
			size_t o = c->off - c->head_len;

			iov[0] = (struct iovec){ (char *)b + o, c->body_len - o };
			mh.msg_iovlen = 1;
		}
		n = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		c->off += n;
	}
	if (c->close_after)
		return false;
	body_put(c->body);
	c->body = NULL;
	c->writing = false;
	c->since = now_ms();
	c->deadline = c->since + (c->in_len ? s->o.timeout_ms : s->o.idle_ms);
	want(s, c, EPOLLIN);
	try_request(s, c);	/* a pipelined one */
	return true;
}

/* Read what came: false when the connection is to go */
static bool read_some(struct metrics_server *s, struct conn *c)
{
	while (!c->writing && c->in_len < IN_MAX) {
		ssize_t n = recv(c->fd, c->in + c->in_len, IN_MAX - c->in_len,
				 MSG_DONTWAIT);

		if (n == 0)
			return false;
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		/* a request's first byte: it has timeout_ms to come whole */
		if (!c->in_len) {
			long long d = now_ms() + s->o.timeout_ms;

			if (d < c->deadline)
				c->deadline = d;
		}
		c->in_len += n;
		try_request(s, c);
	}
	return true;
}

/* The oldest connection, idle ones first (to make room for a new one) */
static int oldest(const struct metrics_server *s)
{
	int best = -1, best_idle = -1;

	for (int i = 0; i < s->nconns; i++) {
		const struct conn *c = s->conns[i];

		if (best < 0 || c->since < s->conns[best]->since)
			best = i;
		if (!c->writing && !c->in_len &&
		    (best_idle < 0 || c->since < s->conns[best_idle]->since))
			best_idle = i;
	}
	return best_idle >= 0 ? best_idle : best;
}

static bool waiting(int listen_fd)
{
	struct pollfd p = { .fd = listen_fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

static void accept_some(struct metrics_server *s)
{
	for (int k = 0; k < 64; k++) {
		int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct epoll_event e = { .events = EPOLLIN };
		struct conn *c;

		if (fd < 0) {
			if (errno != EMFILE && errno != ENFILE && errno != ENOMEM)
				return;
			/* No fd for it: the oldest connection gives its own
			 * back, as when max_conns is reached (idle sockets
			 * must not lock the scraper out). With none, stop
			 * accepting for a while: the listener stays ready,
			 * and taking it back at once would spin. accept()
			 * says EMFILE with nothing waiting too. */
			if (!waiting(s->listen_fd))
				return;
			if (s->nconns) {
				conn_close(s, oldest(s));
				continue;
			}
			epoll_ctl(s->ep, EPOLL_CTL_DEL, s->listen_fd, NULL);
			s->listen_paused = true;
			s->paused_until = now_ms() + LISTEN_PAUSE_MS;
			return;
		}
		if (s->nconns == s->o.max_conns)
			conn_close(s, oldest(s));
		c = malloc(sizeof(*c));
		if (!c) {
			close(fd);
			return;
		}
		c->fd = fd;
		c->writing = c->close_after = false;
		c->in_len = 0;
		c->body = NULL;
		c->since = now_ms();
		c->deadline = c->since + s->o.idle_ms;
		e.data.ptr = c;
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &e)) {
			close(fd);
			free(c);
			return;
		}
		s->conns[s->nconns++] = c;
	}
}

/* Close the connections past their deadline; the time to the next one */
static int expire(struct metrics_server *s)
{
	long long now = now_ms(), next = now + 1000;

	if (s->listen_paused && s->paused_until <= now) {
		struct epoll_event e = { .events = EPOLLIN, .data.ptr = s };

		if (!epoll_ctl(s->ep, EPOLL_CTL_ADD, s->listen_fd, &e))
			s->listen_paused = false;
	}
	if (s->listen_paused && s->paused_until < next)
		next = s->paused_until;
	for (int i = 0; i < s->nconns; i++) {
		if (s->conns[i]->deadline <= now) {
			conn_close(s, i--);
			continue;
		}
		if (s->conns[i]->deadline < next)
			next = s->conns[i]->deadline;
	}
	return (int)(next - now);
}

static int conn_index(const struct metrics_server *s, const struct conn *c)
{
	for (int i = 0; i < s->nconns; i++)
		if (s->conns[i] == c)
			return i;
	return -1;
}

static void *serve(void *arg)
{
	struct metrics_server *s = arg;
	struct epoll_event ev[64];

	for (;;) {
		int n = epoll_wait(s->ep, ev, 64, expire(s));

		for (int i = 0; i < n; i++) {
			struct conn *c = ev[i].data.ptr;
			bool keep;

			if (ev[i].data.ptr == &s->stop_fd)
				return NULL;
			if (ev[i].data.ptr == s) {
				accept_some(s);
				continue;
			}
			if (c->fd < 0)
				continue;	/* closed by this round */
			keep = !(ev[i].events & (EPOLLERR | EPOLLHUP)) &&
			       (c->writing ? send_some(s, c) : read_some(s, c));
			if (!keep)
				conn_close(s, conn_index(s, c));
		}
		free_dead(s);
	}
}

int metrics_addr_parse(const char *arg, struct sockaddr_storage *ss,
		       socklen_t *len, const char **why)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV }, *ai;
	char host[256] = "127.0.0.1";
	const char *colon = strrchr(arg, ':'), *port = colon ? colon + 1 : arg;
	char *end;
	long p;

	*why = NULL;
	if (colon && colon != arg) {
		size_t n = (size_t)(colon - arg);

		if (arg[0] == '[' && colon[-1] == ']')	/* [IPv6]:PORT */
			arg++, n -= 2;
		if (n == 0 || n >= sizeof(host)) {
			*why = "a bad address";
			return -EINVAL;
		}
		memcpy(host, arg, n);
		host[n] = 0;
	}
	errno = 0;
	p = strtol(port, &end, 10);
	if (!*port || *end || errno || p < 0 || p > 65535) {
		*why = "a port from 0 to 65535 wanted";
		return -EINVAL;
	}
	if (getaddrinfo(host, port, &hints, &ai) || !ai) {
		*why = "an address that does not resolve";
		return -EINVAL;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static int listen_on(const char *arg, int *port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	const char *why;
	int one = 1, fd, err;

	if (metrics_addr_parse(arg, &ss, &len, &why))
		return -EINVAL;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 128) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len)) {
		err = -errno;
		close(fd);
		return err;
	}
	*port = ntohs(ss.ss_family == AF_INET6 ?
		      ((struct sockaddr_in6 *)&ss)->sin6_port :
		      ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

static int server_start(struct metrics_server *s)
{
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = s };
	struct epoll_event st = { .events = EPOLLIN, .data.ptr = &s->stop_fd };
	sigset_t all, old;
	int err;

	s->ep = epoll_create1(EPOLL_CLOEXEC);
	s->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s->conns = calloc(s->o.max_conns, sizeof(*s->conns));
	if (s->ep < 0 || s->stop_fd < 0)
		return -errno;
	if (!s->conns)
		return -ENOMEM;
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->listen_fd, &e) ||
	    epoll_ctl(s->ep, EPOLL_CTL_ADD, s->stop_fd, &st))
		return -errno;
	/* signals are the event loop's: none for this thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&s->thread, NULL, serve, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

#define OPT(o, f, def) ((o) && (o)->sz > offsetof(struct metrics_server_opts, f) && \
			(o)->f ? (o)->f : (def))

struct metrics_server *metrics_server__new(const char *arg,
					   metrics_render_fn fn, void *ctx,
					   const struct metrics_server_opts *opts)
{
	struct metrics_server *s = calloc(1, sizeof(*s));
	int err = -ENOMEM;

	if (!s)
		goto fail;
	s->ep = s->stop_fd = -1;
	s->render = fn;
	s->ctx = ctx;
	s->o.max_conns = OPT(opts, max_conns, 256);
	s->o.timeout_ms = OPT(opts, timeout_ms, 10000);
	s->o.idle_ms = OPT(opts, idle_ms, 60000);
	s->o.cache_ms = OPT(opts, cache_ms, 100);
	s->listen_fd = listen_on(arg, &s->port);
	if (s->listen_fd < 0) {
		err = s->listen_fd;
		goto fail;
	}
	err = server_start(s);
	if (!err)
		return s;
	close(s->listen_fd);
fail:
	if (s) {
		if (s->ep >= 0)
			close(s->ep);
		if (s->stop_fd >= 0)
			close(s->stop_fd);
		free(s->conns);
		free(s);
	}
	errno = -err;
	return NULL;
}

int metrics_server__port(const struct metrics_server *s)
{
	return s->port;
}

int metrics_server__url(const struct metrics_server *s, char *buf, size_t sz)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[INET6_ADDRSTRLEN];
	const void *addr;
	int n;

	if (getsockname(s->listen_fd, (struct sockaddr *)&ss, &len))
		return -errno;
	addr = ss.ss_family == AF_INET6 ?
	       (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr :
	       (const void *)&((struct sockaddr_in *)&ss)->sin_addr;
	if (!inet_ntop(ss.ss_family, addr, host, sizeof(host)))
		return -errno;
	/* an IPv6 address in brackets (RFC 3986 3.2.2) */
	n = snprintf(buf, sz, ss.ss_family == AF_INET6 ? "http://[%s]:%d/metrics" :
		     "http://%s:%d/metrics", host, s->port);
	return n < 0 || (size_t)n >= sz ? -ENOSPC : 0;
}

void metrics_server__free(struct metrics_server *s)
{
	__u64 one = 1;

	if (!s)
		return;
	if (write(s->stop_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(s->thread, NULL);
	while (s->nconns)
		conn_close(s, 0);
	free_dead(s);
	body_put(s->cache);
	expo_free(&s->expo);
	close(s->listen_fd);
	close(s->ep);
	close(s->stop_fd);
	free(s->conns);
	free(s);
}
