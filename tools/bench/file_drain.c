// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* perfbuf-bench, record part: a full ring drained to a file (read_spans +
 * writev, as a capture frame) against libbpf consume + fwrite(). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <zlib.h>

#include "bench.h"
#include "record/capture.h"
#include "emit.skel.h"
#include "common/say.h"

enum { FD_SPANS, FD_FRAME, FD_FWRITE, FD_N };

struct file_drain {
	struct drain_bench *b;
	const struct rec_fs *fs;
	int fd;			/* FD_SPANS: @out's */
	struct cap_writer *w;	/* FD_FRAME */
	FILE *f;		/* FD_FWRITE: @out's */
	struct out_file out;	/* FD_SPANS, FD_FWRITE */
	__u64 bytes;		/* handed to the file by the last drain */
	__u32 crc;
	int err;
	__u64 t[FS_N][FD_N][DRAIN_ROUNDS];
	bool zlib;		/* span_crc(): zlib's crc32(), not cap_crc32() */
	__u64 t_crc[2][DRAIN_ROUNDS];	/* read_spans + cap_crc32() / zlib */
};

static void span_writev(void *ctx, int cpu, const struct iovec *iov, int cnt)
{
	struct file_drain *x = ctx;
	size_t len = 0;
	ssize_t n;

	(void)cpu;
	for (int i = 0; i < cnt; i++)
		len += iov[i].iov_len;
	n = writev(x->fd, iov, cnt);	/* a regular file takes it all */
	if (n != (ssize_t)len && !x->err)
		x->err = n < 0 ? -errno : -EIO;
	x->bytes += len;
}

/* What perfbuf record does with a span: a DATA frame, crc32 + writev */
static void span_frame(void *ctx, int cpu, const struct iovec *iov, int cnt)
{
	struct file_drain *x = ctx;
	int err = cap_writer__frame(x->w, CAP_DATA, (__u32)cpu, iov, cnt);

	if (err && !x->err)
		x->err = err;
	for (int i = 0; i < cnt; i++)
		x->bytes += iov[i].iov_len;
}

/* The frame's checksum alone: perfbuf record's (libdeflate), or zlib's
 * crc32(), the same function */
static void span_crc(void *ctx, int cpu, const struct iovec *iov, int cnt)
{
	struct file_drain *x = ctx;
	__u32 crc = 0;

	(void)cpu;
	for (int i = 0; i < cnt; i++) {
		crc = x->zlib ? (__u32)crc32(crc, iov[i].iov_base, (uInt)iov[i].iov_len) :
			cap_crc32(crc, iov[i].iov_base, iov[i].iov_len);
		x->bytes += iov[i].iov_len;
	}
	x->crc ^= crc;
}

/* libbpf's callback: each record as the ring holds it (the bytes the
 * span writers write), fwrite() to the FILE in the drain_ctx */
static enum bpf_perf_event_ret lb_fwrite_cb(void *ctx, int cpu,
					    struct perf_event_header *eh)
{
	struct drain_ctx *d = ctx;

	(void)cpu;
	fwrite(eh, eh->size, 1, d->out);
	d->n += eh->type == PERF_RECORD_SAMPLE;
	return LIBBPF_PERF_EVENT_CONT;
}

/* An empty output of kind @k on filesystem @fs (not timed). */
static int fd_open(struct file_drain *x, int fs, int k)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/perfbuf-bench-drain.%s", x->fs->dir[fs],
		 k == FD_FRAME ? "cap" : "bin");
	int err;

	if (k == FD_FRAME) {
		x->w = cap_writer__open("perfbuf-bench", path);
		return x->w ? 0 : -errno;
	}
	err = out_file__open(&x->out, "perfbuf-bench", path);
	if (err)
		return err;
	x->fd = x->out.fd;
	if (k == FD_FWRITE && !(x->b->d.out = x->f = out_file__stream(&x->out))) {
		err = -errno;
		out_file__discard(&x->out);
	}
	return err;
}

