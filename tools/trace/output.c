// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfbuf trace` output: one big buffer written with write(2), so a
 * closed reader shows up as EPIPE (SIGPIPE is ignored) and nothing is
 * allocated or formatted with stdio per event.
 *
 * JSON strings: valid UTF-8 is copied, '"', '\\', control characters and
 * DEL are escaped, and each byte that is not part of valid UTF-8 becomes
 * \u00XX, XX being the byte (its Latin-1 code point), so any byte
 * sequence yields valid JSON and the bytes stay visible.
 * Text strings: printable ASCII as is, anything else as \n, \t, \\ or
 * \xXX, so one event stays one line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

#define OUT_CAP (1 << 20)
#define OUT_ROOM (64 << 10)	/* always free before an event starts */

static struct {
	char *buf;
	size_t len;
	long line;		/* start of the current text line, -1: flushed */
	struct out_opts o;
	int err;		/* first write error, negative errno */
	__u64 ev_buffered;	/* events in buf */
	__u64 ev_written;	/* events written whole */
} out;

int out_init(const struct out_opts *o)
{
	out.o = *o;
	out.buf = malloc(OUT_CAP);
	if (!out.buf)
		return -ENOMEM;
	out.len = 0;
	out.err = 0;
	out.ev_buffered = out.ev_written = 0;
	return 0;
}

void out_free(void)
{
	free(out.buf);
	out.buf = NULL;
}

bool out_is_json(void) { return out.o.json; }
bool out_broken(void) { return out.err != 0; }

/* Whole event lines in buf[0, n): the lines are ours, and only an event
 * starts with a digit (text TIME) or {"type":"event" (JSON). */
static __u64 events_in(const char *buf, size_t n)
{
	const char *p = buf, *end = buf + n, *nl;
	__u64 cnt = 0;

	while ((nl = memchr(p, '\n', end - p))) {
		if (out.o.json ? !strncmp(p, "{\"type\":\"event\"", 15)
			       : *p >= '0' && *p <= '9')
			cnt++;
		p = nl + 1;
	}
	return cnt;
}

int out_flush(void)
{
	size_t done = 0;

	while (done < out.len && !out.err) {
		ssize_t n = write(out.o.fd, out.buf + done, out.len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			out.err = n < 0 ? -errno : -EIO;
		else
			done += n;
	}
	/* after an error the output is dropped: the reader is gone, or the
	 * disk is full (short write, then ENOSPC) */
	out.ev_written += done == out.len ? out.ev_buffered
					  : events_in(out.buf, done);
	out.ev_buffered = 0;
	out.len = 0;
	out.line = -1;
	return out.err;
}

__u64 out_events_written(void) { return out.ev_written; }

void out_mem(const void *p, size_t n)
{
	if (out.len + n > OUT_CAP) {
		out_flush();
		/* records are at most a few KiB: say so, should it change */
		if (n > OUT_CAP) {
			if (!out.err)
				out.err = -EMSGSIZE;
			return;
		}
	}
	memcpy(out.buf + out.len, p, n);
	out.len += n;
}

static inline void out_c(char c)
{
	if (out.len == OUT_CAP)
		out_flush();
	out.buf[out.len++] = c;
}

#define out_lit(s) out_mem(s, sizeof(s) - 1)

void out_u64(__u64 v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930"
		"31323334353637383940414243444546474849505152535455565758596061"
		"6263646566676869707172737475767778798081828384858687888990919293"
		"949596979899";
	char tmp[24], *p = tmp + sizeof(tmp);

	/* two digits per division: numbers are most of an event */
	while (v >= 100) {
		unsigned int d = (unsigned int)(v % 100) * 2;

		v /= 100;
		*--p = pairs[d + 1];
		*--p = pairs[d];
	}
	if (v >= 10) {
		*--p = pairs[v * 2 + 1];
		*--p = pairs[v * 2];
	} else {
		*--p = (char)('0' + v);
	}
	out_mem(p, tmp + sizeof(tmp) - p);
}

void out_s64(__s64 v)
{
	if (v < 0) {
		out_c('-');
		out_u64(-(__u64)v);
	} else {
		out_u64(v);
	}
}

void out_hex(__u64 v)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	out_mem(p, tmp + sizeof(tmp) - p);
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;		/* overlong, surrogate, out of range */
	return len;
}

