// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for the sample parser: any attr layout and any record
 * bytes must parse or be refused, never read past the record. What a
 * successful parse hands out (arrays, strings) is read in full here, so
 * that ASan sees any pointer or count that reaches past it.
 *
 * Input: u64 sample_type, u8 read_format, u8 flags, u16 regs masks
 * (user, intr: one byte each), then records: first as whole records in
 * memory, one after another, then the same bytes as a ring's data.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfbuf.h"
#include "sample_priv.h"

#define PAGE 4096

static unsigned sum;

static void touch(const void *p, size_t len)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < len; i++)
		sum += c[i];
}

static void touch_str(const char *s)
{
	if (s)
		touch(s, strlen(s));
}

static void touch_side(const struct perfbuf_sample *s)
{
	switch (s->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		touch_str(s->rec.mmap.filename);
		if (s->rec.mmap.build_id)
			touch(s->rec.mmap.build_id, s->rec.mmap.build_id_size);
		break;
	case PERF_RECORD_COMM:
		touch_str(s->rec.comm.comm);
		break;
	case PERF_RECORD_READ:
		touch(s->rec.read.values.data, s->rec.read.values.words * 8);
		break;
	case PERF_RECORD_NAMESPACES:
		touch(s->rec.namespaces.link_info, s->rec.namespaces.nr * 16);
		break;
	case PERF_RECORD_KSYMBOL:
		touch_str(s->rec.ksymbol.name);
		break;
	case PERF_RECORD_BPF_EVENT:
		touch(s->rec.bpf_event.tag, 8);
		break;
	case PERF_RECORD_CGROUP:
		touch_str(s->rec.cgroup.path);
		break;
	case PERF_RECORD_TEXT_POKE:
		touch(s->rec.text_poke.bytes, (size_t)s->rec.text_poke.old_len +
		      s->rec.text_poke.new_len);
		break;
	case PERFBUF_RECORD_CALLCHAIN_DEFERRED:
		touch(s->rec.deferred.ips, s->rec.deferred.nr * 8);
		break;
	}
}

static void touch_all(const struct perfbuf_sample *s)
{
	struct perfbuf_count c = { .sz = sizeof(c) };
	size_t pos = 0;
	__u64 ip, ctx;

	if (s->type != PERF_RECORD_SAMPLE) {
		touch_side(s);
		return;
	}
	for (size_t i = 0; i < s->read.nr; i++)
		if (!perfbuf_sample_read__count(&s->read, i, &c))
			sum += (unsigned)c.value;
	while (perfbuf_callchain__next(s, &pos, &ip, &ctx))
		sum += (unsigned)ip;
	touch(s->raw.data, s->raw.size);
	touch(s->branch.entries, s->branch.nr * sizeof(*s->branch.entries));
	if (s->branch.counters)
		touch(s->branch.counters, s->branch.nr * 8);
	touch(s->regs_user.regs, s->regs_user.nr * 8);
	touch(s->regs_intr.regs, s->regs_intr.nr * 8);
	touch(s->stack_user.data, s->stack_user.size);
	touch(s->aux.data, s->aux.size);
}

struct ctx {
	struct perfbuf_sample_parser *p;
};

static int on_record(void *arg, const struct perfbuf_record *rec)
{
	struct ctx *c = arg;
	struct perfbuf_sample s = { .sz = sizeof(s) };

	if (!perfbuf_sample_parser__parse(c->p, rec, &s))
		touch_all(&s);
	return PERFBUF_CONTINUE;
}

static int quiet(enum perfbuf_print_level l, const char *f, va_list ap)
{
	(void)l; (void)f; (void)ap;
	return 0;
}

/* The records one after another, each in memory of exactly its size. */
static void as_bytes(const struct perfbuf_sample_parser *p, const uint8_t *in,
		     size_t len)
{
	while (len >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		struct perfbuf_sample s = { .sz = sizeof(s) };
		size_t n;
		void *copy;

		memcpy(&h, in, sizeof(h));
		n = h.size < 8 || h.size > len ? len : h.size;
		copy = malloc(n);
		if (!copy)
			return;
		memcpy(copy, in, n);
		if (!perfbuf_sample_parser__parse_bytes(p, copy, n, &s))
			touch_all(&s);
		free(copy);
		n = (n + 7) & ~(size_t)7;
		if (n >= len)
			break;
		in += n;
		len -= n;
	}
}

/* The same bytes as a ring's data, read from near its end: records wrap. */
static void as_ring(struct perfbuf_sample_parser *p, const uint8_t *in,
		    size_t len, uint8_t shift)
{
	struct perf_event_mmap_page *hdr;
	struct ctx c = { .p = p };
	struct perfbuf_ring *r;
	char *mem = calloc(1, PAGE * 2);	/* exact: ASan sees overreads */
	__u64 start = PAGE - 8 * (__u64)(shift % 64);

	if (!mem)
		return;
	len = len < PAGE - 8 ? len & ~(size_t)7 : PAGE - 8;
	for (size_t i = 0; i < len; i++)
		mem[PAGE + ((start + i) & (PAGE - 1))] = (char)in[i];
	hdr = (void *)mem;
	hdr->data_tail = start;
	hdr->data_head = start + len;
	r = perfbuf_ring__new_mem(mem, PAGE, 1);
	if (!r)
		abort();
	perfbuf_ring__set_sample_type(r, 0, false);	/* whole records */
	perfbuf_ring__fold(r, on_record, &c);
	perfbuf_ring__free(r);
	free(mem);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	struct perfbuf_sample_parser *p;
	uint8_t flags;

	if (len < 12)
		return 0;
	memcpy(&a.sample_type, in, 8);
	a.read_format = in[8] & 0x1f;
	flags = in[9];
	a.sample_regs_user = in[10];
	a.sample_regs_intr = in[11];
	a.sample_id_all = flags & 1;
	a.branch_sample_type = ((flags & 2) ? PERF_SAMPLE_BRANCH_HW_INDEX : 0) |
			       ((flags & 4) ? PERF_SAMPLE_BRANCH_COUNTERS : 0);
	/* keep most inputs to layouts the parser accepts */
	a.sample_type &= (1ULL << 25) - 1;
	if (a.sample_type & PERF_SAMPLE_WEIGHT_STRUCT)
		a.sample_type &= ~(__u64)PERF_SAMPLE_WEIGHT;
	perfbuf_set_print(quiet);
	p = perfbuf_sample_parser__new(&a);
	if (!p)
		abort();	/* every layout above is valid */
	as_bytes(p, in + 12, len - 12);
	as_ring(p, in + 12, len - 12, flags >> 3);
	perfbuf_sample_parser__free(p);
	return 0;
}
