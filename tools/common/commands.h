/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The perfbuf tool's commands, each defined in its own folder (tools/trace/
 * cmd.c: trace and record, ...) and dispatched by tools/perfbuf.c: each
 * returns the process exit status. Declarations only: any layer may
 * define one. */
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
