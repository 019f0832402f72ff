// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ledger (ledger.h): a BPF program's perfbuf_output() counts, read
 * from its per-CPU array, summed per kind, and checked per CPU against
 * the collector that read the program's map.
 *
 * The map's per-CPU values come back from a look-up compacted, one per
 * possible CPU in CPU order (not indexed by CPU number): value i is the
 * i-th possible CPU's.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "internal.h"

struct perfbuf_ledger {
	int fd;				/* our own dup of the map's fd */
	size_t kind_cnt;		/* the map's max_entries */
	size_t cpu_cnt;			/* possible CPUs */
	int *cpus;			/* their numbers */
	char **names;			/* per kind, or NULL */
	struct perfbuf_ledger_value *vals;	/* one look-up: cpu_cnt */
	struct perfbuf_ledger_kind *kinds;	/* sums as of the last read */
	struct perfbuf_ledger_cpu *cpu;
};

/* The ledger map's shape: refused with a line saying what is wrong */
static int ledger_check_map(int fd, struct bpf_map_info *info)
{
	__u32 len = sizeof(*info);

	if (bpf_obj_get_info_by_fd(fd, info, &len)) {
		pr_warn("ledger: map fd %d: %s\n", fd, errstr(errno));
		return -errno;
	}
	if (info->type != BPF_MAP_TYPE_PERCPU_ARRAY ||
	    info->key_size != sizeof(__u32) ||
	    info->value_size != sizeof(struct perfbuf_ledger_value) ||
	    !info->max_entries) {
		pr_warn("ledger: map '%s' is not a ledger (a PERCPU_ARRAY of %zu-byte values, as PERFBUF_LEDGER() makes)\n",
			info->name, sizeof(struct perfbuf_ledger_value));
		return -EINVAL;
	}
	return 0;
}

/* The caller's names, copied; kinds beyond the map's are ignored */
static int ledger_set_names(struct perfbuf_ledger *l,
			    const struct perfbuf_ledger_opts *opts)
{
	const char *const *names = OPTS_GET(opts, names, NULL);
	size_t n = OPTS_GET(opts, name_cnt, 0);

	if (n && !names)
		return -EINVAL;
	for (size_t i = 0; i < n && i < l->kind_cnt; i++)
		if (names[i] && !(l->names[i] = strdup(names[i])))
			return -ENOMEM;
	return 0;
}

/* The enum PERFBUF_LEDGER_KINDS() points at, for kinds not named yet */
static int ledger_btf_names(struct perfbuf_ledger *l, const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "__perfbuf_ledger_kinds",
					BTF_KIND_VAR);
	const struct btf_type *t;
	const struct btf_enum *e;

	if (id < 0)
		return 0;	/* kinds not named: numbers */
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!t || !btf_is_ptr(t))
		return 0;
	id = btf__resolve_type(btf, t->type);
	t = id < 0 ? NULL : btf__type_by_id(btf, id);
	if (!t || !btf_is_enum(t))
		return 0;
	e = btf_enum(t);
	for (__u16 i = 0; i < btf_vlen(t); i++) {
		__u32 v = (__u32)e[i].val;

		/* not the last entry (kinds out of range): the enum's
		 * value there is its count, as in PERFBUF_LEDGER(KIND_CNT) */
		if (v >= l->kind_cnt - 1 || l->names[v])
			continue;
		l->names[v] = strdup(btf__name_by_offset(btf, e[i].name_off));
		if (!l->names[v])
			return -ENOMEM;
	}
	return 0;
}

/* Does @opts name every kind of a map of @entries entries (the last one,
 * kinds out of range, has no name)? Then no BTF is read. */
static bool all_named(const struct perfbuf_ledger_opts *opts, __u32 entries)
{
	const char *const *names = OPTS_GET(opts, names, NULL);
	size_t n = OPTS_GET(opts, name_cnt, 0);

	if (!names || !entries || n < entries - 1)
		return false;
	for (__u32 i = 0; i + 1 < entries; i++)
		if (!names[i])
			return false;
	return true;
}

/* The ledger on @map_fd (@kind_cnt entries, checked), names from @opts
 * then @btf (may be NULL) */
