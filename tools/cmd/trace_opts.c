// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The options of `perfbuf trace` and `perfbuf record` (trace.h). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "perfbuf.h"
#include "common/cli.h"
#include "common/rings.h"
#include "metrics/metrics.h"
#include "record/record.h"
#include "trace/pidwatch.h"
#include "trace/tool.h"
#include "trace.h"

static const char usage_text[] =
"Usage: perfbuf trace [OPTIONS] PROBE...\n"
"\n"
"Print every event of the probes, one line each (or JSON Lines), or count\n"
"them into maps as bpftrace does (--aggregate).\n"
"\n"
"Probes (bpftrace syntax):\n"
"  tracepoint:CATEGORY:NAME     globs allowed: tracepoint:syscalls:sys_enter_open*\n"
"  rawtracepoint:NAME           tp_btf when BTF has it, raw_tp otherwise\n"
"  kprobe:FUNC  kretprobe:FUNC  fentry:FUNC  fexit:FUNC\n"
"                               fentry falls back to kprobe and back\n"
"  kprobe:FUNC+OFFSET           an instruction inside FUNC (kprobes only)\n"
"  kprobe:GLOB  kretprobe:GLOB  globs: kprobe:vfs_* (one multi-link where the\n"
"                               kernel has CONFIG_FPROBE, else one each)\n"
"  uprobe:PATH:SYMBOL[+OFFSET]  uretprobe:PATH:SYMBOL\n"
"\n"
"Options:\n"
"  -p, --pid PID        only this process, all its threads (the ID of a thread\n"
"                       is refused: -p is a process); the run ends when it does\n"
"  -c, --command CMD    start CMD (words split as a shell splits them, nothing\n"
"                       expanded) once the probes are attached, trace it as -p\n"
"                       does; the run ends when it does (exit status: 0)\n"
"      --comm NAME      only tasks with this command name\n"
"      --cpu N          only events on CPU N\n"
"      --filter EXPR    only events for which EXPR holds, decided in the kernel;\n"
"                       repeatable (all must hold); PROBE:EXPR for one probe\n"
"      --member EXPR[,EXPR...]  print struct members of typed arguments too,\n"
"                       p->x or a->b.c (repeatable; a filter's are printed)\n"
"  -d, --duration SEC   stop after SEC seconds\n"
"  -n, --count N        stop after N events\n"
"  -o, --output FILE    write events to FILE instead of stdout\n"
"      --json           JSON Lines: event, lost and summary objects\n"
"      --aggregate EXPR count the events instead of printing them, as bpftrace's\n"
"                       maps: count(), sum(F), min(F), max(F), avg(F), hist(F),\n"
"                       lhist(F, MIN, MAX, STEP), then optionally by KEY[,KEY...]\n"
"                       (fields, comm pid tid cpu probe, kstack ustack);\n"
"                       [@NAME =] names it; repeatable. Printed at the end as\n"
"                       bpftrace prints maps\n"
"      --interval SEC   with --aggregate: print the maps every SEC s, then empty\n"
"                       them\n"
"      --aggregate-keys N  keys kept per map (default 10000); events of more\n"
"                       keys are counted apart and said\n"
"      --events         with --aggregate: print the events too, the maps after\n"
"      --width N        cut text lines to N columns (not in a file)\n"
"      --time CLOCK     what times are, in text and JSON: rel (since the start,\n"
"                       the default), mono (CLOCK_MONOTONIC) or wall (the date)\n"
RINGS_HELP
"      --latency MS     longest an event waits in a ring (default 10)\n"
"      --stats          a line on stderr every second: events/s, lost/s, ring fill;\n"
"                       and per probe offered/s, lost/s, no reader/s\n"
METRICS_USAGE
"      --unordered      print each CPU's events as they come, not in time order\n"
"      --string-size N  bytes kept of each string, buffer or argv argument\n"
"                       (1..4096, default 255); a cut one is marked\n"
"      --buffers[=escaped|hex]\n"
"                       print the bytes of syscall buffers the call reads\n"
"                       (write's), bounded by their length argument\n"
"      --kstack         each event's kernel stack, named (/proc/kallsyms)\n"
"      --ustack         each event's user stack, named (the process's ELF\n"
"                       symbols; frame pointers needed to walk it)\n"
"  -v, --verbose        libbpf debug output\n"
"  -h, --help           this help\n"
NATS_TRACE_USAGE
"\n"
"Events carry time, CPU, PID, TID, command, the probe and its arguments:\n"
"every field of a tracepoint (syscall paths and names read as strings,\n"
"execve's argv as a list, buffers as addresses unless --buffers),\n"
"kprobe/fentry/fexit parameters named and typed from BTF (uprobes: from\n"
"DWARF; arg0..arg5 without), ret of the return probes (perfbuf list -v\n"
"fentry:FUNC shows the prototype).\n"
"Events print in time order across CPUs (the kernel's CLOCK_MONOTONIC\n"
"time of each record); one whose writer was interrupted may come after a\n"
"newer one: it is marked late (a '*' after the time, \"late\":true in JSON).\n"
"CPUs coming online are traced; one going offline is drained first.\n"
"Stacks print leaf first, a frame per line after the event (a tab first),\n"
"or as \"kstack\" and \"ustack\" arrays in JSON; kernel frames end in _[k].\n"
"Text lines carry every field (--width cuts them). In JSON strings a byte\n"
"that is not valid UTF-8 appears as \\udcXX (XX: the byte).\n"
"\n"
"Filters: a field compared with a constant, combined with && || ! ( ):\n"
"  == != < <= > >= on integers; == != on strings, \"text*\" for a prefix.\n"
"  Names: the probe's fields (args.NAME too), arg0..arg5, ret, and\n"
"  pid tid comm cpu (the task's and CPU's, even where a field has the name).\n"
"\n"
"Examples:\n"
"  perfbuf trace tracepoint:sched:sched_process_exec\n"
"  perfbuf trace --filter 'filename == \"/etc/*\"' tracepoint:syscalls:sys_enter_openat\n"
"  perfbuf trace -d 5 --json 'tracepoint:syscalls:sys_enter_open*'\n"
"  perfbuf trace --comm bash tracepoint:syscalls:sys_enter_openat\n"
"  perfbuf trace uprobe:/bin/bash:readline uretprobe:/bin/bash:readline\n"
"  perfbuf trace -n 10 -o exits.txt tracepoint:sched:sched_process_exit\n"
"  perfbuf trace --kstack --ustack -n 5 tracepoint:syscalls:sys_enter_openat\n"
"  perfbuf trace --aggregate 'count() by comm' tracepoint:raw_syscalls:sys_enter\n"
"  perfbuf trace --aggregate 'hist(count)' tracepoint:syscalls:sys_enter_write\n"
"  perfbuf list 'syscalls:*open*'\n";

