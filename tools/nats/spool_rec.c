// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The spool's records (spool.h has the layout): a message written as
 * one, read back checked (length and CRC-32: a run killed in the middle
 * of a write leaves a record cut short), made a message again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <libdeflate.h>

#include "spool.h"

#define REC_MAGIC 0x31534250u	/* "PBS1" */
/* a record's bytes after its header, at most: a batch is at most 64M */
#define REC_MAX (256u << 20)

struct rec_hdr {
	__u32 magic, len, crc;
	__u32 events, subj_len, hdr_len;	/* the CRC covers these on */
};

/* a subject's bytes, at most (NATS's own limit is lower) */
#define SUBJ_MAX 4096

#define CRC_FROM offsetof(struct rec_hdr, events)

/* "Key: Value\r\n" for each of @m's headers into a string of its own
 * (free()), its length in *@len; NULL: out of memory. */
static char *headers_text(natsMsg *m, size_t *len)
{
	const char **keys = NULL;
	char *out = NULL;
	size_t n = 0;
	int nk = 0;
	FILE *f = open_memstream(&out, &n);

	if (!f)
		return NULL;
	if (natsMsgHeader_Keys(m, &keys, &nk) == NATS_OK) {
		for (int i = 0; i < nk; i++) {
			const char *v = NULL;

			if (natsMsgHeader_Get(m, keys[i], &v) == NATS_OK && v)
				fprintf(f, "%s: %s\r\n", keys[i], v);
		}
	}
	free((void *)keys);
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	*len = n;
	return out;
}

__s64 spool_rec_write(int fd, __u64 off, natsMsg *m, __u64 events)
{
	const char *subj = natsMsg_GetSubject(m);
	size_t hlen = 0;
	char *hdrs = headers_text(m, &hlen);
	struct rec_hdr h = { .magic = REC_MAGIC, .events = (__u32)events,
			     .subj_len = strlen(subj), .hdr_len = hlen };
	struct iovec iov[4] = {
		{ &h, sizeof(h) }, { (void *)subj, h.subj_len }, { hdrs, hlen },
		{ (void *)natsMsg_GetData(m), natsMsg_GetDataLength(m) },
	};
	size_t total = 0;
	ssize_t w;

	if (!hdrs)
		return -ENOMEM;
	h.len = h.subj_len + hlen + iov[3].iov_len;
	h.crc = libdeflate_crc32(0, (char *)&h + CRC_FROM, sizeof(h) - CRC_FROM);
	for (int i = 1; i < 4; i++) {
		h.crc = libdeflate_crc32(h.crc, iov[i].iov_base, iov[i].iov_len);
		total += iov[i].iov_len;
	}
	total += sizeof(h);
	w = pwritev(fd, iov, 4, (off_t)off);
	free(hdrs);
	if (w == (ssize_t)total)
		return w;
	/* nothing of it stays: the next record starts where it did */
	if (ftruncate(fd, (off_t)off) && w >= 0)
		return -errno;
	return w < 0 ? -errno : -ENOSPC;
}

/* @n bytes at @off, all of them: 0, or -EBADMSG (the file ends first) */
static int read_all(int fd, void *p, size_t n, __u64 off)
{
	while (n) {
		ssize_t r = pread(fd, p, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EBADMSG;
		p = (char *)p + r;
		n -= r;
		off += r;
	}
	return 0;
}

__s64 spool_rec_read(int fd, __u64 off, __u64 size, char **buf, size_t *cap,
		     __u64 *events)
{
	struct rec_hdr h;
	int err;

	if (off >= size)
		return 0;
	if (size - off < sizeof(h))
		return -EBADMSG;
	err = read_all(fd, &h, sizeof(h), off);
	if (err)
		return err;
	if (h.magic != REC_MAGIC || h.len > REC_MAX ||
	    (__u64)h.subj_len + h.hdr_len > h.len || !h.subj_len ||
	    h.subj_len > SUBJ_MAX ||
	    size - off - sizeof(h) < h.len)
		return -EBADMSG;
	*events = h.events;
	if (!buf)
		return sizeof(h) + h.len;
	if (*cap < sizeof(h) + h.len + 1) {
		char *p = realloc(*buf, sizeof(h) + h.len + 1);

		if (!p)
			return -ENOMEM;
		*buf = p;
		*cap = sizeof(h) + h.len + 1;
	}
	memcpy(*buf, &h, sizeof(h));
	err = read_all(fd, *buf + sizeof(h), h.len, off + sizeof(h));
	if (err)
		return err;
	if (libdeflate_crc32(0, *buf + CRC_FROM, sizeof(h) - CRC_FROM + h.len) != h.crc)
		return -EBADMSG;
	return sizeof(h) + h.len;
}

/* The "Key: Value\r\n" lines of @p (@n bytes) onto @m. */
static natsStatus add_headers(natsMsg *m, char *p, size_t n)
{
	char *end = p + n;
	natsStatus s = NATS_OK;

	while (p < end && s == NATS_OK) {
		char *eol = memchr(p, '\r', end - p), *colon;

		if (!eol)
			break;
		*eol = 0;
		colon = strstr(p, ": ");
		if (colon) {
			*colon = 0;
			s = natsMsgHeader_Add(m, p, colon + 2);
		}
		p = eol + 2;
	}
	return s;
}

natsMsg *spool_rec_msg(const char *buf)
{
	const struct rec_hdr *h = (const void *)buf;
	char *subj = (char *)buf + sizeof(*h), *hdrs = subj + h->subj_len;
	const char *data = hdrs + h->hdr_len;
	char subject[h->subj_len + 1];
	natsMsg *m = NULL;

	memcpy(subject, subj, h->subj_len);
	subject[h->subj_len] = 0;
	if (natsMsg_Create(&m, subject, NULL, data,
			   (int)(h->len - h->subj_len - h->hdr_len)) != NATS_OK)
		return NULL;
	if (add_headers(m, hdrs, h->hdr_len) != NATS_OK) {
		natsMsg_Destroy(m);
		return NULL;
	}
	return m;
}

__u64 spool_rec_scan(int fd, __u64 size, char **buf, size_t *cap,
		     __u64 *events, __u64 *good)
{
	__u64 off = 0, n = 0, ev;
	__s64 len;

	*events = 0;
	while ((len = spool_rec_read(fd, off, size, buf, cap, &ev)) > 0) {
		off += len;
		n++;
		*events += ev;
	}
	*good = len == -EBADMSG ? off : size;	/* not cut for want of memory */
	return n;
}
