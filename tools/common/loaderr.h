/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Why the kernel refused a BPF program, in one line (loaderr.c): the
 * program's name and the verifier log's last lines, which libbpf prints
 * and loaderr_capture() keeps; when the kernel gave no log (EINVAL before
 * the verifier runs), the feature it lacks (kfeat.h).
 */
#ifndef PERFBUF_COMMON_LOADERR_H
#define PERFBUF_COMMON_LOADERR_H

#include <stdbool.h>

/* libbpf's messages kept for loaderr_say(); on stderr too when @verbose */
void loaderr_capture(bool verbose);

/* "@prog: loading @what failed: program 'P': ERR: the verifier's last
 * lines" (or the missing feature), one line on stderr; @err a -errno */
void loaderr_say(const char *prog, const char *what, int err);

#endif
