// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The NATS connection: servers, reconnection, TLS, credentials, the
 * JetStream context; one clear line when none of it works.
 *
 * Reconnection is libnats's: every URL of --nats in turn, for ever,
 * 500 ms apart (plus jitter, so a fleet does not come back at once).
 * What the publisher (pub.c) sends while the connection is down waits in
 * its own buffer, not in libnats's.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/socket.h>

#include "conn.h"
#include "common/say.h"

#define IFOK(s, call) do { if ((s) == NATS_OK) (s) = (call); } while (0)

const char *nats_reason(natsStatus s)
{
	const char *last = nats_GetLastError(NULL);
	const char *p;

	/* "(conn.c:2088): text": the text without the place */
	if (last && (p = strstr(last, "): ")))
		return p + 3;
	return last && *last ? last : natsStatus_GetText(s);
}

const char *nats_conn_url(struct nats_conn *c, char *buf, size_t sz)
{
	if (!c->nc || natsConnection_GetConnectedUrl(c->nc, buf, sz) != NATS_OK ||
	    !*buf)
		snprintf(buf, sz, "%s", c->o->urls[0]);
	return buf;
}

bool nats_conn_up(struct nats_conn *c)
{
	return c->nc && natsConnection_Status(c->nc) == NATS_CONN_STATUS_CONNECTED;
}

static void on_disconnected(natsConnection *nc, void *closure)
{
	struct nats_conn *c = closure;

	(void)nc;
	if (!c->quiet)
		cli_say(c->o->prog, "NATS: disconnected; reconnecting (events wait in the buffer)\n");
}

static void on_reconnected(natsConnection *nc, void *closure)
{
	struct nats_conn *c = closure;
	char url[256];

	(void)nc;
	if (!c->quiet)
		cli_say(c->o->prog, "NATS: connected to %s\n", nats_conn_url(c, url, sizeof(url)));
}

/* Asynchronous errors (a slow consumer, a permission denied). */
static void on_error(natsConnection *nc, natsSubscription *sub, natsStatus err,
		     void *closure)
{
	struct nats_conn *c = closure;
	const char *last = NULL;

	(void)sub;
	natsConnection_GetLastError(nc, &last);
	cli_say(c->o->prog, "NATS: %s\n", last && *last ? last : natsStatus_GetText(err));
}

/* Why a TCP connection to @url fails: libnats says only "no server
 * available". "" when it does not. */
static const char *tcp_reason(const char *url, char *buf, size_t sz)
{
	char host[256], *port = "4222", *p;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	struct pollfd pfd = { .events = POLLOUT };
	int err = 0, rc;
	socklen_t len = sizeof(err);

	p = strstr(url, "://");
	snprintf(host, sizeof(host), "%s", p ? p + 3 : url);
	if ((p = strrchr(host, '@')))
		memmove(host, p + 1, strlen(p));
	p = strrchr(host, ':');
	if (p && (host[0] != '[' || p[-1] == ']')) {
		*p = 0;
		port = p + 1;
	}
	if (host[0] == '[' && (p = strchr(host, ']'))) {
		*p = 0;
		memmove(host, host + 1, strlen(host));
	}
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc) {
		snprintf(buf, sz, "%s: %s", host, gai_strerror(rc));
		return buf;
	}
	pfd.fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (pfd.fd < 0)
		err = errno;
	else if (connect(pfd.fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS)
		err = errno;
	else if (poll(&pfd, 1, 2000) == 0)
		err = ETIMEDOUT;
	else
		getsockopt(pfd.fd, SOL_SOCKET, SO_ERROR, &err, &len);
	if (pfd.fd >= 0)
		close(pfd.fd);
	freeaddrinfo(ai);
	if (!err)
		return "";
	snprintf(buf, sz, "%s", strerror(err));
	return buf;
}

/* One line for a failed first connection. */
static void say_connect_failed(struct nats_conn *c, natsStatus s)
{
	const struct nats_opts *o = c->o;
	const char *urls = o->nurls > 1 ? "any of --nats" : o->urls[0];
	char why[300];

	switch (s) {
	case NATS_NO_SERVER:
		/* --nats-wait is trace's; nats-tail has none */
		cli_say(o->prog, "cannot connect to NATS at %s: %s; is nats-server running there?%s\n",
			urls, *tcp_reason(o->urls[0], why, sizeof(why)) ? why :
			"no server answers", strcmp(o->prog, "perfbuf trace") ? "" :
			" (--nats-wait starts anyway)");
		break;
	case NATS_CONNECTION_AUTH_FAILED:
	case NATS_NOT_PERMITTED:
		cli_say(o->prog, "NATS at %s refused us: %s; check --nats-creds (or the user in the URL)\n",
			urls, nats_reason(s));
		break;
	case NATS_SSL_ERROR:
	case NATS_SECURE_CONNECTION_WANTED:
	case NATS_SECURE_CONNECTION_REQUIRED:
		cli_say(o->prog, "TLS with NATS at %s failed: %s; check --nats-tls-ca and tls:// in the URL\n",
			urls, nats_reason(s));
		break;
	default:
		cli_say(o->prog, "cannot connect to NATS at %s: %s\n", urls, nats_reason(s));
	}
}

