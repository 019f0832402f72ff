// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The options of `perfbuf run` and `perfbuf attach`. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "common/cli.h"
#include "common/rings.h"
#include "metrics/metrics.h"
#include "nats/options.h"
#include "run.h"

static const char run_usage[] =
"Usage: perfbuf run [OPTIONS] OBJECT.bpf.o\n"
"\n"
"Load your own BPF object, attach every program libbpf can attach by its\n"
"SEC name, and print the records of its maps decoded by their C type:\n"
"BPF_MAP_TYPE_PERF_EVENT_ARRAY maps through the collector (time order,\n"
"per-CPU losses), BPF_MAP_TYPE_RINGBUF maps through libbpf's ring_buffer.\n"
"\n"
"Options:\n"
"      --set NAME=VALUE a const volatile global of .rodata: an integer, bool,\n"
"                       enum (name or number) or char array; repeatable\n"
"      --type [MAP:]TYPE  the records' struct (of map MAP only); repeatable\n"
"      --header FILE.h  compile FILE.h with clang to find --type TYPE in it\n"
"  -I DIR               where --header's includes are (vmlinux.h, ...); after\n"
"                       the header's own directory; repeatable\n"
"      --prog NAME      load program NAME (and the others named so) only\n"
"      --no-prog NAME   do not load program NAME; both repeatable\n"
"  -d, --duration SEC   stop after SEC seconds\n"
"  -n, --count N        stop after N events\n"
"  -o, --output FILE    write events to FILE instead of stdout\n"
"      --record         the records and their types into capture file -o\n"
"                       (default perfbuf.cap), for perfbuf report\n"
"      --json           JSON Lines: event, lost and summary objects\n"
"      --aggregate EXPR count the records into maps instead of printing them,\n"
"                       as perfbuf trace --aggregate: by the records' fields\n"
"                       (and cpu, probe: the map); repeatable\n"
"      --interval SEC   with --aggregate: print the maps every SEC s, then empty\n"
"                       them\n"
"      --aggregate-keys N  keys kept per map (default 10000)\n"
"      --width N        cut text lines to N columns (not in a file)\n"
"      --time CLOCK     rel (since the start, the default), mono or wall\n"
RINGS_HELP
"      --latency MS     longest a record waits in a perf ring (default 10)\n"
"      --unordered      each CPU's records as they come, not in time order\n"
METRICS_USAGE
"  -v, --verbose        libbpf's debug output (the verifier's log)\n"
"  -h, --help           this help\n"
NATS_TRACE_USAGE
"\n"
"Of programs for one target in several kinds (fentry and kprobe for one\n"
"function; tp_btf, raw_tp and tracepoint for one tracepoint), as a\n"
"libbpf-tools tool does, the best kind this kernel runs is loaded; a\n"
"program it cannot load (fentry refused) is left out when others remain.\n"
"One line says what was left out.\n"
"\n"
"The type of a map's records: --type; else the marker PERFBUF_EVENT(MAP, TYPE)\n"
"of <perfbuf/bpf.h> in the program; else a struct named event, in BTF, then\n"
"in DWARF (build with -g); else --header FILE.h --type TYPE; else hex.\n"
"Records print as trace's events: text columns headed by the field names\n"
"(TIME CPU ...), or JSON with the fields in \"args\": integers by size and\n"
"sign, enums by name, bools, char arrays as strings (a cut one marked),\n"
"arrays, nested structs and unions as objects, pointers in hex. A record\n"
"shorter than its type whose last member is an array prints what is there;\n"
"one of another size is shown in hex on stderr and counted.\n"
"\n"
"Examples:\n"
"  perfbuf run --set min_duration_ns=1000000 bootstrap.bpf.o\n"
"  perfbuf run --json -d 5 --type events:event exitsnoop.bpf.o\n";

