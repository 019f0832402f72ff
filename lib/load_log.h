/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A refused BPF load, read from libbpf's warnings: libbpf's load returns
 * one errno for the whole object and says which program or map failed,
 * and the verifier why, only through its print callback. The one reading,
 * for the object library (src/object/object_load.c: perfbuf_object__load, perfbuf run)
 * and the tool (tools/common/loaderr.c: trace, stress, profile, demo).
 * Each links its own copy (the library's hidden, nothing exported).
 */
#ifndef PERFBUF_LOAD_LOG_H
#define PERFBUF_LOAD_LOG_H

#include "bpf_errstr.h"

struct load_log {
	char prog[64];		/* the program that failed to load ("": none said) */
	char map[64];		/* the map that could not be created */
	char why[512];		/* the verifier log's last lines, joined by " | " */
};

/* One warning libbpf printed (formatted, "libbpf: " or not), what it
 * names noted in @l; @lines: how many of a verifier log's last lines
 * (its statistics aside) to keep in @l->why */
void load_log_read(struct load_log *l, const char *msg, int lines);


#endif
