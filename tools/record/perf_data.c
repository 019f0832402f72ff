// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A capture as perf.data, for `perf script` and `perf report` (the format:
 * tools/perf/Documentation/perf.data-file-format.txt in Linux):
 *
 *   header | attrs, one per probe | their ids | data | feature table | features
 *
 * A tracepoint probe is a PERF_TYPE_TRACEPOINT event of its ID, and the
 * TRACING_DATA feature carries the format files the capture saved, so
 * perf decodes the fields itself; its raw data is the tracepoint record
 * as BPF copied it, the common_* header rewritten (BPF sees a pt_regs
 * pointer there) and the __data_loc strings put back after the fields.
 * Other probes are bpf-output events whose raw data is their u64
 * arguments (or return value). Samples carry IDENTIFIER | IP | TID | TIME |
 * CPU | RAW, in time order with a FINISHED_ROUND every PD_ROUND records; COMM
 * records name each thread before its first sample and when its name
 * changes; LOST records carry the losses. EVENT_DESC names the events
 * after the probes; HOSTNAME, OSRELEASE and ARCH come from the META.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/stat.h>

#include "common/cli.h"
#include "perf_data.h"
#include "probes_io.h"
#include "trace/decode.h"

#define PERF_MAGIC 0x32454c4946524550ULL	/* "PERFILE2" */
#define PERF_RECORD_FINISHED_ROUND 68		/* perf's own record types */
#define PD_ROUND 65536
/* IP (always 0: not known) because perf script prints bpf-output events
 * only with an IP or an address to resolve */
#define PD_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
			PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
			PERF_SAMPLE_RAW)
#define NAME_ALIGN 64				/* perf's feature strings */
#define REC_MAX 65528				/* u16 header.size, 8-aligned */

enum {	/* perf's feature bits (util/header.h) */
	FEAT_TRACING_DATA = 1, FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4,
	FEAT_ARCH = 6, FEAT_EVENT_DESC = 12, FEAT_BITS = 256,
};

struct file_section {
	__u64 offset, size;
};

struct file_header {
	__u64 magic, size, attr_size;
	struct file_section attrs, data, event_types;
	__u64 features[FEAT_BITS / 64];
};

struct file_attr {
	struct perf_event_attr attr;
	struct file_section ids;
};

/* The sample_id_all trailer of COMM and LOST records, in sample_type's
 * order: TID, TIME, CPU, IDENTIFIER. */
struct id_trailer {
	__u32 pid, tid;
	__u64 time;
	__u32 cpu, res;
	__u64 id;
};

struct pd_thread {
	__u32 tid, pid;
	char comm[TRACE_COMM_LEN];
	bool used;
};

struct perf_data {
	FILE *f;
	const struct probe_set *set;
	__u16 *tp_id;		/* per probe: tracepoint ID, 0 for bpf-output */
	const char **tp_text;	/* its format file, in the capture's mapping */
	size_t *tp_len;
	__u64 data_bytes, since_round;
	struct pd_thread *threads;
	size_t nthreads, cap;	/* cap: a power of two */
	struct perf_data_result *res;
	volatile sig_atomic_t *stop;	/* set: the write ends */
	unsigned char rec[REC_MAX];	/* the record being converted */
	unsigned char out[REC_MAX];	/* the perf record being written */
};

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
static const char header_event[] =
	"# compressed entry header\n\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n"
	"\tpadding     : type == 29\n\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";

static void put(FILE *f, const void *p, size_t len)
{
	fwrite(p, 1, len, f);
}

static void put_u32(FILE *f, __u32 v)
{
	put(f, &v, 4);
}

static void put_u64(FILE *f, __u64 v)
{
	put(f, &v, 8);
}

/* perf's do_write_string(): u32 length (NUL and padding to 64 included),
 * then the string padded with zeros. */
static void put_string(FILE *f, const char *s)
{
	static const char zero[NAME_ALIGN];
	size_t len = strlen(s) + 1, al = (len + NAME_ALIGN - 1) & ~(size_t)(NAME_ALIGN - 1);

	put_u32(f, (__u32)al);
	put(f, s, len);
	put(f, zero, al - len);
}

static bool is_tp(const struct perf_data *pd, int i)
{
	return pd->tp_id[i] != 0;
}

static struct perf_event_attr event_attr(const struct perf_data *pd, int i)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .sample_period = 1,
		.sample_type = PD_SAMPLE_TYPE, .sample_id_all = 1,
		.use_clockid = 1, .clockid = CLOCK_MONOTONIC,
	};

	if (is_tp(pd, i)) {
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = pd->tp_id[i];
	} else {
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_BPF_OUTPUT;
	}
	return a;
}

