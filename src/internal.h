/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers shared by the library's files; not installed. */
#ifndef PERFBUF_INTERNAL_H
#define PERFBUF_INTERNAL_H

#include <errno.h>

#include "perfbuf.h"
#include "bpf_errstr.h"
#include "perf_event_priv.h"
#include "ring_priv.h"
#include "sample_priv.h"

#define pr_warn(fmt, ...)  perfbuf_pr(PERFBUF_WARN, "perfbuf: " fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)  perfbuf_pr(PERFBUF_INFO, "perfbuf: " fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) perfbuf_pr(PERFBUF_DEBUG, "perfbuf: " fmt, ##__VA_ARGS__)

__attribute__((format(printf, 2, 3)))
void perfbuf_pr(enum perfbuf_print_level level, const char *fmt, ...);

/* strerror() that knows libbpf's own codes (4000-4007: LIBBPF_ERRNO__*);
 * @err negative or positive */
static inline const char *errstr(int err)
{
	return bpf_errstr(err);
}

/* Options structs may grow: bytes past what this library knows must be 0. */
bool perfbuf_opts_valid(const void *opts, size_t known_sz, size_t user_sz,
			const char *type_name);

#define OPTS_VALID(opts, type) \
	(!(opts) || perfbuf_opts_valid((opts), sizeof(struct type), \
				       *(const size_t *)(opts), #type))
/* A field is read only when the caller's struct is large enough to hold it. */
#define OPTS_HAS(opts, field) \
	((opts) && (opts)->sz >= offsetof(__typeof__(*(opts)), field) + \
				 sizeof((opts)->field))
#define OPTS_GET(opts, field, fallback) \
	(OPTS_HAS(opts, field) ? (opts)->field : (fallback))

/* A result struct (size_t sz first, set by the caller) filled from the
 * library's complete @src of @known_sz bytes: min(sz, known_sz) bytes
 * written, sz set to that. 0, or -EINVAL when sz < sizeof(size_t). */
int perfbuf_out_copy(void *dst, const void *src, size_t known_sz);
#define OUT_COPY(dst, src) \
	((dst) ? perfbuf_out_copy((dst), (src), sizeof(*(src))) : -EINVAL)

#define MAX_PAGE_CNT (1UL << 20)	/* 4 GiB of 4 KiB pages per ring */
#define MAX_RECORD_SZ 0xfff8		/* largest 8-aligned u16 header.size */

/* The online CPUs, read into an array of exactly their number, *@out
 * (freed by the caller): a CPU coming online between a count and a read
 * cannot make a caller read past its array. The count or a negative errno. */
int perfbuf_cpus_online_alloc(int **out);
/* The same of the possible CPUs. */
int perfbuf_cpus_possible_alloc(int **out);

/* perfbuf_ring__check_page_cnt(), with a warning naming what is wrong. */
int perfbuf_check_page_cnt_log(size_t page_cnt);

struct perfbuf_ring {
	struct perf_event_mmap_page *hdr;
	const char *data;
	__u64 mask;		/* data_size - 1 */
	size_t map_len;		/* 0 when the memory is the caller's */
	int cpu;
	__u32 raw_off;		/* see struct perfbuf_iter */
	__u32 time_off;
	__u32 lost_time_end;	/* a LOST record's time: this many bytes
				 * before its end; 0 if it has none */
	__u64 lost_seen;	/* sum of the LOST records' counts */
	int err;		/* -EBADMSG found by the current iteration */
	int fd;			/* the event (overwrite: to pause), or -1 */
	bool overwrite;		/* write_backward, read-only mapping */
	__u64 snap_head;	/* overwrite: data_head at the last snapshot */
	size_t rec_sz;		/* the iterating caller's record size; 0:
				 * the library's */
	/* the iteration begun and not ended yet, [iter_tail, iter_head):
	 * perfbuf_ring__end() takes only an iterator of it, once */
	bool iter_open;
	__u64 iter_tail, iter_head;
	__u32 fork_gen;		/* mapped rings: perfbuf_fork_gen() at mmap */
	struct perfbuf_ring_stats st;
};

/*
 * fork(): the child has none of the perf rings' mappings (the kernel maps
 * them VM_DONTCOPY), and the event fds, map slots and epoll sets it
 * inherits are the parent's. perfbuf_fork_gen() is bumped in the child of
 * every fork() (pthread_atfork); what the library maps or sets up keeps
 * the value it was made in, and refuses to be read (-ECHILD) where
 * perfbuf_forked() says the value is another process's. One load a drain.
 */
__u32 perfbuf_fork_gen(void);
bool perfbuf_forked(__u32 gen);
/* A ring the library mapped, in a child forked since: not readable. */
bool ring_forked(const struct perfbuf_ring *r);

/* The estimate value * time_enabled / time_running of a multiplexed
 * counter (read(2) or a sample's READ block) into c->scaled. */
void perfbuf_count_scale(struct perfbuf_count *c, __u64 read_format);

/* Counter @i of a read_format block of @words u64s (read(2), a sample's
 * READ). 0, -ERANGE (no counter @i) or -EIO (@words too few for @f). */
int perfbuf_read_format_count(const __u64 *p, size_t words, __u64 f,
			      size_t i, struct perfbuf_count *out);
/* The same into a caller's @out (its sz set): -EINVAL when sz is bad. */
int perfbuf_count_out(const __u64 *p, size_t words, __u64 f, size_t i,
		      struct perfbuf_count *out);

/* The position of the iterator's next record. */
static inline __u64 iter_tail(const struct perfbuf_iter *it)
{
	return it->tail + (it->pos - it->stretch);
}

static inline bool iter_done(const struct perfbuf_iter *it)
{
	return iter_tail(it) == it->head;
}

/* The time of the record at the iterator's position without reading it
 * (0: none, or no record); for a merge's choice. */
__u64 ring_peek_time(const struct perfbuf_iter *it);

/* An iterator over [@tail, @head) of @r, which must hold records. */
struct perfbuf_iter ring_iter(struct perfbuf_ring *r, __u64 tail, __u64 head);

/* perfbuf_ring__fold_n()'s loop: the records delivered; *@stopped when
 * the callback stopped, *@err perfbuf_ring__end()'s result. */
size_t ring_fold(struct perfbuf_ring *r, perfbuf_record_fn fn, void *ctx,
		 size_t budget, bool *stopped, int *err);

/* perfbuf_merge__fold(); *@more says whether records up to @horizon may
 * be left (a budget or a callback ended the fold). */
int merge_fold(struct perfbuf_merge *m, __u64 horizon, size_t budget,
	       perfbuf_record_fn fn, void *ctx, bool *more);

static inline void *err_ptr(int err)
{
	errno = err < 0 ? -err : err;
	return NULL;
}

#endif
