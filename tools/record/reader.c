// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Reading capture frames from a read-only mapping: every length checked
 * against what is left, every payload against its CRC, before use. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"

struct cap_reader {
	const unsigned char *buf;
	size_t len;
	size_t map_len;		/* 0: the caller's memory */
	size_t pos;
	bool ended;		/* CAP_END seen */
	bool truncated;
	int err;
	char why[160];
	int map_slot;		/* in maps[]: 1 + index, 0: none */
	/* of each type, the frame furthest into the file read so far: what
	 * a report needs at the end (the ledger) without a second pass */
	struct cap_view last[CAP_TYPE_MAX + 1];
};

/*
 * A file cut while it is mapped: reading past its new end is SIGBUS.
 * The handler puts a page of zeros where the fault was, so the read goes
 * on and sees damage, and marks the mapping: the reader then says the
 * file shrank. A fault elsewhere gets the default action.
 */
#define MAX_MAPS 8
static struct {
	const char *base;
	size_t len;
	volatile sig_atomic_t shrunk;
} maps[MAX_MAPS];
static int nmaps;
static size_t page_sz;
static struct sigaction old_bus;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	const char *a = si->si_addr;

	(void)uc;
	for (int i = 0; i < MAX_MAPS; i++) {
		if (!maps[i].base || a < maps[i].base || a >= maps[i].base + maps[i].len)
			continue;
		if (mmap((void *)((uintptr_t)a & ~(page_sz - 1)), page_sz, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			break;
		maps[i].shrunk = 1;
		return;
	}
	signal(sig, SIG_DFL);	/* not ours: the fault again, by default */
}

static int map_watch(const void *base, size_t len)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };

	for (int i = 0; i < MAX_MAPS; i++) {
		if (maps[i].base)
			continue;
		if (!nmaps++) {
			page_sz = (size_t)sysconf(_SC_PAGESIZE);
			sigaction(SIGBUS, &sa, &old_bus);
		}
		maps[i].shrunk = 0;
		maps[i].len = len;
		maps[i].base = base;
		return i + 1;
	}
	return 0;	/* unwatched: a cut file kills, as before */
}

static void map_unwatch(int slot)
{
	if (!slot)
		return;
	maps[slot - 1].base = NULL;
	if (!--nmaps)
		sigaction(SIGBUS, &old_bus, NULL);
}

bool cap_reader__shrunk(const struct cap_reader *r)
{
	return r->map_slot && maps[r->map_slot - 1].shrunk;
}

static bool header_ok(const void *buf, size_t len, char *why, size_t why_sz)
{
	struct cap_header h;

	if (len < sizeof(h) || memcmp(buf, CAP_MAGIC, CAP_MAGIC_LEN)) {
		snprintf(why, why_sz, "not a perfbuf capture (no \"PERFBUF-CAPTURE\" header)");
		return false;
	}
	memcpy(&h, buf, sizeof(h));
	if (h.version > CAP_VERSION) {
		snprintf(why, why_sz, "capture format version %u is newer than this perfbuf reads (%u): use a newer perfbuf",
			 h.version, CAP_VERSION);
		return false;
	}
	if (h.version == 0 || h.header_size < sizeof(h) || h.header_size > len ||
	    h.header_size & 7) {
		snprintf(why, why_sz, "damaged capture header (version %u, size %u)",
			 h.version, h.header_size);
		return false;
	}
	return true;
}

struct cap_reader *cap_reader__open_mem(const void *buf, size_t len,
					char *why, size_t why_sz)
{
	struct cap_reader *r;
	char tmp[160];

	if (!why) {
		why = tmp;
		why_sz = sizeof(tmp);
	}
	if (!header_ok(buf, len, why, why_sz)) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(why, why_sz, "%s", strerror(ENOMEM));
		return NULL;
	}
	r->buf = buf;
	r->len = len;
	cap_reader__rewind(r);
	return r;
}

