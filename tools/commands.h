/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The perfbuf tool's subcommands: each returns the process exit status. */
#ifndef PERFBUF_COMMANDS_H
#define PERFBUF_COMMANDS_H

int cmd_trace(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_stress(int argc, char **argv);
int cmd_demo(int argc, char **argv);

#endif