/* The ID line of a tracepoint format file; 0 if absent. */
static __u16 format_id(const char *text, size_t len)
{
	char buf[4096], *id;
	unsigned int v;

	len = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	id = strstr(buf, "\nID:");
	return id && sscanf(id + 4, "%u", &v) == 1 && v && v <= 0xffff ? (__u16)v : 0;
}

/* The header (rewritten at the end), attrs and ids: the data follows. */
static void write_head(struct perf_data *pd, const struct file_header *h)
{
	int n = pd->set->n;
	__u64 ids = sizeof(*h) + (__u64)n * sizeof(struct file_attr);

	put(pd->f, h, sizeof(*h));
	for (int i = 0; i < n; i++) {
		struct file_attr fa = { .attr = event_attr(pd, i),
			.ids = { ids + (__u64)i * 8, 8 } };

		put(pd->f, &fa, sizeof(fa));
	}
	for (int i = 0; i < n; i++)
		put_u64(pd->f, (__u64)i + 1);	/* probe i: id i + 1 */
}

static void put_record(struct perf_data *pd, const void *p, size_t len)
{
	put(pd->f, p, len);
	pd->data_bytes += len;
}

static void put_trailer(unsigned char *at, __u32 pid, __u32 tid,
			__u64 time, int cpu, __u64 id)
{
	struct id_trailer t = { .pid = pid, .tid = tid, .time = time,
				.cpu = (__u32)cpu, .id = id };

	memcpy(at, &t, sizeof(t));
}

/* The thread slot of @tid (used or free). */
static struct pd_thread *thread_slot(struct perf_data *pd, __u32 tid)
{
	size_t i = (tid * 2654435761u) & (pd->cap - 1);

	while (pd->threads[i].used && pd->threads[i].tid != tid)
		i = (i + 1) & (pd->cap - 1);
	return &pd->threads[i];
}

static int threads_grow(struct perf_data *pd)
{
	struct pd_thread *old = pd->threads;
	size_t old_cap = pd->cap;

	pd->cap = old_cap ? 2 * old_cap : 1024;
	pd->threads = calloc(pd->cap, sizeof(*pd->threads));
	if (!pd->threads) {
		pd->threads = old;
		pd->cap = old_cap;
		return -ENOMEM;
	}
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].used)
			*thread_slot(pd, old[i].tid) = old[i];
	free(old);
	return 0;
}

/* A COMM record when @tr's thread is new or renamed. */
static int name_thread(struct perf_data *pd, const struct trace_record *tr, __u64 time,
		       int cpu, __u64 id)
{
	struct perf_event_header h = { PERF_RECORD_COMM, 0, 0 };
	char comm[TRACE_COMM_LEN + 8] = "";
	struct pd_thread *t;
	size_t len;

	if (2 * (pd->nthreads + 1) > pd->cap && threads_grow(pd))
		return -ENOMEM;
	memcpy(comm, tr->comm, TRACE_COMM_LEN);
	comm[TRACE_COMM_LEN] = '\0';
	t = thread_slot(pd, tr->tid);
	if (t->used && t->pid == tr->pid && !strcmp(t->comm, comm))
		return 0;
	pd->nthreads += !t->used;
	*t = (struct pd_thread){ .tid = tr->tid, .pid = tr->pid, .used = true };
	memcpy(t->comm, comm, sizeof(t->comm));
	len = (strlen(comm) + 1 + 7) & ~(size_t)7;
	h.size = (__u16)(sizeof(h) + 8 + len + sizeof(struct id_trailer));
	memset(pd->out, 0, h.size);
	memcpy(pd->out, &h, sizeof(h));
	memcpy(pd->out + 8, &tr->pid, 4);
	memcpy(pd->out + 12, &tr->tid, 4);
	memcpy(pd->out + 16, comm, strlen(comm));
	put_trailer(pd->out + 16 + len, tr->pid, tr->tid, time, cpu, id);
	put_record(pd, pd->out, h.size);
	return 0;
}

/* Tracepoint @p's raw record for perf into @dst (room: @room): the
 * fields as copied, the common_* header rewritten, each __data_loc /
 * __rel_loc string appended and its locator pointed at it. Its length. */
