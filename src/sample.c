// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The records of a perf event, parsed by its attr: PERF_RECORD_SAMPLE laid
 * out by sample_type (include/uapi/linux/perf_event.h, in the order of
 * perf_output_sample() in kernel/events/core.c), side-band records with
 * their sample_id_all trailer.
 *
 * The ring is untrusted input: every field is taken through a cursor that
 * knows how many bytes are left, so a record that does not match the attr
 * is -EBADMSG, never a read past its end.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

/* the sample_type bits this library lays out */
#define SAMPLE_KNOWN ((__u64)PERF_SAMPLE_WEIGHT_STRUCT * 2 - 1)
#define READ_KNOWN (PERF_FORMAT_TOTAL_TIME_ENABLED | \
		    PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | \
		    PERF_FORMAT_GROUP | PERF_FORMAT_LOST)
/* the fields of a sample_id_all trailer */
#define ID_FIELDS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
		   PERF_SAMPLE_IDENTIFIER)

struct perfbuf_sample_parser {
	__u64 sample_type;
	__u64 read_format;
	__u64 branch_sample_type;
	__u64 regs_user;
	__u64 regs_intr;
	bool sample_id_all;
	/* a record that wraps the ring end, made contiguous (8-aligned) */
	__u64 copy[(MAX_RECORD_SZ + 7) / 8];
};