static void out_u00(unsigned char c)
{
	char e[6] = { '\\', 'u', '0', '0', "0123456789abcdef"[c >> 4],
		      "0123456789abcdef"[c & 15] };

	out_mem(e, sizeof(e));
}

void out_json_str(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0, l;

	out_c('"');
	while (i < n) {
		unsigned char c = s[i];

		/* DEL is valid JSON, but escaped it cannot upset a terminal */
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			run++;
			continue;
		}
		l = c >= 0x80 ? utf8_len(s + i, n - i) : 0;
		if (l) {
			i += l;
			run += l;
			continue;
		}
		out_mem(s + i - run, run);
		run = 0;
		switch (c) {
		case '"': out_lit("\\\""); break;
		case '\\': out_lit("\\\\"); break;
		case '\n': out_lit("\\n"); break;
		case '\t': out_lit("\\t"); break;
		case '\r': out_lit("\\r"); break;
		default: out_u00(c); break;
		}
		i++;
	}
	out_mem(s + i - run, run);
	out_c('"');
}

void out_text_str(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			out_c(c);
			continue;
		}
		switch (c) {
		case '\\': out_lit("\\\\"); break;
		case '\n': out_lit("\\n"); break;
		case '\t': out_lit("\\t"); break;
		default: {
			char e[4] = { '\\', 'x', "0123456789abcdef"[c >> 4],
				      "0123456789abcdef"[c & 15] };
			out_mem(e, sizeof(e));
		}
		}
	}
}

static void out_pad_to(size_t start, size_t width)
{
	while (out.len - start < width)
		out_c(' ');
	out_c(' ');
}

/* @s escaped by out_json_str() between @pre and @post, as a string of its
 * own: rendered in the (still empty) output buffer, then taken out. */
static char *render_json(const char *pre, const char *s, const char *post)
{
	size_t mark = out.len;
	char *r;

	out_mem(pre, strlen(pre));
	out_json_str(s, strlen(s));
	out_mem(post, strlen(post));
	r = strndup(out.buf + mark, out.len - mark);
	out.len = mark;
	return r;
}

int out_prepare(struct probe_set *set)
{
	for (int i = 0; i < set->n; i++) {
		struct trace_probe *p = &set->v[i];

		p->json_head = render_json(",\"probe\":", p->spec, ",\"args\":{");
		if (!p->json_head)
			return -ENOMEM;
		for (int j = 0; j < p->nfields; j++) {
			p->fields[j].json_key = render_json("", p->fields[j].name, ":");
			if (!p->fields[j].json_key)
				return -ENOMEM;
		}
	}
	return 0;
}

void out_header(void)
{
	char line[128];
	int n;

	if (out.o.json)
		return;
	n = snprintf(line, sizeof(line), "%-10s %-3s %-7s %-7s %-16s %s\n",
		     "TIME(s)", "CPU", "PID", "TID", "COMM", "PROBE ARGS");
	out_mem(line, n);
}

static size_t cstrnlen(const char *s, size_t max)
{
	const char *z = memchr(s, '\0', max);

	return z ? (size_t)(z - s) : max;
}

