// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Processes as a tool saw them: each one's executable mappings (from
 * /proc/PID/maps at first sight, then MMAP2 records) and each thread's
 * command name. Kept after the process exits, so its stacks are named at
 * the end of a run all the same.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfbuf.h"
#include "sym.h"

/* ---- a table of u32 keys (pids, tids) to slots, open addressing ---- */

struct idtab {
	__u32 *keys;		/* key + 1; 0: empty */
	void **vals;
	size_t cap, cnt;
};

static size_t id_slot(const struct idtab *t, __u32 key)
{
	size_t i = (key * 2654435761u) & (t->cap - 1);

	while (t->keys[i] && t->keys[i] != key + 1)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static void *id_get(const struct idtab *t, __u32 key)
{
	size_t i;

	if (!t->cap)
		return NULL;
	i = id_slot(t, key);
	return t->keys[i] ? t->vals[i] : NULL;
}

static int id_put(struct idtab *t, __u32 key, void *val)
{
	if ((t->cnt + 1) * 2 > t->cap) {
		struct idtab n = { .cap = t->cap ? t->cap * 2 : 64 };

		n.keys = calloc(n.cap, sizeof(*n.keys));
		n.vals = calloc(n.cap, sizeof(*n.vals));
		if (!n.keys || !n.vals) {
			free(n.keys);
			free(n.vals);
			return -ENOMEM;
		}
		for (size_t i = 0; i < t->cap; i++)
			if (t->keys[i])
				id_put(&n, t->keys[i] - 1, t->vals[i]);
		free(t->keys);
		free(t->vals);
		*t = n;
	}
	size_t i = id_slot(t, key);

	if (!t->keys[i])
		t->cnt++;
	t->keys[i] = key + 1;
	t->vals[i] = val;
	return 0;
}

static void id_free(struct idtab *t, void (*fn)(void *))
{
	for (size_t i = 0; i < t->cap; i++)
		if (t->keys[i] && fn)
			fn(t->vals[i]);
	free(t->keys);
	free(t->vals);
}

/* ---- mappings ---- */

struct map {
	__u64 start, end, pgoff;
	__u32 file;
};

struct pmaps {
	struct map *v;		/* sorted by start, not overlapping */
	size_t n;
	bool loaded;		/* /proc/PID/maps read once */
	__u64 reread_ns;	/* last re-read for an address in no mapping */
};

struct file {
	char *path;
	pid_t pid;		/* a process that mapped it */
	struct sym_elf *elf;	/* its symbols, read when first sampled */
	bool elf_tried;
};

struct sym_maps {
	struct idtab pids;
	struct file *files;
	size_t nfiles, files_cap;
};

struct sym_maps *maps_new(void)
{
	return calloc(1, sizeof(struct sym_maps));
}

static void pmaps_free(void *p)
{
	struct pmaps *pm = p;

	free(pm->v);
	free(pm);
}

void maps_free(struct sym_maps *m)
{
	if (!m)
		return;
	id_free(&m->pids, pmaps_free);
	for (size_t i = 0; i < m->nfiles; i++) {
		free(m->files[i].path);
		elfsyms_free(m->files[i].elf);
	}
	free(m->files);
	free(m);
}

static __u32 file_id(struct sym_maps *m, const char *path, pid_t pid)
{
	struct file *f;

	for (size_t i = m->nfiles; i-- > 0;)
		if (!strcmp(m->files[i].path, path))
			return (__u32)i;
	if (m->nfiles == m->files_cap) {
		size_t cap = m->files_cap ? m->files_cap * 2 : 64;

		f = realloc(m->files, cap * sizeof(*f));
		if (!f)
			return SYM_NO_FILE;
		m->files = f;
		m->files_cap = cap;
	}
	f = &m->files[m->nfiles];
	*f = (struct file){ .path = strdup(path), .pid = pid };
	if (!f->path)
		return SYM_NO_FILE;
	return (__u32)m->nfiles++;
}

const char *maps_file_path(const struct sym_maps *m, __u32 id)
{
	return id < m->nfiles ? m->files[id].path : NULL;
}

/* The symbols of a file, read the first time one of its addresses is
 * sampled: while the process lives, through its root (a container's
 * files), so a file deleted or a process gone by the end of the run does
 * not matter. */
static void file_sampled(struct sym_maps *m, __u32 id)
{
	struct file *f = &m->files[id];
	char path[4200];

	if (f->elf_tried)
		return;
	f->elf_tried = true;
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)f->pid, f->path);
	f->elf = elfsyms_load(path) ?: elfsyms_load(f->path);
}

const struct sym_elf *maps_file_elf(const struct sym_maps *m, __u32 id)
{
	return id < m->nfiles ? m->files[id].elf : NULL;
}

static struct pmaps *pmaps_of(struct sym_maps *m, pid_t pid)
{
	struct pmaps *pm = id_get(&m->pids, (__u32)pid);

	if (pm)
		return pm;
	pm = calloc(1, sizeof(*pm));
	if (pm && id_put(&m->pids, (__u32)pid, pm)) {
		free(pm);
		pm = NULL;
	}
	return pm;
}

