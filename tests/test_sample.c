// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The sample parser on records built here the way the kernel lays them
 * out (every sample_type bit, every side-band record, wrapped in a ring),
 * records that do not match their attr, and the sampler on real software
 * events.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "perfbuf.h"
#include "sample_priv.h"
#include "emit_util.h"
#include "synth.h"
#include "test.h"

/* A record under construction: 8-aligned words. */
struct build {
	__u64 w[1024];
	size_t n;		/* bytes */
};

static void put(struct build *b, const void *p, size_t len)
{
	memcpy((char *)b->w + b->n, p, len);
	b->n += len;
}

static void put64(struct build *b, __u64 v)
{
	put(b, &v, 8);
}

static void put32x2(struct build *b, __u32 lo, __u32 hi)
{
	put(b, &lo, 4);
	put(b, &hi, 4);
}

/* a string NUL-padded to 8 bytes */
static void putstr(struct build *b, const char *s)
{
	size_t len = strlen(s) + 1, pad = (len + 7) & ~(size_t)7;

	memset((char *)b->w + b->n, 0, pad);
	memcpy((char *)b->w + b->n, s, len);
	b->n += pad;
}

static void begin(struct build *b, __u32 type, __u16 misc)
{
	struct perf_event_header h = { .type = type, .misc = misc };

	memset(b, 0, sizeof(*b));
	put(b, &h, sizeof(h));
}

static void set_size(struct build *b, __u16 size)
{
	memcpy((char *)b->w + offsetof(struct perf_event_header, size), &size, 2);
}

static void set_misc(struct build *b, __u16 misc)
{
	memcpy((char *)b->w + offsetof(struct perf_event_header, misc), &misc, 2);
}

static size_t end(struct build *b)
{
	set_size(b, (__u16)b->n);
	return b->n;
}

/* the trailer of side-band records for ID_TYPE */
#define ID_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

static void put_trailer(struct build *b)
{
	put32x2(b, 100, 101);	/* pid, tid */
	put64(b, 5000);		/* time */
	put64(b, 77);		/* id */
	put64(b, 78);		/* stream id */
	put32x2(b, 1, 0);	/* cpu */
	put64(b, 77);		/* identifier */
}

static bool trailer_ok(const struct perfbuf_sample *s)
{
	return s->present == ID_TYPE && s->pid == 100 && s->tid == 101 &&
	       s->time == 5000 && s->id == 77 && s->stream_id == 78 &&
	       s->cpu == 1;
}

/* Every prefix of a record (its size cut by 8 bytes at a time) and the
 * record with 8 bytes more must be refused, never read past. */
static void assert_exact(const struct perfbuf_sample_parser *p,
			 struct build *b, const char *what)
{
	struct perf_event_header *h = (void *)b->w;
	__u16 full = h->size;
	struct perfbuf_sample s = { .sz = sizeof(s) };
	char name[96];

	for (__u16 sz = 8; sz < full; sz += 8) {
		h->size = sz;
		snprintf(name, sizeof(name), "%s cut to %u bytes", what, sz);
		/* exactly @sz bytes available: ASan sees any overread */
		{
			__u64 *copy = malloc(sz);

			memcpy(copy, b->w, sz);
			ASSERT_EQ(perfbuf_sample_parser__parse_bytes(p, copy, sz, &s),
				  -EBADMSG, name);
			free(copy);
		}
	}
	h->size = full + 8;
	memset((char *)b->w + full, 0, 8);
	snprintf(name, sizeof(name), "%s with 8 bytes more", what);
	ASSERT_EQ(perfbuf_sample_parser__parse_bytes(p, b->w, full + 8, &s), -EBADMSG,
		  name);
	h->size = full;
}

static struct perfbuf_sample_parser *parser(__u64 sample_type, __u64 read_format,
					    bool id_all)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .sample_type = sample_type,
		.read_format = read_format, .sample_id_all = id_all,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
				      PERF_SAMPLE_BRANCH_HW_INDEX |
				      PERF_SAMPLE_BRANCH_COUNTERS,
		.sample_regs_user = 0x7, .sample_regs_intr = 0x3,
	};

	return perfbuf_sample_parser__new(&a);
}

#define ALL_SAMPLE ((__u64)PERF_SAMPLE_WEIGHT_STRUCT * 2 - 1 - PERF_SAMPLE_WEIGHT)
#define ALL_READ (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | \
		  PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST)

/* A sample with every field, in perf_output_sample()'s order. */
static void build_full_sample(struct build *b)
{
	static const char raw[] = "raw-bytes";	/* 10 bytes, + 4 + 2 pad */
	static const char stack[16] = "user stack 16 B";

	begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(b, 900);				/* IDENTIFIER */
	put64(b, 0x401000);			/* IP */
	put32x2(b, 10, 11);			/* TID */
	put64(b, 123456789);			/* TIME */
	put64(b, 0xdead000);			/* ADDR */
	put64(b, 900);				/* ID */
	put64(b, 901);				/* STREAM_ID */
	put32x2(b, 1, 0);			/* CPU */
	put64(b, 10101);			/* PERIOD */
	/* READ, group of 2: nr, enabled, running, {value, id, lost} x 2 */
	put64(b, 2); put64(b, 1000); put64(b, 500);
	put64(b, 40); put64(b, 900); put64(b, 0);
	put64(b, 60); put64(b, 902); put64(b, 3);
	/* CALLCHAIN: kernel context, 2 frames, user context, 2 frames */
	put64(b, 6);
	put64(b, (__u64)PERF_CONTEXT_KERNEL); put64(b, 0xffffffff81000010ULL);
	put64(b, 0xffffffff81000020ULL);
	put64(b, (__u64)PERF_CONTEXT_USER); put64(b, 0x401000); put64(b, 0x402000);
	/* RAW: u32 size (padding included), data */
	{
		__u32 sz = 12;
		char pad[12] = { 0 };

		memcpy(pad, raw, sizeof(raw));
		put(b, &sz, 4);
		put(b, pad, 12);
	}
	/* BRANCH_STACK: nr 1, hw_idx, {from, to, flags}, counters[1] */
	put64(b, 1); put64(b, 5);
	put64(b, 0x401100); put64(b, 0x401200); put64(b, 0);
	put64(b, 9);
	/* REGS_USER: abi 64, 3 regs (mask 0x7) */
	put64(b, PERF_SAMPLE_REGS_ABI_64); put64(b, 1); put64(b, 2); put64(b, 3);
	/* STACK_USER: size 16, data, dyn_size 12 */
	put64(b, 16); put(b, stack, 16); put64(b, 12);
	put64(b, 0x0003000200000001ULL);	/* WEIGHT_STRUCT */
	put64(b, 0x1234);			/* DATA_SRC */
	put64(b, 0x5);				/* TRANSACTION */
	/* REGS_INTR: abi 64, 2 regs (mask 0x3) */
	put64(b, PERF_SAMPLE_REGS_ABI_64); put64(b, 7); put64(b, 8);
	put64(b, 0x7000);			/* PHYS_ADDR */
	put64(b, 42);				/* CGROUP */
	put64(b, 4096);				/* DATA_PAGE_SIZE */
	put64(b, 2097152);			/* CODE_PAGE_SIZE */
	put64(b, 8); put64(b, 0xaabbccdd);	/* AUX: size 8, data */
	end(b);
}

