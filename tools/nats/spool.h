/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The disk spool of `trace --nats --nats-spool DIR` (spool.c, its
 * records spool_rec.c). Every batch the publisher queues (pub.c) is
 * appended to a segment file of DIR as it is queued, before any send:
 * a run killed at any moment leaves on disk every batch not yet
 * acknowledged. The memory queue holds the front of the queue, up to
 * --nats-buffer; what does not fit waits on disk only (the backlog) and
 * is read back in order as room frees. A segment is removed once each
 * of its batches is acknowledged (or dropped for good). A batch that
 * does not fit --nats-spool-size is not spooled: kept in memory when it
 * fits there and nothing waits on disk before it, else dropped, counted.
 *
 * Writing every batch, not only those the memory queue cannot take,
 * costs a write(2) per batch (256K by default) into the page cache, and
 * keeps what a SIGKILL would take from memory.
 *
 * A later run with the same DIR sends what a killed run left first,
 * each batch with its Nats-Msg-Id unchanged: the stream drops a copy of
 * one stored before the kill within its duplicate window (at least
 * once). DIR is flocked: two runs cannot share it.
 *
 * Files: DIR/NNNNNNNNNNNNNNNN.seg (a hex number, increasing), records
 * one after another (spool_rec.c):
 *   u32 magic "PBS1", u32 len (bytes after these 24), u32 crc32 (of the
 *   bytes after it), u32 events, u32 subject length, u32 header bytes;
 *   the subject, the headers ("Key: Value\r\n" each), the payload.
 * At the start a record cut short or failing its checksum (a run killed
 * while writing it) ends its segment: the file is cut there, the records
 * before it kept, the cut said.
 *
 * fsync: a segment is fdatasync'ed when full (by the sending thread,
 * without the queue's lock) and at the end when it is kept; its records
 * are in the page cache from their write(2): a killed process loses
 * none; a machine that crashes may lose the records of segments not yet
 * synced (at most one segment's: 1/16 of the budget, at most 16M).
 *
 * Not thread-safe: the publisher calls all but nats_spool_open() under
 * its mutex.
 */
#ifndef PERFBUF_NATS_SPOOL_H
#define PERFBUF_NATS_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <nats/nats.h>

struct spool_seg {
	__u64 num;		/* its file name */
	__u64 bytes;		/* its size */
	__u64 nrec;		/* records in it */
	__u64 nload;		/* of them, read into memory (or written there) */
	__u64 ndone;		/* of them, acknowledged or dropped for good */
	__u64 opened;		/* perfbuf_now_ns() at its first record */
};

/* a message in memory that is a record of the spool: its segment */
struct spool_held {
	natsMsg *m;
	__u64 seg;
};

#define SPOOL_UNSYNCED_MAX 8

struct nats_spool {
	const char *prog;
	const char *dir;
	int dfd;			/* DIR, flocked */
	__u64 budget, seg_max;		/* bytes: all segments, one */
	struct spool_seg *segs;		/* oldest first */
	size_t nsegs, cap;
	int wfd;			/* the last segment's, -1: none open */
	__u64 rnum, roff;		/* the first record not in memory */
	int rfd;			/* segment rnum's, -1: none open */
	__u64 rfd_num;
	__u64 used;			/* bytes of all segments */
	struct { __u64 events, batches; } backlog;	/* not in memory */
	struct { __u64 events, batches; } lost;	/* unreadable (said) */
	struct spool_held *held;	/* open addressing, by message */
	size_t hcap, hlen;
	int unsynced[SPOOL_UNSYNCED_MAX];	/* full segments, fdatasync due */
	int nunsynced;
	bool said_write, said_full;
	char *buf;			/* a record read back */
	size_t bufcap;
};

/* DIR locked (created 0700 if absent), its segments checked (cut short
 * records cut off, said) and their records made the backlog, sent first.
 * 0, or -errno after one line (not a directory, not writable, in use). */
int nats_spool_open(struct nats_spool *s, const char *prog, const char *dir,
		    __u64 budget);
/* @m (@events) appended. @in_memory: it is in the memory queue too (the
 * caller checked nats_spool_backlog() is 0), kept there until
 * nats_spool_done(); else it is the backlog's last. 0; -ENOSPC past the
 * budget; -errno when the write failed (said once): not spooled. */
int nats_spool_append(struct nats_spool *s, natsMsg *m, __u64 events,
		      bool in_memory);
/* Records waiting on disk only. */
static inline __u64 nats_spool_backlog(const struct nats_spool *s)
{
	return s->backlog.batches;
}
/* The backlog's first record into memory, as *@m of *@events, if its
 * bytes are at most @room (or @room is ~0): 1; 0 when none or no room;
 * -EIO when it could not be read (said; its segment's rest skipped). */
int nats_spool_load(struct nats_spool *s, __u64 room, natsMsg **m,
		    __u64 *events);
/* @m (a message in memory) acknowledged or dropped: its record's
 * segment removed once all of its are. False: @m is not the spool's. */
bool nats_spool_done(struct nats_spool *s, natsMsg *m);
/* Whether @m is a record of the spool (kept on disk at the end). */
bool nats_spool_holds(const struct nats_spool *s, natsMsg *m);
/* A segment whose records are all done and that was opened at least a
 * second ago removed, though not full (at low rates). Then the fds of
 * full segments to fdatasync() and close, into @fds (at most
 * SPOOL_UNSYNCED_MAX): how many. */
int nats_spool_tick(struct nats_spool *s, int *fds);
/* fdatasync() and close() @n fds of nats_spool_tick(), without the lock. */
void nats_spool_sync(const int *fds, int n);
/* Done segments removed, the last one synced if kept, the lock let go. */
void nats_spool_close(struct nats_spool *s);

/* spool_rec.c: @m as a record appended to @fd at @off (cut back on a
 * short write): its bytes, or -errno. */
__s64 spool_rec_write(int fd, __u64 off, natsMsg *m, __u64 events);
/* The record at @off of @fd (@size bytes), checked: its bytes, 0 at the
 * end, -EBADMSG when cut short or damaged; *@events its events. @buf
 * (*@cap bytes) grows to hold it; NULL: the header only. */
__s64 spool_rec_read(int fd, __u64 off, __u64 size, char **buf, size_t *cap,
		     __u64 *events);
/* The record read into @buf by spool_rec_read() as a message (NULL:
 * out of memory). */
natsMsg *spool_rec_msg(const char *buf);
/* The records of a segment (@fd, @size bytes) counted, *@events theirs;
 * *@good: where the first bad record starts (@size when none). */
__u64 spool_rec_scan(int fd, __u64 size, char **buf, size_t *cap,
		     __u64 *events, __u64 *good);

#endif
