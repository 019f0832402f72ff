// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The CAP_META frame: "key=value" lines; unknown keys are skipped, so a
 * newer writer can add some. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "perfbuf.h"
#include "meta.h"

void capture_meta_now(struct cap_meta *m)
{
	struct utsname u;
	struct timespec ts;

	snprintf(m->perfbuf, sizeof(m->perfbuf), "%s", perfbuf_version());
	if (!uname(&u)) {
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
		snprintf(m->machine, sizeof(m->machine), "%s", u.machine);
	}
	if (gethostname(m->host, sizeof(m->host)))
		snprintf(m->host, sizeof(m->host), "unknown");
	m->host[sizeof(m->host) - 1] = '\0';
	snprintf(m->clock, sizeof(m->clock), "monotonic");
	m->start_mono_ns = perfbuf_now_ns();
	clock_gettime(CLOCK_REALTIME, &ts);
	m->start_wall_ns = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

int capture_meta_write(struct cap_writer *w, const struct cap_meta *m)
{
	char buf[4096];
	int n = snprintf(buf, sizeof(buf),
		"perfbuf=%s\nkernel=%s\nmachine=%s\nhost=%s\nclock=%s\n"
		"start_mono_ns=%llu\nstart_wall_ns=%llu\nsample_type=%llu\n"
		"sample_id_all=%d\ncpus=%s\npage_cnt=%d\nring_bytes=%llu\n"
		"mode=%s\noptions=%s\n",
		m->perfbuf, m->kernel, m->machine, m->host, m->clock,
		(unsigned long long)m->start_mono_ns,
		(unsigned long long)m->start_wall_ns,
		(unsigned long long)m->sample_type, m->sample_id_all, m->cpus,
		m->page_cnt, (unsigned long long)m->ring_bytes, m->mode, m->options);

	if (n < 0 || (size_t)n >= sizeof(buf))
		return -E2BIG;
	return cap_writer__put(w, CAP_META, 0, buf, (size_t)n);
}

#define STR(key, field) { key, (m)->field, sizeof((m)->field) }

static void set_meta(struct cap_meta *m, const char *key, const char *val)
{
	const struct { const char *key; char *dst; size_t sz; } strs[] = {
		STR("perfbuf", perfbuf), STR("kernel", kernel),
		STR("machine", machine), STR("host", host),
		STR("clock", clock), STR("cpus", cpus), STR("mode", mode),
		STR("options", options),
	};

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (!strcmp(key, strs[i].key)) {
			snprintf(strs[i].dst, strs[i].sz, "%s", val);
			return;
		}
	if (!strcmp(key, "start_mono_ns"))
		m->start_mono_ns = strtoull(val, NULL, 10);
	else if (!strcmp(key, "start_wall_ns"))
		m->start_wall_ns = strtoull(val, NULL, 10);
	else if (!strcmp(key, "sample_type"))
		m->sample_type = strtoull(val, NULL, 10);
	else if (!strcmp(key, "sample_id_all"))
		m->sample_id_all = atoi(val);
	else if (!strcmp(key, "page_cnt"))
		m->page_cnt = atoi(val);
	else if (!strcmp(key, "ring_bytes"))
		m->ring_bytes = strtoull(val, NULL, 10);
}

int capture_meta_read(struct cap_reader *r, struct cap_meta *m, char *why,
		      size_t why_sz)
{
	struct cap_view v;
	char line[2048];
	int ret;

	memset(m, 0, sizeof(*m));
	cap_reader__rewind(r);
	while ((ret = cap_reader__next(r, &v)) > 0 && v.type != CAP_META)
		;
	if (ret <= 0) {
		snprintf(why, why_sz, "%s", ret < 0 ? cap_reader__error(r) :
			 "the capture has no META frame");
		cap_reader__rewind(r);
		return -EBADMSG;
	}
	for (size_t pos = 0; pos < v.len;) {
		const char *p = (const char *)v.data + pos;
		const char *nl = memchr(p, '\n', v.len - pos);
		size_t n = nl ? (size_t)(nl - p) : v.len - pos;
		char *eq;

		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), p);
		eq = strchr(line, '=');
		if (eq) {
			*eq = '\0';
			set_meta(m, line, eq + 1);
		}
		pos += n + 1;
	}
	cap_reader__rewind(r);
	return 0;
}