static void check_full_sample(const struct perfbuf_sample *s)
{
	struct perfbuf_count c = { .sz = sizeof(c) };
	size_t pos = 0;
	__u64 ip = 0, ctx = 0;

	ASSERT_EQ(s->type, PERF_RECORD_SAMPLE, "type");
	ASSERT_EQ(s->misc, PERF_RECORD_MISC_USER, "misc");
	ASSERT_EQ(s->present, ALL_SAMPLE, "present");
	ASSERT_EQ(s->id, 900, "id");
	ASSERT_EQ(s->ip, 0x401000, "ip");
	ASSERT_EQ(s->pid, 10, "pid");
	ASSERT_EQ(s->tid, 11, "tid");
	ASSERT_EQ(s->time, 123456789, "time");
	ASSERT_EQ(s->addr, 0xdead000, "addr");
	ASSERT_EQ(s->stream_id, 901, "stream id");
	ASSERT_EQ(s->cpu, 1, "cpu");
	ASSERT_EQ(s->period, 10101, "period");
	ASSERT_EQ(s->read.nr, 2, "read nr");
	if (ASSERT_OK(perfbuf_sample_read__count(&s->read, 1, &c), "member 1")) {
		ASSERT_EQ(c.value, 60, "member 1 value");
		ASSERT_EQ(c.id, 902, "member 1 id");
		ASSERT_EQ(c.lost, 3, "member 1 lost");
		ASSERT_EQ(c.time_enabled, 1000, "enabled");
		ASSERT_EQ((long long)c.scaled, 120, "scaled by enabled/running");
	}
	ASSERT_EQ(perfbuf_sample_read__count(&s->read, 2, &c), -ERANGE, "member 2");
	ASSERT_EQ(s->callchain.nr, 6, "callchain nr");
	ASSERT_TRUE(perfbuf_callchain__next(s, &pos, &ip, &ctx), "frame 0");
	ASSERT_EQ(ip, 0xffffffff81000010ULL, "frame 0 ip");
	ASSERT_EQ(ctx, (__u64)PERF_CONTEXT_KERNEL, "frame 0 kernel");
	ASSERT_TRUE(perfbuf_callchain__next(s, &pos, &ip, &ctx), "frame 1");
	ASSERT_TRUE(perfbuf_callchain__next(s, &pos, &ip, &ctx), "frame 2");
	ASSERT_EQ(ip, 0x401000, "frame 2 ip");
	ASSERT_EQ(ctx, (__u64)PERF_CONTEXT_USER, "frame 2 user");
	ASSERT_TRUE(perfbuf_callchain__next(s, &pos, &ip, &ctx), "frame 3");
	ASSERT_TRUE(!perfbuf_callchain__next(s, &pos, &ip, &ctx), "4 frames");
	ASSERT_EQ(s->raw.size, 12, "raw size");
	ASSERT_TRUE(s->raw.data && !strcmp(s->raw.data, "raw-bytes"), "raw data");
	ASSERT_EQ(s->branch.nr, 1, "branch nr");
	ASSERT_EQ(s->branch.hw_idx, 5, "hw_idx");
	ASSERT_EQ(s->branch.entries[0].to, 0x401200, "branch to");
	ASSERT_EQ(s->branch.counters[0], 9, "branch counter");
	ASSERT_EQ(s->regs_user.nr, 3, "user regs");
	ASSERT_EQ(s->regs_user.regs[2], 3, "user reg 2");
	ASSERT_EQ(s->stack_user.size, 16, "stack size");
	ASSERT_EQ(s->stack_user.dyn_size, 12, "stack dyn_size");
	ASSERT_TRUE(!memcmp(s->stack_user.data, "user stack", 10), "stack data");
	ASSERT_EQ(s->weight.var1_dw, 1, "weight var1");
	ASSERT_EQ(s->weight.var2_w, 2, "weight var2");
	ASSERT_EQ(s->weight.var3_w, 3, "weight var3");
	ASSERT_EQ(s->data_src, 0x1234, "data_src");
	ASSERT_EQ(s->transaction, 5, "transaction");
	ASSERT_EQ(s->regs_intr.nr, 2, "intr regs");
	ASSERT_EQ(s->regs_intr.regs[1], 8, "intr reg 1");
	ASSERT_EQ(s->phys_addr, 0x7000, "phys_addr");
	ASSERT_EQ(s->cgroup, 42, "cgroup");
	ASSERT_EQ(s->data_page_size, 4096, "data page size");
	ASSERT_EQ(s->code_page_size, 2097152, "code page size");
	ASSERT_EQ(s->aux.size, 8, "aux size");
	ASSERT_EQ(*(const __u64 *)s->aux.data, 0xaabbccdd, "aux data");
}

TEST(every_sample_field)
{
	struct perfbuf_sample_parser *p = parser(ALL_SAMPLE, ALL_READ, true);
	struct perfbuf_sample s = { .sz = sizeof(s) };
	static struct build b;

	if (!ASSERT_OK_PTR(p, "parser"))
		return;
	build_full_sample(&b);
	if (ASSERT_OK(perfbuf_sample_parser__parse_bytes(p, b.w, b.n, &s), "parse"))
		check_full_sample(&s);
	ASSERT_EQ(s.size, b.n, "size");
	ASSERT_TRUE((const char *)s.callchain.ips > (const char *)b.w &&
		    (const char *)s.callchain.ips < (const char *)b.w + b.n,
		    "zero-copy: the callchain points into the record");
	assert_exact(p, &b, "full sample");
	perfbuf_sample_parser__free(p);
}

/* Variants the full sample does not cover: no registers (a kernel thread),
 * no user stack, a plain u64 weight, a read of one counter, no group. */
