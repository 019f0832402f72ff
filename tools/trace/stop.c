// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The end of `perfbuf trace`: stop the flow of events at once, so the
 * drain and the summary come first; then detach, which can take long.
 *
 * Detaching a tracepoint's perf event makes the kernel wait for RCU grace
 * periods (tracepoint_synchronize_unregister() under event_mutex): about
 * 40 ms per tracepoint on 6.18, one tracepoint at a time, whoever closes;
 * a uprobe's perf event waits for its unregister too, ~80 ms (uprobes are
 * in uprobe_multi links where the kernel has them: umulti.c). The BPF link
 * in front of it detaches in parallel, so links are destroyed from
 * several threads; raw tracepoint links cost nothing. A signal while
 * detaching leaves the rest to the kernel: a child process keeps the open
 * files, waits until we are gone and exits, and the kernel closes them;
 * our own closes then only drop references and take no time.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "perfbuf.h"
#include "common/say.h"
#include "stop.h"
#include "trace.skel.h"

#define DETACH_THREADS 16

int trace_stop(struct trace *skel)
{
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(skel->maps.nest);
	__u32 zero = 0, one = 1;
	__u64 end;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	__u32 depth[ncpu * 2];	/* per-CPU values are 8-byte slots */

	if (bpf_map_update_elem(bpf_map__fd(skel->maps.stop), &zero, &one, BPF_ANY))
		return -errno;
	atomic_thread_fence(memory_order_seq_cst);
	/* every program that took a buffer before seeing the flag is done
	 * when every CPU's count is 0; a preempted one takes microseconds */
	end = perfbuf_now_ns() + 1000000000ULL;
	while (perfbuf_now_ns() < end) {
		bool busy = false;

		memset(depth, 0, sizeof(depth));	/* valgrind knows 4 of its bytes */
		if (bpf_map_lookup_elem(fd, &zero, depth))
			return -errno;
		for (int i = 0; i < ncpu; i++)
			busy |= depth[i * 2] != 0;
		if (!busy)
			return 0;
		usleep(1000);
	}
	return -ETIMEDOUT;
}

struct detach {
	struct bpf_link **links;
	int n;
	atomic_int next, done;
	atomic_bool cancel;
};

static void *detach_worker(void *arg)
{
	struct detach *d = arg;

	while (!atomic_load(&d->cancel)) {
		int i = atomic_fetch_add(&d->next, 1);

		if (i >= d->n)
			break;
		bpf_link__destroy(d->links[i]);
		d->links[i] = NULL;
		atomic_fetch_add(&d->done, 1);
	}
	return NULL;
}

/*
 * The child that outlives us holding every open file: once we are gone
 * (its parent changes), it exits and the kernel closes them. Its stdio
 * goes to /dev/null, so a reader of our output sees its end now.
 */
static pid_t leave_to_kernel(void)
{
	pid_t parent = getpid(), pid = fork();
	int null;

	if (pid)
		return pid;
	null = open("/dev/null", O_RDWR);
	for (int fd = 0; fd < 3; fd++)
		dup2(null, fd);
	setsid();
	while (getppid() == parent)
		usleep(10000);
	_exit(0);
}

/* What the kernel waits for, in the line said before a long detach */
static void say_cost(const char *prog, int n, const struct detach_cost *c, int ms)
{
	char why[96] = "";
	size_t len;

	if (c->tracepoints)
		snprintf(why, sizeof(why), "~%d ms per tracepoint", DETACH_MS_PER_TP);
	len = strlen(why);
	if (c->uprobes)
		snprintf(why + len, sizeof(why) - len, "%s~%d ms per uprobe",
			 len ? ", " : "", DETACH_MS_PER_UPROBE);
	cli_say(prog, "detaching %d probes, about %d s (the kernel waits %s); Ctrl-C leaves it to the kernel\n",
		n, (ms + 999) / 1000, why);
}

/* Every 0.1 s until @d is done or a signal comes: "detaching: N of M" on a
 * terminal; a line after 1 s if none was said before. Was one said? */
static bool wait_done(const char *prog, struct detach *d, bool told,
		      volatile sig_atomic_t *signals)
{
	sig_atomic_t sig0 = signals ? *signals : 0;
	bool tty = signals && isatty(2);
	__u64 t0 = perfbuf_now_ns();

	while (atomic_load(&d->done) < d->n) {
		usleep(100000);
		if (signals && *signals != sig0) {
			atomic_store(&d->cancel, true);
			break;
		}
		if (signals && !told && perfbuf_now_ns() - t0 >= 1000000000ULL) {
			cli_say(prog, "detaching %d probes: %d left after 1 s (the kernel waits for RCU grace periods per probe); Ctrl-C leaves it to the kernel\n",
				d->n, d->n - atomic_load(&d->done));
			told = true;
		}
		if (tty && told)
			fprintf(stderr, "\rdetaching: %d of %d", atomic_load(&d->done), d->n);
	}
	if (tty && told)
		fputs("\r\033[K", stderr);
	return told;
}

int links_destroy(const char *prog, struct bpf_link **links, int n,
		  const struct detach_cost *cost, volatile sig_atomic_t *signals)
{
	struct detach d = { .links = links, .n = n };
	pthread_t th[DETACH_THREADS];
	int nth = n < DETACH_THREADS ? n : DETACH_THREADS, started = 0;
	int ms = cost->tracepoints * DETACH_MS_PER_TP + cost->uprobes * DETACH_MS_PER_UPROBE;
	bool tell = signals && ms >= 1000;
	__u64 t0 = perfbuf_now_ns();
	pid_t child;

	if (tell)
		say_cost(prog, n, cost, ms);
	for (int i = 0; i < nth; i++)
		started += !pthread_create(&th[started], NULL, detach_worker, &d);
	if (!started)
		detach_worker(&d);	/* no threads: one at a time */
	else
		tell = wait_done(prog, &d, tell, signals);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (!atomic_load(&d.cancel)) {
		if (tell)
			cli_say(prog, "detached %d probes in %.1f s\n", n,
				(perfbuf_now_ns() - t0) / 1e9);
		return 0;
	}
	child = leave_to_kernel();
	if (child < 0)
		cli_say(prog, "cannot leave the detaching to the kernel (fork: %s); finishing it here\n",
			strerror(errno));
	else
		cli_say(prog, "leaving %d probes for the kernel to detach (process %d exits when it is done)\n",
			n - atomic_load(&d.done), (int)child);
	/* the child holds every file now: our closes only drop references */
	atomic_store(&d.cancel, false);
	detach_worker(&d);
	return child > 0;
}
