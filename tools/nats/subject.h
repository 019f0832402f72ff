/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * NATS subjects (subject.c): the --subject template filled in, checked,
 * and matched against a stream's subjects. A subject is tokens joined
 * by '.'; a filter may hold '*' (one token) and, last, '>' (the rest).
 */
#ifndef PERFBUF_NATS_SUBJECT_H
#define PERFBUF_NATS_SUBJECT_H

#include <stdbool.h>

/* @tmpl with {host} and {probe} filled in: the host name as one token,
 * the probe spec as tokens (its ':' become '.': tracepoint.sched.
 * sched_switch); in both, '.', '*', '>' and blanks become '_'. A string
 * of its own, or NULL (ENOMEM). */
char *nats_subject_expand(const char *tmpl, const char *host,
			  const char *probe);
/* NULL if @subj is a valid subject (a filter if @filter), else why not. */
const char *nats_subject_invalid(const char *subj, bool filter);
/* Does filter @f match subject @s? */
bool nats_subject_match(const char *f, const char *s);
/* A new stream's subjects for @tmpl: its tokens before the first one
 * with a '{', then '>' ("perfbuf.>"); the template itself if it has no
 * '{'. NULL (ENOMEM), or "" when the template starts with a '{'. */
char *nats_subject_stream_default(const char *tmpl);

#endif