static int fd_close(struct file_drain *x, int k)
{
	int err = 0;

	if (k == FD_FRAME)
		err = cap_writer__close(x->w, false);
	if (k == FD_FWRITE)
		x->bytes = (__u64)ftell(x->f);
	if (k != FD_FRAME)
		err = out_file__commit(&x->out, false);
	return err;
}

/* One timed drain of the full ring: kind @k into an empty file on @fs,
 * or (fs < 0) read_spans + the checksum only (zlib's when @k). */
static int fd_timed(struct file_drain *x, int fs, int k, __u64 *slot)
{
	struct drain_bench *b = x->b;
	int err = fill_ring(b->prog_fd, b->data_size);
	__u64 t;

	if (!err && fs >= 0)
		err = fd_open(x, fs, k);
	if (err)
		return err;
	x->err = 0;
	x->bytes = 0;
	b->d.n = 0;
	t = perfbuf_now_ns();
	x->zlib = k;
	if (fs < 0)
		err = perfbuf_ring__read_spans(b->ring, span_crc, x);
	else if (k == FD_FWRITE)
		err = perf_buffer__consume(b->lpb) ?: (fflush(x->f) ? -errno : 0);
	else
		err = perfbuf_ring__read_spans(b->ring, k == FD_SPANS ? span_writev :
					       span_frame, x);
	*slot = perfbuf_now_ns() - t;
	err = err < 0 ? err : x->err;
	if (fs >= 0)
		err = fd_close(x, k) ?: err;
	/* every record, in the file: the ring's bytes (a capture: + framing) */
	b->exact &= x->bytes >= b->want * REC_BYTES;
	return err;
}

/* Row @k: tmpfs and disk columns. */
static void fd_row(const struct file_drain *x, const char *what, int k)
{
	const struct drain_bench *b = x->b;
	double bytes = (double)(b->want * REC_BYTES);

	emit_md("| %s |", what);
	for (int fs = 0; fs < FS_N; fs++) {
		__u64 m = fastest(x->t[fs][k]);

		if (!*x->fs->dir[fs]) {
			emit_md(" | | |");
			continue;
		}
		emit_md(" %.3f ms | %.0f | %.1f |", m / 1e6, bytes / (m / 1e9) / 1e6,
			(double)m / b->want);
	}
	emit_md("\n");
}

