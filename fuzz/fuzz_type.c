// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target for a record type read from a capture file
 * (perfbuf_type__from_text(): hostile input) and the decoding of records
 * by it: a type that is accepted must decode any bytes without reading
 * past them (the record is copied into a buffer of exactly its size).
 *
 * Input: the type's text, a NUL, then the record's bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	static char json[1 << 16], text[1 << 16];
	struct perfbuf_type *t;
	size_t rec_sz;
	char *rec;
	int fit;

	if (!nul)
		return 0;
	t = perfbuf_type__from_text((const char *)data);
	if (!t)
		return 0;
	rec_sz = size - (size_t)(nul + 1 - data);
	rec = malloc(rec_sz ? rec_sz : 1);
	memcpy(rec, nul + 1, rec_sz);
	fit = perfbuf_type__fit(t, rec_sz);
	if (fit >= 0)
		perfbuf_type__json(t, 0, rec, (size_t)fit, json, sizeof(json));
	for (int i = 0; i < perfbuf_type__field_cnt(t); i++) {
		__u64 v;

		perfbuf_type__read_int(t, i, rec, rec_sz, &v);
		perfbuf_type__enum_at(t, i, 0, NULL);
	}
	perfbuf_type__to_text(t, text, sizeof(text));
	free(rec);
	perfbuf_type__free(t);
	return 0;
}