static size_t tp_raw(const struct perf_data *pd, int i, const struct trace_record *tr,
		     size_t data_sz, unsigned char *dst, size_t room)
{
	const struct trace_probe *p = &pd->set->v[i];
	const unsigned char *slot[TRACE_MAX_STRS] = {};
	size_t len = tr->raw_size;
	__u16 type = pd->tp_id[i];
	__s32 pid = (__s32)tr->tid;

	if (len < 8 || len > room || len > data_sz)
		return 0;
	memcpy(dst, tr->data, len);
	memset(dst, 0, 8);		/* flags, preempt_count: unknown */
	memcpy(dst, &type, 2);
	memcpy(dst + 4, &pid, 4);
	trace_slots_find(p, tr, data_sz, slot);
	for (unsigned int s = 0; s < p->cfg.nstr && s < TRACE_MAX_STRS; s++) {
		const struct trace_str_cfg *c = &p->cfg.str[s];
		bool rel = c->kind == TRACE_STR_REL_LOC || c->kind == TRACE_BYTES_REL_LOC;
		__u32 n = tr->str_len[s], loc;

		/* user pointers stay pointers, as perf prints them */
		if (!slot[s] || (!rel && c->kind != TRACE_STR_DATA_LOC &&
				 c->kind != TRACE_BYTES_DATA_LOC) ||
		    c->off + 4u > tr->raw_size || len + n > room || len >= 0x10000 ||
		    n >= 0x10000)
			continue;
		loc = (rel ? (__u32)(len - (c->off + 4u)) : (__u32)len) | n << 16;
		memcpy(dst + c->off, &loc, 4);
		memcpy(dst + len, slot[s], n);
		len += n;
	}
	return len;
}

/* Header, id, ip, pid/tid, time, cpu and the raw size of a sample. */
#define SAMPLE_HEAD 52
#define RAW_ROOM (REC_MAX - SAMPLE_HEAD - 8)	/* room for the padding */

static int put_sample(struct perf_data *pd, const struct perfbuf_record *rec)
{
	const struct trace_record *tr = (const void *)pd->rec;
	size_t sz = perfbuf_record__copy(rec, pd->rec, sizeof(pd->rec)), raw;
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, 0 };
	unsigned char *o = pd->out;
	__u32 cpu[2] = { (__u32)rec->cpu, 0 }, raw32;
	__u64 id;
	int i;

	if (sz < sizeof(*tr) || tr->cookie >= (__u64)pd->set->n) {
		pd->res->skipped++;
		return 0;
	}
	i = (int)tr->cookie;
	id = (__u64)i + 1;
	if (name_thread(pd, tr, rec->time_ns, rec->cpu, id))
		return -ENOMEM;
	sz -= sizeof(*tr);
	if (is_tp(pd, i)) {
		raw = tp_raw(pd, i, tr, sz, o + SAMPLE_HEAD, RAW_ROOM);
	} else {
		raw = tr->raw_size < sz ? tr->raw_size : sz;
		raw = raw < RAW_ROOM ? raw : RAW_ROOM;
		memcpy(o + SAMPLE_HEAD, tr->data, raw);
		if (pd->set->v[i].kind == PK_UPROBE || pd->set->v[i].kind == PK_URETPROBE)
			h.misc = PERF_RECORD_MISC_USER;
	}
	/* the u32 size and the bytes end 8-aligned: pad with zeros */
	raw32 = (__u32)(((SAMPLE_HEAD + raw + 7) & ~(size_t)7) - SAMPLE_HEAD);
	memset(o + SAMPLE_HEAD + raw, 0, raw32 - raw);
	h.size = (__u16)(SAMPLE_HEAD + raw32);
	memcpy(o, &h, 8);
	memcpy(o + 8, &id, 8);
	memset(o + 16, 0, 8);		/* ip */
	memcpy(o + 24, &tr->pid, 4);
	memcpy(o + 28, &tr->tid, 4);
	memcpy(o + 32, &rec->time_ns, 8);
	memcpy(o + 40, cpu, 8);
	memcpy(o + 48, &raw32, 4);
	put_record(pd, o, h.size);
	pd->res->samples++;
	return 0;
}

static void put_lost(struct perf_data *pd, const struct perfbuf_record *rec)
{
	struct perf_event_header h = { PERF_RECORD_LOST, 0,
				       8 + 16 + sizeof(struct id_trailer) };
	__u64 body[2] = { 1, rec->lost };	/* id: the first event's */

	memcpy(pd->out, &h, 8);
	memcpy(pd->out + 8, body, 16);
	put_trailer(pd->out + 24, 0, 0, rec->time_ns, rec->cpu, 1);
	put_record(pd, pd->out, h.size);
	pd->res->lost += rec->lost;
}