TEST(sample_variants)
{
	struct perfbuf_sample_parser *p = parser(
		PERF_SAMPLE_READ | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
		PERF_SAMPLE_WEIGHT, PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID,
		false);
	struct perfbuf_sample s = { .sz = sizeof(s) };
	struct perfbuf_count c = { .sz = sizeof(c) };
	static struct build b;

	if (!ASSERT_OK_PTR(p, "parser"))
		return;
	begin(&b, PERF_RECORD_SAMPLE, 0);
	put64(&b, 99); put64(&b, 1000); put64(&b, 7);	/* value, enabled, id */
	put64(&b, PERF_SAMPLE_REGS_ABI_NONE);		/* no regs follow */
	put64(&b, 0);					/* stack size 0: nothing else */
	put64(&b, 31337);				/* weight */
	end(&b);
	if (ASSERT_OK(perfbuf_sample_parser__parse_bytes(p, b.w, b.n, &s), "parse")) {
		ASSERT_EQ(s.regs_user.nr, 0, "no regs");
		ASSERT_EQ(s.stack_user.size, 0, "no stack");
		ASSERT_EQ(s.weight.full, 31337, "weight");
		ASSERT_OK(perfbuf_sample_read__count(&s.read, 0, &c), "count");
		ASSERT_EQ(c.value, 99, "value");
		ASSERT_EQ(c.id, 7, "id");
		ASSERT_EQ(c.time_enabled, 1000, "enabled");
	}
	assert_exact(p, &b, "variants");
	/* a user stack whose valid part exceeds it */
	begin(&b, PERF_RECORD_SAMPLE, 0);
	put64(&b, 99); put64(&b, 1000); put64(&b, 7);
	put64(&b, PERF_SAMPLE_REGS_ABI_NONE);
	put64(&b, 8); put64(&b, 0); put64(&b, 16);
	put64(&b, 1);
	end(&b);
	ASSERT_EQ(perfbuf_sample_parser__parse_bytes(p, b.w, b.n, &s), -EBADMSG,
		  "dyn_size > size");
	perfbuf_sample_parser__free(p);
}

/* Counts a record claims that do not fit it: refused without a read. */
TEST(lying_counts)
{
	struct perfbuf_sample_parser *p = parser(PERF_SAMPLE_CALLCHAIN, 0, false);
	struct perfbuf_sample_parser *r = parser(PERF_SAMPLE_READ, ALL_READ, false);
	struct perfbuf_sample_parser *raw = parser(PERF_SAMPLE_RAW, 0, false);
	__u64 claims[] = { 2, 1ULL << 61, UINT64_MAX, UINT64_MAX / 8 + 1 };
	struct perfbuf_sample s = { .sz = sizeof(s) };
	static struct build b;

	if (!ASSERT_OK_PTR(p, "parser") || !ASSERT_OK_PTR(r, "read parser") ||
	    !ASSERT_OK_PTR(raw, "raw parser"))
		goto out;
	for (size_t i = 0; i < sizeof(claims) / sizeof(claims[0]); i++) {
		begin(&b, PERF_RECORD_SAMPLE, 0);
		put64(&b, claims[i]);
		put64(&b, 0x1000);
		end(&b);
		ASSERT_EQ(perfbuf_sample_parser__parse_bytes(p, b.w, b.n, &s), -EBADMSG,
			  "callchain nr past the record");
		ASSERT_EQ(perfbuf_sample_parser__parse_bytes(r, b.w, b.n, &s), -EBADMSG,
			  "group nr past the record");
	}
	begin(&b, PERF_RECORD_SAMPLE, 0);
	put32x2(&b, 8, 0);	/* raw size 8: 4 + 8 is not 8-aligned */
	put64(&b, 0);
	end(&b);
	ASSERT_EQ(perfbuf_sample_parser__parse_bytes(raw, b.w, b.n, &s), -EBADMSG,
		  "raw size not padded");
	begin(&b, PERF_RECORD_SAMPLE, 0);
	put32x2(&b, 0xfffffffc, 0);
	end(&b);
	ASSERT_EQ(perfbuf_sample_parser__parse_bytes(raw, b.w, b.n, &s), -EBADMSG,
		  "raw size past the record");
out:
	perfbuf_sample_parser__free(p);
	perfbuf_sample_parser__free(r);
	perfbuf_sample_parser__free(raw);
}

TEST(attr_checks)
{
	struct perf_event_attr a = { .size = sizeof(a) };

	errno = 0;
	ASSERT_TRUE(!perfbuf_sample_parser__new(NULL) && errno == EINVAL, "NULL attr");
	a.sample_type = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT;
	ASSERT_TRUE(!perfbuf_sample_parser__new(&a) && errno == EINVAL,
		    "both weights");
	a.sample_type = 1ULL << 40;
	ASSERT_TRUE(!perfbuf_sample_parser__new(&a) && errno == EOPNOTSUPP,
		    "unknown sample_type bit");
	a.sample_type = 0;
	a.read_format = 1ULL << 20;
	ASSERT_TRUE(!perfbuf_sample_parser__new(&a) && errno == EOPNOTSUPP,
		    "unknown read_format bit");
}

/* Builds side-band record @type's body (without the trailer). */
static void side_body(struct build *b, __u32 type, __u16 *misc)
{
	*misc = 0;
	switch (type) {
	case PERF_RECORD_MMAP:
		put32x2(b, 5, 6); put64(b, 0x400000); put64(b, 0x1000);
		put64(b, 0); putstr(b, "/usr/bin/true");
		break;
	case PERF_RECORD_MMAP2:
		put32x2(b, 5, 6); put64(b, 0x400000); put64(b, 0x1000);
		put64(b, 0x2000); put32x2(b, 8, 1); put64(b, 1234); put64(b, 1);
		put32x2(b, PROT_READ | PROT_EXEC, MAP_PRIVATE);
		putstr(b, "/usr/lib/libc.so.6");
		break;
	case PERF_RECORD_LOST:
		put64(b, 77); put64(b, 12);
		break;
	case PERF_RECORD_COMM:
		put32x2(b, 5, 5); putstr(b, "worker");
		*misc = PERF_RECORD_MISC_COMM_EXEC;
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		put32x2(b, 5, 1); put32x2(b, 6, 1); put64(b, 4000);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		put64(b, 4000); put64(b, 77); put64(b, 78);
		break;
	case PERF_RECORD_READ:
		put32x2(b, 5, 6); put64(b, 55);		/* read_format 0 */
		break;
	case PERF_RECORD_AUX:
		put64(b, 4096); put64(b, 512); put64(b, 1);
		break;
	case PERF_RECORD_ITRACE_START:
		put32x2(b, 5, 6);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		put64(b, 3);
		break;
	case PERF_RECORD_SWITCH:
		*misc = PERF_RECORD_MISC_SWITCH_OUT;
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		put32x2(b, 7, 8);
		break;
	case PERF_RECORD_NAMESPACES:
		put32x2(b, 5, 6); put64(b, 2);
		put64(b, 1); put64(b, 4026531840ULL); put64(b, 1); put64(b, 4026531841ULL);
		break;
	case PERF_RECORD_KSYMBOL:
		put64(b, 0xffffffffc0000000ULL); put32x2(b, 256, 1 | (0 << 16));
		putstr(b, "bpf_prog_6deef7357e7b4530_sd_fw_egress");
		break;
	case PERF_RECORD_BPF_EVENT:
		put32x2(b, PERF_BPF_EVENT_PROG_LOAD, 42);
		put64(b, 0x0807060504030201ULL);
		break;
	case PERF_RECORD_CGROUP:
		put64(b, 3); putstr(b, "/system.slice");
		break;
	case PERF_RECORD_TEXT_POKE:
		put64(b, 0xffffffff81000000ULL);
		{
			unsigned char x[8] = { 5, 0, 5, 0, 0x0f, 0x1f, 0x44, 0 };

			put(b, x, 8);	/* old_len 5, new_len 5, 4 bytes... */
			memset(x, 0xe8, 8);
			put(b, x, 8);	/* ...6 more, 2 of padding */
		}
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		put64(b, 0x77);
		break;
	case PERFBUF_RECORD_CALLCHAIN_DEFERRED:
		put64(b, 0xc00c1e); put64(b, 2); put64(b, 0x401000); put64(b, 0x402000);
		break;
	}
}

