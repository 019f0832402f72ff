/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perf_event_open(2), its ioctls and counter reads: what the collector,
 * the sampler and the channels use inside the library (perf_event.c). Not
 * exported since 4.0 (only perfbuf_event__attr() is, perf_event.h); not
 * installed. The tests call them by linking the library's objects.
 */
#ifndef PERFBUF_PERF_EVENT_PRIV_H
#define PERFBUF_PERF_EVENT_PRIV_H

#include "perfbuf/perf_event.h"

/* One counter value as read(2) returns it, with the scaled estimate
 * value * time_enabled / time_running for multiplexed counters. The
 * caller sets @sz (see common.h). */
struct perfbuf_count {
	size_t sz;
	__u64 value;
	__u64 time_enabled;	/* when PERF_FORMAT_TOTAL_TIME_ENABLED */
	__u64 time_running;	/* when PERF_FORMAT_TOTAL_TIME_RUNNING */
	__u64 id;		/* when PERF_FORMAT_ID */
	__u64 lost;		/* when PERF_FORMAT_LOST (kernel >= 6.0) */
	double scaled;
};

/**
 * @brief The raw perf_event_open(2) system call.
 * @return a file descriptor (O_CLOEXEC), or a negative errno. On -E2BIG the
 *         kernel wrote the attr size it supports into attr->size and the
 *         library logs it: a requested feature is newer than the kernel.
 */
int perfbuf_event__open_attr(struct perf_event_attr *attr,
					pid_t pid, int cpu, int group_fd,
					unsigned long flags);

/**
 * @brief perfbuf_event__attr() then perfbuf_event__open_attr().
 * @param pid  -1 for every task (with @cpu >= 0), 0 for the caller
 * @param cpu  -1 for any CPU the task runs on
 * @param group_fd -1, or the leader of the group to join
 */
int perfbuf_event__open(const struct perfbuf_event_opts *opts,
				   pid_t pid, int cpu, int group_fd);

/* The ioctls, each returning 0 (or a value) or a negative errno. @group
 * applies the operation to the whole group the event leads. */
int perfbuf_event__enable(int fd, bool group);
int perfbuf_event__disable(int fd, bool group);
int perfbuf_event__reset(int fd, bool group);
int perfbuf_event__refresh(int fd, int count);
int perfbuf_event__set_period(int fd, __u64 period);
int perfbuf_event__set_output(int fd, int target_fd);
int perfbuf_event__set_filter(int fd, const char *filter);
int perfbuf_event__id(int fd, __u64 *id);
int perfbuf_event__set_bpf(int fd, int prog_fd);
int perfbuf_event__pause_output(int fd, bool pause);
/* @ids has room for *@cnt ids; on return *@cnt is the number attached */
int perfbuf_event__query_bpf(int fd, __u32 *ids, __u32 *cnt);
int perfbuf_event__modify_attributes(int fd,
					      struct perf_event_attr *attr);

/**
 * @brief Read one counter opened with @read_format (no PERF_FORMAT_GROUP).
 */
int perfbuf_event__read(int fd, __u64 read_format,
				   struct perfbuf_count *out);

/**
 * @brief Read a group through its leader (read_format has PERF_FORMAT_GROUP).
 * @param out room for @cnt members, each with its sz set: the array's
 *        stride is out[0].sz
 * @return the number of members read, or a negative errno (-ENOSPC when the
 *         group has more than @cnt members, -EIO when read(2) returned less
 *         than @read_format describes: it is not the event's)
 */
int perfbuf_event__read_group(int leader_fd, __u64 read_format,
				   struct perfbuf_count *out, size_t cnt);

#endif
