// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The NATS options: parsed and checked here, each bad one said in one
 * line naming the option and what it wants.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cli.h"
#include "options.h"
#include "subject.h"

void nats_opts_init(struct nats_opts *o, const char *prog)
{
	*o = (struct nats_opts){ .prog = prog, .subject = NATS_DEFAULT_SUBJECT,
				 .replicas = 1, .buffer = 64 << 20,
				 .spool_size = 1LL << 30,
				 .window = 1024, .ack_wait_ms = 2000,
				 .batch_bytes = NATS_DEFAULT_BATCH_BYTES,
				 .latency_ms = NATS_DEFAULT_LATENCY_MS };
}

void nats_opts_free(struct nats_opts *o)
{
	free(o->urls_copy);
	o->urls_copy = NULL;
	o->nurls = 0;
}

/* nats://HOST[:PORT], tls://..., or HOST[:PORT] (user info allowed) */
static const char *url_invalid(const char *url)
{
	const char *p = strstr(url, "://"), *host, *colon;
	char *end;
	long port;

	if (p && strncmp(url, "nats://", 7) && strncmp(url, "tls://", 6))
		return "the scheme is not nats:// or tls://";
	host = p ? p + 3 : url;
	if (strchr(host, '@'))
		host = strrchr(host, '@') + 1;
	if (!*host || *host == ':' || *host == '/')
		return "it has no host";
	if (strpbrk(host, "/ ?#"))
		return "a host and port, nothing after them";
	colon = *host == '[' ? strstr(host, "]:") : strrchr(host, ':');
	if (colon) {
		colon += *colon == ']';
		errno = 0;
		port = strtol(colon + 1, &end, 10);
		if (errno || *end || end == colon + 1 || port < 1 || port > 65535)
			return "the port is not a number from 1 to 65535";
	}
	return NULL;
}

static bool set_urls(struct nats_opts *o, const char *arg)
{
	char *save = NULL, *tok;

	nats_opts_free(o);
	o->urls_copy = strdup(arg);
	if (!o->urls_copy) {
		cli_say(o->prog, "out of memory\n");
		return false;
	}
	for (tok = strtok_r(o->urls_copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		const char *why = url_invalid(tok);

		if (why) {
			cli_say(o->prog, "--nats '%s' is not a NATS URL (nats://HOST:PORT): %s\n",
				tok, why);
			return false;
		}
		if (o->nurls == NATS_MAX_URLS) {
			cli_say(o->prog, "--nats takes at most %d URLs\n", NATS_MAX_URLS);
			return false;
		}
		o->urls[o->nurls++] = tok;
	}
	if (!o->nurls) {
		cli_say(o->prog, "--nats wants URL[,URL...], e.g. nats://127.0.0.1:4222\n");
		return false;
	}
	return true;
}

static bool set_subject(struct nats_opts *o, const char *arg)
{
	char *s = nats_subject_expand(arg, "host", "tracepoint:cat:name");
	const char *why = s ? nats_subject_invalid(s, false) : "out of memory";

	free(s);
	if (why) {
		cli_say(o->prog, "--subject '%s' is not a subject to publish to: %s\n",
			arg, why);
		return false;
	}
	o->subject = arg;
	return true;
}

static bool set_stream_subjects(struct nats_opts *o, const char *arg)
{
	char *copy = strdup(arg), *save = NULL;
	const char *why = copy ? NULL : "out of memory";

	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && !why;
	     t = strtok_r(NULL, ",", &save))
		why = nats_subject_invalid(t, true);
	free(copy);
	if (why) {
		cli_say(o->prog, "--nats-stream-subjects '%s': %s\n", arg,
			why);
		return false;
	}
	o->stream_subjects = arg;
	return true;
}

/* A stream name: no '.', '*', '>', blanks, path separators. */
static bool set_stream(struct nats_opts *o, const char *arg)
{
	if (!*arg || strlen(arg) > 255 || strpbrk(arg, ".*> \t/\\")) {
		cli_say(o->prog, "--nats-stream wants a stream name (letters, digits, - and _), not '%s'\n",
			arg);
		return false;
	}
	o->stream = arg;
	return true;
}

static bool set_number(struct nats_opts *o, const char *opt, const char *arg,
		       long min, long max, int *out)
{
	long v;

	if (!cli_parse_num(o->prog, opt, arg, min, max, &v))
		return false;
	*out = v;
	return true;
}

/* A file that must be readable now: said up front, not at connect time. */
static bool set_file(struct nats_opts *o, const char *opt, const char *arg,
		     const char **out)
{
	if (access(arg, R_OK)) {
		cli_say(o->prog, "%s '%s': %s\n", opt, arg, strerror(errno));
		return false;
	}
	*out = arg;
	return true;
}