static int on_record(void *ctx, const struct perfbuf_record *rec)
{
	struct perf_data *pd = ctx;

	if (rec->kind == PERFBUF_REC_SAMPLE) {
		if (put_sample(pd, rec))
			return PERFBUF_STOP;
	} else if (rec->kind == PERFBUF_REC_LOST && pd->set->n) {
		put_lost(pd, rec);
	} else {
		return PERFBUF_CONTINUE;
	}
	/* perf sorts by time what comes between two rounds */
	if (++pd->since_round >= PD_ROUND) {
		struct perf_event_header h = { PERF_RECORD_FINISHED_ROUND, 0, 8 };

		put_record(pd, &h, sizeof(h));
		pd->since_round = 0;
	}
	return ferror(pd->f) || *pd->stop ? PERFBUF_STOP : PERFBUF_CONTINUE;
}

/* TRACING_DATA (perf's util/trace-event-info.c): the ring buffer's
 * headers, then the format files of the tracepoints, per system. */
static void tracing_data(struct perf_data *pd, FILE *f)
{
	int n = pd->set->n, nsys = 0;

	put(f, "\027\010\104tracing", 10);
	put(f, "0.6", 4);	/* the version, NUL included */
	put(f, "\0\10", 2);	/* little endian, long: 8 bytes */
	put_u32(f, 4096);	/* page size */
	put(f, "header_page", 12);
	put_u64(f, sizeof(header_page) - 1);
	put(f, header_page, sizeof(header_page) - 1);
	put(f, "header_event", 13);
	put_u64(f, sizeof(header_event) - 1);
	put(f, header_event, sizeof(header_event) - 1);
	put_u32(f, 0);		/* ftrace formats */
	/* one system per tracepoint probe: perf takes repeated systems */
	for (int i = 0; i < n; i++)
		nsys += is_tp(pd, i);
	put_u32(f, (__u32)nsys);
	for (int i = 0; i < n; i++) {
		const char *target = pd->set->v[i].target;

		if (!is_tp(pd, i))
			continue;
		put(f, target, (size_t)(strchr(target, ':') - target));
		put(f, "", 1);
		put_u32(f, 1);
		put_u64(f, pd->tp_len[i]);
		put(f, pd->tp_text[i], pd->tp_len[i]);
	}
	put_u32(f, 0);		/* kallsyms */
	put_u32(f, 0);		/* printk formats */
	put_u64(f, 0);		/* saved cmdlines */
}

/* EVENT_DESC: each event's attr, id and name (the probe's spec; a
 * tracepoint's CAT:NAME, as perf names it). */
static void event_desc(struct perf_data *pd, FILE *f)
{
	put_u32(f, (__u32)pd->set->n);
	put_u32(f, sizeof(struct perf_event_attr));
	for (int i = 0; i < pd->set->n; i++) {
		struct perf_event_attr a = event_attr(pd, i);
		const struct trace_probe *p = &pd->set->v[i];

		put(f, &a, sizeof(a));
		put_u32(f, 1);
		put_string(f, is_tp(pd, i) ? p->target : p->spec);
		put_u64(f, (__u64)i + 1);
	}
}

/* Feature @bit's bytes, built by the caller in a memory stream. */
struct feature {
	int bit;
	char *buf;
	size_t len;
};

static int build_features(struct perf_data *pd, const struct cap_meta *m,
			  struct feature *ft, int *n)
{
	static const int bits[] = { FEAT_TRACING_DATA, FEAT_HOSTNAME,
				    FEAT_OSRELEASE, FEAT_ARCH, FEAT_EVENT_DESC };
	bool any_tp = false;

	for (int i = 0; i < pd->set->n; i++)
		any_tp |= is_tp(pd, i);
	*n = 0;
	for (size_t k = 0; k < sizeof(bits) / sizeof(bits[0]); k++) {
		struct feature *x = &ft[*n];
		FILE *f;

		if (bits[k] == FEAT_TRACING_DATA && !any_tp)
			continue;
		*x = (struct feature){ .bit = bits[k] };
		f = open_memstream(&x->buf, &x->len);
		if (!f)
			return -ENOMEM;
		switch (bits[k]) {
		case FEAT_TRACING_DATA: tracing_data(pd, f); break;
		case FEAT_HOSTNAME: put_string(f, m->host); break;
		case FEAT_OSRELEASE: put_string(f, m->kernel); break;
		case FEAT_ARCH: put_string(f, m->machine); break;
		default: event_desc(pd, f); break;
		}
		if (fclose(f))
			return -ENOMEM;
		(*n)++;
	}
	return 0;
}

/* After the data: the table of feature sections, then their bytes; the
 * header gets their bits. */