static const char attach_usage[] =
"Usage: perfbuf attach (--map-id N | --map-pinned PATH | --map-name NAME) [OPTIONS]\n"
"\n"
"Read the perf event array (or ring buffer) of a program someone else\n"
"loaded, as bpftool map event_pipe does, decoded by type. A perf event\n"
"array's rings are replaced by perfbuf's: its previous reader gets nothing\n"
"more while this runs.\n"
"\n"
"Options:\n"
"      --map-id N       the map with this id (bpftool map list)\n"
"      --map-pinned PATH  the map pinned at PATH in bpffs\n"
"      --map-name NAME  the loaded map with this name\n"
"      --force          read a ring buffer map beside its own reader (each\n"
"                       record goes to one of the two)\n"
"      --type TYPE      the records' struct: with --header, from the header;\n"
"                       else from the BTF of a program that uses the map\n"
"      --header FILE.h  compile FILE.h with clang to find --type TYPE in it\n"
"  -I DIR               where --header's includes are; repeatable\n"
"  -d, --duration SEC   stop after SEC seconds\n"
"  -n, --count N        stop after N events\n"
"  -o, --output FILE    write events to FILE instead of stdout\n"
"      --record, --json, --aggregate EXPR, --interval SEC, --aggregate-keys N,\n"
"      --width N, --time CLOCK, --pages N, --latency MS, --buffer-size SIZE,\n"
"      --unordered, --metrics [ADDR:]PORT\n"
"                       as perfbuf run\n"
"  -v, --verbose        libbpf's debug output\n"
"  -h, --help           this help\n"
NATS_TRACE_USAGE
"\n"
"Without --type: the marker or struct event in the BTF of a program using\n"
"the map, else hex (each record's size and bytes).\n";

enum { OPT_SET = 256, OPT_TYPE, OPT_HEADER, OPT_JSON, OPT_WIDTH, OPT_TIME,
       OPT_PAGES, OPT_BUFFER_SIZE, OPT_LATENCY, OPT_UNORDERED, OPT_MAP_ID,
       OPT_MAP_PINNED, OPT_MAP_NAME, OPT_RECORD, OPT_METRICS, OPT_PROG, OPT_NO_PROG,
       OPT_FORCE, OPT_AGGREGATE, OPT_AGG_KEYS, OPT_INTERVAL };

static bool list_add(const struct run_opts *o, const char **v, int *n, int max,
		     const char *opt, const char *arg)
{
	if (*n < max) {
		v[(*n)++] = arg;
		return true;
	}
	cli_say(o->prog, "at most %d %s options\n", max, opt);
	return false;
}

static bool set_option(int opt, char *arg, void *ctx)
{
	struct run_opts *o = ctx;

	switch (opt) {
	case 'd': return cli_parse_duration(o->prog, "-d", arg, CLI_DURATION_MIN,
					    CLI_DURATION_MAX, &o->duration_ns);
	case 'n': return cli_parse_num(o->prog, "--count", arg, 1, 1L << 62, &o->count);
	case 'o': o->output = arg; return true;
	case 'v': o->verbose = true; return true;
	case 'I': return list_add(o, o->incs.dirs, &o->incs.n, RUN_MAX_INCS, "-I", arg);
	case OPT_JSON: o->json = true; return true;
	case OPT_RECORD: o->record = true; return true;
	case OPT_UNORDERED: o->unordered = true; return true;
	case OPT_FORCE: o->force = true; return true;
	case OPT_WIDTH: return cli_parse_num(o->prog, "--width", arg, 40, 100000, &o->width);
	case OPT_PAGES: return cli_parse_num(o->prog, "--pages", arg, 1, 1L << 20, &o->pages);
	case OPT_LATENCY: return cli_parse_num(o->prog, "--latency", arg, 1, 60000, &o->latency);
	case OPT_BUFFER_SIZE:
		return cli_parse_size(o->prog, "--buffer-size", arg, 4096, 1ULL << 40,
				      &o->buffer_size);
	case OPT_SET: return list_add(o, o->sets, &o->nsets, RUN_MAX_SETS, "--set", arg);
	case OPT_TYPE: return list_add(o, o->types, &o->ntypes, RUN_MAX_MAPS, "--type", arg);
	case OPT_HEADER: o->header = arg; return true;
	case OPT_PROG: return list_add(o, o->progs, &o->nprogs, RUN_MAX_PROGS, "--prog", arg);
	case OPT_NO_PROG:
		return list_add(o, o->no_progs, &o->nno_progs, RUN_MAX_PROGS, "--no-prog", arg);
	case OPT_MAP_ID: return cli_parse_num(o->prog, "--map-id", arg, 1, 0xffffffffL, &o->map_id);
	case OPT_MAP_PINNED: o->map_pinned = arg; return true;
	case OPT_MAP_NAME: o->map_name = arg; return true;
	case OPT_METRICS: o->metrics = arg; return !metrics_check_addr(o->prog, arg);
	case OPT_TIME: return trace_time_option(o->prog, arg, &o->time);
	case OPT_AGGREGATE: return !agg_specs_add(o->prog, o->aggs, &o->naggs, arg);
	case OPT_AGG_KEYS:
		return cli_parse_num(o->prog, "--aggregate-keys", arg, 1, 100000000, &o->agg_keys);
	case OPT_INTERVAL: return cli_parse_num(o->prog, "--interval", arg, 1, 1000000, &o->interval);
	}
	/* --nats and its family: trace's parser (nats/options.h) */
	return opt >= NATS_OPT_URLS && opt < NATS_OPT_END && nats_opts_set(&o->nats, opt, arg);
}

