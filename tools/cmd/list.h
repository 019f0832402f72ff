/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* perfbuf list's parts (list.c, list_uprobe.c) */
#ifndef PERFBUF_CMD_LIST_H
#define PERFBUF_CMD_LIST_H

#include <stdbool.h>

/* Is @glob "uprobe:BIN:GLOB" (or uretprobe:, u:, ur:)? */
bool names_uprobe(const char *glob);
/* perfbuf list [-v] uprobe:BIN:GLOB: the binary's functions GLOB matches,
 * with -v their prototypes from its DWARF; the command's exit status */
int list_uprobes(const char *glob, bool verbose);

#endif
