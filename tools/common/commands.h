/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The perfbuf tool's commands, dispatched by tools/perfbuf.c: each
 * returns the process exit status. Each is defined in tools/cmd/NAME.c,
 * the top layer, which assembles the parts below it; a command that is
 * a mode of another is defined beside it (record in trace.c, attach in
 * run.c). tests/test_layers.sh checks it. */
#ifndef PERFBUF_COMMON_COMMANDS_H
#define PERFBUF_COMMON_COMMANDS_H

int cmd_trace(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_stress(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_nats_tail(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_attach(int argc, char **argv);

#endif
