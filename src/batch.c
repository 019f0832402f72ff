// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Records gathered into arrays: one call per drain for the caller. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "perfbuf.h"
#include "internal.h"

#define LOST_CAP 1024	/* LOST records a batch holds: one per CPU per drain */

struct perfbuf_batch {
	__u8 *data;
	size_t data_cap, data_len;
	__u32 *offset, *size;
	__s32 *cpu;
	__u64 *time_ns;
	size_t cap, cnt;
	__s32 lost_cpu[LOST_CAP];
	__u64 lost[LOST_CAP];
	size_t lost_cnt;
	__u64 lost_total, late, notices;
	__u32 uniform;		/* the samples' one size, 0 when they differ */
	bool full;
};

struct perfbuf_batch *perfbuf_batch__new(const struct perfbuf_batch_opts *opts)
{
	struct perfbuf_batch *b;

	if (!OPTS_VALID(opts, perfbuf_batch_opts))
		return err_ptr(-EINVAL);
	b = calloc(1, sizeof(*b));
	if (!b)
		return err_ptr(-ENOMEM);
	b->data_cap = OPTS_GET(opts, data_bytes, 0) ?: 4 << 20;
	b->cap = OPTS_GET(opts, record_cnt, 0) ?: 65536;
	if (b->data_cap < MAX_RECORD_SZ + 1 || b->data_cap > UINT32_MAX) {
		free(b);
		return err_ptr(-EINVAL);
	}
	b->data = malloc(b->data_cap);
	b->offset = malloc(b->cap * sizeof(*b->offset));
	b->size = malloc(b->cap * sizeof(*b->size));
	b->cpu = malloc(b->cap * sizeof(*b->cpu));
	b->time_ns = malloc(b->cap * sizeof(*b->time_ns));
	if (!b->data || !b->offset || !b->size || !b->cpu || !b->time_ns) {
		perfbuf_batch__free(b);
		return err_ptr(-ENOMEM);
	}
	return b;
}

void perfbuf_batch__free(struct perfbuf_batch *b)
{
	if (!b)
		return;
	free(b->data);
	free(b->offset);
	free(b->size);
	free(b->cpu);
	free(b->time_ns);
	free(b);
}

void perfbuf_batch__reset(struct perfbuf_batch *b)
{
	b->cnt = b->data_len = b->lost_cnt = 0;
	b->lost_total = b->late = b->notices = 0;
	b->uniform = 0;
	b->full = false;
}

static int batch_add_sample(struct perfbuf_batch *b,
			    const struct perfbuf_record *rec)
{
	size_t n = rec->data_sz + rec->data2_sz, i = b->cnt++;

	b->offset[i] = b->data_len;
	b->size[i] = n;
	b->cpu[i] = rec->cpu;
	if (i == 0)
		b->uniform = n;
	else if (b->uniform != n)
		b->uniform = 0;
	b->time_ns[i] = rec->time_ns;
	perfbuf_record__copy(rec, b->data + b->data_len, n);
	/* 8-aligned payloads: numpy reads their fields in place */
	b->data_len += (n + 7) & ~(size_t)7;
	if (rec->flags & PERFBUF_RECF_LATE)
		b->late++;
	/* room for one more record of the largest size, always */
	b->full = b->cnt == b->cap || b->data_cap - b->data_len < MAX_RECORD_SZ;
	return b->full ? PERFBUF_STOP : PERFBUF_CONTINUE;
}

int perfbuf_batch__record_fn(void *ctx, const struct perfbuf_record *rec)
{
	struct perfbuf_batch *b = ctx;

	switch (rec->kind) {
	case PERFBUF_REC_SAMPLE:
		return batch_add_sample(b, rec);
	case PERFBUF_REC_LOST:
		b->lost_cpu[b->lost_cnt] = rec->cpu;
		b->lost[b->lost_cnt++] = rec->lost;
		b->lost_total += rec->lost;
		b->full = b->lost_cnt == LOST_CAP;
		return b->full ? PERFBUF_STOP : PERFBUF_CONTINUE;
	case PERFBUF_REC_CPU_ONLINE:
	case PERFBUF_REC_CPU_OFFLINE:
		b->notices++;
		return PERFBUF_CONTINUE;
	default:
		return PERFBUF_CONTINUE;
	}
}

int perfbuf_batch__view(const struct perfbuf_batch *b,
			struct perfbuf_batch_view *v)
{
	struct perfbuf_batch_view all = {
		.sz = sizeof(all), .cnt = b ? b->cnt : 0,
	};

	if (!b)
		return -EINVAL;
	all.data = b->data;
	all.data_bytes = b->data_len;
	all.offset = b->offset;
	all.size = b->size;
	all.cpu = b->cpu;
	all.time_ns = b->time_ns;
	all.lost_cnt = b->lost_cnt;
	all.lost_cpu = b->lost_cpu;
	all.lost = b->lost;
	all.lost_total = b->lost_total;
	all.late = b->late;
	all.notices = b->notices;
	all.full = b->full;
	all.uniform = b->uniform;
	all.stride = (b->uniform + 7) & ~7u;
	return OUT_COPY(v, &all);
}
