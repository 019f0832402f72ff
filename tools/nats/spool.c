// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The disk spool (spool.h says what and why): DIR and its lock, the
 * segments, the backlog read back in order, which message in memory is
 * which segment's record.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "perfbuf.h"
#include "common/say.h"
#include "spool.h"

#define SEG_NAME "%016" PRIx64 ".seg"
/* a record's bytes besides a message's payload, at most (the budget's
 * check before the write) */
#define REC_SLACK 4096

static void seg_path(const struct nats_spool *s, __u64 num, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s/" SEG_NAME, s->dir, (uint64_t)num);
}

static struct spool_seg *seg_find(struct nats_spool *s, __u64 num)
{
	for (size_t i = 0; i < s->nsegs; i++)
		if (s->segs[i].num == num)
			return &s->segs[i];
	return NULL;
}

static struct spool_seg *seg_add(struct nats_spool *s, __u64 num)
{
	if (s->nsegs == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct spool_seg *p = realloc(s->segs, cap * sizeof(*p));

		if (!p)
			return NULL;
		s->segs = p;
		s->cap = cap;
	}
	s->segs[s->nsegs] = (struct spool_seg){ .num = num };
	return &s->segs[s->nsegs++];
}

/* --- which message in memory is which segment's record: open
 * addressing by the message's address, linear probing --------------- */

static size_t home(const struct nats_spool *s, natsMsg *m)
{
	return (size_t)(((uint64_t)(uintptr_t)m * 0x9E3779B97F4A7C15ULL) >> 32) &
	       (s->hcap - 1);
}

static struct spool_held *held_find(const struct nats_spool *s, natsMsg *m)
{
	if (!s->hcap)
		return NULL;
	for (size_t i = home(s, m);; i = (i + 1) & (s->hcap - 1)) {
		if (s->held[i].m == m)
			return &s->held[i];
		if (!s->held[i].m)
			return NULL;
	}
}

static int held_put(struct nats_spool *s, natsMsg *m, __u64 seg)
{
	size_t i;

	if ((s->hlen + 1) * 2 > s->hcap) {
		struct spool_held *old = s->held;
		size_t ocap = s->hcap, cap = ocap ? ocap * 2 : 1024;

		s->held = calloc(cap, sizeof(*s->held));
		if (!s->held) {
			s->held = old;
			return -ENOMEM;
		}
		s->hcap = cap;
		s->hlen = 0;
		for (i = 0; i < ocap; i++)
			if (old[i].m)
				held_put(s, old[i].m, old[i].seg);
		free(old);
	}
	for (i = home(s, m); s->held[i].m; i = (i + 1) & (s->hcap - 1))
		;
	s->held[i] = (struct spool_held){ m, seg };
	s->hlen++;
	return 0;
}

/* @h emptied; the entries after it moved back where their probe allows */
static void held_del(struct nats_spool *s, struct spool_held *h)
{
	size_t i = h - s->held, j = i, mask = s->hcap - 1;

	s->held[i].m = NULL;
	s->hlen--;
	for (;;) {
		size_t k;

		j = (j + 1) & mask;
		if (!s->held[j].m)
			return;
		k = home(s, s->held[j].m);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;	/* where it is, it is found */
		s->held[i] = s->held[j];
		s->held[j].m = NULL;
		i = j;
	}
}

/* --- the directory ----------------------------------------------- */

/* DIR opened (created if absent) and locked: the fd, or -errno said */
static int lock_dir(const char *prog, const char *dir)
{
	int fd;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		cli_say(prog, "--nats-spool '%s': %s; give a directory this run may create or write\n",
			dir, strerror(errno));
		return -errno;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		cli_say(prog, err == ENOTDIR ? "--nats-spool '%s' is not a directory; give a directory (created if absent)\n" :
			"--nats-spool '%s': %s\n", dir, strerror(err));
		return -err;
	}
	if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS)) {
		int err = errno;

		cli_say(prog, "--nats-spool '%s' is not writable: %s; give a directory this run may write\n",
			dir, strerror(err));
		close(fd);
		return -err;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno;

		if (err == EWOULDBLOCK)
			cli_say(prog, "--nats-spool '%s' is in use by another perfbuf run (it holds its lock); give each run a directory of its own\n",
				dir);
		else
			cli_say(prog, "--nats-spool '%s': locking it failed: %s\n", dir, strerror(err));
		close(fd);
		return -err;
	}
	return fd;
}

