/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The programs' ledger in a capture (a CAP_LEDGER frame): what the BPF
 * side offered per kind and what became of it, as the recording ended. */
#ifndef PERFBUF_CAP_LEDGER_IO_H
#define PERFBUF_CAP_LEDGER_IO_H

#include "capture.h"
#include "output/ledger.h"

/* Longest kind word kept ("probe", "kind") */
#define CAP_LEDGER_WORD_MAX 16

/* @v's kinds, as kinds of @word, into a CAP_LEDGER frame: 0 or the
 * writer's error. A view without kinds writes nothing. */
int capture_ledger_write(struct cap_writer *w, const struct ledger_view *v,
			 const char *word);
/*
 * The CAP_LEDGER frame of capture @path into @v (ledger_view_free()
 * after), its kind word into @word: 1, 0 when the capture has none (an
 * older one, or a program without a ledger), -EBADMSG when it is damaged
 * (a line said on stderr, @prog first), -ENOMEM. Reads the file with a
 * reader of its own: a caller's reader keeps its place and its damage.
 */
int capture_ledger_read(const char *prog, const char *path, struct ledger_view *v,
			char word[CAP_LEDGER_WORD_MAX]);

#endif
