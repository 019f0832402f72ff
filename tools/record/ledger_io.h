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
 * The last CAP_LEDGER frame reader @r has read (the capture @path: its
 * caller has read the frames, up to the end or the damage) into @v
 * (ledger_view_free() after), its kind word into @word: 1, 0 when it met
 * none (an older capture, or a program without a ledger), -EBADMSG when
 * it is damaged (a line said on stderr, @prog first), -ENOMEM. The file
 * is read once: the frame is the one the caller's reading passed.
 */
int capture_ledger_read(const char *prog, const char *path, const struct cap_reader *r,
			struct ledger_view *v, char word[CAP_LEDGER_WORD_MAX]);

#endif