/* The natsOptions of @c->o: servers, reconnection, TLS, credentials. */
static natsStatus set_options(struct nats_conn *c)
{
	const struct nats_opts *o = c->o;
	natsOptions *no = NULL;
	natsStatus s;

	s = natsOptions_Create(&no);
	c->nopts = no;
	IFOK(s, natsOptions_SetServers(no, (const char **)o->urls, o->nurls));
	IFOK(s, natsOptions_SetNoRandomize(no, true));
	IFOK(s, natsOptions_SetName(no, o->prog));
	IFOK(s, natsOptions_SetMaxReconnect(no, -1));
	IFOK(s, natsOptions_SetReconnectWait(no, 500));
	IFOK(s, natsOptions_SetReconnectJitter(no, 250, 1000));
	IFOK(s, natsOptions_SetTimeout(no, 2000));
	/* written to the socket by the thread that publishes (ours, there
	 * for that): no wake-up of libnats's flusher thread per message,
	 * about three context switches a batch */
	IFOK(s, natsOptions_SetSendAsap(no, true));
	IFOK(s, natsOptions_SetDisconnectedCB(no, on_disconnected, c));
	IFOK(s, natsOptions_SetReconnectedCB(no, on_reconnected, c));
	IFOK(s, natsOptions_SetErrorHandler(no, on_error, c));
	if (s == NATS_OK && o->wait)
		s = natsOptions_SetRetryOnFailedConnect(no, true, on_reconnected, c);
	if (s == NATS_OK && o->tls_ca) {
		s = natsOptions_SetSecure(no, true);
		IFOK(s, natsOptions_LoadCATrustedCertificates(no, o->tls_ca));
		if (s != NATS_OK) {
			cli_say(o->prog, "--nats-tls-ca '%s': %s\n", o->tls_ca, nats_reason(s));
			return s;
		}
	}
	if (s == NATS_OK && o->creds) {
		s = natsOptions_SetUserCredentialsFromFiles(no, o->creds, NULL);
		if (s != NATS_OK) {
			cli_say(o->prog, "--nats-creds '%s': %s\n", o->creds, nats_reason(s));
			return s;
		}
	}
	if (s != NATS_OK)
		cli_say(o->prog, "setting up NATS failed: %s\n", nats_reason(s));
	return s;
}

int nats_conn_open(struct nats_conn *c, const struct nats_opts *o,
		   jsPubAckHandler ack, void *ack_ctx)
{
	jsOptions jo;
	natsStatus s;
	bool later;

	c->o = o;
	if (set_options(c) != NATS_OK)
		return -EINVAL;
	s = natsConnection_Connect(&c->nc, c->nopts);
	later = s == NATS_NOT_YET_CONNECTED;
	if (s != NATS_OK && !later) {
		say_connect_failed(c, s);
		return s == NATS_CONNECTION_AUTH_FAILED || s == NATS_NOT_PERMITTED ?
		       -EACCES : -ECONNREFUSED;
	}
	if (later)
		cli_say(o->prog, "NATS at %s does not answer yet; events wait in the buffer until it does\n",
			o->nurls > 1 ? "any of --nats" : o->urls[0]);
	jsOptions_Init(&jo);
	jo.Wait = 5000;
	jo.PublishAsync.AckHandler = ack;
	jo.PublishAsync.AckHandlerClosure = ack_ctx;
	s = natsConnection_JetStream(&c->js, c->nc, &jo);
	if (s != NATS_OK) {
		cli_say(o->prog, "NATS JetStream: %s\n", nats_reason(s));
		return -ENOMEM;
	}
	return later ? -EAGAIN : 0;
}

void nats_conn_close(struct nats_conn *c)
{
	c->quiet = 1;
	if (c->nc)
		natsConnection_Close(c->nc);
	jsCtx_Destroy(c->js);
	natsConnection_Destroy(c->nc);
	natsOptions_Destroy(c->nopts);
	c->js = NULL;
	c->nc = NULL;
	c->nopts = NULL;
}
