/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * For BPF programs (clang -target bpf): name the C type of a map's
 * records, so that `perfbuf run` and perfbuf_type__from_file() decode
 * them without being told:
 *
 *   #include <perfbuf/bpf.h>
 *   struct event { __u32 pid; char comm[16]; };
 *   struct { __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY); ... } events SEC(".maps");
 *   PERFBUF_EVENT(events, struct event);
 *
 * It declares a global pointer __perfbuf_event__MAP to the type: clang
 * keeps a global variable's type in BTF even when no code uses it (a
 * struct used only by a local variable is left out), and libbpf gives
 * the variable a place in .bss, never read. Nothing else is needed at
 * run time.
 */
#ifndef PERFBUF_BPF_H
#define PERFBUF_BPF_H

#define PERFBUF_EVENT(MAP, TYPE) \
	TYPE *__perfbuf_event__##MAP __attribute__((used))

#endif /* PERFBUF_BPF_H */