static int by_start(const void *a, const void *b)
{
	const struct map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Insert [start, end): what it overlaps is cut away (a new mmap replaces
 * the old pages). */
static void insert(struct pmaps *pm, struct map nm)
{
	struct map *v = malloc((pm->n + 2) * sizeof(*v));
	size_t out = 0;

	if (!v)
		return;
	for (size_t i = 0; i < pm->n; i++) {
		struct map o = pm->v[i];

		if (o.end <= nm.start || o.start >= nm.end) {
			v[out++] = o;
			continue;
		}
		/* the parts outside the new mapping (both: a split) */
		if (o.start < nm.start)
			v[out++] = (struct map){ o.start, nm.start, o.pgoff, o.file };
		if (o.end > nm.end)
			v[out++] = (struct map){ nm.end, o.end,
						 o.pgoff + (nm.end - o.start), o.file };
	}
	v[out++] = nm;
	qsort(v, out, sizeof(*v), by_start);
	free(pm->v);
	pm->v = v;
	pm->n = out;
}

void maps_add(struct sym_maps *m, pid_t pid, __u64 start, __u64 len,
	      __u64 pgoff, const char *path)
{
	struct pmaps *pm = pmaps_of(m, pid);
	__u32 file = path[0] == '/' ? file_id(m, path, pid) : SYM_NO_FILE;

	if (!pm || !len || start + len < start)
		return;
	insert(pm, (struct map){ start, start + len, pgoff, file });
}

void maps_exec(struct sym_maps *m, pid_t pid)
{
	struct pmaps *pm = pmaps_of(m, pid);

	if (!pm)
		return;
	pm->n = 0;		/* the new image's MMAP2 records follow */
	pm->loaded = true;
}

/* /proc/PID/maps: the executable mappings of a running process. */
static void load_proc(struct sym_maps *m, pid_t pid, struct pmaps *pm)
{
	char path[64], line[4096 + 128], perms[8], file[4096];
	unsigned long long start, end, off;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return;		/* gone already: its frames stay hex */
	pm->n = 0;
	while (fgets(line, sizeof(line), f)) {
		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start,
			   &end, perms, &off, file) < 4 || !strchr(perms, 'x'))
			continue;
		/* a file replaced since: the name the kernel shows */
		char *del = strstr(file, " (deleted)");

		if (del)
			*del = '\0';
		maps_add(m, pid, start, end - start, off, file);
	}
	fclose(f);
}

static const struct map *find(const struct pmaps *pm, __u64 addr)
{
	size_t lo = 0, hi = pm->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (pm->v[mid].end <= addr)
			lo = mid + 1;
		else if (pm->v[mid].start > addr)
			hi = mid;
		else
			return &pm->v[mid];
	}
	return NULL;
}

bool maps_resolve(struct sym_maps *m, pid_t pid, __u64 addr, __u32 *file,
		  __u64 *off)
{
	struct pmaps *pm = pmaps_of(m, pid);
	const struct map *mp;

	*file = SYM_NO_FILE;
	*off = addr;
	if (!pm)
		return false;
	if (!pm->loaded) {
		pm->loaded = true;
		load_proc(m, pid, pm);
	}
	mp = find(pm, addr);
	/* a mapping made before the record saying so was read (another
	 * CPU's ring), or by a process seen before it exec'd: read again,
	 * at most every 100 ms (JIT code is in no file at all) */
	if (!mp && perfbuf_now_ns() - pm->reread_ns > 100000000ULL) {
		pm->reread_ns = perfbuf_now_ns();
		load_proc(m, pid, pm);
		mp = find(pm, addr);
	}
	if (!mp || mp->file == SYM_NO_FILE)
		return false;
	file_sampled(m, mp->file);
	*file = mp->file;
	*off = addr - mp->start + mp->pgoff;
	return true;
}

struct sym_frame maps_frame(struct sym_maps *m, pid_t pid, __u64 addr)
{
	struct sym_frame f = { .addr = addr };

	maps_resolve(m, pid, addr, &f.file, &f.off);
	return f;
}

/* ---- command names ---- */

struct sym_comms {
	struct idtab tids;
};

struct sym_comms *comms_new(void)
{
	return calloc(1, sizeof(struct sym_comms));
}

void comms_free(struct sym_comms *c)
{
	if (!c)
		return;
	id_free(&c->tids, free);
	free(c);
}

void comms_set(struct sym_comms *c, __u32 tid, const char *comm)
{
	char *s = id_get(&c->tids, tid);

	if (!s) {
		s = calloc(1, 16);
		if (!s || id_put(&c->tids, tid, s)) {
			free(s);
			return;
		}
	}
	snprintf(s, 16, "%s", comm);
}

const char *comms_get(struct sym_comms *c, __u32 pid, __u32 tid)
{
	char path[64], buf[32] = "";
	const char *s = id_get(&c->tids, tid);
	FILE *f;

	if (s)
		return s;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	comms_set(c, tid, buf[0] ? buf : "[unknown]");
	return id_get(&c->tids, tid) ?: "[unknown]";
}
