// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * record's reader at a real-time priority while it reads. The rings fill
 * at the traced programs' pace; when other jobs share the CPUs, a reader
 * of the normal scheduler waits its turn behind them and the kernel drops
 * what does not fit meanwhile. A SCHED_FIFO reader runs as soon as it is
 * woken, takes the records and sleeps again (it blocks in epoll between
 * drains, so the CPUs stay the other jobs' otherwise; the kernel's RT
 * throttling bounds it anyway). Measured with 4 busy jobs on the reader's
 * CPU (docs/losses.md): the loss a 4x larger ring or a reader per CPU
 * only shrinks or moves, this removes.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "record.h"
#include "common/say.h"

int record_realtime(const char *prog, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	int err;

	if (!prio)
		return 0;
	err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (err)
		cli_say(prog, "reading at SCHED_FIFO priority %d refused (%s): reading at the normal priority; other jobs may delay it into losses (CAP_SYS_NICE or RLIMIT_RTPRIO lifts this; --realtime 0 silences it)\n",
			prio, strerror(err));
	return err ? -err : 0;
}

void record_realtime_end(int prio)
{
	struct sched_param sp = { .sched_priority = 0 };

	if (prio)
		pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
}
