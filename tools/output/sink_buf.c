// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the text and JSON sinks share: an output buffer behind the sink,
 * its flush and end, the summary's way out, and numbers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "buf.h"

static struct outbuf *ob_of(struct trace_sink *s)
{
	return &((struct buf_sink *)s)->ob;
}

void *buf_sink_new(size_t size, const struct trace_sink_ops *ops, int fd,
		   bool (*is_event)(const char *p, size_t n))
{
	struct buf_sink *b = calloc(1, size);

	if (!b || outbuf_init(&b->ob, fd, is_event)) {
		free(b);
		errno = ENOMEM;
		return NULL;
	}
	b->base.ops = ops;
	return b;
}

int buf_sink_flush(struct trace_sink *s)
{
	struct outbuf *o = ob_of(s);

	s->err = outbuf_flush(o);
	s->written = o->ev_written;
	return s->err;
}

void buf_sink_end(struct trace_sink *s)
{
	outbuf_free(ob_of(s));
	free(s);
}

int buf_sink_summary(struct trace_sink *s, int fd, const struct tv_summary *sum,
		     void (*write)(struct outbuf *o, const struct tv_summary *sum))
{
	struct outbuf *o = ob_of(s);
	int out_fd = o->fd, err, werr;

	buf_sink_flush(s);
	err = o->err;
	if (fd >= 0) {
		o->fd = fd;
		o->err = 0;
	}
	write(o, sum);
	werr = outbuf_flush(o);
	o->fd = out_fd;
	o->err = err;
	return werr;
}

bool out_number(struct outbuf *o, const struct tv_field *f, bool json)
{
	switch (f->type) {
	case TV_INT:
		out_int(o, f->u, f->is_signed, json);
		return true;
	case TV_ARRAY:
		out_ints(o, f->data, f->len, f->width, f->is_signed, json);
		return true;
	default:
		return false;
	}
}

/* The bytes of an address field: its array, or an int's (in memory) */
static const unsigned char *addr_bytes(const struct tv_field *f, size_t *n,
				       unsigned char tmp[8])
{
	if (f->type == TV_INT) {
		memcpy(tmp, &f->u, 8);	/* little or big endian: memory order */
		*n = f->width;
		return tmp + (*(const char *)&(int){ 1 } ? 0 : 8 - f->width);
	}
	*n = f->type == TV_ARRAY && f->width == 1 ? f->len :
	     f->type == TV_BYTES ? f->len : 0;
	return f->data;
}

size_t tv_addr_text(const struct tv_field *f, char *buf, size_t sz)
{
	unsigned char tmp[8];
	size_t n;
	const unsigned char *d = addr_bytes(f, &n, tmp);
	char ip[INET6_ADDRSTRLEN];
	__u16 family, port;
	int len;

	if (!d || sz < INET6_ADDRSTRLEN + 8)
		return 0;
	switch (f->hint) {
	case TV_HINT_IPV4:
		return n == 4 && inet_ntop(AF_INET, d, buf, sz) ? strlen(buf) : 0;
	case TV_HINT_IPV6:
		return n == 16 && inet_ntop(AF_INET6, d, buf, sz) ? strlen(buf) : 0;
	case TV_HINT_SOCKADDR:	/* family (host order), port, address */
		if (n < 8)
			return 0;
		memcpy(&family, d, 2);
		memcpy(&port, d + 2, 2);
		if (family == AF_INET && inet_ntop(AF_INET, d + 4, ip, sizeof(ip)))
			len = snprintf(buf, sz, "%s:%u", ip, ntohs(port));
		else if (family == AF_INET6 && n >= 24 &&
			 inet_ntop(AF_INET6, d + 8, ip, sizeof(ip)))
			len = snprintf(buf, sz, "[%s]:%u", ip, ntohs(port));
		else
			return 0;
		return len > 0 && (size_t)len < sz ? (size_t)len : 0;
	default:
		return 0;
	}
}

/* Append @s to @buf (@len used of @sz): false when it does not fit. */
static bool append(char *buf, size_t sz, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len + n >= sz)
		return false;
	memcpy(buf + *len, s, n + 1);
	*len += n;
	return true;
}

size_t tv_names_text(const struct tv_field *f, char *buf, size_t sz)
{
	__u64 v = f->u, rest = v;
	size_t len = 0;
	char hex[24];

	if (!sz || f->type != TV_INT)
		return 0;
	buf[0] = '\0';
	for (int i = 0; i < f->nnames; i++) {
		const struct tv_name *nm = &f->names[i];

		if (f->hint == TV_HINT_SYMBOLIC ? nm->value != v :
		    v ? !nm->value || (rest & nm->value) != nm->value : nm->value)
			continue;
		if ((len && !append(buf, sz, &len, "|")) ||
		    !append(buf, sz, &len, nm->name))
			return 0;
		rest &= ~nm->value;
		if (f->hint == TV_HINT_SYMBOLIC || !v)
			return len;
	}
	if (len && rest) {	/* bits the table does not name */
		snprintf(hex, sizeof(hex), "|0x%llx", (unsigned long long)rest);
		if (!append(buf, sz, &len, hex))
			return 0;
	}
	return len;
}