/* Each --type is [MAP:]STRUCT with a name that fits: 0, or -1 (said) */
static int check_types(const struct run_opts *o)
{
	for (int i = 0; i < o->ntypes; i++) {
		const char *colon = strchr(o->types[i], ':');

		if (!*o->types[i] || (colon && (!colon[1] || colon == o->types[i]))) {
			cli_say(o->prog, "--type '%s': give [MAP:]STRUCT, e.g. --type events:event\n",
				o->types[i]);
			return -1;
		}
		/* a longer name would be cut short, and another type found */
		if (strlen(colon ? colon + 1 : o->types[i]) > RUN_TYPE_NAME_MAX) {
			cli_say(o->prog, "--type: the type name '%.40s...' is %zu characters long; the longest taken is %d\n",
				colon ? colon + 1 : o->types[i],
				strlen(colon ? colon + 1 : o->types[i]), RUN_TYPE_NAME_MAX);
			return -1;
		}
	}
	return 0;
}

/* --aggregate: named, with what it cannot go with refused; a record of
 * one's own has no task, so comm, pid and tid are its fields */
static int check_aggregates(struct run_opts *o)
{
	if (!o->naggs) {
		if (!o->interval && !o->agg_keys)
			return 0;
		cli_say(o->prog, "%s is about the maps of --aggregate: give --aggregate EXPR\n",
			o->interval ? "--interval" : "--aggregate-keys");
		return -1;
	}
	if (o->record || o->nats.nurls) {
		cli_say(o->prog, "--aggregate prints maps, not records: it does not go with %s\n",
			o->record ? "--record" : "--nats");
		return -1;
	}
	for (int i = 0; i < o->naggs; i++) {
		if (agg_spec_has_key(&o->aggs[i], AGG_B_KSTACK) ||
		    agg_spec_has_key(&o->aggs[i], AGG_B_USTACK)) {
			cli_say(o->prog, "--aggregate '%s': the records carry no stacks; maps by stack are perfbuf trace's\n",
				o->aggs[i].text);
			return -1;
		}
		agg_spec_task_as_fields(&o->aggs[i]);
	}
	return agg_specs_name(o->prog, o->aggs, o->naggs) ? -1 : 0;
}

/* What the options say together: one line when they disagree */
static int check(struct run_opts *o, int argc, char **argv)
{
	int maps = !!o->map_id + !!o->map_pinned + !!o->map_name;

	if (o->pages & (o->pages - 1)) {
		cli_say(o->prog, "--pages %ld is not a power of two\n", o->pages);
		return -1;
	}
	if (o->pages && o->buffer_size) {
		cli_say(o->prog, "--pages and --buffer-size are exclusive: a ring size per CPU, or a total for all\n");
		return -1;
	}
	o->pages = rings_pages(o->prog, o->pages, o->buffer_size);
	if (!o->pages)
		return -1;
	if (o->record && o->json) {
		cli_say(o->prog, "--record writes a capture; --json is for perfbuf report\n");
		return -1;
	}
	if (!nats_opts_check(&o->nats) || check_aggregates(o))
		return -1;
	if (o->nats.nurls && (o->record || o->output)) {
		cli_say(o->prog, "with --nats events go to NATS, not to %s: give one of them\n",
			o->record ? "--record's capture" : o->output);
		return -1;
	}
	if (o->record && !o->output)
		o->output = "perfbuf.cap";
	if (check_types(o))
		return -1;
	if (o->incs.n && !o->header) {
		cli_say(o->prog, "-I %s: include directories are for --header FILE.h\n",
			o->incs.dirs[0]);
		return -1;
	}
	if (o->header && o->ntypes != 1) {
		cli_say(o->prog, "--header %s needs one --type naming the struct in it\n",
			o->header);
		return -1;
	}
	if (o->force && !o->attach) {
		cli_say(o->prog, "--force is perfbuf attach's (a ring buffer beside its reader)\n");
		return -1;
	}
	if (o->attach) {
		if (maps != 1 || optind < argc) {
			cli_say(o->prog, "give one of --map-id N, --map-pinned PATH, --map-name NAME%s (see --help)\n",
				optind < argc ? ", no object" : "");
			return -1;
		}
		if (o->nsets || o->nprogs || o->nno_progs) {
			cli_say(o->prog, "%s needs an object not loaded yet: use perfbuf run\n",
				o->nsets ? "--set" : o->nprogs ? "--prog" : "--no-prog");
			return -1;
		}
		return 0;
	}
	if (maps || optind + 1 != argc) {
		cli_say(o->prog, "%s; e.g. %s prog.bpf.o (see --help)\n", maps ? "--map-id, --map-pinned and --map-name are perfbuf attach's" :
			optind < argc ? "one object only" : "no BPF object given", o->prog);
		return -1;
	}
	o->object = argv[optind];
	return 0;
}

