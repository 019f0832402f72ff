/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libperfbuf: read BPF perf-buffer (PERF_EVENT_ARRAY) records fast and
 * account for every one of them.
 *
 * Layers, each with its header:
 *  - perfbuf/perf_event.h  a perf_event_attr from a typed description
 *                          (perfbuf_event__attr()), counter values
 *  - perfbuf/ring.h        one mmapped perf ring: a fold and an iterator
 *                          over its records; a time-ordered merge of rings
 *                          (perfbuf_ring__*, perfbuf_iter__*, perfbuf_record__*,
 *                          perfbuf_merge__*)
 *  - perfbuf/collector.h   one BPF_OUTPUT ring per CPU of a PERF_EVENT_ARRAY
 *                          map, waited on with epoll, with batched wake-ups,
 *                          a latency bound, time order and CPU hotplug
 *                          (perfbuf__*)
 *  - perfbuf/sample.h      sampling events per CPU or task, with rings or
 *                          a BPF program, every record parsed by its attr
 *                          (perfbuf_sampler__*)
 *  - perfbuf/ledger.h      every output of a BPF program counted per kind
 *                          and CPU (perfbuf_output(), perfbuf/bpf.h), read
 *                          and checked against the collector
 *                          (perfbuf_ledger__*)
 *  - perfbuf/batch.h       records gathered into arrays, one call per drain
 *                          (perfbuf_batch__*: Python's numpy batches)
 * and perfbuf/common.h: options structs, diagnostics, the clock, CPU lists;
 * perfbuf/version.h: the version. This header includes them all; they need
 * libbpf alone (pkg-config libperfbuf).
 *
 * A BPF object's record types (from BTF, DWARF or text) and the object
 * loader are another library, libperfbuf-object (it needs libdw):
 * perfbuf/object.h and perfbuf/type.h, pkg-config libperfbuf-object.
 */
#ifndef PERFBUF_H
#define PERFBUF_H

#include "perfbuf/common.h"
#include "perfbuf/version.h"
#include "perfbuf/perf_event.h"
#include "perfbuf/ring.h"
#include "perfbuf/collector.h"
#include "perfbuf/sample.h"
#include "perfbuf/ledger.h"
#include "perfbuf/batch.h"

#endif /* PERFBUF_H */