struct perfbuf_sample_parser *
perfbuf_sample_parser__new(const struct perf_event_attr *attr)
{
	struct perfbuf_sample_parser *p;

	if (!attr)
		return err_ptr(-EINVAL);
	if ((attr->sample_type & PERF_SAMPLE_WEIGHT) &&
	    (attr->sample_type & PERF_SAMPLE_WEIGHT_STRUCT)) {
		pr_warn("sample parser: PERF_SAMPLE_WEIGHT and PERF_SAMPLE_WEIGHT_STRUCT are exclusive\n");
		return err_ptr(-EINVAL);
	}
	if ((attr->sample_type & ~SAMPLE_KNOWN) ||
	    (attr->read_format & ~(__u64)READ_KNOWN)) {
		pr_warn("sample parser: sample_type 0x%llx / read_format 0x%llx has bits this library does not know\n",
			(unsigned long long)attr->sample_type,
			(unsigned long long)attr->read_format);
		return err_ptr(-EOPNOTSUPP);
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return err_ptr(-ENOMEM);
	p->sample_type = attr->sample_type;
	p->read_format = attr->read_format;
	p->branch_sample_type = attr->branch_sample_type;
	p->regs_user = attr->sample_regs_user;
	p->regs_intr = attr->sample_regs_intr;
	p->sample_id_all = attr->sample_id_all;
	return p;
}

void perfbuf_sample_parser__free(struct perfbuf_sample_parser *p)
{
	free(p);
}

/* Bytes of a record body, taken from the front (or the back: trailers). */
struct cursor {
	const char *p;
	size_t left;
	bool bad;
};

static const void *take(struct cursor *c, size_t n)
{
	const void *at = c->p;

	if (c->bad || n > c->left) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	c->left -= n;
	return at;
}

static __u64 u64_at(struct cursor *c)
{
	const void *at = take(c, 8);
	__u64 v = 0;

	if (at)
		memcpy(&v, at, 8);
	return v;
}

/* { u32 a, b } in one u64 slot */
static void u32_pair(struct cursor *c, __u32 *a, __u32 *b)
{
	const char *at = take(c, 8);

	if (!at)
		return;
	memcpy(a, at, 4);
	memcpy(b, at + 4, 4);
}

/* @n u64s, @n read from the record: a count the record claims */
static const __u64 *u64_array(struct cursor *c, __u64 n)
{
	if (n > c->left / 8) {
		c->bad = true;
		return NULL;
	}
	return take(c, (size_t)n * 8);
}

/* A string the kernel wrote in the @len bytes left: NUL-terminated and
 * padded to 8 bytes (ALIGN(strlen + 1, 8)), no more. */
static const char *string(struct cursor *c, size_t len)
{
	const char *s = take(c, len);
	const char *nul = s ? memchr(s, '\0', len) : NULL;

	if (s && (!nul || (((size_t)(nul - s) + 8) & ~(size_t)7) != len)) {
		c->bad = true;
		return NULL;
	}
	return s;
}

static void read_block(struct cursor *c, __u64 format,
		       struct perfbuf_sample_read *r)
{
	size_t per = 1 + !!(format & PERF_FORMAT_ID) +
		     !!(format & PERF_FORMAT_LOST);
	size_t times = !!(format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		       !!(format & PERF_FORMAT_TOTAL_TIME_RUNNING);
	struct cursor peek = *c;

	r->format = format;
	r->nr = 1;
	if (format & PERF_FORMAT_GROUP) {
		r->nr = u64_at(&peek);
		if (r->nr > c->left / 8 / per) {
			c->bad = true;
			return;
		}
		r->words = 1 + times + (size_t)r->nr * per;
	} else {
		r->words = times + per;
	}
	r->data = u64_array(c, r->words);
}

int perfbuf_sample_read__count(const struct perfbuf_sample_read *r, size_t i,
			       struct perfbuf_count *out)
{
	if (!r->data || i >= r->nr)
		return -ERANGE;
	return perfbuf_count_out(r->data, r->words, r->format, i, out);
}

static void regs(struct cursor *c, __u64 mask, struct perfbuf_sample_regs *r)
{
	r->abi = u64_at(c);
	r->mask = mask;
	if (r->abi == PERF_SAMPLE_REGS_ABI_NONE)
		return;
	r->nr = (__u32)__builtin_popcountll(mask);
	r->regs = u64_array(c, r->nr);
}

static void branch_stack(struct cursor *c, __u64 bst, struct perfbuf_sample *s)
{
	s->branch.nr = u64_at(c);
	/* 3 u64s per entry (+1 with counters): bound nr before multiplying */
	if (s->branch.nr > c->left / 24) {
		c->bad = true;
		return;
	}
	if (bst & PERF_SAMPLE_BRANCH_HW_INDEX)
		s->branch.hw_idx = u64_at(c);
	s->branch.entries = (const void *)u64_array(c, s->branch.nr * 3);
	if (bst & PERF_SAMPLE_BRANCH_COUNTERS)
		s->branch.counters = u64_array(c, s->branch.nr);
}

static void stack_user(struct cursor *c, struct perfbuf_sample *s)
{
	/* the kernel writes only the size (0) when it has no user regs */
	s->stack_user.size = u64_at(c);
	if (!s->stack_user.size)
		return;
	if (s->stack_user.size & 7) {
		c->bad = true;
		return;
	}
	s->stack_user.data = u64_array(c, s->stack_user.size / 8);
	s->stack_user.dyn_size = u64_at(c);
	if (s->stack_user.dyn_size > s->stack_user.size)
		c->bad = true;
}

static void raw(struct cursor *c, struct perfbuf_sample *s)
{
	const void *at = take(c, 4);

	if (!at)
		return;
	memcpy(&s->raw.size, at, 4);
	/* the size includes the padding to the next 8-byte boundary */
	if ((s->raw.size + 4) & 7) {
		c->bad = true;
		return;
	}
	s->raw.data = take(c, s->raw.size);
}

static void aux(struct cursor *c, struct perfbuf_sample *s)
{
	s->aux.size = u64_at(c);
	if (s->aux.size & 7 || s->aux.size > c->left) {
		c->bad = true;
		return;
	}
	s->aux.data = take(c, (size_t)s->aux.size);
}

/* PERF_SAMPLE_IDENTIFIER .. PERF_SAMPLE_PERIOD, then the variable part */
static void sample_head(struct cursor *c, __u64 t, struct perfbuf_sample *s)
{
	if (t & PERF_SAMPLE_IDENTIFIER)
		s->id = u64_at(c);
	if (t & PERF_SAMPLE_IP)
		s->ip = u64_at(c);
	if (t & PERF_SAMPLE_TID)
		u32_pair(c, &s->pid, &s->tid);
	if (t & PERF_SAMPLE_TIME)
		s->time = u64_at(c);
	if (t & PERF_SAMPLE_ADDR)
		s->addr = u64_at(c);
	if (t & PERF_SAMPLE_ID)
		s->id = u64_at(c);
	if (t & PERF_SAMPLE_STREAM_ID)
		s->stream_id = u64_at(c);
	if (t & PERF_SAMPLE_CPU) {
		__u32 res;

		u32_pair(c, &s->cpu, &res);
	}
	if (t & PERF_SAMPLE_PERIOD)
		s->period = u64_at(c);
}

static void sample(const struct perfbuf_sample_parser *p, struct cursor *c,
		   struct perfbuf_sample *s)
{
	__u64 t = p->sample_type;

	s->present = t;
	sample_head(c, t, s);
	if (t & PERF_SAMPLE_READ)
		read_block(c, p->read_format, &s->read);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		s->callchain.nr = u64_at(c);
		s->callchain.ips = u64_array(c, s->callchain.nr);
	}
	if (t & PERF_SAMPLE_RAW)
		raw(c, s);
	if (t & PERF_SAMPLE_BRANCH_STACK)
		branch_stack(c, p->branch_sample_type, s);
	if (t & PERF_SAMPLE_REGS_USER)
		regs(c, p->regs_user, &s->regs_user);
	if (t & PERF_SAMPLE_STACK_USER)
		stack_user(c, s);
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		s->weight.full = u64_at(c);
	if (t & PERF_SAMPLE_DATA_SRC)
		s->data_src = u64_at(c);
	if (t & PERF_SAMPLE_TRANSACTION)
		s->transaction = u64_at(c);
	if (t & PERF_SAMPLE_REGS_INTR)
		regs(c, p->regs_intr, &s->regs_intr);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = u64_at(c);
	if (t & PERF_SAMPLE_CGROUP)
		s->cgroup = u64_at(c);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		s->data_page_size = u64_at(c);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		s->code_page_size = u64_at(c);
	if (t & PERF_SAMPLE_AUX)
		aux(c, s);
}

/* The sample_id_all trailer: the last bytes of a side-band record. */
static void trailer(const struct perfbuf_sample_parser *p, struct cursor *c,
		    struct perfbuf_sample *s)
{
	__u64 t = p->sample_type & ID_FIELDS;
	size_t n = 8 * (size_t)__builtin_popcountll(t);
	struct cursor tc;

	if (!p->sample_id_all || !t)
		return;
	if (n > c->left) {
		c->bad = true;
		return;
	}
	c->left -= n;
	tc = (struct cursor){ .p = c->p + c->left, .left = n };
	s->present = t;
	if (t & PERF_SAMPLE_TID)
		u32_pair(&tc, &s->pid, &s->tid);
	if (t & PERF_SAMPLE_TIME)
		s->time = u64_at(&tc);
	if (t & PERF_SAMPLE_ID)
		s->id = u64_at(&tc);
	if (t & PERF_SAMPLE_STREAM_ID)
		s->stream_id = u64_at(&tc);
	if (t & PERF_SAMPLE_CPU) {
		__u32 res;

		u32_pair(&tc, &s->cpu, &res);
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		s->id = u64_at(&tc);
}

static void mmap_body(struct cursor *c, bool v2, __u16 misc,
		      struct perfbuf_sample *s)
{
	const char *at;

	u32_pair(c, &s->rec.mmap.pid, &s->rec.mmap.tid);
	s->rec.mmap.addr = u64_at(c);
	s->rec.mmap.len = u64_at(c);
	s->rec.mmap.pgoff = u64_at(c);
	if (v2) {
		/* 24 bytes: maj, min, ino, ino_generation, or a build id */
		at = take(c, 24);
		if (at && (misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
			s->rec.mmap.build_id_size = (__u8)at[0];
			s->rec.mmap.build_id = (const __u8 *)at + 4;
			if (s->rec.mmap.build_id_size > 20)
				c->bad = true;
		} else if (at) {
			memcpy(&s->rec.mmap.maj, at, 4);
			memcpy(&s->rec.mmap.min, at + 4, 4);
			memcpy(&s->rec.mmap.ino, at + 8, 8);
			memcpy(&s->rec.mmap.ino_generation, at + 16, 8);
		}
		u32_pair(c, &s->rec.mmap.prot, &s->rec.mmap.flags);
	}
	s->rec.mmap.filename = string(c, c->left);
}

/* The fixed part of the simple side-band bodies, as u64 slots. */
static void side_fixed(struct cursor *c, __u32 type, struct perfbuf_sample *s)
{
	switch (type) {
	case PERF_RECORD_LOST:
		s->rec.lost.id = u64_at(c);
		s->rec.lost.lost = u64_at(c);
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		u32_pair(c, &s->rec.task.pid, &s->rec.task.ppid);
		u32_pair(c, &s->rec.task.tid, &s->rec.task.ptid);
		s->rec.task.time = u64_at(c);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		s->rec.throttle.time = u64_at(c);
		s->rec.throttle.id = u64_at(c);
		s->rec.throttle.stream_id = u64_at(c);
		break;
	case PERF_RECORD_AUX:
		s->rec.aux.aux_offset = u64_at(c);
		s->rec.aux.aux_size = u64_at(c);
		s->rec.aux.flags = u64_at(c);
		break;
	case PERF_RECORD_ITRACE_START:
		u32_pair(c, &s->rec.itrace_start.pid, &s->rec.itrace_start.tid);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		s->rec.lost_samples.lost = u64_at(c);
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		u32_pair(c, &s->rec.context_switch.next_prev_pid,
			 &s->rec.context_switch.next_prev_tid);
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		s->rec.aux_output_hw_id.hw_id = u64_at(c);
		break;
	}
}

/* The side-band bodies with strings or arrays. */
static void side_variable(const struct perfbuf_sample_parser *p,
			  struct cursor *c, __u32 type, __u16 misc,
			  struct perfbuf_sample *s)
{
	const char *at;

	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		mmap_body(c, type == PERF_RECORD_MMAP2, misc, s);
		break;
	case PERF_RECORD_COMM:
		u32_pair(c, &s->rec.comm.pid, &s->rec.comm.tid);
		s->rec.comm.comm = string(c, c->left);
		break;
	case PERF_RECORD_READ:
		u32_pair(c, &s->rec.read.pid, &s->rec.read.tid);
		read_block(c, p->read_format, &s->rec.read.values);
		break;
	case PERF_RECORD_NAMESPACES:
		u32_pair(c, &s->rec.namespaces.pid, &s->rec.namespaces.tid);
		s->rec.namespaces.nr = u64_at(c);
		if (s->rec.namespaces.nr > c->left / 16) {
			c->bad = true;
			break;
		}
		s->rec.namespaces.link_info = (const void *)u64_array(
			c, s->rec.namespaces.nr * 2);
		break;
	case PERF_RECORD_KSYMBOL:
		s->rec.ksymbol.addr = u64_at(c);
		at = take(c, 8);
		if (at) {
			memcpy(&s->rec.ksymbol.len, at, 4);
			memcpy(&s->rec.ksymbol.ksym_type, at + 4, 2);
			memcpy(&s->rec.ksymbol.flags, at + 6, 2);
		}
		s->rec.ksymbol.name = string(c, c->left);
		break;
	case PERF_RECORD_BPF_EVENT:
		at = take(c, 8);
		if (at) {
			memcpy(&s->rec.bpf_event.type, at, 2);
			memcpy(&s->rec.bpf_event.flags, at + 2, 2);
			memcpy(&s->rec.bpf_event.id, at + 4, 4);
		}
		s->rec.bpf_event.tag = take(c, 8);
		break;
	case PERF_RECORD_CGROUP:
		s->rec.cgroup.id = u64_at(c);
		s->rec.cgroup.path = string(c, c->left);
		break;
	case PERF_RECORD_TEXT_POKE:
		s->rec.text_poke.addr = u64_at(c);
		at = take(c, 4);
		if (at) {
			memcpy(&s->rec.text_poke.old_len, at, 2);
			memcpy(&s->rec.text_poke.new_len, at + 2, 2);
		}
		s->rec.text_poke.bytes = take(c, (size_t)s->rec.text_poke.old_len +
					      s->rec.text_poke.new_len);
		/* padded to 8 bytes: at most 7 left */
		if (c->left >= 8)
			c->bad = true;
		take(c, c->left);
		break;
	case PERFBUF_RECORD_CALLCHAIN_DEFERRED:
		s->rec.deferred.cookie = u64_at(c);
		s->rec.deferred.nr = u64_at(c);
		s->rec.deferred.ips = u64_array(c, s->rec.deferred.nr);
		break;
	default:
		side_fixed(c, type, s);
	}
}

static bool known_type(__u32 type)
{
	return type >= PERF_RECORD_MMAP &&
	       type <= PERFBUF_RECORD_CALLCHAIN_DEFERRED;
}

/* A record body (after its header) of @len bytes at @body. */
static int parse_body(const struct perfbuf_sample_parser *p, __u32 type,
		      __u16 misc, const void *body, size_t len,
		      struct perfbuf_sample *s)
{
	struct cursor c = { .p = body, .left = len };

	memset(s, 0, sizeof(*s));
	s->type = type;
	s->misc = misc;
	s->size = (__u16)(len + sizeof(struct perf_event_header));
	if (!known_type(type))
		return -EOPNOTSUPP;
	if (type == PERF_RECORD_SAMPLE) {
		sample(p, &c, s);
	} else {
		trailer(p, &c, s);
		side_variable(p, &c, type, misc, s);
	}
	/* the layout is exact: bytes left over mean another attr */
	return c.bad || c.left ? -EBADMSG : 0;
}

/* The caller's struct may be older (shorter) than the library's: it was
 * parsed into @full, and only its bytes are copied; a newer one got the
 * library's bytes. sz: the bytes filled. */
static int out_done(struct perfbuf_sample *out, size_t sz,
		    const struct perfbuf_sample *full, int err)
{
	if (sz < sizeof(*full))
		memcpy((char *)out + sizeof(size_t),
		       (const char *)full + sizeof(size_t), sz - sizeof(size_t));
	out->sz = sz < sizeof(*full) ? sz : sizeof(*full);
	return err;
}

static int parse_bytes(const struct perfbuf_sample_parser *p,
		       const void *rec, size_t size, struct perfbuf_sample *out)
{
	const struct perf_event_header *eh = rec;

	if (size < sizeof(*eh) || eh->size < sizeof(*eh) || eh->size > size ||
	    (eh->size & 7)) {
		memset(out, 0, sizeof(*out));
		return -EBADMSG;
	}
	return parse_body(p, eh->type, eh->misc, eh + 1, eh->size - sizeof(*eh),
			  out);
}

int perfbuf_sample_parser__parse_bytes(const struct perfbuf_sample_parser *p,
				       const void *rec, size_t size,
				       struct perfbuf_sample *out)
{
	struct perfbuf_sample full;
	size_t sz;

	if (!p || !rec || !out || out->sz < sizeof(size_t) || ((uintptr_t)rec & 7))
		return -EINVAL;
	sz = out->sz;
	return out_done(out, sz, &full,
			parse_bytes(p, rec, size, sz < sizeof(full) ? &full : out));
}

/* A LOST record the library made (a drain's settled losses): no body. */
static int made_lost(const struct perfbuf_record *rec,
		     struct perfbuf_sample *out)
{
	memset(out, 0, sizeof(*out));
	out->type = PERF_RECORD_LOST;
	out->size = sizeof(struct perf_event_header) + 16;
	out->rec.lost.lost = rec->lost;
	return 0;
}

static int parse_record(struct perfbuf_sample_parser *p,
			const struct perfbuf_record *rec,
			struct perfbuf_sample *out)
{
	const void *body = rec->data;
	size_t len;

	if (rec->kind != PERFBUF_REC_OTHER && rec->kind != PERFBUF_REC_LOST)
		return -EINVAL;
	len = rec->data_sz + rec->data2_sz;
	if (rec->kind == PERFBUF_REC_LOST && !len)
		return made_lost(rec, out);
	if (len > MAX_RECORD_SZ - sizeof(struct perf_event_header) || (len & 7)) {
		memset(out, 0, sizeof(*out));
		return -EBADMSG;
	}
	/* a ring's records are 8-aligned: a wrapped one is copied, as is one
	 * in memory that is not aligned (the arrays handed out must be) */
	if (rec->data2_sz || ((uintptr_t)body & 7)) {
		perfbuf_record__copy(rec, p->copy, len);
		body = p->copy;
	}
	return parse_body(p, rec->type, rec->misc, body, len, out);
}

int perfbuf_sample_parser__parse(struct perfbuf_sample_parser *p,
				 const struct perfbuf_record *rec,
				 struct perfbuf_sample *out)
{
	struct perfbuf_sample full;
	size_t sz;

	if (!p || !rec || !out || out->sz < sizeof(size_t))
		return -EINVAL;
	sz = out->sz;
	return out_done(out, sz, &full,
			parse_record(p, rec, sz < sizeof(full) ? &full : out));
}
