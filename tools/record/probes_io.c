// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probes of a capture: what `perfbuf report` needs to decode records
 * as `perfbuf trace` would, without tracefs or the traced machine. One
 * CAP_PROBES frame lists the probes in the order of their index (the
 * records' cookie), a block of "key value" lines each; every tracepoint's
 * format file follows in a CAP_FORMAT frame ("CAT:NAME\n" then the file).
 * Reading them back builds the same probe set: tracepoint fields from the
 * saved format files, by the same parser.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes_io.h"
#include "trace/args.h"
#include "trace/format.h"
#include "trace/tracefs.h"

static const char *const kind_name[] = {
	[PK_TRACEPOINT] = "tracepoint", [PK_RAWTP] = "rawtracepoint",
	[PK_KPROBE] = "kprobe", [PK_KRETPROBE] = "kretprobe",
	[PK_FENTRY] = "fentry", [PK_FEXIT] = "fexit",
	[PK_UPROBE] = "uprobe", [PK_URETPROBE] = "uretprobe",
};
#define N_KINDS (sizeof(kind_name) / sizeof(kind_name[0]))

static void put_probe(FILE *f, const struct trace_probe *p)
{
	fprintf(f, "probe %s\nspec %s\nlabel %s\n", kind_name[p->kind],
		p->spec, p->label ? p->label : "");
	if (p->target)
		fprintf(f, "target %s\n", p->target);
	if (p->path)
		fprintf(f, "path %s\n", p->path);
	fprintf(f, "offset %lu\nnargs %d\n", p->offset, p->nargs);
	/* a sys_exit_X paired with its entry: where its duration_ns is (a
	 * typed probe's is among its fields) */
	if (p->kind == PK_TRACEPOINT && p->cfg.lat == TRACE_LAT_RETURN)
		fprintf(f, "duration %u\n", p->cfg.lat_off);
	kfunc_fields_write(f, p);	/* a function's typed arguments */
	fputs("end\n", f);
}

/* The format file of tracepoint @p, from tracefs, in a CAP_FORMAT frame. */
static int put_format(struct cap_writer *w, const struct trace_probe *p)
{
	char path[512], *buf = NULL;
	const char *colon = strchr(p->target, ':');
	size_t len = 0;
	FILE *in, *out;
	int c, err;

	snprintf(path, sizeof(path), "%s/events/%.*s/%s/format", tracefs_path(),
		 (int)(colon - p->target), p->target, colon + 1);
	in = fopen(path, "re");
	if (!in)
		return -errno;
	out = open_memstream(&buf, &len);
	if (!out) {
		fclose(in);
		return -ENOMEM;
	}
	fprintf(out, "%s\n", p->target);
	while ((c = getc(in)) != EOF)
		putc(c, out);
	fclose(in);
	err = fclose(out) ? -ENOMEM : 0;
	if (!err)
		err = cap_writer__put(w, CAP_FORMAT, 0, buf, len);
	free(buf);
	return err;
}

int capture_probes_write(struct cap_writer *w, const struct probe_set *set)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return -ENOMEM;
	for (int i = 0; i < set->n; i++)
		put_probe(f, &set->v[i]);
	err = fclose(f) ? -ENOMEM : 0;
	if (!err)
		err = cap_writer__put(w, CAP_PROBES, 0, buf, len);
	free(buf);
	for (int i = 0; !err && i < set->n; i++)
		if (set->v[i].kind == PK_TRACEPOINT)
			err = put_format(w, &set->v[i]);
	return err;
}

static int kind_of(const char *name)
{
	for (size_t k = 0; k < N_KINDS; k++)
		if (kind_name[k] && !strcmp(kind_name[k], name))
			return (int)k;
	return -1;
}

const char *capture_format_find(struct cap_reader *r, const char *target,
				size_t *len)
{
	size_t tl = strlen(target);
	struct cap_view v;

	cap_reader__rewind(r);
	while (cap_reader__next(r, &v) > 0) {
		if (v.type != CAP_FORMAT || v.len <= tl ||
		    memcmp(v.data, target, tl) || ((const char *)v.data)[tl] != '\n')
			continue;
		*len = v.len - tl - 1;
		return (const char *)v.data + tl + 1;
	}
	return NULL;
}