static struct perfbuf_ledger *ledger_new(int map_fd, size_t kind_cnt,
					 const struct btf *btf,
					 const struct perfbuf_ledger_opts *opts)
{
	struct perfbuf_ledger *l;
	int err, n;

	l = calloc(1, sizeof(*l));
	if (!l)
		return err_ptr(-ENOMEM);
	l->fd = -1;
	l->kind_cnt = kind_cnt;
	n = perfbuf_cpus_possible_alloc(&l->cpus);
	if (n <= 0) {
		err = n < 0 ? n : -ENODEV;
		goto fail;
	}
	l->cpu_cnt = n;
	l->names = calloc(l->kind_cnt, sizeof(*l->names));
	l->vals = calloc(l->cpu_cnt, sizeof(*l->vals));
	l->kinds = calloc(l->kind_cnt, sizeof(*l->kinds));
	l->cpu = calloc(l->cpu_cnt, sizeof(*l->cpu));
	err = -ENOMEM;
	if (!l->names || !l->vals || !l->kinds || !l->cpu)
		goto fail;
	for (size_t i = 0; i < l->cpu_cnt; i++)
		l->cpu[i] = (struct perfbuf_ledger_cpu){
			.sz = sizeof(l->cpu[i]), .cpu = l->cpus[i] };
	for (size_t k = 0; k < l->kind_cnt; k++)
		l->kinds[k].sz = sizeof(l->kinds[k]);
	err = ledger_set_names(l, opts);
	if (!err && btf)
		err = ledger_btf_names(l, btf);
	if (err)
		goto fail;
	l->fd = fcntl(map_fd, F_DUPFD_CLOEXEC, 3);
	if (l->fd < 0) {
		err = -errno;
		goto fail;
	}
	return l;
fail:
	perfbuf_ledger__free(l);
	return err_ptr(err);
}

struct perfbuf_ledger *perfbuf_ledger__new(int map_fd,
					   const struct perfbuf_ledger_opts *opts)
{
	struct bpf_map_info info = {};
	struct perfbuf_ledger *l;
	struct btf *btf = NULL;
	int err;

	if (!OPTS_VALID(opts, perfbuf_ledger_opts) || map_fd < 0)
		return err_ptr(-EINVAL);
	err = ledger_check_map(map_fd, &info);
	if (err)
		return err_ptr(err);
	if (OPTS_GET(opts, btf, NULL))
		return ledger_new(map_fd, info.max_entries, opts->btf, opts);
	/* the map's BTF is its object's; reading it by id needs
	 * CAP_SYS_ADMIN: without, the kinds are numbers */
	if (info.btf_id && !all_named(opts, info.max_entries)) {
		btf = btf__load_from_kernel_by_id(info.btf_id);
		if (!btf)
			pr_debug("ledger: the BTF of map '%s' (id %u): %s; kinds unnamed\n",
				 info.name, info.btf_id, errstr(errno));
	}
	l = ledger_new(map_fd, info.max_entries, btf, opts);
	err = errno;
	btf__free(btf);
	errno = err;
	return l;
}

void perfbuf_ledger__free(struct perfbuf_ledger *l)
{
	if (!l)
		return;
	if (l->fd >= 0)
		close(l->fd);
	for (size_t k = 0; l->names && k < l->kind_cnt; k++)
		free(l->names[k]);
	free(l->names);
	free(l->cpus);
	free(l->vals);
	free(l->kinds);
	free(l->cpu);
	free(l);
}

/* The map's counts into l->kinds and l->cpu's ledger side, or a
 * negative errno (l left as it was) */
static int ledger_load(struct perfbuf_ledger *l,
		       struct perfbuf_ledger_kind *kinds,
		       struct perfbuf_ledger_cpu *cpu)
{
	for (size_t i = 0; i < l->cpu_cnt; i++)
		cpu[i] = (struct perfbuf_ledger_cpu){
			.sz = sizeof(cpu[i]), .cpu = l->cpus[i] };
	for (__u32 k = 0; k < l->kind_cnt; k++) {
		struct perfbuf_ledger_kind *s = &kinds[k];

		if (bpf_map_lookup_elem(l->fd, &k, l->vals))
			return -errno;
		*s = (struct perfbuf_ledger_kind){ .sz = sizeof(*s) };
		for (size_t i = 0; i < l->cpu_cnt; i++) {
			const struct perfbuf_ledger_value *v = &l->vals[i];

			s->received += v->written;
			s->lost += v->full;
			s->no_reader += v->no_reader;
			s->failed += v->failed;
			cpu[i].written += v->written;
			cpu[i].full += v->full;
			cpu[i].no_reader += v->no_reader;
			cpu[i].failed += v->failed;
		}
		s->offered = s->received + s->lost + s->no_reader + s->failed;
	}
	return 0;
}

