// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The C consumer of perfbuf-bench's python part, driven from
 * python/bench/readers.py through ctypes (one call per poll, none per
 * record): libbpf's perf_buffer__new_raw() waking at a quarter of each
 * ring, as the bench's "libbpf raw, watermark" peer, and a callback that
 * copies each record into a struct and adds up its seq. */
#include <string.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>

struct c_reader {
	unsigned long long received, lost, seq_sum;
};

struct rec {
	unsigned long long seq, time_ns;
	unsigned int cpu, size;
	unsigned char rest[40];
};

static enum bpf_perf_event_ret on_event(void *ctx, int cpu, struct perf_event_header *eh)
{
	struct c_reader *r = ctx;
	struct rec e;
	__u32 size;

	(void)cpu;
	if (eh->type == PERF_RECORD_SAMPLE) {
		memcpy(&size, eh + 1, sizeof(size));
		memcpy(&e, (char *)(eh + 1) + 4, size < sizeof(e) ? size : sizeof(e));
		r->seq_sum += e.seq;
		r->received++;
	} else if (eh->type == PERF_RECORD_LOST) {
		r->lost += ((__u64 *)(eh + 1))[1];
	}
	return LIBBPF_PERF_EVENT_CONT;
}

struct perf_buffer *c_reader_open(int map_fd, size_t pages, struct c_reader *r)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
		.config = PERF_COUNT_SW_BPF_OUTPUT, .sample_type = PERF_SAMPLE_RAW,
		.watermark = 1, .wakeup_watermark = pages * 4096 / 4,
	};

	return perf_buffer__new_raw(map_fd, pages, &a, on_event, r, NULL);
}