void out_event(const struct trace_probe *p, const struct trace_record *r,
	       size_t sz, int cpu, bool late)
{
	size_t comm_len = cstrnlen(r->comm, sizeof(r->comm)), start;
	__u64 rel;

	if (out.len > OUT_CAP - OUT_ROOM)
		out_flush();
	out.ev_buffered++;
	if (out.o.json) {
		out_lit("{\"type\":\"event\",\"time_ns\":");
		out_u64(r->time_ns);
		out_lit(",\"cpu\":");
		out_s64(cpu);
		if (late)
			out_lit(",\"late\":true");
		out_lit(",\"pid\":");
		out_u64(r->pid);
		out_lit(",\"tid\":");
		out_u64(r->tid);
		out_lit(",\"comm\":");
		out_json_str(r->comm, comm_len);
		out_mem(p->json_head, strlen(p->json_head));
		tp_decode(p, r, sz, true);
		out_lit("}}\n");
		return;
	}
	out.line = out.len;
	rel = r->time_ns > out.o.start_ns ? r->time_ns - out.o.start_ns : 0;
	start = out.len;
	out_u64(rel / 1000000000);
	out_c('.');
	{
		char us[6];
		__u64 v = rel % 1000000000 / 1000;

		for (int i = 5; i >= 0; i--, v /= 10)
			us[i] = '0' + v % 10;
		out_mem(us, sizeof(us));
	}
	if (late)
		out_c('*');
	out_pad_to(start, 10);
	start = out.len;
	out_s64(cpu);
	out_pad_to(start, 3);
	start = out.len;
	out_u64(r->pid);
	out_pad_to(start, 7);
	start = out.len;
	out_u64(r->tid);
	out_pad_to(start, 7);
	start = out.len;
	out_text_str(r->comm, comm_len);
	out_pad_to(start, 16);
	out_mem(p->label, strlen(p->label));
	tp_decode(p, r, sz, false);
	/* keep the line under max_cols; --json has every byte */
	if (out.line >= 0 && out.len - out.line > (size_t)out.o.max_cols) {
		out.len = out.line + out.o.max_cols - 3;
		out_lit("...");
	}
	out_c('\n');
}

void out_lost(int cpu, __u64 count, __u64 time_ns)
{
	if (!out.o.json) {
		fprintf(stderr, "lost %llu events on CPU #%d\n",
			(unsigned long long)count, cpu);
		return;
	}
	out_lit("{\"type\":\"lost\",");
	if (time_ns) {
		out_lit("\"time_ns\":");
		out_u64(time_ns);
		out_c(',');
	}
	out_lit("\"cpu\":");
	out_s64(cpu);
	out_lit(",\"count\":");
	out_u64(count);
	out_lit("}\n");
}

void out_cpu(int cpu, bool online, __u64 time_ns)
{
	if (!out.o.json) {
		fprintf(stderr, "CPU %d %s\n", cpu,
			online ? "came online: traced" : "went offline");
		return;
	}
	out_lit("{\"type\":\"cpu\",\"time_ns\":");
	out_u64(time_ns);
	out_lit(",\"cpu\":");
	out_s64(cpu);
	/* out_lit() takes the size of a literal: one per branch */
	if (online)
		out_lit(",\"online\":true}\n");
	else
		out_lit(",\"online\":false}\n");
}

int out_summary(__u64 received, __u64 lost, const __u64 *per_cpu_recv,
		const __u64 *per_cpu_lost, const int *cpus, size_t n,
		bool to_stderr)
{
	int fd = out.o.fd, err;

	out_flush();
	if (to_stderr || !out.o.json) {
		out.o.fd = 2;
		out.err = 0;
	}
	if (out.o.json) {
		out_lit("{\"type\":\"summary\",\"received\":");
		out_u64(received);
		out_lit(",\"lost\":");
		out_u64(lost);
		out_lit(",\"per_cpu\":[");
		for (size_t i = 0; i < n; i++) {
			if (i)
				out_c(',');
			out_lit("{\"cpu\":");
			out_s64(cpus[i]);
			out_lit(",\"received\":");
			out_u64(per_cpu_recv[i]);
			out_lit(",\"lost\":");
			out_u64(per_cpu_lost[i]);
			out_c('}');
		}
		out_lit("]}\n");
	} else {
		out_lit("\n");
		out_u64(received);
		out_lit(" events received, ");
		out_u64(lost);
		out_lit(" lost\nCPU  RECEIVED       LOST\n");
		for (size_t i = 0; i < n; i++) {
			char line[64];
			int len = snprintf(line, sizeof(line), "%-4d %-14llu %llu\n",
					   cpus[i],
					   (unsigned long long)per_cpu_recv[i],
					   (unsigned long long)per_cpu_lost[i]);
			out_mem(line, len);
		}
	}
	err = out_flush();
	out.o.fd = fd;
	return err;
}