/* The index of CPU @cpu among the possible ones, or -1 */
static ssize_t ledger_cpu_idx(const struct perfbuf_ledger *l, int cpu)
{
	for (size_t i = 0; i < l->cpu_cnt; i++)
		if (l->cpus[i] == cpu)
			return i;
	return -1;
}

/* The collector's side into @cpu, and the comparison: the CPUs that
 * disagree, or a negative errno */
static int ledger_check(const struct perfbuf_ledger *l, const struct perfbuf *pb,
			struct perfbuf_ledger_cpu *cpu)
{
	int bad = 0;

	for (size_t r = 0; r < perfbuf__ring_cnt(pb); r++) {
		struct perfbuf_cpu_stats st = { .sz = sizeof(st) };
		ssize_t i = ledger_cpu_idx(l, perfbuf__ring_cpu(pb, r));
		int err = perfbuf__stats(pb, r, &st);

		if (err)
			return err;
		if (i < 0)
			continue;	/* not a possible CPU: never written */
		cpu[i].received += st.samples;
		cpu[i].lost += st.lost_total;
	}
	/* a CPU the collector does not serve: 0 received, 0 lost */
	for (size_t i = 0; i < l->cpu_cnt; i++) {
		cpu[i].checked = true;
		cpu[i].mismatch = cpu[i].written != cpu[i].received ||
				  cpu[i].full != cpu[i].lost;
		if (cpu[i].mismatch) {
			pr_debug("ledger: CPU %d: the program wrote %llu and lost %llu (ring full), the collector received %llu and lost %llu\n",
				 cpu[i].cpu, (unsigned long long)cpu[i].written,
				 (unsigned long long)cpu[i].full,
				 (unsigned long long)cpu[i].received,
				 (unsigned long long)cpu[i].lost);
			bad++;
		}
	}
	return bad;
}

int perfbuf_ledger__read(struct perfbuf_ledger *l, const struct perfbuf *pb)
{
	struct perfbuf_ledger_kind *kinds;
	struct perfbuf_ledger_cpu *cpu;
	int ret = -ENOMEM;

	if (!l)
		return -EINVAL;
	kinds = calloc(l->kind_cnt, sizeof(*kinds));
	cpu = calloc(l->cpu_cnt, sizeof(*cpu));
	if (!kinds || !cpu)
		goto out;
	ret = ledger_load(l, kinds, cpu);
	if (!ret && pb)
		ret = ledger_check(l, pb, cpu);
	if (ret < 0)
		goto out;
	/* all or nothing: a failed read leaves the last good one */
	memcpy(l->kinds, kinds, l->kind_cnt * sizeof(*kinds));
	memcpy(l->cpu, cpu, l->cpu_cnt * sizeof(*cpu));
out:
	free(kinds);
	free(cpu);
	return ret;
}

size_t perfbuf_ledger__kind_cnt(const struct perfbuf_ledger *l)
{
	return l ? l->kind_cnt : 0;
}

const char *perfbuf_ledger__kind_name(const struct perfbuf_ledger *l,
				      size_t kind)
{
	return l && kind < l->kind_cnt ? l->names[kind] : NULL;
}

int perfbuf_ledger__kind(const struct perfbuf_ledger *l, size_t kind,
			 struct perfbuf_ledger_kind *out)
{
	if (!l || kind >= l->kind_cnt)
		return -EINVAL;
	return OUT_COPY(out, &l->kinds[kind]);
}

size_t perfbuf_ledger__cpu_cnt(const struct perfbuf_ledger *l)
{
	return l ? l->cpu_cnt : 0;
}

int perfbuf_ledger__cpu(const struct perfbuf_ledger *l, size_t idx,
			struct perfbuf_ledger_cpu *out)
{
	if (!l || idx >= l->cpu_cnt)
		return -EINVAL;
	return OUT_COPY(out, &l->cpu[idx]);
}