struct cap_reader *cap_reader__open(const char *path, char *why, size_t why_sz)
{
	struct cap_reader *r;
	struct stat st;
	void *map;
	/* O_NONBLOCK: a FIFO's open() would wait for a writer */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), err;

	if (fd < 0 || fstat(fd, &st)) {
		err = errno;
		snprintf(why, why_sz, "%s", strerror(err));
		if (fd >= 0)
			close(fd);
		errno = err;
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size == 0) {
		snprintf(why, why_sz, S_ISREG(st.st_mode) ? "empty file" :
			 "not a regular file (a capture is read from a file)");
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = errno;
	close(fd);
	if (map == MAP_FAILED) {
		snprintf(why, why_sz, "%s", strerror(err));
		errno = err;
		return NULL;
	}
	r = cap_reader__open_mem(map, (size_t)st.st_size, why, why_sz);
	if (!r) {
		munmap(map, (size_t)st.st_size);
		return NULL;
	}
	r->map_len = (size_t)st.st_size;
	r->map_slot = map_watch(map, r->map_len);
	return r;
}

static int damage(struct cap_reader *r, const char *fmt, unsigned long long v)
{
	char what[96];

	snprintf(what, sizeof(what), fmt, v);
	snprintf(r->why, sizeof(r->why), "at byte %zu: %s", r->pos, what);
	r->err = -EBADMSG;
	return r->err;
}

int cap_reader__next(struct cap_reader *r, struct cap_view *v)
{
	struct cap_frame f;
	size_t left, padded;

	for (;;) {
		if (r->err)
			return r->err;
		if (r->ended)
			return 0;
		left = r->len - r->pos;
		if (left == 0) {
			r->truncated = true;	/* no CAP_END: cut short */
			return 0;
		}
		if (left < sizeof(f))
			return damage(r, "a frame header cut short (%llu bytes)", left);
		memcpy(&f, r->buf + r->pos, sizeof(f));
		left -= sizeof(f);
		if (f.len > left)
			return damage(r, "a frame of %llu bytes cut short", f.len);
		padded = (size_t)f.len + ((8 - (f.len & 7)) & 7);
		if (padded > left)
			padded = left;	/* the last frame's padding may be cut */
		if (f.type == 0 || f.reserved)
			return damage(r, "frame type %llu is not valid", f.type);
		if (cap_crc32(0, r->buf + r->pos + sizeof(f), (size_t)f.len) != f.crc ||
		    cap_reader__shrunk(r))
			return cap_reader__shrunk(r) ?
			       damage(r, "the file was cut while being read (it had %llu bytes)",
				      r->map_len) :
			       damage(r, "frame of type %llu fails its CRC", f.type);
		*v = (struct cap_view){
			.type = f.type, .cpu = f.cpu, .len = (size_t)f.len,
			.data = r->buf + r->pos + sizeof(f), .offset = r->pos,
		};
		r->pos += sizeof(f) + padded;
		if (f.type == CAP_END)
			r->ended = true;
		if (f.type <= CAP_TYPE_MAX && (!r->last[f.type].data ||
					       v->offset >= r->last[f.type].offset))
			r->last[f.type] = *v;
		if (f.type <= CAP_TYPE_MAX)
			return 1;
		/* a newer writer's frame type: skip it */
	}
}

bool cap_reader__last(const struct cap_reader *r, __u32 type, struct cap_view *v)
{
	if (type > CAP_TYPE_MAX || !r->last[type].data)
		return false;
	*v = r->last[type];
	return true;
}

int cap_reader__damage(struct cap_reader *r, const char *what,
		       unsigned long long v)
{
	return damage(r, what, v);
}

const char *cap_reader__error(const struct cap_reader *r)
{
	return r->why;
}

bool cap_reader__truncated(const struct cap_reader *r)
{
	return r->truncated;
}

void cap_reader__rewind(struct cap_reader *r)
{
	struct cap_header h;

	memcpy(&h, r->buf, sizeof(h));
	r->pos = h.header_size;
	r->ended = r->truncated = false;
	r->err = 0;
	r->why[0] = '\0';
}

void cap_reader__close(struct cap_reader *r)
{
	if (!r)
		return;
	map_unwatch(r->map_slot);
	if (r->map_len)
		munmap((void *)r->buf, r->map_len);
	free(r);
}