static void check_side(const struct perfbuf_sample *s, __u32 type)
{
	switch (type) {
	case PERF_RECORD_MMAP:
		ASSERT_TRUE(!strcmp(s->rec.mmap.filename, "/usr/bin/true"), "mmap file");
		ASSERT_EQ(s->rec.mmap.len, 0x1000, "mmap len");
		break;
	case PERF_RECORD_MMAP2:
		ASSERT_TRUE(!strcmp(s->rec.mmap.filename, "/usr/lib/libc.so.6"), "mmap2 file");
		ASSERT_EQ(s->rec.mmap.pgoff, 0x2000, "mmap2 pgoff");
		ASSERT_EQ(s->rec.mmap.maj, 8, "mmap2 maj");
		ASSERT_EQ(s->rec.mmap.ino, 1234, "mmap2 ino");
		ASSERT_EQ(s->rec.mmap.prot, PROT_READ | PROT_EXEC, "mmap2 prot");
		break;
	case PERF_RECORD_LOST:
		ASSERT_EQ(s->rec.lost.lost, 12, "lost");
		break;
	case PERF_RECORD_COMM:
		ASSERT_TRUE(!strcmp(s->rec.comm.comm, "worker"), "comm");
		ASSERT_EQ(s->misc, PERF_RECORD_MISC_COMM_EXEC, "comm exec");
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		ASSERT_EQ(s->rec.task.tid, 6, "task tid");
		ASSERT_EQ(s->rec.task.time, 4000, "task time");
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		ASSERT_EQ(s->rec.throttle.stream_id, 78, "throttle stream");
		break;
	case PERF_RECORD_READ:
		ASSERT_EQ(s->rec.read.values.nr, 1, "read nr");
		ASSERT_EQ(s->rec.read.values.data[0], 55, "read value");
		break;
	case PERF_RECORD_AUX:
		ASSERT_EQ(s->rec.aux.aux_size, 512, "aux size");
		break;
	case PERF_RECORD_ITRACE_START:
		ASSERT_EQ(s->rec.itrace_start.tid, 6, "itrace tid");
		break;
	case PERF_RECORD_LOST_SAMPLES:
		ASSERT_EQ(s->rec.lost_samples.lost, 3, "lost samples");
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		ASSERT_EQ(s->rec.context_switch.next_prev_tid, 8, "switch tid");
		break;
	case PERF_RECORD_NAMESPACES:
		ASSERT_EQ(s->rec.namespaces.nr, 2, "namespaces");
		ASSERT_EQ(s->rec.namespaces.link_info[1].ino, 4026531841ULL, "ns ino");
		break;
	case PERF_RECORD_KSYMBOL:
		ASSERT_EQ(s->rec.ksymbol.len, 256, "ksym len");
		ASSERT_EQ(s->rec.ksymbol.ksym_type, 1, "ksym type");
		ASSERT_TRUE(!strncmp(s->rec.ksymbol.name, "bpf_prog_", 9), "ksym name");
		break;
	case PERF_RECORD_BPF_EVENT:
		ASSERT_EQ(s->rec.bpf_event.id, 42, "bpf id");
		ASSERT_EQ(s->rec.bpf_event.tag[7], 8, "bpf tag");
		break;
	case PERF_RECORD_CGROUP:
		ASSERT_TRUE(!strcmp(s->rec.cgroup.path, "/system.slice"), "cgroup path");
		break;
	case PERF_RECORD_TEXT_POKE:
		ASSERT_EQ(s->rec.text_poke.new_len, 5, "poke new_len");
		ASSERT_EQ(s->rec.text_poke.bytes[5], 0xe8, "poke new bytes");
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		ASSERT_EQ(s->rec.aux_output_hw_id.hw_id, 0x77, "hw id");
		break;
	case PERFBUF_RECORD_CALLCHAIN_DEFERRED:
		ASSERT_EQ(s->rec.deferred.nr, 2, "deferred nr");
		ASSERT_EQ(s->rec.deferred.ips[1], 0x402000, "deferred ip");
		break;
	}
}