static int write_features(struct perf_data *pd, const struct cap_meta *m,
			  struct file_header *h)
{
	struct feature ft[8] = {};
	__u64 at = h->data.offset + h->data.size;
	int n = 0, err = build_features(pd, m, ft, &n);

	at += (__u64)n * sizeof(struct file_section);
	for (int i = 0; !err && i < n; i++) {
		struct file_section s = { at, ft[i].len };

		put(pd->f, &s, sizeof(s));
		at += ft[i].len;
		h->features[ft[i].bit / 64] |= 1ULL << (ft[i].bit % 64);
	}
	for (int i = 0; !err && i < n; i++)
		put(pd->f, ft[i].buf, ft[i].len);
	for (int i = 0; i < 8; i++)
		free(ft[i].buf);
	return err;
}

struct perf_data *perf_data__new(struct cap_reader *r, const struct probe_set *set)
{
	struct perf_data *pd = calloc(1, sizeof(*pd));
	size_t n = (size_t)set->n + 1;

	if (!pd)
		return NULL;
	pd->set = set;
	pd->tp_id = calloc(n, sizeof(*pd->tp_id));
	pd->tp_text = calloc(n, sizeof(*pd->tp_text));
	pd->tp_len = calloc(n, sizeof(*pd->tp_len));
	if (!pd->tp_id || !pd->tp_text || !pd->tp_len || threads_grow(pd)) {
		perf_data__free(pd);
		errno = ENOMEM;
		return NULL;
	}
	/* which probes are tracepoints perf can decode: a format with an ID */
	for (int i = 0; i < set->n; i++) {
		const struct trace_probe *p = &set->v[i];
		const char *text;
		size_t len;

		if (p->kind != PK_TRACEPOINT || !p->target || !strchr(p->target, ':'))
			continue;
		text = capture_format_find(r, p->target, &len);
		if (text && (pd->tp_id[i] = format_id(text, len))) {
			pd->tp_text[i] = text;
			pd->tp_len[i] = len;
		}
	}
	cap_reader__rewind(r);
	return pd;
}

void perf_data__free(struct perf_data *pd)
{
	if (!pd)
		return;
	free(pd->threads);
	free(pd->tp_id);
	free(pd->tp_text);
	free(pd->tp_len);
	free(pd);
}

int perf_data__write(struct perf_data *pd, const char *path,
		     const struct cap_meta *m, struct cap_stream *s,
		     volatile sig_atomic_t *stop, struct perf_data_result *res,
		     char *why, size_t why_sz)
{
	struct file_header h = { .magic = PERF_MAGIC, .size = sizeof(h),
				 .attr_size = sizeof(struct file_attr) };
	int n = pd->set->n, err = 0;
	struct out_file out;
	long long folded;

	memset(res, 0, sizeof(*res));
	pd->res = res;
	pd->stop = stop;
	err = out_file__open(&out, pd->set->prog, path);
	pd->f = err ? NULL : out_file__stream(&out);
	if (!pd->f) {
		err = err ?: -errno;
		out_file__discard(&out);
		out_file_why(path, err, why, why_sz);
		return err;
	}
	h.attrs = (struct file_section){ sizeof(h), (__u64)n * sizeof(struct file_attr) };
	h.data.offset = h.attrs.offset + h.attrs.size + (__u64)n * 8;
	write_head(pd, &h);
	folded = cap_stream__fold(s, true, on_record, pd);
	res->stream_err = folded == -EBADMSG ? -EBADMSG : 0;
	h.data.size = pd->data_bytes;
	err = folded < 0 && folded != -EBADMSG ? (int)folded : *stop ? -EINTR : 0;
	if (!err && !ferror(pd->f))
		err = write_features(pd, m, &h);
	/* the header last: with the sizes and features, it makes the file */
	if (!err && !ferror(pd->f) && !fseek(pd->f, 0, SEEK_SET))
		put(pd->f, &h, sizeof(h));
	if (!err && (fflush(pd->f) || ferror(pd->f)))
		err = -(errno ?: EIO);
	pd->f = NULL;
	/* no partial or empty perf.data left: the old file stays */
	if (err) {
		out_file__discard(&out);
	} else if (out_file__commit(&out, false)) {
		/* said, with where the file is */
		snprintf(why, why_sz, "'%s' not written whole", path);
		return -EIO;
	}
	if (err == -EINTR)
		snprintf(why, why_sz, "stopped by a signal; '%s' left as it was", path);
	else if (err)
		snprintf(why, why_sz, "writing '%s' failed: %s", path, strerror(-err));
	return err;
}
