/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What every command of the tool shares (cli.c): numbers and options,
 * privileges and fds checked up front, error words. Output files are
 * the output layer's (output/file.h). */
#ifndef PERFBUF_COMMON_CLI_H
#define PERFBUF_COMMON_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "perfbuf.h"
#include "say.h"	/* cli_say(): every message line */

/* A whole decimal number in [@lo, @hi] into *@out: 0 or -EINVAL. */
int cli_parse_long(const char *s, long lo, long hi, long *out);
/* The same for option @opt of command @prog; false after the line
 * "PROG: OPT wants a number from MIN to MAX, not 'ARG'". */
bool cli_parse_num(const char *prog, const char *opt, const char *arg,
		   long min, long max, long *out);

/* A command's options, for cli_options(). */
struct option;
struct cli_opts {
	const char *cmd;		/* "trace": "perfbuf trace: ..."; a name
					 * starting with perfbuf is a program's */
	const char *shortopts;		/* getopt_long()'s, ':' first, 'h' in */
	const struct option *longopts;	/* "help" (-h) in */
	const char *usage;		/* what -h and --help print */
	/* one option into @ctx; false after one line saying what is wrong */
	bool (*set)(int opt, char *arg, void *ctx);
	bool no_operands;		/* an operand: "unexpected argument" */
};

/* The one option loop of every command: getopt_long() over @argv, each
 * option to c->set(), --help printed, a bad option said in one line
 * (cli_bad_option()), and with c->no_operands an operand too. -1 to exit
 * 1 (said), 1 to exit 0 (--help), 0 to go on with the operands from
 * optind (the command checks them). */
int cli_options(const struct cli_opts *c, int argc, char **argv, void *ctx);

/* getopt_long() (opterr = 0, optstring starting with ':') returned @ret,
 * '?' or ':': print one line naming the option; returns the exit status. */
int cli_bad_option(const char *cmd, int ret, char **argv);

/* Refuse early, in one line naming the missing capabilities. CLI_BPF:
 * CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN); CLI_TRACEFS:
 * CAP_DAC_READ_SEARCH (or CAP_DAC_OVERRIDE) when tracefs refuses us.
 * 0 or -EPERM. */
#define CLI_BPF		1
#define CLI_TRACEFS	2
int cli_need_privileges(const char *prog, unsigned int need);

/* At least 2 fds per CPU, @extra and room for the BPF objects: the soft
 * RLIMIT_NOFILE is raised to that if the hard one allows; if not, one
 * line (EMFILE, raise 'ulimit -n'). 0 or -EMFILE. libbpf's feature probes
 * misreport EMFILE as other errors: hence up front. */
int cli_need_fds(const char *prog, unsigned int extra);

#include "units.h"	/* sizes and durations: every command's */

/* perfbuf__new() for a tool: if it fails, one line on stderr, "@prog:
 * setting up the perf buffer failed: " and the reason (out of memory:
 * "try a smaller @size_opt", the command's option of the rings' size,
 * when it has one); if it works, the library's warnings (offline CPUs, a
 * small map) to its printer. */
struct perfbuf *cli_perfbuf_new(const char *prog, int map_fd,
				perfbuf_record_fn fn, void *ctx,
				const struct perfbuf_opts *opts, const char *size_opt);
/* perfbuf_sampler__new() for a tool, the same way: one line, "@prog:
 * opening the sampling events failed: " and the reason, if it fails */
struct perfbuf_sampler *cli_sampler_new(const char *prog, const struct perfbuf_event_opts *ev,
					const struct perfbuf_sampler_opts *opts);

/* strerror(), and libbpf's own codes (4000..) by name, not "Unknown
 * error 4001"; @err of either sign. */
const char *cli_strerror(int err);

/* Is CPU @cpu online? true when the online list cannot be read (the
 * kernel decides then). The one check of every command's CPU option. */
bool cli_cpu_online(int cpu);

/* SIGINT, SIGTERM and SIGHUP add 1 to *@flag from now on (even when the
 * shell started a background job with SIGINT ignored; SIGHUP stays
 * ignored when it was, as nohup leaves it): the one handler of every
 * command that ends on them, so a closed terminal ends a run as Ctrl-C
 * does, with its data written and its summary. @restart: reads and
 * writes a signal interrupts go on (SA_RESTART, as signal() has it),
 * else they see EINTR. One flag a process: the last call's. */
void cli_stop_on_signals(volatile sig_atomic_t *flag, bool restart);

/* Before anything opens a file: fds 0-2 that are closed get /dev/null,
 * so no BPF object or output file takes their number. */
void cli_reserve_stdio(void);
/* 0, or -EBADF with one line on stderr when stdout was closed. */
int cli_need_stdout(const char *prog);
/* fflush(stdout), the one check of every command's printed output: 0;
 * -EPIPE when its reader is gone (a normal end: `| head -1`, SIGPIPE
 * ignored), not said; another -errno (a full disk) said in one line,
 * "PROG: writing stdout failed: why". */
int cli_flush_stdout(const char *prog);
/* The same for a command that ends there: false only for an error said */
bool cli_stdout_ok(const char *prog);

/* What to do about @err (either sign), e.g. "; raise 'ulimit -n'", or "". */
const char *cli_hint(int err);
/* Is kernel lockdown in confidentiality mode (no kernel reads from BPF)? */
bool cli_lockdown(void);

#endif