int run_parse_options(int argc, char **argv, struct run_opts *o)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "aggregate", required_argument, NULL, OPT_AGGREGATE },
		{ "aggregate-keys", required_argument, NULL, OPT_AGG_KEYS },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "record", no_argument, NULL, OPT_RECORD },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "pages", required_argument, NULL, OPT_PAGES },
		{ "buffer-size", required_argument, NULL, OPT_BUFFER_SIZE },
		{ "latency", required_argument, NULL, OPT_LATENCY },
		{ "unordered", no_argument, NULL, OPT_UNORDERED },
		{ "metrics", required_argument, NULL, OPT_METRICS },
		{ "set", required_argument, NULL, OPT_SET },
		{ "type", required_argument, NULL, OPT_TYPE },
		{ "header", required_argument, NULL, OPT_HEADER },
		{ "prog", required_argument, NULL, OPT_PROG },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "no-prog", required_argument, NULL, OPT_NO_PROG },
		{ "map-id", required_argument, NULL, OPT_MAP_ID },
		{ "map-pinned", required_argument, NULL, OPT_MAP_PINNED },
		{ "map-name", required_argument, NULL, OPT_MAP_NAME },
		NATS_TRACE_LONGOPTS,
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	bool attach = o->attach;
	const char *prog = o->prog;
	struct cli_opts c = { .cmd = attach ? "attach" : "run",
			      .shortopts = ":d:n:o:I:vh", .longopts = longopts,
			      .usage = attach ? attach_usage : run_usage,
			      .set = set_option };
	int err;

	*o = (struct run_opts){ .prog = prog, .attach = attach };
	nats_opts_init(&o->nats, prog);
	err = cli_options(&c, argc, argv, o);
	return err ?: check(o, argc, argv);
}

int run_check_type_maps(const struct run_opts *o, const char *const *maps, int n)
{
	for (int i = 0; i < o->ntypes; i++) {
		const char *colon = strchr(o->types[i], ':');
		char names[256] = "";
		size_t len = 0;
		bool found = !colon;

		for (int k = 0; k < n && !found; k++)
			found = !strncmp(o->types[i], maps[k], colon - o->types[i]) &&
				!maps[k][colon - o->types[i]];
		if (found)
			continue;
		for (int k = 0; k < n && len < sizeof(names); k++)
			len += snprintf(names + len, sizeof(names) - len, "%s%s", k ? ", " : "",
					maps[k]);
		cli_say(o->prog, "--type %s: no map %.*s to read (%s: %s)\n", o->types[i], (int)(colon - o->types[i]), o->types[i],
			n == 1 ? "the map read is" : "the maps read are", names);
		return -ENOENT;
	}
	return 0;
}

const char *run_type_for(const struct run_opts *o, const char *map)
{
	const char *any = NULL;

	for (int i = 0; i < o->ntypes; i++) {
		const char *colon = strchr(o->types[i], ':');

		if (!colon)
			any = o->types[i];
		else if (!strncmp(o->types[i], map, colon - o->types[i]) &&
			 !map[colon - o->types[i]])
			return colon + 1;
	}
	return any;
}