enum { OPT_COMM = 256, OPT_CPU, OPT_JSON, OPT_PAGES, OPT_BUFFER_SIZE, OPT_LATENCY, OPT_STATS,
       OPT_UNORDERED, OPT_FLIGHT, OPT_STRING_SIZE, OPT_BUFFERS, OPT_WIDTH,
       OPT_KSTACK, OPT_USTACK, OPT_TIME, OPT_FILTER, OPT_MEMBER, OPT_METRICS,
       OPT_REALTIME, OPT_AGGREGATE, OPT_AGG_KEYS, OPT_INTERVAL, OPT_EVENTS };

/* The filters: -p, --comm, --cpu (checked in BPF). */
static bool filter_option(int opt, const char *arg, struct trace_opts *o)
{
	struct trace_filter *tf = &o->filter;
	int cpu_cnt;
	long v;

	switch (opt) {
	case 'p':
		if (!cli_parse_num(o->prog, "-p", arg, 1, 0x7fffffff, &v))
			return false;
		if (kill(v, 0) && errno == ESRCH) {
			cli_say(o->prog, "-p %ld: no such process\n", v);
			return false;
		}
		if (pidwatch_check_leader(o->prog, (pid_t)v))
			return false;
		tf->pid = v;
		return true;
	case OPT_COMM:
		if (!*arg || strlen(arg) >= TRACE_COMM_LEN) {
			cli_say(o->prog, "--comm wants a command name of 1 to %d characters, not '%s'\n", TRACE_COMM_LEN - 1, arg);
			return false;
		}
		tf->comm = arg;
		return true;
	default:	/* OPT_CPU */
		cpu_cnt = libbpf_num_possible_cpus();
		if (!cli_parse_num(o->prog, "--cpu", arg, 0, cpu_cnt > 0 ? cpu_cnt - 1 : 0, &v))
			return false;
		tf->cpu = v;
		return true;
	}
}