static int cmp_seg(const void *a, const void *b)
{
	const struct spool_seg *x = a, *y = b;

	return x->num < y->num ? -1 : x->num > y->num;
}

/* The segment files of DIR, sorted (sizes and records not yet known). */
static int list_segs(struct nats_spool *s)
{
	DIR *d = fdopendir(dup(s->dfd));
	struct dirent *e;
	int err = 0;

	if (!d)
		return -errno;
	while (!err && (e = readdir(d))) {
		uint64_t num;
		int end = 0;

		if (sscanf(e->d_name, "%16" SCNx64 ".seg%n", &num, &end) == 1 &&
		    end == 20 && !e->d_name[end] && !seg_add(s, num))
			err = -ENOMEM;
	}
	closedir(d);
	if (s->nsegs)
		qsort(s->segs, s->nsegs, sizeof(*s->segs), cmp_seg);
	return err;
}

/* Segment @g of an earlier run: its records counted, one cut short cut
 * off (said), into the backlog. -errno when it cannot be read (said). */
static int recover_seg(struct nats_spool *s, struct spool_seg *g)
{
	char path[PATH_MAX];
	struct stat st;
	__u64 events, good;
	int fd;

	seg_path(s, g->num, path, sizeof(path));
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		cli_say(s->prog, "NATS spool: reading %s failed: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	g->nrec = spool_rec_scan(fd, st.st_size, &s->buf, &s->bufcap, &events, &good);
	if (good < (__u64)st.st_size) {
		cli_say(s->prog, "NATS spool: %s: a record cut short or damaged at byte %" PRIu64 " (a run killed while writing it): %" PRIu64 " bytes after it dropped, the %" PRIu64 " records before it kept\n",
			path, (uint64_t)good, (uint64_t)(st.st_size - good),
			(uint64_t)g->nrec);
		if (ftruncate(fd, (off_t)good))
			cli_say(s->prog, "NATS spool: cutting %s failed: %s\n", path, strerror(errno));
	}
	close(fd);
	g->bytes = good;
	g->opened = perfbuf_now_ns();
	s->used += good;
	s->backlog.batches += g->nrec;
	s->backlog.events += events;
	return 0;
}

int nats_spool_open(struct nats_spool *s, const char *prog, const char *dir,
		    __u64 budget)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->prog = prog;
	s->dir = dir;
	s->wfd = s->rfd = -1;
	s->budget = budget;
	s->seg_max = budget / 16;
	if (s->seg_max > (16 << 20))
		s->seg_max = 16 << 20;
	s->dfd = lock_dir(prog, dir);
	if (s->dfd < 0)
		return s->dfd;
	err = list_segs(s);
	for (size_t i = 0; !err && i < s->nsegs; i++)
		err = recover_seg(s, &s->segs[i]);
	if (err == -ENOMEM)
		cli_say(prog, "out of memory\n");
	if (!err && s->nsegs) {
		s->rnum = s->segs[0].num;
		if (s->backlog.batches)
			cli_say(prog, "NATS spool %s: %" PRIu64 " batches (%" PRIu64 " events) left by an earlier run, sent first\n",
				dir, (uint64_t)s->backlog.batches,
				(uint64_t)s->backlog.events);
	}
	if (err)
		nats_spool_close(s);
	return err;
}

/* --- writing ------------------------------------------------------ */

/* The last segment's fd to fdatasync later (now, when too many wait). */
static void seg_close_write(struct nats_spool *s)
{
	if (s->wfd < 0)
		return;
	if (s->nunsynced == SPOOL_UNSYNCED_MAX)
		nats_spool_sync(&s->wfd, 1);
	else
		s->unsynced[s->nunsynced++] = s->wfd;
	s->wfd = -1;
}

/* A new segment to write to: the last one. */
static struct spool_seg *seg_open_write(struct nats_spool *s)
{
	__u64 num = s->nsegs ? s->segs[s->nsegs - 1].num + 1 : 1;
	char path[PATH_MAX];
	struct spool_seg *g;

