// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What both engines do with what they read: stacks into the table, user
 * frames resolved with the process's mappings of the moment; side-band
 * records into the mappings and command names. */
#include <string.h>

#include "tool.h"

void prof_event_opts(const struct prof_opts *o, struct perfbuf_event_opts *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->sz = sizeof(*ev);
	ev->kind = PERFBUF_EV_SOFTWARE;
	ev->config = PERF_COUNT_SW_CPU_CLOCK;
	ev->sample_freq = o->hz;
}

/* @kips and @uips leaf first, as the kernel gives them; the stack is kept
 * root first: user root .. user leaf, then kernel entry .. kernel leaf. */
int prof_add_stack(struct prof_run *run, __u32 pid, __u32 tid,
		   const char *comm, const __u64 *kips, __u32 nk,
		   const __u64 *uips, __u32 nu)
{
	struct sym_frame f[2 * PROF_MAX_FRAMES];
	__u32 n = 0;

	if (!run->o->kernel)
		nk = 0;
	if (!run->o->user)
		nu = 0;
	nk = nk < PROF_MAX_FRAMES ? nk : PROF_MAX_FRAMES;
	nu = nu < PROF_MAX_FRAMES ? nu : PROF_MAX_FRAMES;
	for (__u32 i = nu; i-- > 0; n++)
		f[n] = maps_frame(run->maps, (pid_t)pid, uips[i]);
	for (__u32 i = nk; i-- > 0; n++)
		f[n] = (struct sym_frame){ SYM_KERNEL_FILE, 0, kips[i] };
	run->counts.samples++;
	return stacks_add(run->stacks, pid, tid, comm, f, n);
}

static void on_comm(struct prof_run *run, const struct perfbuf_sample *s)
{
	comms_set(run->comms, s->rec.comm.tid, s->rec.comm.comm);
	if (s->misc & PERF_RECORD_MISC_COMM_EXEC)
		maps_exec(run->maps, (pid_t)s->rec.comm.pid);
}

void prof_side_band(struct prof_run *run, const struct perfbuf_sample *s)
{
	switch (s->type) {
	case PERF_RECORD_MMAP:		/* executable mappings only */
	case PERF_RECORD_MMAP2:
		maps_add(run->maps, (pid_t)s->rec.mmap.pid, s->rec.mmap.addr,
			 s->rec.mmap.len, s->rec.mmap.pgoff, s->rec.mmap.filename);
		break;
	case PERF_RECORD_COMM:
		on_comm(run, s);
		break;
	}	/* LOST and THROTTLE: counted by the sampler */
}
