/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The trace engine, one concern per file, each with its header (this one
 * includes them all; new code includes the ones it needs):
 *   session.c    a session: the steps a command assembles (session.h)
 *   probe.c      probe syntax, feature probes (probe.h)
 *   tracefs.c    where tracefs is (tracefs.h)
 *   attach.c     attach and detach the probes (probe.h)
 *   format.c     tracefs format files: the fields of a tracepoint
 *   printfmt.c   their print fmt line: addresses, names of values
 *   decode.c     a record to typed values (output/values.h), with the probes
 *   pipe.c       a collector's record (sample, lost, CPU) to a sink
 *                (output/sink.h: the sinks are the output layer's)
 *   filter_parse.c, filter.c  --filter: parsed; compiled for each probe, loaded
 *   syscalls.c   syscall numbers (sys_enter_NAME through raw sys_enter)
 *   stop.c       the end: stop the flow, then detach many probes
 *   hint.c       the tracepoints that fit a function that cannot be probed
 *   child.c      -c CMD: the command started, held until the attach
 */
#ifndef PERFBUF_TRACE_TOOL_H
#define PERFBUF_TRACE_TOOL_H

#include "probe.h"
#include "tracefs.h"
#include "format.h"
#include "printfmt.h"
#include "filter.h"
#include "stop.h"
#include "syscalls.h"
#include "hint.h"

#endif