	seg_path(s, num, path, sizeof(path));
	s->wfd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (s->wfd < 0)
		return NULL;
	g = seg_add(s, num);
	if (!g) {
		close(s->wfd);
		s->wfd = -1;
		unlink(path);
		errno = ENOMEM;
		return NULL;
	}
	g->opened = perfbuf_now_ns();
	return g;
}

static void say_write(struct nats_spool *s, int err)
{
	if (s->said_write)
		return;
	s->said_write = true;
	cli_say(s->prog, "NATS spool %s: writing failed: %s; batches wait in memory only (--nats-buffer) until it works again\n",
		s->dir, strerror(-err));
}

int nats_spool_append(struct nats_spool *s, natsMsg *m, __u64 events,
		      bool in_memory)
{
	struct spool_seg *g = s->wfd >= 0 ? &s->segs[s->nsegs - 1] : NULL;
	__s64 n;

	if (s->used + natsMsg_GetDataLength(m) + REC_SLACK > s->budget) {
		if (!s->said_full)
			cli_say(s->prog, "NATS spool %s is full (--nats-spool-size %" PRIu64 "M): batches wait in memory only (--nats-buffer), then are dropped, counted\n",
				s->dir, (uint64_t)(s->budget >> 20));
		s->said_full = true;
		return -ENOSPC;
	}
	if (!g && !(g = seg_open_write(s))) {
		n = -errno;
		say_write(s, n);
		return n;
	}
	if (!s->backlog.batches) {	/* the read position: this record */
		s->rnum = g->num;
		s->roff = g->bytes;
	}
	n = spool_rec_write(s->wfd, g->bytes, m, events);	/* cut back when short */
	if (n > 0 && in_memory && held_put(s, m, g->num)) {
		n = -ENOMEM;	/* written, but not kept: cut off again */
		if (ftruncate(s->wfd, (off_t)g->bytes)) {}
	}
	if (n < 0) {
		say_write(s, (int)n);
		return (int)n;
	}
	g->bytes += n;
	g->nrec++;
	s->used += n;
	if (in_memory) {
		g->nload++;
		s->roff = g->bytes;
	} else {
		s->backlog.batches++;
		s->backlog.events += events;
	}
	if (g->bytes >= s->seg_max)
		seg_close_write(s);
	s->said_write = false;
	return 0;
}

/* --- reading back ------------------------------------------------- */

/* The segment of the read position, moved to the next one at the end
 * of its; its fd open. NULL: none (or it cannot be opened: said). */
static struct spool_seg *read_seg(struct nats_spool *s)
{
	struct spool_seg *g = seg_find(s, s->rnum);
	char path[PATH_MAX];

	while (g && s->roff >= g->bytes && g + 1 < s->segs + s->nsegs) {
		g++;
		s->rnum = g->num;
		s->roff = 0;
	}
	if (!g || s->roff >= g->bytes)
		return NULL;
	if (s->rfd >= 0 && s->rfd_num == g->num)
		return g;
	if (s->rfd >= 0)
		close(s->rfd);
	seg_path(s, g->num, path, sizeof(path));
	s->rfd = open(path, O_RDONLY | O_CLOEXEC);
	s->rfd_num = g->num;
	if (s->rfd < 0)
		return NULL;
	return g;
}

/* The rest of @g unreadable: its records not yet read given up on,
 * counted lost. */
static void skip_rest(struct nats_spool *s, struct spool_seg *g, int err)
{
	__u64 left = g->nrec - g->nload, events = 0, ev;
	__u64 off = s->roff;
	__s64 len;

	/* the events of those still readable one by one, else unknown */
	while (off < g->bytes && (len = spool_rec_read(s->rfd, off, g->bytes, NULL, NULL, &ev)) > 0) {
		events += ev;
		off += len;
	}
	cli_say(s->prog, "NATS spool %s: reading segment " SEG_NAME " back failed at byte %" PRIu64 ": %s; its %" PRIu64 " batches after it dropped\n",
		s->dir, (uint64_t)g->num, (uint64_t)s->roff,
		err == -EBADMSG ? "a damaged record" : strerror(-err), (uint64_t)left);
	s->lost.batches += left;
	s->lost.events += events;
	s->backlog.batches -= left;
	s->backlog.events -= events < s->backlog.events ? events : s->backlog.events;
	g->nrec = g->nload;
	s->roff = g->bytes;
}

