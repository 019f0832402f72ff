/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libperfbuf: read BPF perf-buffer (PERF_EVENT_ARRAY) records fast and
 * account for every one of them.
 *
 * Three layers, usable on their own, each with its header:
 *  - perfbuf/perf_event.h  perf_event_open(2), its ioctls, counter reads
 *                          (perfbuf_event__*)
 *  - perfbuf/ring.h        one mmapped perf ring: a fold and an iterator
 *                          over its records; a time-ordered merge of rings
 *                          (perfbuf_ring__*, perfbuf_iter__*, perfbuf_record__*,
 *                          perfbuf_merge__*)
 *  - perfbuf/collector.h   one BPF_OUTPUT ring per CPU of a PERF_EVENT_ARRAY
 *                          map, waited on with epoll, with batched wake-ups,
 *                          a latency bound, time order and CPU hotplug
 *                          (perfbuf__*)
 *  - perfbuf/sample.h      sampling: every perf record parsed by its attr
 *                          (perfbuf_sample_parser__*), and sampling events per
 *                          CPU or task, with rings or a BPF program
 *                          (perfbuf_sampler__*)
 *  - perfbuf/type.h        the C type of a BPF program's records, from BTF,
 *                          DWARF or a header, and records decoded by it
 *                          (perfbuf_type__*)
 *  - perfbuf/object.h      a person's own BPF object: open, set its
 *                          globals, load, auto-attach (perfbuf_object__*)
 *  - perfbuf/ledger.h      every output of a BPF program counted per kind
 *                          and CPU (perfbuf_output(), perfbuf/bpf.h), read
 *                          and checked against the collector
 *                          (perfbuf_ledger__*)
 *  - perfbuf/batch.h       records gathered into arrays, one call per drain
 *                          (perfbuf_batch__*: Python's numpy batches)
 * and perfbuf/common.h: options structs, diagnostics, the clock, CPU lists;
 * perfbuf/version.h: the version. This header includes them all.
 */
#ifndef PERFBUF_H
#define PERFBUF_H

#include "perfbuf/common.h"
#include "perfbuf/version.h"
#include "perfbuf/perf_event.h"
#include "perfbuf/ring.h"
#include "perfbuf/collector.h"
#include "perfbuf/sample.h"
#include "perfbuf/type.h"
#include "perfbuf/ledger.h"
#include "perfbuf/object.h"
#include "perfbuf/batch.h"

#endif /* PERFBUF_H */
