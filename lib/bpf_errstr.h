/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An errno as text, libbpf's own codes too: for both libraries (their
 * errstr(), src/internal.h) and the tool (load_log.h includes it). Each
 * links its own copy (the libraries' hidden, nothing exported).
 */
#ifndef PERFBUF_BPF_ERRSTR_H
#define PERFBUF_BPF_ERRSTR_H

/* @err (a -errno or errno, libbpf's own codes too) as text; the kernel's
 * ENOTSUPP (524), which it leaks to userspace, named. One buffer a thread. */
const char *bpf_errstr(int err);

#endif
