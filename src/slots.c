// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The collector's slots: one per CPU it serves, the caller's list or every
 * possible CPU the map has a key for, however many (no fixed bound: the
 * lists are read whole, the arrays sized by them); a CPU -> slot map for
 * the hotplug events and the channels; and the channels opened on the
 * CPUs online at the start. Look-ups by CPU number cost the same at 2 and
 * at 8,192 CPUs.
 */
#include <errno.h>
#include <stdlib.h>

#include "collector_priv.h"

static int cpu_set_of(struct cpu_set *set, const int *list, int n)
{
	int max = -1;

	for (int i = 0; i < n; i++)
		if (list[i] > max)
			max = list[i];
	set->span = (size_t)(max + 1);
	set->in = calloc(set->span ?: 1, 1);
	if (!set->in)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		if (list[i] >= 0)
			set->in[list[i]] = 1;
	return 0;
}

static bool cpu_set_has(const struct cpu_set *set, int cpu)
{
	return cpu >= 0 && (size_t)cpu < set->span && set->in[cpu];
}

/* Room for @cnt slots and what is kept per slot. */
static int slots_alloc(struct perfbuf *pb, size_t cnt)
{
	pb->slots = calloc(cnt, sizeof(*pb->slots));
	pb->open = calloc(cnt, sizeof(*pb->open));
	pb->dirty = calloc(cnt, sizeof(*pb->dirty));
	pb->ready = calloc(cnt + EXTRA_EVENTS, sizeof(*pb->ready));
	pb->events = calloc(cnt + EXTRA_EVENTS, sizeof(*pb->events));
	return pb->slots && pb->open && pb->dirty && pb->ready && pb->events ?
	       0 : -ENOMEM;
}

/* The CPU -> slot map, once the slots are known; -EINVAL for a CPU
 * listed twice. */
static int map_slots(struct perfbuf *pb)
{
	int max = -1;

	for (size_t i = 0; i < pb->cnt; i++)
		if (pb->slots[i].cpu > max)
			max = pb->slots[i].cpu;
	pb->cpu_span = (size_t)(max + 1);
	pb->slot_of = calloc(pb->cpu_span ?: 1, sizeof(*pb->slot_of));
	if (!pb->slot_of)
		return -ENOMEM;
	for (size_t i = 0; i < pb->cnt; i++) {
		int cpu = pb->slots[i].cpu;

		if (pb->slot_of[cpu]) {
			pr_warn("CPU %d is listed twice\n", cpu);
			return -EINVAL;
		}
		pb->slot_of[cpu] = (unsigned int)i + 1;
	}
	return 0;
}

/* The caller's CPUs, each of which must be online now. */
static int slots_from_list(struct perfbuf *pb, const int *want, size_t cnt,
			   __u32 max_entries)
{
	int err;

	if (!cnt)
		return -EINVAL;
	err = slots_alloc(pb, cnt);
	if (err)
		return err;
	for (size_t i = 0; i < cnt; i++) {
		if (want[i] < 0 || (__u32)want[i] >= max_entries) {
			pr_warn("CPU %d is outside the map (max_entries %u)\n",
				want[i], max_entries);
			return -E2BIG;
		}
		pb->slots[pb->cnt++].cpu = want[i];
	}
	return 0;
}

/* Every possible CPU the map has a key for (only the online ones when
 * not following hotplug): as many slots as there are, no fixed bound. */
static int slots_from_system(struct perfbuf *pb, __u32 max_entries,
			     bool hotplug, const struct cpu_set *online)
{
	int *possible = NULL, n_pos, err;
	size_t clamped = 0;

	n_pos = perfbuf_cpus_possible_alloc(&possible);
	if (n_pos < 0) {
		pr_warn("cannot read the possible CPUs: %s\n", strerror(-n_pos));
		return n_pos;
	}
	err = slots_alloc(pb, (size_t)n_pos);
	for (int i = 0; !err && i < n_pos; i++) {
		int cpu = possible[i];

		if ((__u32)cpu >= max_entries)
			clamped++;
		else if (hotplug || !online->span || cpu_set_has(online, cpu))
			pb->slots[pb->cnt++].cpu = cpu;
	}
	if (clamped)
		pr_warn("map max_entries %u is smaller than the %d possible CPUs: %zu CPUs get no ring and their records fail with -E2BIG\n",
			max_entries, n_pos, clamped);
	if (!err && !pb->cnt) {
		pr_warn("no usable CPU for the map\n");
		err = -ENODEV;
	}
	free(possible);
	return err;
}

/* Open a channel on every slot whose CPU is online. */
int collector_open_slots(struct perfbuf *pb, const struct cpu_set *online,
			 bool explicit)
{
	for (size_t i = 0; i < pb->cnt; i++) {
		struct slot *s = &pb->slots[i];
		int err;

		if (!explicit && online->span && !cpu_set_has(online, s->cpu))
			continue;
		s->ch = calloc(1, sizeof(*s->ch));
		if (!s->ch)
			return -ENOMEM;
		err = channel_open(s->ch, s->cpu, &pb->cfg);
		if (err == -ENODEV && !explicit) {
			/* went offline since the list was read: hotplug
			 * brings it back when it returns */
			channel_close(s->ch, &pb->cfg);
			free(s->ch);
			s->ch = NULL;
			continue;
		}
		if (err == -ENODEV)
			pr_warn("CPU %d is offline: leave it out of the CPU list\n",
				s->cpu);
		if (!err && pb->merge)
			err = perfbuf_merge__add(pb->merge, s->ch->ring);
		if (err)
			return err;
		pb->open[pb->open_cnt++] = i;
	}
	if (!pb->open_cnt) {
		pr_warn("no online CPU for the map\n");
		return -ENODEV;
	}
	if (pb->open_cnt < pb->cnt)
		pr_debug("%zu offline CPUs: their rings open when they come online\n",
			 pb->cnt - pb->open_cnt);
	return 0;
}

int collector_slots(struct perfbuf *pb, const struct perfbuf_opts *opts,
		    __u32 max_entries, struct cpu_set *online)
{
	const int *want = OPTS_GET(opts, cpus, NULL);
	int *list = NULL, n_on, err;

	n_on = perfbuf_cpus_online_alloc(&list);
	if (n_on == -ENOMEM)
		return n_on;
	/* unreadable: an empty set, every CPU assumed online */
	err = n_on > 0 ? cpu_set_of(online, list, n_on) : 0;
	free(list);
	if (!err)
		err = want ? slots_from_list(pb, want, OPTS_GET(opts, cpu_cnt, 0),
					     max_entries) :
			     slots_from_system(pb, max_entries,
					       !OPTS_GET(opts, no_hotplug, false),
					       online);
	return err ?: map_slots(pb);
}