static void file_drain_report(const struct file_drain *x)
{
	const struct drain_bench *b = x->b;
	double bytes = (double)(b->want * REC_BYTES);
	__u64 crc = fastest(x->t_crc[0]), zcrc = fastest(x->t_crc[1]);

	emit_section("Drain of a full ring to a file");
	emit_md("%llu records of %d B (%d B in the ring: %.1f MiB) in a %zu KiB ring, filled "
		"with the consumer idle, then drained into an empty file; the fastest of %d drains "
		"on CPU%d, each after a fill from CPU%d (other jobs add whole time slices to "
		"some). Timed: the drain and its writes (fflush() for stdio), not open and "
		"close. disk: %s.%s\n\n",
		(unsigned long long)b->want, REC_SIZE, REC_BYTES, bytes / (1 << 20),
		b->data_size / 1024, DRAIN_ROUNDS, env.cons_cpu, env.prod_cpu,
		*x->fs->dir[FS_DISK] ? x->fs->what[FS_DISK] : "none",
		b->exact ? "" : " **A drain missed records.**");
	emit_md("| drain to a file | tmpfs | MB/s | ns/record | disk | MB/s | ns/record |\n"
		"|---|---:|---:|---:|---:|---:|---:|\n");
	fd_row(x, "`perfbuf_ring__read_spans()` + `writev()`", FD_SPANS);
	fd_row(x, "the same as capture frames: + CRC-32 (perfbuf record)", FD_FRAME);
	fd_row(x, "libbpf `perf_buffer__consume()` + `fwrite()` per record", FD_FWRITE);
	emit_md("| `perfbuf_ring__read_spans()` + CRC-32 (libdeflate) alone, no file | %.3f ms | %.0f | %.1f | | | |\n",
		crc / 1e6, bytes / (crc / 1e9) / 1e6, (double)crc / b->want);
	emit_md("| `perfbuf_ring__read_spans()` + zlib `crc32()` alone, no file | %.3f ms | %.0f | %.1f | | | |\n",
		zcrc / 1e6, bytes / (zcrc / 1e9) / 1e6, (double)zcrc / b->want);
	emit_md("\n| target | ratio | wanted | |\n|---|---:|---:|---|\n");
	for (int fs = 0; fs < FS_N; fs++) {
		char what[128];

		if (!*x->fs->dir[fs])
			continue;
		snprintf(what, sizeof(what), "read_spans + writev / perf_buffer__consume + fwrite, %s",
			 fs_name[fs]);
		ratio_aim_line(what, (double)fastest(x->t[fs][FD_SPANS]),
			       (double)fastest(x->t[fs][FD_FWRITE]), 1.0, 0.5);
		snprintf(what, sizeof(what), "capture frame / perf_buffer__consume + fwrite, %s",
			 fs_name[fs]);
		ratio_aim_line(what, (double)fastest(x->t[fs][FD_FRAME]),
			       (double)fastest(x->t[fs][FD_FWRITE]), 1.0, 0.5);
	}
	info_line("CRC-32 alone: libdeflate / zlib", (double)crc, (double)zcrc);
	if (*x->fs->dir[FS_TMPFS])
		info_line("CRC-32 alone / capture frames, tmpfs", (double)crc,
			  (double)fastest(x->t[FS_TMPFS][FD_FRAME]));
}

/*
 * The drain part's full 4 MiB ring (filled by the producer CPU with the
 * consumer idle), drained into a file: perfbuf's spans written as they
 * are (writev, and as perfbuf record frames them: crc32 + writev) against
 * libbpf's perf_buffer__consume() with a callback that fwrite()s each
 * record; on tmpfs and on disk, interleaved.
 */
int bench_file_drain(const struct rec_fs *fs)
{
	struct drain_bench *b = calloc(1, sizeof(*b));
	struct file_drain *x = calloc(1, sizeof(*x));
	int err = b && x ? 0 : -ENOMEM;

	if (err)
		goto out;
	pin_self(env.cons_cpu);
	*x = (struct file_drain){ .b = b, .fs = fs };
	b->data_size = env.pages * PAGE_SZ;
	b->want = (b->data_size - 8) / REC_BYTES;
	b->exact = true;
	b->lb_fn = lb_fwrite_cb;
	b->skel = emit_open_load(false, 0);
	err = b->skel ? 0 : -errno;
	if (!err) {
		b->prog_fd = emit_prog_fd(b->skel, false);
		err = drain_open_libbpf(b);
	}
	for (int i = 0; i < DRAIN_ROUNDS && !err; i++) {
		for (int f = 0; f < FS_N && !err; f++)
			for (int k = 0; k < FD_N && !err && *fs->dir[f]; k++)
				err = fd_timed(x, f, k, &x->t[f][k][i]);
		for (int z = 0; z < 2 && !err; z++)
			err = fd_timed(x, -1, z, &x->t_crc[z][i]);
	}
	if (!err)
		file_drain_report(x);
	else
		cli_say("perfbuf-bench", "drain to a file: %s\n", strerror(-err));
	for (int f = 0; f < FS_N; f++) {
		char path[PATH_MAX + 32];

		snprintf(path, sizeof(path), "%s/perfbuf-bench-drain.cap", fs->dir[f]);
		unlink(path);
		snprintf(path, sizeof(path), "%s/perfbuf-bench-drain.bin", fs->dir[f]);
		unlink(path);
	}
	perfbuf_ring__free(b->ring);
	perf_buffer__free(b->lpb);
	emit__destroy(b->skel);
out:
	free(b);
	free(x);
	return err;
}
