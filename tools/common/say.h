/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A message line that names its program (say.c): the commands' and the
 * trace engine's, which is told the name ("perfbuf trace", "perfbuf
 * record") by the command that assembles it. */
#ifndef PERFBUF_COMMON_SAY_H
#define PERFBUF_COMMON_SAY_H

#include <stdarg.h>

/* One line on stderr: "@prog: " and the message (@fmt ends in "\n"), in
 * one write. @prog NULL (a test's zeroed struct): "perfbuf". */
__attribute__((format(printf, 2, 3)))
void cli_say(const char *prog, const char *fmt, ...);
/* The same with a va_list: a library's printer under the command's name */
__attribute__((format(printf, 2, 0)))
void cli_vsay(const char *prog, const char *fmt, va_list ap);

#endif