static bool set_quantity(struct nats_opts *o, int opt, const char *arg)
{
	unsigned long long v;
	bool ok;

	switch (opt) {
	case NATS_OPT_MAX_AGE:
		ok = cli_parse_duration(o->prog, "--nats-max-age", arg, NS_PER_S,
					CLI_DURATION_MAX, &v);
		o->max_age_ns = (int64_t)v;
		return ok;
	case NATS_OPT_MAX_BYTES:
		ok = cli_parse_size(o->prog, "--nats-max-bytes", arg, 4096, 1ULL << 50, &v);
		o->max_bytes = (int64_t)v;
		return ok;
	case NATS_OPT_SPOOL_SIZE:
		o->spool_size_set = true;
		ok = cli_parse_size(o->prog, "--nats-spool-size", arg, 1 << 20, 1ULL << 50, &v);
		o->spool_size = (int64_t)v;
		return ok;
	default:	/* NATS_OPT_BUFFER */
		ok = cli_parse_size(o->prog, "--nats-buffer", arg, 4096, 1ULL << 40, &v);
		o->buffer = (int64_t)v;
		return ok;
	}
}

/* --nats-batch N (events; the bytes bound by the server's payload only)
 * or SIZE (bytes: a K, M or B suffix; events without a bound) */
static bool set_batch(struct nats_opts *o, const char *arg)
{
	size_t n = strlen(arg);
	unsigned long long bytes;
	long v;

	if (n && strspn(arg, "0123456789") == n) {
		if (!cli_parse_long(arg, 1, 1000000, &v)) {
			o->batch_events = v;
			o->batch_bytes = 0;
			return true;
		}
	} else if (!units_size(arg, &bytes) && bytes >= 256 && bytes <= (64 << 20)) {
		o->batch_bytes = (int64_t)bytes;
		o->batch_events = 0;
		return true;
	}
	cli_say(o->prog, "--nats-batch wants events per message (1 to 1000000) or bytes (256B to 64M, e.g. 64K), not '%s'\n",
		arg);
	return false;
}

bool nats_opts_set(struct nats_opts *o, int opt, const char *arg)
{
	if (opt != NATS_OPT_URLS && !o->other)
		o->other = opt;
	switch (opt) {
	case NATS_OPT_URLS:
		return set_urls(o, arg);
	case NATS_OPT_SUBJECT:
		return set_subject(o, arg);
	case NATS_OPT_HOST:
		if (*arg && strlen(arg) < 256) {
			o->host = arg;
			return true;
		}
		cli_say(o->prog, "--nats-host wants a name of 1 to 255 characters\n");
		return false;
	case NATS_OPT_STREAM:
		return set_stream(o, arg);
	case NATS_OPT_STREAM_SUBJECTS:
		return set_stream_subjects(o, arg);
	case NATS_OPT_MAX_AGE:
	case NATS_OPT_MAX_BYTES:
	case NATS_OPT_BUFFER:
	case NATS_OPT_SPOOL_SIZE:
		return set_quantity(o, opt, arg);
	case NATS_OPT_SPOOL:
		if (*arg) {
			o->spool = arg;
			return true;
		}
		cli_say(o->prog, "--nats-spool wants a directory\n");
		return false;
	case NATS_OPT_REPLICAS:
		return set_number(o, "--nats-replicas", arg, 1, 5, &o->replicas);
	case NATS_OPT_WINDOW:
		return set_number(o, "--nats-window", arg, 1, 65536, &o->window);
	case NATS_OPT_BATCH:
		return set_batch(o, arg);
	case NATS_OPT_ACK_WAIT:
		return set_number(o, "--nats-ack-wait", arg, 10, 600000, &o->ack_wait_ms);
	case NATS_OPT_CREDS:
		return set_file(o, "--nats-creds", arg, &o->creds);
	case NATS_OPT_TLS_CA:
		return set_file(o, "--nats-tls-ca", arg, &o->tls_ca);
	default:	/* NATS_OPT_WAIT */
		o->wait = true;
		return true;
	}
}

bool nats_opts_check(const struct nats_opts *o)
{
	if (o->nurls && o->spool_size_set && !o->spool) {
		cli_say(o->prog, "--nats-spool-size needs --nats-spool DIR\n");
		return false;
	}
	if (o->nurls)
		return true;
	if (o->other) {
		cli_say(o->prog, "the NATS options need --nats URL (e.g. --nats nats://127.0.0.1:4222)\n");
		return false;
	}
	return true;
}