int nats_spool_load(struct nats_spool *s, __u64 room, natsMsg **m,
		    __u64 *events)
{
	struct spool_seg *g;
	__s64 len;

	if (!s->backlog.batches || !(g = read_seg(s)))
		return 0;
	len = spool_rec_read(s->rfd, s->roff, g->bytes, NULL, NULL, events);
	if (len > 0 && (__u64)len > room && room != ~0ULL)
		return 0;
	if (len > 0)
		len = spool_rec_read(s->rfd, s->roff, g->bytes, &s->buf, &s->bufcap, events);
	*m = len > 0 ? spool_rec_msg(s->buf) : NULL;
	if (*m && held_put(s, *m, g->num)) {
		natsMsg_Destroy(*m);
		*m = NULL;
	}
	if (!*m) {
		skip_rest(s, g, len > 0 ? -ENOMEM : (int)len);
		return -EIO;
	}
	s->roff += len;
	g->nload++;
	s->backlog.batches--;
	s->backlog.events -= *events;
	return 1;
}

/* --- done: segments removed --------------------------------------- */

static void seg_remove(struct nats_spool *s, size_t i)
{
	struct spool_seg *g = &s->segs[i];
	char path[PATH_MAX];

	if (i == s->nsegs - 1 && s->wfd >= 0) {
		close(s->wfd);
		s->wfd = -1;
	}
	if (s->rfd >= 0 && s->rfd_num == g->num) {
		close(s->rfd);
		s->rfd = -1;
	}
	seg_path(s, g->num, path, sizeof(path));
	unlink(path);
	s->used -= g->bytes;
	if (s->used <= s->budget / 2)
		s->said_full = false;	/* said again when full again */
	memmove(g, g + 1, (s->nsegs - i - 1) * sizeof(*g));
	s->nsegs--;
}

static bool seg_done(const struct spool_seg *g)
{
	return g->ndone == g->nrec;
}

/* The oldest segments, all of their records done, removed (not the one
 * written to: nats_spool_tick() and nats_spool_close() decide that). */
static void trim(struct nats_spool *s)
{
	while (s->nsegs && seg_done(&s->segs[0]) &&
	       !(s->nsegs == 1 && s->wfd >= 0))
		seg_remove(s, 0);
}

bool nats_spool_holds(const struct nats_spool *s, natsMsg *m)
{
	return held_find(s, m) != NULL;
}

bool nats_spool_done(struct nats_spool *s, natsMsg *m)
{
	struct spool_held *h = held_find(s, m);
	struct spool_seg *g;

	if (!h)
		return false;
	g = seg_find(s, h->seg);
	held_del(s, h);
	if (g)
		g->ndone++;
	trim(s);
	return true;
}

int nats_spool_tick(struct nats_spool *s, int *fds)
{
	int n = s->nunsynced;
	struct spool_seg *g = s->nsegs ? &s->segs[s->nsegs - 1] : NULL;

	if (g && s->wfd >= 0 && seg_done(g) &&
	    perfbuf_now_ns() - g->opened >= 1000000000ULL) {
		seg_remove(s, s->nsegs - 1);
		trim(s);
	}
	memcpy(fds, s->unsynced, n * sizeof(*fds));
	s->nunsynced = 0;
	return n;
}

void nats_spool_sync(const int *fds, int n)
{
	for (int i = 0; i < n; i++) {
		fdatasync(fds[i]);
		close(fds[i]);
	}
}

void nats_spool_close(struct nats_spool *s)
{
	if (s->nsegs && s->wfd >= 0 && seg_done(&s->segs[s->nsegs - 1]))
		seg_remove(s, s->nsegs - 1);
	seg_close_write(s);
	trim(s);
	nats_spool_sync(s->unsynced, s->nunsynced);
	s->nunsynced = 0;
	if (s->rfd >= 0)
		close(s->rfd);
	if (s->dfd >= 0)
		close(s->dfd);	/* the lock let go */
	s->dfd = s->rfd = -1;
	free(s->segs);
	free(s->held);
	free(s->buf);
	s->segs = NULL;
	s->held = NULL;
	s->buf = NULL;
	s->nsegs = s->hcap = s->hlen = 0;
}