/* How events print: --width, --time (report's, for record). */
static bool output_option(int opt, const char *arg, struct trace_opts *o)
{
	if (o->record) {
		cli_say(o->prog, "%s is an option of perfbuf report\n", opt == OPT_TIME ? "--time" : "--width");
		return false;
	}
	if (opt == OPT_WIDTH)
		return cli_parse_num(o->prog, "--width", arg, 40, 100000, &o->width);
	return trace_time_option(o->prog, arg, &o->time);
}

/* What BPF reads of syscall arguments: --string-size, --buffers. */
static bool read_option(int opt, const char *arg, struct trace_opts *o)
{
	struct trace_read_opts *r = &o->read;
	long v;

	if (opt == OPT_STRING_SIZE) {
		if (!cli_parse_num(o->prog, "--string-size", arg, 1, TRACE_STR_SIZE_MAX, &v))
			return false;
		r->str_size = v;
	} else if (!arg || !strcmp(arg, "escaped")) {
		r->buffers = BUFFERS_ESCAPED;
	} else if (!strcmp(arg, "hex")) {
		r->buffers = BUFFERS_HEX;
	} else {
		cli_say(o->prog, "--buffers wants escaped or hex, not '%s'\n", arg);
		return false;
	}
	return true;
}

/* The options of one of the two commands: record's --flight-recorder,
 * --realtime;
 * trace's --json, --unordered (report's for a capture), --kstack,
 * --ustack and NATS_OPT_*. */
static bool mode_option(int opt, char *arg, struct trace_opts *o)
{
	switch (opt) {
	case OPT_REALTIME:
		if (!o->record) {
			cli_say(o->prog, "--realtime is an option of perfbuf record\n");
			return false;
		}
		return cli_parse_num(o->prog, "--realtime", arg, 0, 99, &o->realtime);
	case OPT_FLIGHT:
		if (!o->record) {
			cli_say(o->prog, "--flight-recorder is an option of perfbuf record\n");
			return false;
		}
		return record_parse_size(o->prog, arg, &o->flight_pages);
	case OPT_JSON:
	case OPT_UNORDERED:
		if (o->record) {
			cli_say(o->prog, "%s is an option of perfbuf report\n", opt == OPT_JSON ? "--json" : "--unordered");
			return false;
		}
		o->json |= opt == OPT_JSON;
		o->unordered |= opt == OPT_UNORDERED;
		return true;
	case OPT_KSTACK:
	case OPT_USTACK:
		if (o->record) {
			cli_say(o->prog, "%s is an option of perfbuf trace\n", opt == OPT_KSTACK ? "--kstack" : "--ustack");
			return false;
		}
		o->filter.kstack |= opt == OPT_KSTACK;
		o->filter.ustack |= opt == OPT_USTACK;
		return true;
	default:	/* NATS_OPT_* */
		if (o->record) {
			cli_say(o->prog, "the NATS options are options of perfbuf trace\n");
			return false;
		}
		return nats_opts_set(&o->nats, opt, arg);
	}
}

/* trace's --aggregate EXPR (parsed now: a typo costs no BPF load),
 * --aggregate-keys, --interval */
static bool agg_option(int opt, const char *arg, struct trace_opts *o)
{
	if (o->record) {
		cli_say(o->prog, "--aggregate, --aggregate-keys, --interval and --events are options of perfbuf trace\n");
		return false;
	}
	if (opt == OPT_AGG_KEYS)
		return cli_parse_num(o->prog, "--aggregate-keys", arg, 1, 100000000, &o->agg_keys);
	if (opt == OPT_INTERVAL)
		return cli_parse_num(o->prog, "--interval", arg, 1, 1000000, &o->interval);
	if (opt == OPT_EVENTS) {
		o->events = true;
		return true;
	}
	return !agg_specs_add(o->prog, o->aggs, &o->naggs, arg);
}

/* A name with a member path (p->x, a->b.c) is read by the programs as
 * --member reads it: added to the members (once) */