/* Every side-band type, with and without the sample_id_all trailer. */
TEST(side_band_records)
{
	struct perfbuf_sample_parser *with = parser(ID_TYPE, 0, true);
	struct perfbuf_sample_parser *without = parser(ID_TYPE, 0, false);
	struct perfbuf_sample s = { .sz = sizeof(s) };
	static struct build b;
	char name[64];

	if (!ASSERT_OK_PTR(with, "parser") || !ASSERT_OK_PTR(without, "parser"))
		goto out;
	for (__u32 t = PERF_RECORD_MMAP; t <= PERFBUF_RECORD_CALLCHAIN_DEFERRED; t++) {
		__u16 misc;

		if (t == PERF_RECORD_SAMPLE)
			continue;
		for (int trail = 0; trail < 2; trail++) {
			begin(&b, t, 0);
			side_body(&b, t, &misc);
			if (trail)
				put_trailer(&b);
			set_misc(&b, misc);
			end(&b);
			snprintf(name, sizeof(name), "type %u%s", t,
				 trail ? " with trailer" : "");
			if (!ASSERT_OK(perfbuf_sample_parser__parse_bytes(trail ? with : without,
								  b.w, b.n, &s), name))
				continue;
			ASSERT_EQ(s.type, t, name);
			check_side(&s, t);
			ASSERT_TRUE(trail ? trailer_ok(&s) : s.present == 0, name);
			/* strings and fixed bodies: cut, they must fail */
			if (t != PERF_RECORD_SWITCH || trail)
				assert_exact(trail ? with : without, &b, name);
		}
	}
	/* a file name without its NUL */
	begin(&b, PERF_RECORD_COMM, 0);
	put32x2(&b, 1, 1);
	put(&b, "12345678", 8);
	end(&b);
	ASSERT_EQ(perfbuf_sample_parser__parse_bytes(without, b.w, b.n, &s), -EBADMSG,
		  "string without NUL");
	/* a build id longer than its 20 bytes */
	begin(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID);
	put32x2(&b, 5, 6); put64(&b, 0); put64(&b, 0); put64(&b, 0);
	put64(&b, 21); put64(&b, 0); put64(&b, 0); put32x2(&b, 0, 0);
	putstr(&b, "x");
	end(&b);
	ASSERT_EQ(perfbuf_sample_parser__parse_bytes(without, b.w, b.n, &s), -EBADMSG,
		  "build id of 21 bytes");
	((__u8 *)b.w)[40] = 20;
	if (ASSERT_OK(perfbuf_sample_parser__parse_bytes(without, b.w, b.n, &s), "build id"))
		ASSERT_EQ(s.rec.mmap.build_id_size, 20, "build id size");
	/* a type from a kernel newer than the library */
	begin(&b, 99, 0);
	put64(&b, 0);
	end(&b);
	ASSERT_EQ(perfbuf_sample_parser__parse_bytes(without, b.w, b.n, &s), -EOPNOTSUPP,
		  "unknown type");
	ASSERT_EQ(s.type, 99, "unknown type: header filled");
	ASSERT_EQ(s.size, 16, "unknown type: size");
out:
	perfbuf_sample_parser__free(with);
	perfbuf_sample_parser__free(without);
}

TEST(bad_headers)
{
	struct perfbuf_sample_parser *p = parser(PERF_SAMPLE_IP, 0, false);
	__u64 rec[4] = { 0 };
	struct perf_event_header *h = (void *)rec;
	struct perfbuf_sample s = { .sz = sizeof(s) };

	if (!ASSERT_OK_PTR(p, "parser"))
		return;
	h->type = PERF_RECORD_SAMPLE;
	h->size = 16;
	ASSERT_OK(perfbuf_sample_parser__parse_bytes(p, rec, 16, &s), "well formed");
	ASSERT_EQ(perfbuf_sample_parser__parse_bytes(p, rec, 8, &s), -EBADMSG,
		  "size past the bytes given");
	h->size = 12;
	ASSERT_EQ(perfbuf_sample_parser__parse_bytes(p, rec, 32, &s), -EBADMSG, "unaligned size");
	h->size = 0;
	ASSERT_EQ(perfbuf_sample_parser__parse_bytes(p, rec, 32, &s), -EBADMSG, "size 0");
	h->size = 16;
	ASSERT_EQ(perfbuf_sample_parser__parse_bytes(p, (char *)rec + 4, 16, &s), -EINVAL,
		  "unaligned record");
	ASSERT_EQ(perfbuf_sample_parser__parse_bytes(p, rec, 4, &s), -EBADMSG, "no header");
	perfbuf_sample_parser__free(p);
}

struct ring_got {
	struct perfbuf_sample_parser *p;
	const char *ring_lo, *ring_hi;
	int parsed, in_ring, bad;
	__u64 last_ip;
};

static int parse_cb(void *ctx, const struct perfbuf_record *rec)
{
	struct ring_got *g = ctx;
	struct perfbuf_sample s = { .sz = sizeof(s) };

	if (perfbuf_sample_parser__parse(g->p, rec, &s)) {
		g->bad++;
		return PERFBUF_CONTINUE;
	}
	g->parsed++;
	if (s.type == PERF_RECORD_SAMPLE) {
		g->last_ip = s.callchain.ips[s.callchain.nr - 1];
		g->in_ring += (const char *)s.callchain.ips >= g->ring_lo &&
			      (const char *)s.callchain.ips < g->ring_hi;
	}
	return PERFBUF_CONTINUE;
}

/* Callchain samples written across the ring end at every 8-byte offset:
 * the parser copies the wrapped ones, reads the others in place. */
TEST(wrapped_in_ring)
{
	struct perf_event_attr a = { .size = sizeof(a),
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN };
	struct ring_got g = { 0 };
	struct synth sy;
	__u64 body[10];
	int samples = 0;

	g.p = perfbuf_sample_parser__new(&a);
	if (!ASSERT_OK_PTR(g.p, "parser"))
		return;
	/* 88-byte records from just before the end, 8 bytes further each time */
	for (__u64 start = SYNTH_PAGE - 96; start < SYNTH_PAGE + 8; start += 8) {
		if (!ASSERT_OK(synth_init(&sy, 1, start), "synth"))
			break;
		perfbuf_ring__set_sample_type(sy.ring, 0, false);
		g.ring_lo = (const char *)sy.data;
		g.ring_hi = g.ring_lo + SYNTH_PAGE;
		body[0] = 3 | (4ULL << 32);
		body[1] = 8;
		for (int i = 0; i < 8; i++)
			body[2 + i] = 0x1000 + start + (__u64)i;
		synth_other(&sy, PERF_RECORD_SAMPLE, 0, body, sizeof(body));
		synth_publish(&sy);
		perfbuf_ring__fold(sy.ring, parse_cb, &g);
		ASSERT_EQ(g.last_ip, 0x1007 + start, "last frame");
		samples++;
		synth_free(&sy);
	}
	ASSERT_EQ(g.bad, 0, "all parsed");
	ASSERT_EQ(g.parsed, samples, "one each");
	/* bodies from 4000, 4008 (ending at the end), 0 (the header at 4088)
	 * and 8 are contiguous */
	ASSERT_EQ(g.in_ring, 4, "contiguous ones zero-copy");
	perfbuf_sample_parser__free(g.p);
}

