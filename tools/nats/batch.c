// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Batches of JSON Lines (batch.h): lines appended to a buffer of the
 * subject's, made into one message with its headers when the sink says.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfbuf.h"
#include "output/buf.h"	/* tv_addr_text(): the text sink's test */
#include "batch.h"

static char arg_kind(const struct tv_field *f)
{
	char buf[64];

	if (f->flags & TV_F_HIDDEN)
		return NATS_ARG_HIDDEN;
	if ((f->hint == TV_HINT_IPV4 || f->hint == TV_HINT_IPV6 ||
	     f->hint == TV_HINT_SOCKADDR) && tv_addr_text(f, buf, sizeof(buf)))
		return NATS_ARG_RAW;
	switch (f->type) {
	case TV_INT:
		return NATS_ARG_INT;
	case TV_ARRAY:
		return NATS_ARG_INTS;
	case TV_STR:
		return NATS_ARG_STR;
	case TV_STRS:
		return NATS_ARG_STRS;
	default:	/* TV_PTR, TV_BYTES */
		return NATS_ARG_RAW;
	}
}

void nats_args_kinds(const struct tv_event *e, char *out)
{
	int i;

	for (i = 0; i < e->nfields && i < NATS_ARGS_MAX; i++)
		out[i] = arg_kind(&e->fields[i]);
	out[i] = 0;
}

int nats_batch_add(struct nats_batch *b, const char *line, size_t len,
		   __s64 real)
{
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->buf, cap);
		if (!p)
			return -ENOMEM;
		b->buf = p;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, line, len);
	b->len += len;
	if (!b->count++) {
		b->first_real = real;
		b->opened_ns = perfbuf_now_ns();
	}
	b->last_real = real;
	b->next_seq++;
	return 0;
}

#define IFOK(s, call) do { if ((s) == NATS_OK) (s) = (call); } while (0)

static natsStatus set_num(natsMsg *m, const char *key, __s64 v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRId64, (int64_t)v);
	return natsMsgHeader_Set(m, key, num);
}

natsMsg *nats_batch_msg(struct nats_batch *b, const struct nats_batch_hdr *h)
{
	__u64 first = b->next_seq - b->count;
	natsMsg *m = NULL;
	char id[512];
	natsStatus s;

	snprintf(id, sizeof(id), "%s%" PRIu64, h->id, (uint64_t)first);
	s = natsMsg_Create(&m, h->subject, NULL, b->buf, (int)b->len);
	IFOK(s, natsMsgHeader_Set(m, "Perfbuf-Host", h->host));
	if (h->probe)
		IFOK(s, natsMsgHeader_Set(m, "Perfbuf-Probe", h->probe));
	IFOK(s, set_num(m, "Perfbuf-Count", b->count));
	IFOK(s, set_num(m, "Perfbuf-First-Seq", first));
	IFOK(s, set_num(m, "Perfbuf-Last-Seq", b->next_seq - 1));
	IFOK(s, set_num(m, "Perfbuf-Time", b->first_real));
	IFOK(s, set_num(m, "Perfbuf-Time-Last", b->last_real));
	if (h->probe)
		IFOK(s, natsMsgHeader_Set(m, "Perfbuf-Args", b->args));
	IFOK(s, natsMsgHeader_Set(m, "Nats-Msg-Id", id));
	b->len = 0;
	b->count = 0;
	if (s == NATS_OK)
		return m;
	natsMsg_Destroy(m);
	return NULL;
}

void nats_batch_free(struct nats_batch *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

__u64 nats_msg_events(natsMsg *m)
{
	const char *v = NULL;

	if (natsMsgHeader_Get(m, "Perfbuf-Count", &v) != NATS_OK || !v)
		return 1;
	return strtoull(v, NULL, 10);
}
