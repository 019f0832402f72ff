/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfbuf run OBJECT.bpf.o` and `perfbuf attach --map-id N`: one's own
 * BPF program's records, decoded by their C type (libperfbuf's
 * perfbuf/type.h), through the output layer's sinks. The commands and
 * their loop are tools/cmd/run.c; this folder is their parts:
 *   typed.c  the maps read and their records as values (output/values.h)
 *   header.c --header: a C header compiled to BTF by clang
 *   opts.c   the options of both commands
 *   choose.c which of the object's programs are loaded (alternatives)
 *   find_map.c attach's map: by id, pinned path or name
 *   slots.c  whether a perf map's slots still hold our rings
 *   capture.c  --record: the records and their types into a capture
 *   report.c   perfbuf report of such a capture
 *   ledger.c   the programs' ledger (perfbuf_output()'s counts)
 */
#ifndef PERFBUF_RUN_H
#define PERFBUF_RUN_H

#include <stdbool.h>
#include <linux/types.h>

#include "perfbuf.h"
#include "perfbuf/object.h"
#include "common/clock.h"
#include "nats/options.h"
#include "output/agg.h"
#include "output/ledger.h"
#include "output/values.h"

#define RUN_MAX_MAPS 16
#define RUN_MAX_SETS 64
#define RUN_MAX_PROGS 64

/* A map read: a PERF_EVENT_ARRAY (through the collector) or a RINGBUF
 * (libbpf's ring_buffer); its records typed, or hex without a type */
struct run_map {
	char *name;
	int fd;
	bool ringbuf;
	struct perfbuf_type *type;	/* NULL: hex */
	int ncols;
	int *cols;			/* the columns' fields in type */
	const char **names;		/* the columns' names */
	__u64 received;
	__u64 wrong_size;		/* records the type does not fit */
};

struct run_decoder;

/* The maps' schema (one probe per map, in @maps' order, which must
 * outlive the decoder): NULL with errno */
struct run_decoder *run_decoder__new(const char *prog, struct run_map *maps, int n);
void run_decoder__free(struct run_decoder *d);
const struct tv_schema *run_decoder__schema(const struct run_decoder *d);
/* Record @data of @sz bytes of map @idx: its values, valid until the
 * next call; NULL when it does not fit the type (said on stderr, the
 * first few times, in hex; counted in wrong_size) */
const struct tv_event *run_decoder__decode(struct run_decoder *d, int idx,
					   const void *data, size_t sz,
					   int cpu, __u64 time_ns, bool late);

#define RUN_MAX_INCS 16
/* --header's -I DIR, in their order */
struct run_incs {
	const char *dirs[RUN_MAX_INCS];
	int n;
};

/* header.c: --type @name of --header @header, compiled by clang (the
 * header's directory, then @incs searched); NULL with errno, the cause
 * said */
struct perfbuf_type *run_header_type(const char *prog, const char *header,
				     const char *name, const struct run_incs *incs);

/* The columns of @m: the type's top-level members (an anonymous struct
 * or union's members in its place); hex: "size" and "data". 0 or -ENOMEM */
int run_map_columns(struct run_map *m);
void run_map_free(struct run_map *m);

struct run_opts {
	const char *prog;	/* "perfbuf run" */
	const char *object;	/* run: OBJECT.bpf.o */
	const char *sets[RUN_MAX_SETS];	/* --set NAME=VALUE */
	int nsets;
	const char *types[RUN_MAX_MAPS];	/* --type [MAP:]NAME */
	int ntypes;
	const char *header;	/* --header FILE.h */
	struct run_incs incs;	/* -I DIR: where the header's includes are */
	const char *progs[RUN_MAX_PROGS];	/* --prog NAME: these only */
	int nprogs;
	const char *no_progs[RUN_MAX_PROGS];	/* --no-prog NAME */
	int nno_progs;
	/* attach: one of */
	long map_id;
	const char *map_pinned, *map_name;
	const char *output;
	unsigned long long duration_ns;	/* -d; 0: no limit */
	long count, pages, latency, width;
	unsigned long long buffer_size;	/* --buffer-size, 0: not given */
	enum trace_time time;
	bool json, unordered, verbose, attach;
	bool force;		/* attach: a ring buffer beside its reader */
	bool record;		/* --record: a capture file (-o) */
	const char *metrics;	/* --metrics [ADDR:]PORT */
	struct nats_opts nats;	/* --nats: events to JetStream (trace's parser) */
	struct agg_spec aggs[AGG_MAX_MAPS];	/* --aggregate, parsed and named */
	int naggs;
	long agg_keys, interval;	/* --aggregate-keys, --interval (s) */
};

/* 0: go; 1: exit 0 (--help); -1: exit 1 (said) */
int run_parse_options(int argc, char **argv, struct run_opts *o);
/* Every --type MAP:NAME names one of @maps (the @n maps read): 0, or
 * -ENOENT (said, with the maps' names) */
int run_check_type_maps(const struct run_opts *o, const char *const *maps, int n);
/* --type for map @map: MAP:NAME's NAME, else a NAME alone, else NULL */
const char *run_type_for(const struct run_opts *o, const char *map);

/* attach: the fd of the map --map-id, --map-pinned or --map-name names;
 * -errno when there is none, several of the name, or the path is no map
 * (said) */
int run_find_map(const struct run_opts *o);

/* The longest --type name taken (a longer one is refused, not cut) */
#define RUN_TYPE_NAME_MAX 255

struct run_slots;
struct perfbuf;
/* The check of perf event array @map_fd's slots for the CPUs collector
 * @pb serves, our rings enabled by @now_ns; NULL when it cannot be made
 * (the run goes on without it) */
struct run_slots *run_slots__new(int map_fd, const struct perfbuf *pb, __u64 now_ns);
void run_slots__free(struct run_slots *s);
/* CPU @cpu came online: its new ring enabled by @now_ns */
void run_slots__online(struct run_slots *s, int cpu, __u64 now_ns);
/* What run_slots__check() found taken from us */
struct run_slots_taken {
	int cnt;		/* CPUs */
	char list[256];		/* their numbers, cut short with many */
	__u64 since_ns;		/* the newest other event enabled this long
				 * ago: nothing of ours since (0: unknown,
				 * the slots only emptied) */
};
/* The online CPUs of @pb whose slots no longer hold our ring (emptied,
 * or another reader's event): their count, with *@t filled */
int run_slots__check(struct run_slots *s, const struct perfbuf *pb, __u64 now_ns,
		     struct run_slots_taken *t);

struct bpf_object;
/* Before the load: the programs of @obj not to load turned off (the
 * alternatives this kernel does not take, --prog, --no-prog), said in one
 * line. 0, or -ENOENT for a name no program has (said) */
int run_choose_programs(const struct run_opts *o, struct bpf_object *obj);

/* ledger.c: the ledger of @obj into *@out (NULL: its programs keep
 * none): 0, or -errno (said) */
int run_ledger_open(const char *prog, const struct perfbuf_object *obj,
		    struct perfbuf_ledger **out);
/* attach: the ledger of a loaded program that writes to map @map_fd, or
 * NULL (none found, or not allowed to look) */
struct perfbuf_ledger *run_ledger_of_map(int map_fd);
/* @l read into @v (ledger_view_free() after), checked against @pb (NULL:
 * not checked): every kind up to the last one named, then those that
 * offered something. 0 or -errno (said, with @prog) */
int run_ledger_view(const char *prog, struct perfbuf_ledger *l, const struct perfbuf *pb,
		    struct ledger_view *v);

#endif