/* Ring records the parser has no body for. */
TEST(ring_kinds)
{
	struct perf_event_attr a = { .size = sizeof(a), .sample_type = PERF_SAMPLE_RAW };
	struct perfbuf_sample_parser *p = perfbuf_sample_parser__new(&a);
	struct perfbuf_record rec = { .kind = PERFBUF_REC_SAMPLE };
	struct perfbuf_sample s = { .sz = sizeof(s) };

	if (!ASSERT_OK_PTR(p, "parser"))
		return;
	ASSERT_EQ(perfbuf_sample_parser__parse(p, &rec, &s), -EINVAL, "raw payload only");
	rec.kind = PERFBUF_REC_CPU_ONLINE;
	ASSERT_EQ(perfbuf_sample_parser__parse(p, &rec, &s), -EINVAL, "cpu notice");
	rec = (struct perfbuf_record){ .kind = PERFBUF_REC_LOST,
				       .type = PERF_RECORD_LOST, .lost = 9 };
	ASSERT_OK(perfbuf_sample_parser__parse(p, &rec, &s), "settled losses");
	ASSERT_EQ(s.rec.lost.lost, 9, "their count");
	ASSERT_EQ(perfbuf_sample_parser__parse(p, NULL, &s), -EINVAL, "NULL");
	perfbuf_sample_parser__free(p);
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

struct seen {
	pid_t pid, tid;
	int samples, wrong_task, with_user_frames, mmap2_seen, comm_seen;
	const char *mapped;
	__u64 addr_lo, addr_hi;
	int addr_in;
};

static int seen_cb(void *ctx, const struct perfbuf_sample *s)
{
	struct seen *w = ctx;
	size_t pos = 0;
	__u64 ip, c = 0;

	switch (s->type) {
	case PERF_RECORD_SAMPLE:
		w->samples++;
		if (w->pid && (s->pid != (__u32)w->pid || s->tid != (__u32)w->tid))
			w->wrong_task++;
		while (perfbuf_callchain__next(s, &pos, &ip, &c))
			if (c == (__u64)PERF_CONTEXT_USER) {
				w->with_user_frames++;
				break;
			}
		w->addr_in += s->addr >= w->addr_lo && s->addr < w->addr_hi;
		break;
	case PERF_RECORD_MMAP2:
		w->mmap2_seen += w->mapped && strstr(s->rec.mmap.filename, w->mapped) &&
				 s->pid == (__u32)w->pid && (s->present & PERF_SAMPLE_TIME);
		break;
	case PERF_RECORD_COMM:
		w->comm_seen++;
		break;
	}
	return PERFBUF_CONTINUE;
}

/* task-clock on this thread, callchains and side-band records */
TEST(sampler_per_task)
{
	PERFBUF_OPTS(perfbuf_event_opts, ev,
		.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = 1000000,	/* 1 ms of CPU */
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD,
		.mmap = true, .mmap2 = true, .comm = true, .task = true,
		.sample_id_all = true);
	PERFBUF_OPTS(perfbuf_sampler_opts, so, .pid = gettid_(), .page_cnt = 8);
	struct perfbuf_sampler_stats st = { .sz = sizeof(st) };
	struct seen w = { .pid = getpid(), .tid = gettid_(), .mapped = "test_sample" };
	struct perfbuf_sampler *s;
	void *m;
	int fd;

	TEST_NEED_ROOT();
	s = perfbuf_sampler__new(&ev, &so);
	if (!ASSERT_OK_PTR(s, "sampler"))
		return;
	ASSERT_EQ(perfbuf_sampler__cnt(s), 1, "one event");
	ASSERT_EQ(perfbuf_sampler__cpu(s, 0), -1, "on any CPU");
	/* an executable mapping made while sampling: an MMAP2 record */
	fd = open("/proc/self/exe", O_RDONLY);
	m = fd >= 0 ? mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	spin_ms(60);
	perfbuf_sampler__disable(s);
	ASSERT_GT(perfbuf_sampler__consume(s, seen_cb, &w), 0, "records");
	perfbuf_sampler__stats(s, &st);
	ASSERT_GE(w.samples, 30, "~60 samples: one per ms of CPU");
	ASSERT_EQ(w.wrong_task, 0, "every sample this thread's");
	/* the spin is in clock_gettime(CLOCK_THREAD_CPUTIME_ID) syscalls:
	 * kernel frames, then the user frames of the caller */
	ASSERT_EQ(w.with_user_frames, w.samples, "every callchain has user frames");
	ASSERT_EQ(w.mmap2_seen, 1, "the MMAP2 of the mapping, with its time");
	ASSERT_EQ(st.samples, (__u64)w.samples, "stats: samples");
	ASSERT_EQ(st.bad, 0, "nothing unparsed");
	if (m != MAP_FAILED)
		munmap(m, 4096);
	if (fd >= 0)
		close(fd);
	perfbuf_sampler__free(s);
}

/* cpu-clock on every online CPU, by period: each ring read on its own,
 * every sample carries its ring's CPU. */
struct cpu_got {
	int cpu, samples, other_cpu;
};

static int cpu_cb(void *ctx, const struct perfbuf_sample *s)
{
	struct cpu_got *g = ctx;

	if (s->type == PERF_RECORD_SAMPLE) {
		g->samples++;
		g->other_cpu += (int)s->cpu != g->cpu;
	}
	return PERFBUF_CONTINUE;
}

static int per_cpu_cb(void *ctx, const struct perfbuf_sample *s)
{
	int *n = ctx;

	if (s->type == PERF_RECORD_SAMPLE && s->cpu < 64)
		n[s->cpu]++;
	return PERFBUF_CONTINUE;
}

/* cpu-clock every 1 ms on every online CPU, samples with CPU and TID */
static struct perfbuf_sampler *cpu_clock_sampler(void)
{
	PERFBUF_OPTS(perfbuf_event_opts, ev,
		.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1000000,
		.sample_type = PERF_SAMPLE_CPU | PERF_SAMPLE_TID);
	PERFBUF_OPTS(perfbuf_sampler_opts, so, .page_cnt = 8);

	return perfbuf_sampler__new(&ev, &so);
}

TEST(sampler_per_cpu)
{
	int cpus = perfbuf_cpus__online(NULL, 0), n[64] = { 0 }, done = 0, in_rings = 0;
	static struct busy busy[64];
	struct perfbuf_sampler *s;
	__u64 t0;

	TEST_NEED_ROOT();
	s = cpu_clock_sampler();
	if (!ASSERT_OK_PTR(s, "sampler"))
		return;
	ASSERT_EQ(perfbuf_sampler__cnt(s), cpus, "one event per online CPU");
	/* every CPU busy: an idle one's cpu-clock may tick rarely */
	for (size_t i = 0; i < perfbuf_sampler__cnt(s) && i < 64; i++)
		busy_start(&busy[i], perfbuf_sampler__cpu(s, i));
	/* each ring on its own: its samples carry its CPU (30 ms of
	 * ticks, waited for up to 3 s: a loaded machine, an ASan build) */
	for (t0 = perfbuf_now_ns(); in_rings < 25 && perfbuf_now_ns() - t0 < 3000000000ULL;) {
		usleep(10000);
		for (size_t i = 0; i < perfbuf_sampler__cnt(s); i++) {
			struct cpu_got g = { .cpu = perfbuf_sampler__cpu(s, i) };

			ASSERT_GE(perfbuf_sampler__consume_ring(s, i, cpu_cb, &g), 0,
				  "ring consumed, all parsed");
			ASSERT_EQ(g.other_cpu, 0, "samples carry their ring's CPU");
			in_rings += g.samples;
		}
	}
	ASSERT_GE(in_rings, 25, "samples in the rings (30 ms of ticks)");
	/* cpu-clock ticks on idle CPUs too: 25 each within 25 ms, unless
	 * another job takes a CPU offline for a while (it is followed) */
	t0 = perfbuf_now_ns();
	while (done < cpus && perfbuf_now_ns() - t0 < 3000000000ULL) {
		perfbuf_sampler__poll(s, 20, per_cpu_cb, n);
		done = 0;
		for (size_t i = 0; i < perfbuf_sampler__cnt(s); i++)
			done += n[perfbuf_sampler__cpu(s, i) & 63] >= 25;
	}
	for (int i = 0; i < 64; i++)
		busy_stop(&busy[i]);
	ASSERT_EQ(done, cpus, "25 samples from every CPU");
	ASSERT_EQ(perfbuf_sampler__consume_ring(s, 99, per_cpu_cb, n), -EINVAL,
		  "bad index");
	perfbuf_sampler__free(s);
}

static int stop_first_cb(void *ctx, const struct perfbuf_sample *s)
{
	int *n = ctx;

	(void)s;
	++*n;
	return PERFBUF_STOP;
}

/* A callback's stop ends the call, not only the fold of its ring: the
 * next ring is not read (every CPU's ring holds samples). */
TEST(sampler_stop_ends_call)
{
	static struct busy busy[64];
	struct perfbuf_sampler *s;
	size_t cnt;
	int n = 0;

	TEST_NEED_ROOT();
	if (perfbuf_cpus__online(NULL, 0) < 2)
		TEST_SKIP("needs two online CPUs");
	s = cpu_clock_sampler();
	if (!ASSERT_OK_PTR(s, "sampler"))
		return;
	cnt = perfbuf_sampler__cnt(s);
	for (size_t i = 0; i < cnt && i < 64; i++)
		busy_start(&busy[i], perfbuf_sampler__cpu(s, i));
	usleep(50000);
	perfbuf_sampler__disable(s);
	for (size_t i = 0; i < cnt && i < 64; i++)
		busy_stop(&busy[i]);
	ASSERT_EQ(perfbuf_sampler__consume(s, stop_first_cb, &n), 1,
		  "the record stopped on");
	ASSERT_EQ(n, 1, "one callback");
	perfbuf_sampler__free(s);
}

/* page-faults, every fault: PERF_SAMPLE_ADDR is the faulting address */
TEST(sampler_page_faults)
{
	PERFBUF_OPTS(perfbuf_event_opts, ev,
		.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1, .sample_type = PERF_SAMPLE_ADDR | PERF_SAMPLE_TID);
	PERFBUF_OPTS(perfbuf_sampler_opts, so, .pid = gettid_(), .page_cnt = 16);
	struct seen w = { 0 };
	struct perfbuf_sampler *s;
	size_t ps = 4096;
	char *p;

	TEST_NEED_ROOT();
	p = mmap(NULL, 64 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ASSERT_TRUE(p != MAP_FAILED, "mmap"))
		return;
	s = perfbuf_sampler__new(&ev, &so);
	if (!ASSERT_OK_PTR(s, "sampler"))
		goto out;
	for (int i = 0; i < 64; i++)
		((volatile char *)p)[i * ps] = 1;
	perfbuf_sampler__disable(s);
	w.addr_lo = (__u64)(uintptr_t)p;
	w.addr_hi = w.addr_lo + 64 * ps;
	perfbuf_sampler__consume(s, seen_cb, &w);
	ASSERT_EQ(w.addr_in, 64, "one sample per new page, at its address");
	perfbuf_sampler__free(s);
out:
	munmap(p, 64 * ps);
}

/* No PMU on this VM: the hardware event is refused with a reason; where a
 * PMU exists, it samples. */
TEST(sampler_hardware)
{
	PERFBUF_OPTS(perfbuf_event_opts, ev,
		.kind = PERFBUF_EV_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES,
		.sample_freq = 1000, .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID);
	PERFBUF_OPTS(perfbuf_sampler_opts, so, .pid = gettid_(), .page_cnt = 8);
	struct seen w = { 0 };
	struct perfbuf_sampler *s;
	perfbuf_print_fn prev;

	TEST_NEED_ROOT();
	prev = test_capture_warnings();
	s = perfbuf_sampler__new(&ev, &so);
	perfbuf_set_print(prev);
	if (!s) {
		ASSERT_TRUE(errno == ENOENT || errno == EOPNOTSUPP, "no PMU: ENOENT/EOPNOTSUPP");
		ASSERT_TRUE(strstr(test_warning, "need a PMU") != NULL,
			    "the warning says why");
		return;
	}
	spin_ms(30);
	perfbuf_sampler__disable(s);
	perfbuf_sampler__consume(s, seen_cb, &w);
	ASSERT_GT(w.samples, 0, "PMU: cycles samples");
	perfbuf_sampler__free(s);
}

/* A perf_event program counting its runs in an array map's slot 0,
 * returning 1. */
static int counting_prog(int map_fd)
{
#define INSN(c, d, s_, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), \
	.src_reg = (s_), .off = (o), .imm = (i) })
	struct bpf_insn insns[] = {
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD),
		/* non-zero: the kernel writes the sample to the ring too */
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
#undef INSN
	return bpf_prog_load(BPF_PROG_TYPE_PERF_EVENT, "count", "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), NULL);
}

