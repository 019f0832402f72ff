/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libperfbuf: the ledger. A BPF program that writes its records with
 * perfbuf_output() (perfbuf/bpf.h) counts every output's outcome per CPU
 * and per kind in its map `perfbuf_ledger`. This reads those counts and
 * says, per kind, how many events the program offered, how many the
 * reader received, how many were lost in a full ring, found no reader
 * (no ring in the CPU's slot) or failed otherwise: offered = received +
 * lost + no_reader + failed, for each kind.
 *
 * With the collector that read the program's map, it also checks the
 * two sides against each other, per CPU: the records the program wrote
 * are the records the collector received, and the ring-full count is
 * the collector's lost count (LOST records plus what the final drain
 * settles from PERF_FORMAT_LOST; see perfbuf__drain()). A disagreement
 * is reported (perfbuf_ledger__read()'s result, the CPU's mismatch
 * flag), never hidden. Call it after the final drain: while records wait
 * in a ring, the program has written more than the collector received.
 */
#ifndef PERFBUF_LEDGER_H
#define PERFBUF_LEDGER_H

#include "common.h"
#include "bpf.h"

#ifdef __cplusplus
extern "C" {
#endif

struct perfbuf;
struct perfbuf_ledger;
struct btf;

struct perfbuf_ledger_opts {
	size_t sz;
	/* names of kinds 0 .. name_cnt - 1 (copied), before those of the
	 * object's enum (PERFBUF_LEDGER_KINDS()); NULL entries: none */
	const char *const *names;
	size_t name_cnt;
	/* the BTF the enum of PERFBUF_LEDGER_KINDS() is read from (a loaded
	 * object's: bpf_object__btf(), needs no privilege); NULL: the map's
	 * own, from the kernel (needs CAP_SYS_ADMIN) */
	const struct btf *btf;
};

/**
 * @brief A ledger on the map with fd @map_fd (a PERCPU_ARRAY of struct
 *        perfbuf_ledger_value, as PERFBUF_LEDGER() defines it). The fd is
 *        duplicated: the caller may close its own.
 *
 * The kinds' names: @opts' names first, then the enum the program named
 * with PERFBUF_LEDGER_KINDS(), from @opts' btf, or else from the map's BTF
 * in the kernel (where CAP_SYS_ADMIN allows reading it; otherwise the
 * kinds have no name). When @opts names every kind, no BTF is read.
 * @return the ledger, or NULL with errno (EINVAL: bad options, or the map
 *         is not a per-CPU array of 32-byte values; or the error of the
 *         failing syscall)
 */
PERFBUF_API struct perfbuf_ledger *
perfbuf_ledger__new(int map_fd, const struct perfbuf_ledger_opts *opts);

/** @brief Free the ledger (not the map). NULL is a no-op. */
PERFBUF_API void perfbuf_ledger__free(struct perfbuf_ledger *l);

/**
 * @brief Read the counts from the map now, and, with @pb (the collector
 *        of the map the program writes to; NULL: no check), check each
 *        CPU's against the collector's perfbuf__stats(): written =
 *        samples received, full = lost_total. A CPU the collector does
 *        not serve must have written nothing and lost nothing.
 *
 * The counts are the kernel's as of the call; each only grows. Not
 * while another thread frees @l or @pb.
 * @return the number of CPUs whose counts disagree (0: all agree, or no
 *         @pb), or a negative errno (the counts are then those of the
 *         last read that succeeded)
 */
PERFBUF_API int perfbuf_ledger__read(struct perfbuf_ledger *l,
				     const struct perfbuf *pb);

/** @brief Number of kinds: the map's entries, MAX_KINDS + 1 for
 *  PERFBUF_LEDGER(MAX_KINDS); the last counts the outputs made with a
 *  kind out of range. */
PERFBUF_API size_t perfbuf_ledger__kind_cnt(const struct perfbuf_ledger *l);

/** @brief Kind @kind's name, or NULL (no name, or out of range; the
 *  last entry, for kinds out of range, takes only a name the caller
 *  gives). Valid until perfbuf_ledger__free(). */
PERFBUF_API const char *perfbuf_ledger__kind_name(const struct perfbuf_ledger *l,
						  size_t kind);

/* One kind's outcomes, summed over every CPU, as of the last read. */
struct perfbuf_ledger_kind {
	size_t sz;		/* the caller's sizeof (see common.h) */
	__u64 offered;		/* outputs tried: the four below summed */
	__u64 received;		/* written into a ring: the reader gets them */
	__u64 lost;		/* ring full (-ENOSPC) */
	__u64 no_reader;	/* no ring in the CPU's slot (-ENOENT, -E2BIG) */
	__u64 failed;		/* any other error (-EOPNOTSUPP, -EBUSY, ...) */
};

/**
 * @brief Kind @kind's counts (as of the last perfbuf_ledger__read()) into
 *        @out, whose sz the caller set (see common.h).
 * @return 0, or -EINVAL (bad kind, out->sz too small)
 */
PERFBUF_API int perfbuf_ledger__kind(const struct perfbuf_ledger *l,
				     size_t kind,
				     struct perfbuf_ledger_kind *out);

/* One CPU's side by side, every kind summed, as of the last read. */
struct perfbuf_ledger_cpu {
	size_t sz;		/* the caller's sizeof (see common.h) */
	int cpu;
	bool checked;		/* compared with a collector's counts */
	bool mismatch;		/* checked, and they disagree */
	/* the program's side: the ledger */
	__u64 written;
	__u64 full;
	__u64 no_reader;
	__u64 failed;
	/* the collector's side (0 unless checked): the records it received
	 * on this CPU and the losses it counted (perfbuf_cpu_stats'
	 * samples and lost_total; 0 for a CPU it does not serve) */
	__u64 received;
	__u64 lost;
};

/** @brief Number of CPU entries: one per possible CPU, in CPU order
 *  (indexes are not CPU numbers where the possible CPUs have gaps). */
PERFBUF_API size_t perfbuf_ledger__cpu_cnt(const struct perfbuf_ledger *l);

/**
 * @brief Entry @idx's counts (its CPU in out->cpu; as of the last
 *        perfbuf_ledger__read()) into @out, whose sz the caller set (see
 *        common.h).
 * @return 0, or -EINVAL (idx out of range, out->sz too small)
 */
PERFBUF_API int perfbuf_ledger__cpu(const struct perfbuf_ledger *l,
				    size_t idx,
				    struct perfbuf_ledger_cpu *out);

#ifdef __cplusplus
}
#endif

#endif /* PERFBUF_LEDGER_H */
