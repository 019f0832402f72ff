// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer: a capture file read by `perfbuf report` (tools/record/): the
 * frame reader and the per-CPU streams merged by time. Any bytes: no read
 * past the input, no hang, damage reported. The first byte picks the
 * record layout and the order; the rest is the file (given a capture
 * header when it has none, to reach the frames). Every whole frame's
 * CRC is made right first: else nearly every input stops at the CRC and
 * the stream and ring readers behind it see only the seeds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfbuf.h"
#include "record/capture.h"
#include "record/stream.h"

static int quiet(enum perfbuf_print_level l, const char *f, va_list ap)
{
	(void)l, (void)f, (void)ap;
	return 0;
}

static int touch(void *ctx, const struct perfbuf_record *rec)
{
	const unsigned char *p = rec->data, *q = rec->data2;
	unsigned *sum = ctx;

	for (size_t i = 0; i < rec->data_sz; i++)
		*sum += p[i];
	for (size_t i = 0; i < rec->data2_sz; i++)
		*sum += q[i];
	return PERFBUF_CONTINUE;
}

/* The CRC of each frame that is whole, from the header on, as the
 * writer would have computed it. */
static void fix_crcs(unsigned char *buf, size_t len)
{
	struct cap_header h;
	struct cap_frame f;
	size_t pos;

	memcpy(&h, buf, sizeof(h));
	for (pos = h.header_size; pos + sizeof(f) <= len && pos >= h.header_size;) {
		memcpy(&f, buf + pos, sizeof(f));
		if (f.len > len - pos - sizeof(f))
			return;
		f.crc = cap_crc32(0, buf + pos + sizeof(f), (size_t)f.len);
		memcpy(buf + pos, &f, sizeof(f));
		pos += sizeof(f) + (size_t)f.len + ((8 - (f.len & 7)) & 7);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	struct cap_header h = {
		.magic = CAP_MAGIC, .version = CAP_VERSION,
		.header_size = sizeof(h),
	};
	struct cap_reader *r;
	struct cap_stream *s;
	unsigned char *buf;
	unsigned sum = 0;
	size_t n;
	uint8_t flags;

	if (len < 1)
		return 0;
	flags = in[0];
	in++;
	len--;
	perfbuf_set_print(quiet);
	n = len >= CAP_MAGIC_LEN && !memcmp(in, CAP_MAGIC, CAP_MAGIC_LEN) ?
		0 : sizeof(h);
	buf = malloc(n + len + 1);	/* exact: ASan sees overreads */
	if (!buf)
		return 0;
	memcpy(buf, &h, n);
	memcpy(buf + n, in, len);
	if (n + len >= sizeof(h) && ((struct cap_header *)buf)->header_size >= sizeof(h))
		fix_crcs(buf, n + len);
	r = cap_reader__open_mem(buf, n + len, NULL, 0);
	if (r) {
		s = cap_stream__new(r, PERF_SAMPLE_RAW |
				    ((flags & 1) ? PERF_SAMPLE_TIME : 0),
				    flags & 2);
		if (s) {
			cap_stream__fold(s, flags & 4, touch, &sum);
			cap_stream__free(s);
		}
		cap_reader__close(r);
	}
	free(buf);
	return 0;
}