/* The overflow runs a BPF program: alone (no rings), and with rings. */
TEST(sampler_bpf_program)
{
	PERFBUF_OPTS(perfbuf_event_opts, ev,
		.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1000000, .sample_type = PERF_SAMPLE_TID);
	PERFBUF_OPTS(perfbuf_sampler_opts, so);
	int cpus = perfbuf_cpus__online(NULL, 0), map_fd, prog_fd = -1;
	struct perfbuf_sampler_stats st = { .sz = sizeof(st) };
	struct perfbuf_sampler *s;
	__u32 key = 0;
	__u64 runs = 0, after = 0, t0;
	struct seen w = { 0 };

	TEST_NEED_ROOT();
	map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 8, 1, NULL);
	if (!ASSERT_GE(map_fd, 0, "map"))
		return;
	prog_fd = counting_prog(map_fd);
	if (!ASSERT_GE(prog_fd, 0, "program"))
		goto out;
	so.prog_fd = prog_fd;
	s = perfbuf_sampler__new(&ev, &so);
	if (!ASSERT_OK_PTR(s, "sampler with a program, no rings"))
		goto out;
	ASSERT_EQ(perfbuf_sampler__consume_ring(s, 0, seen_cb, &w), -ENODATA,
		  "no ring");
	ASSERT_EQ(perfbuf_sampler__consume(s, seen_cb, &w), -ENODATA, "nothing to consume");
	/* one run per 1 ms tick per CPU: 50 ms (polled: a CPU another job
	 * takes offline and back gets its event again) */
	for (t0 = perfbuf_now_ns(); perfbuf_now_ns() - t0 < 3000000000ULL &&
	     runs < 50 * (__u64)cpus;) {
		ASSERT_OK(perfbuf_sampler__poll(s, 10, seen_cb, &w), "poll without rings");
		bpf_map_lookup_elem(map_fd, &key, &runs);
	}
	perfbuf_sampler__free(s);	/* detaches: the count stops */
	bpf_map_lookup_elem(map_fd, &key, &runs);
	usleep(20000);
	bpf_map_lookup_elem(map_fd, &key, &after);
	ASSERT_GE(runs, 50 * (__u64)cpus, "the program ran on each tick");
	ASSERT_EQ(after, runs, "detached: no more runs");
	/* the program and the records together */
	so.page_cnt = 8;
	s = perfbuf_sampler__new(&ev, &so);
	if (!ASSERT_OK_PTR(s, "sampler with a program and rings"))
		goto out;
	for (t0 = perfbuf_now_ns(); perfbuf_now_ns() - t0 < 3000000000ULL &&
	     w.samples < 10 * cpus;)
		perfbuf_sampler__poll(s, 10, seen_cb, &w);
	perfbuf_sampler__disable(s);
	perfbuf_sampler__consume(s, seen_cb, &w);
	perfbuf_sampler__stats(s, &st);
	ASSERT_GE(w.samples, 10 * cpus, "records too");
	ASSERT_EQ(st.samples, (__u64)w.samples, "stats");
	perfbuf_sampler__free(s);