static int load_format(struct cap_reader *r, struct trace_probe *p,
		       char *why, size_t why_sz)
{
	size_t len;
	const char *text = p->target ? capture_format_find(r, p->target, &len) : NULL;
	FILE *f;
	int err;

	if (!text) {
		snprintf(why, why_sz, "the capture has no format file for tracepoint %s",
			 p->target ? p->target : "(unnamed)");
		return -EBADMSG;
	}
	f = fmemopen((void *)text, len, "r");
	if (!f)
		return -errno;
	err = tp_format_parse(p, f);
	fclose(f);
	if (err)
		snprintf(why, why_sz, "the format file of %s does not parse: %s",
			 p->target, strerror(-err));
	else if (p->cfg.lat_off)
		err = probe_duration_field(p, p->cfg.lat_off);
	return err;
}

/* One "key value" line into probe @p (the current one). */
static int set_key(struct trace_probe *p, const char *key, const char *val)
{
	char **slot = !strcmp(key, "spec") ? &p->spec :
		      !strcmp(key, "label") ? &p->label :
		      !strcmp(key, "target") ? &p->target :
		      !strcmp(key, "path") ? &p->path : NULL;

	if (!strcmp(key, "typed") || !strcmp(key, "field") || !strcmp(key, "fieldname") ||
	    !strcmp(key, "fieldfault"))
		return kfunc_fields_read(p, key, val);
	if (slot) {
		free(*slot);
		*slot = strdup(val);
		return *slot ? 0 : -ENOMEM;
	}
	if (!strcmp(key, "offset"))
		p->offset = strtoul(val, NULL, 10);
	else if (!strcmp(key, "nargs"))
		p->nargs = atoi(val);
	else if (!strcmp(key, "duration"))
		p->cfg.lat_off = strtoul(val, NULL, 10) & 0x38;	/* as BPF masks it */
	/* keys of a newer writer: ignored */
	return 0;
}

static int parse_probes(struct probe_set *set, char *text, char *why,
			size_t why_sz)
{
	struct trace_probe *p = NULL;
	char *save, *line;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *val = strchr(line, ' ');
		int kind, err;

		if (val)
			*val++ = '\0';
		if (!strcmp(line, "probe")) {
			/* said here: probe_new() would say it as trace does */
			if (set->n >= TRACE_MAX_PROBES) {
				snprintf(why, why_sz, "the capture lists more than %d probes, more than perfbuf takes",
					 TRACE_MAX_PROBES);
				return -EBADMSG;
			}
			kind = val ? kind_of(val) : -1;
			if (kind < 0) {
				snprintf(why, why_sz, "unknown probe kind '%s' in the capture",
					 val ? val : "");
				return -EBADMSG;
			}
			p = probe_new(set, (enum probe_kind)kind);
			if (!p)
				return -ENOMEM;
		} else if (!strcmp(line, "end")) {
			p = NULL;
		} else if (p && val && (err = set_key(p, line, val))) {
			if (err == -EBADMSG)
				snprintf(why, why_sz, "a malformed '%s' line in probe %s of the capture",
					 line, p->spec ? p->spec : "(no spec yet)");
			return err;
		}
	}
	return 0;
}

int capture_probes_read(struct cap_reader *r, struct probe_set *set,
			char *why, size_t why_sz)
{
	struct cap_view v;
	char *text = NULL;
	int err = 0;

	cap_reader__rewind(r);
	while (!text && cap_reader__next(r, &v) > 0)
		if (v.type == CAP_PROBES && (text = malloc(v.len + 1))) {
			memcpy(text, v.data, v.len);
			text[v.len] = '\0';
		}
	if (!text) {
		snprintf(why, why_sz, "the capture lists no probes");
		return -EBADMSG;
	}
	err = parse_probes(set, text, why, why_sz);
	free(text);
	for (int i = 0; !err && i < set->n; i++) {
		struct trace_probe *p = &set->v[i];

		if (!p->spec) {
			snprintf(why, why_sz, "probe %d of the capture has no spec", i);
			err = -EBADMSG;
		} else if (!p->label && !(p->label = strdup(strrchr(p->spec, ':') ?
							  strrchr(p->spec, ':') + 1 : p->spec))) {
			err = -ENOMEM;	/* no label line: the spec's last part */
		} else if (p->kind == PK_TRACEPOINT) {
			err = load_format(r, p, why, why_sz);
		}
	}
	cap_reader__rewind(r);
	return err;
}