static int agg_members(struct trace_opts *o)
{
	const int max = (int)(sizeof(o->members) / sizeof(o->members[0]));

	for (int i = 0; i < o->naggs; i++)
		for (int r = o->aggs[i].fn == AGG_COUNT; r <= o->aggs[i].nkeys; r++) {
			const char *name = r ? o->aggs[i].keys[r - 1].name : o->aggs[i].val.name;
			bool seen = false;

			if (!strstr(name, "->") && !strchr(name, '.'))
				continue;
			for (int k = 0; k < o->nmembers; k++)
				seen |= !strcmp(o->members[k], name);
			if (seen)
				continue;
			if (o->nmembers == max) {
				cli_say(o->prog, "--aggregate '%s': more than %d struct members in all (--member's and --aggregate's); name fewer\n",
					o->aggs[i].text, max);
				return -1;
			}
			o->members[o->nmembers++] = name;
		}
	return 0;
}

/* --aggregate with the rest: named, and what it cannot go with */
static int check_aggregates(struct trace_opts *o)
{
	if (!o->naggs) {
		if (!o->interval && !o->agg_keys && !o->events)
			return 0;
		cli_say(o->prog, "%s is about the maps of --aggregate: give --aggregate EXPR\n",
			o->interval ? "--interval" : o->events ? "--events" : "--aggregate-keys");
		return -1;
	}
	if (o->nats.nurls || ((o->filter.kstack || o->filter.ustack) && !o->events)) {
		cli_say(o->prog, "--aggregate prints maps, not events: it does not go with %s\n",
			o->nats.nurls ? "--nats" :
			"--kstack or --ustack without --events (maps by stack: 'count() by kstack')");
		return -1;
	}
	/* a map by stack: the programs take the stacks, which --events
	 * prints only when asked (--kstack, --ustack) */
	for (int i = 0; i < o->naggs; i++) {
		o->maps_kstack |= agg_spec_has_key(&o->aggs[i], AGG_B_KSTACK) && !o->filter.kstack;
		o->maps_ustack |= agg_spec_has_key(&o->aggs[i], AGG_B_USTACK) && !o->filter.ustack;
	}
	o->filter.kstack |= o->maps_kstack;
	o->filter.ustack |= o->maps_ustack;
	return agg_specs_name(o->prog, o->aggs, o->naggs) || agg_members(o) ? -1 : 0;
}

void trace_opts_free(struct trace_opts *o)
{
	for (int i = 0; i < o->naggs; i++)
		agg_spec_free(&o->aggs[i]);
	o->naggs = 0;
}

/* One option of getopt_long() into @ctx (struct trace_opts); false after
 * a message. */
static bool set_option(int opt, char *arg, void *ctx)
{
	struct trace_opts *o = ctx;

	switch (opt) {
	case 'p':
	case OPT_COMM:
	case OPT_CPU:
		return filter_option(opt, arg, o);
	case 'd':
		return cli_parse_duration(o->prog, "-d", arg, CLI_DURATION_MIN,
					  CLI_DURATION_MAX, &o->duration_ns);
	case 'n':
		return cli_parse_num(o->prog, "-n", arg, 1, 0x7fffffffffffffffL, &o->count);
	case 'o':
		o->output = arg;
		return true;
	case 'c':
		if (o->record) {
			cli_say(o->prog, "unknown option '-c'; run '%s --help'\n", o->prog);
			return false;
		}
		o->cmd = arg;
		return true;
	case OPT_FILTER:
		if (o->nfilters == (int)(sizeof(o->filters) / sizeof(o->filters[0]))) {
			cli_say(o->prog, "more than %d --filter options; join them with &&\n", o->nfilters);
			return false;
		}
		o->filters[o->nfilters++] = arg;
		return true;
	case OPT_MEMBER:
		if (o->nmembers == (int)(sizeof(o->members) / sizeof(o->members[0]))) {
			cli_say(o->prog, "more than %d --member options; list them with commas\n",
				o->nmembers);
			return false;
		}
		o->members[o->nmembers++] = arg;
		return true;
	case OPT_PAGES:
		if (!cli_parse_num(o->prog, "--pages", arg, 1, 1 << 20, &o->pages))
			return false;
		if (perfbuf_ring__check_page_cnt((size_t)o->pages)) {
			cli_say(o->prog, "--pages wants a power of two (1, 2, 4, ... 1048576), not %ld\n", o->pages);
			return false;
		}
		return true;
	case OPT_BUFFER_SIZE:
		return cli_parse_size(o->prog, "--buffer-size", arg, 4096, 1ULL << 40,
				      &o->buffer_size);
	case OPT_LATENCY:
		return cli_parse_num(o->prog, "--latency", arg, 1, 60000, &o->latency);
	case OPT_WIDTH:
	case OPT_TIME:
		return output_option(opt, arg, o);
	case OPT_STRING_SIZE:
	case OPT_BUFFERS:
		return read_option(opt, arg, o);
	case OPT_STATS:
		o->stats = o->nats.stats = true;
		return true;
	case OPT_METRICS:
		o->metrics = arg;
		return !metrics_check_addr(o->prog, arg);
	case 'v':
		o->verbose = true;
		return true;
	case OPT_AGGREGATE:
	case OPT_AGG_KEYS:
	case OPT_INTERVAL:
	case OPT_EVENTS:
		return agg_option(opt, arg, o);
	default:
		return mode_option(opt, arg, o);
	}
}