out:
	if (prog_fd >= 0)
		close(prog_fd);
	close(map_fd);
}

TEST(sampler_bad_opts)
{
	PERFBUF_OPTS(perfbuf_event_opts, ev,
		.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK);
	PERFBUF_OPTS(perfbuf_sampler_opts, so, .page_cnt = 8);

	errno = 0;
	ASSERT_TRUE(!perfbuf_sampler__new(&ev, &so) && errno == EINVAL,
		    "neither period nor freq");
	ev.sample_freq = 99;
	so.page_cnt = 0;
	ASSERT_TRUE(!perfbuf_sampler__new(&ev, &so) && errno == EINVAL,
		    "no rings and no program");
	so.page_cnt = 3;
	ASSERT_TRUE(!perfbuf_sampler__new(&ev, &so) && errno == EINVAL,
		    "page count not a power of two");
	so.page_cnt = 8;
	so.sz = 4;
	ASSERT_TRUE(!perfbuf_sampler__new(&ev, &so) && errno == EINVAL, "bad sz");
	ASSERT_TRUE(!perfbuf_sampler__new(NULL, NULL) && errno == EINVAL, "NULL");
}

/* A sampler in a child forked after it was made: -ECHILD from the calls
 * that read or change it, never a fault on the rings the child has not,
 * and its free leaves the parent's events enabled and in its epoll set. */
static int sampler_child(struct perfbuf_sampler *s)
{
	struct seen w = { 0 };
	int bad = 0;

	bad |= (perfbuf_sampler__consume(s, seen_cb, &w) != -ECHILD) << 0;
	bad |= (perfbuf_sampler__consume_ring(s, 0, seen_cb, &w) != -ECHILD) << 1;
	bad |= (perfbuf_sampler__poll(s, 0, seen_cb, &w) != -ECHILD) << 2;
	bad |= (perfbuf_sampler__disable(s) != -ECHILD) << 3;
	perfbuf_sampler__free(s);
	return bad;
}

TEST(sampler_in_forked_child)
{
	PERFBUF_OPTS(perfbuf_event_opts, ev,
		.kind = PERFBUF_EV_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = 1000000, .sample_type = PERF_SAMPLE_TID);
	PERFBUF_OPTS(perfbuf_sampler_opts, so, .pid = gettid_(), .page_cnt = 8);
	struct seen w = { .pid = getpid(), .tid = gettid_() };
	struct perfbuf_sampler *s;
	int status = -1;
	pid_t pid;

	TEST_NEED_ROOT();
	s = perfbuf_sampler__new(&ev, &so);
	if (!ASSERT_OK_PTR(s, "sampler"))
		return;
	spin_ms(10);
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(sampler_child(s));
	if (ASSERT_GT(pid, 0, "fork")) {
		ASSERT_EQ(waitpid(pid, &status, 0), pid, "waitpid");
		ASSERT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status), 0,
			  "every call refused with -ECHILD (bit set: the one that was not)");
	}
	perfbuf_sampler__consume(s, seen_cb, &w);
	w.samples = 0;
	spin_ms(30);
	ASSERT_GT(perfbuf_sampler__poll(s, 100, seen_cb, &w), 0,
		  "the parent's event still enabled and in its epoll set");
	perfbuf_sampler__free(s);
}

TEST_MAIN(
	TEST_ENTRY(every_sample_field),
	TEST_ENTRY(sample_variants),
	TEST_ENTRY(lying_counts),
	TEST_ENTRY(attr_checks),
	TEST_ENTRY(side_band_records),
	TEST_ENTRY(bad_headers),
	TEST_ENTRY(wrapped_in_ring),
	TEST_ENTRY(ring_kinds),
	TEST_ENTRY(sampler_per_task),
	TEST_ENTRY(sampler_per_cpu),
	TEST_ENTRY(sampler_stop_ends_call),
	TEST_ENTRY(sampler_page_faults),
	TEST_ENTRY(sampler_hardware),
	TEST_ENTRY(sampler_bpf_program),
	TEST_ENTRY(sampler_bad_opts),
	TEST_ENTRY(sampler_in_forked_child),
)
