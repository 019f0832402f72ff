// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Writing capture frames: one writev() per frame, the payload straight
 * from where it is (a ring's mapping). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "output/file.h"

#define MAX_PIECES 8

struct cap_writer {
	struct out_file out;	/* replaces the file there at the close */
	int err;
	__u64 bytes;
};

/* All of @iov, resuming after short writes and signals. */
static int write_all(struct cap_writer *w, struct iovec *iov, int cnt)
{
	while (cnt) {
		ssize_t n = writev(w->out.fd, iov, cnt);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		w->bytes += (__u64)n;
		while (cnt && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

struct cap_writer *cap_writer__open(const char *prog, const char *path)
{
	struct cap_header h = {
		.magic = CAP_MAGIC, .version = CAP_VERSION,
		.header_size = sizeof(h),
	};
	struct iovec iov = { &h, sizeof(h) };
	struct cap_writer *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return NULL;
	err = out_file__open(&w->out, prog, path);
	if (err) {
		free(w);
		errno = -err;
		return NULL;
	}
	err = write_all(w, &iov, 1);
	if (err) {
		cap_writer__discard(w);
		errno = -err;
		return NULL;
	}
	return w;
}

int cap_writer__frame(struct cap_writer *w, __u32 type, __u32 cpu,
		      const struct iovec *iov, int cnt)
{
	static const char zero[8];
	struct cap_frame f = { .type = type, .cpu = cpu };
	struct iovec v[MAX_PIECES + 2];
	__u32 crc = 0;

	if (w->err)
		return w->err;
	if (cnt > MAX_PIECES)
		return -E2BIG;
	v[0] = (struct iovec){ &f, sizeof(f) };
	for (int i = 0; i < cnt; i++) {
		crc = cap_crc32(crc, iov[i].iov_base, iov[i].iov_len);
		f.len += iov[i].iov_len;
		v[1 + i] = iov[i];
	}
	f.crc = crc;
	v[1 + cnt] = (struct iovec){ (void *)zero, (8 - (f.len & 7)) & 7 };
	w->err = write_all(w, v, cnt + 2);
	return w->err;
}

int cap_writer__put(struct cap_writer *w, __u32 type, __u32 cpu,
		    const void *buf, size_t len)
{
	struct iovec iov = { (void *)buf, len };

	return cap_writer__frame(w, type, cpu, &iov, 1);
}

__u64 cap_writer__bytes(const struct cap_writer *w)
{
	return w->bytes;
}

int cap_writer__error(const struct cap_writer *w)
{
	return w->err;
}

int cap_writer__publish(struct cap_writer *w, bool keep)
{
	return out_file__publish(&w->out, keep);
}

int cap_writer__close(struct cap_writer *w, bool sync)
{
	int err;

	if (!w)
		return 0;
	/* (a capture cut by a full disk too: what it holds is readable) */
	err = out_file__commit(&w->out, sync && !w->err);
	err = w->err ?: err;
	free(w);
	return err;
}

void cap_writer__discard(struct cap_writer *w)
{
	if (!w)
		return;
	out_file__discard(&w->out);
	free(w);
}
