/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The sample parser the sampler runs on its rings' records, and the
 * sampler's events one by one. Not exported since 4.0 (sample.h has what
 * a program calls: samplers and the parsed samples they hand over); not
 * installed. The tests call them by linking the library's objects.
 */
#ifndef PERFBUF_SAMPLE_PRIV_H
#define PERFBUF_SAMPLE_PRIV_H

#include "perfbuf/sample.h"
#include "perf_event_priv.h"

/* The record layouts of one event (its attr), and room to copy a record
 * that wraps the ring end. One per ring, or per thread. */
struct perfbuf_sample_parser;

/**
 * @brief A parser for the records of events opened with @attr (its
 *        sample_type, read_format, branch_sample_type, sample_regs_user,
 *        sample_regs_intr and sample_id_all fix the layouts).
 * @return the parser, or NULL with errno: EINVAL (@attr NULL, or both
 *         PERF_SAMPLE_WEIGHT and PERF_SAMPLE_WEIGHT_STRUCT: the kernel
 *         refuses that attr too), EOPNOTSUPP (a sample_type or
 *         read_format bit this library does not know: logged), ENOMEM
 */
struct perfbuf_sample_parser *
perfbuf_sample_parser__new(const struct perf_event_attr *attr);

/** @brief Free the parser. NULL is a no-op. */
void perfbuf_sample_parser__free(struct perfbuf_sample_parser *p);

/**
 * @brief Parse a ring record (kind OTHER or LOST, as a ring whose sample
 *        type is not raw-only hands them over) into @out.
 *
 * Zero-copy when the record is contiguous in the ring; one that wraps the
 * ring end is copied into the parser first (perfbuf_record__copy()).
 *
 * @return 0; -EBADMSG when the record does not match the attr (too short
 *         for its fields, an array or string past its end, bytes left
 *         over): nothing is read past the record; -EOPNOTSUPP for a record
 *         type the library does not know (type, misc, size set); -EINVAL
 *         for a record that has no body to parse (kind SAMPLE: the ring
 *         was set to raw-only samples; kinds CPU_ONLINE/OFFLINE)
 */
int perfbuf_sample_parser__parse(struct perfbuf_sample_parser *p,
				      const struct perfbuf_record *rec,
				      struct perfbuf_sample *out);

/**
 * @brief Parse one whole record in memory (header first, 8-byte aligned,
 *        @size bytes available: a perf.data file, a copy), zero-copy.
 * @return as perfbuf_sample_parser__parse(); -EBADMSG also when the header's size
 *         exceeds @size or is not 8-aligned, -EINVAL when @rec is not
 *         8-byte aligned
 */
int perfbuf_sample_parser__parse_bytes(const struct perfbuf_sample_parser *p,
					    const void *rec, size_t size,
					    struct perfbuf_sample *out);

/**
 * @brief Counter @i of a READ block.
 * @return 0, or -ERANGE when @i >= r->nr
 */
int perfbuf_sample_read__count(const struct perfbuf_sample_read *r,
					   size_t i, struct perfbuf_count *out);

/**
 * @brief perfbuf_sampler__consume() of event @idx's ring only.
 * @return as perfbuf_sampler__consume(), or -EINVAL for a bad index,
 *         -ENODATA without rings, -ENODEV when the CPU came back online
 *         but its event could not be opened
 */
int perfbuf_sampler__consume_ring(struct perfbuf_sampler *s,
					      size_t idx, perfbuf_sample_fn fn,
					      void *ctx);

/** @brief Number of events; event @idx's CPU (-1: any), or -EINVAL for a
 *  bad index. */
size_t perfbuf_sampler__cnt(const struct perfbuf_sampler *s);
int perfbuf_sampler__cpu(const struct perfbuf_sampler *s, size_t idx);

#endif