int trace_parse_options(int argc, char **argv, struct trace_opts *o)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "command", required_argument, NULL, 'c' },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "member", required_argument, NULL, OPT_MEMBER },
		{ "duration", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "aggregate", required_argument, NULL, OPT_AGGREGATE },
		{ "aggregate-keys", required_argument, NULL, OPT_AGG_KEYS },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "events", no_argument, NULL, OPT_EVENTS },
		{ "pages", required_argument, NULL, OPT_PAGES },
		{ "buffer-size", required_argument, NULL, OPT_BUFFER_SIZE },
		{ "latency", required_argument, NULL, OPT_LATENCY },
		{ "realtime", required_argument, NULL, OPT_REALTIME },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "metrics", required_argument, NULL, OPT_METRICS },
		{ "unordered", no_argument, NULL, OPT_UNORDERED },
		{ "flight-recorder", required_argument, NULL, OPT_FLIGHT },
		{ "string-size", required_argument, NULL, OPT_STRING_SIZE },
		{ "buffers", optional_argument, NULL, OPT_BUFFERS },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "kstack", no_argument, NULL, OPT_KSTACK },
		{ "ustack", no_argument, NULL, OPT_USTACK },
		NATS_TRACE_LONGOPTS,
		{ "time", required_argument, NULL, OPT_TIME },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct cli_opts c = { .cmd = o->record ? "record" : "trace",
			      .shortopts = ":p:c:d:n:o:vh", .longopts = longopts,
			      .usage = o->record ? record_usage : usage_text,
			      .set = set_option };
	int err;

	*o = (struct trace_opts){ .prog = o->prog, .record = o->record,
				  .realtime = o->record ? RECORD_DEFAULT_RTPRIO : 0 };
	nats_opts_init(&o->nats, o->prog);
	o->filter = (struct trace_filter){ .cpu = -1 };
	o->read = TRACE_READ_DEFAULT;
	err = cli_options(&c, argc, argv, o);
	if (err)
		return err;
	if (o->record && !o->output)
		o->output = RECORD_DEFAULT_OUTPUT;
	if (o->cmd && o->filter.pid) {
		cli_say(o->prog, "-c and -p are exclusive: trace a command it starts, or a process running\n");
		return -1;
	}
	if (o->pages && o->buffer_size) {
		cli_say(o->prog, "--pages and --buffer-size are exclusive: a ring size per CPU, or a total for all\n");
		return -1;
	}
	o->sized = o->pages || o->buffer_size;
	o->pages = rings_pages(o->prog, o->pages, o->buffer_size);
	if (!o->pages)
		return -1;
	if (!nats_opts_check(&o->nats) || check_aggregates(o))
		return -1;
	if (o->nats.nurls && o->output) {
		cli_say(o->prog, "with --nats events go to NATS, not to -o %s: give one of them\n",
			o->output);
		return -1;
	}
	if (optind >= argc) {
		cli_say(o->prog, "no probe given; e.g. %s tracepoint:sched:sched_process_exec (see --help)\n",
			o->prog);
		return -1;
	}
	return 0;
}
