/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The perfbuf tool's subcommands: each returns the process exit status. */
#ifndef PERFBUF_COMMANDS_H
#define PERFBUF_COMMANDS_H

int cmd_trace(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_stress(int argc, char **argv);
int cmd_demo(int argc, char **argv);

/* getopt_long() (opterr = 0, optstring starting with ':') returned @ret,
 * '?' or ':': print one line naming the option; returns the exit status. */
int cli_bad_option(const char *cmd, int ret, char **argv);

#endif
