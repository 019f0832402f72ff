// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An interactive flame graph in one SVG file: the stacks merged into a
 * tree (all -> command -> root frame -> ... -> leaf), each node a box as
 * wide as its share of the samples, children above their parent. The
 * boxes are placed here, so the file shows without scripts; the embedded
 * script adds zoom (click a box; Esc or the "Reset zoom" text to undo),
 * search (Ctrl-F or "Search": a regular expression, matches in magenta,
 * their share of the samples shown), the hovered box's details, and
 * FILE.svg#zoom=NAME to open zoomed on a function.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

#define WIDTH 1200
#define PAD 10
#define ROW 16		/* px per stack level */
#define TOP 44		/* title and controls */
#define BOTTOM 24	/* details line */
#define MIN_PX 1.0	/* narrower boxes are left out: unseen, and the
			 * file stays small */

struct node {
	const char *name;
	__u64 value;
	struct node **kids;
	__u32 nkids, cap;
	unsigned char kind;	/* 0 all, 1 command, 2 user, 3 kernel */
};

static void node_free(struct node *n)
{
	for (__u32 i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n);
}

static struct node *child(struct node *n, const char *name, unsigned char kind)
{
	struct node *c;

	for (__u32 i = 0; i < n->nkids; i++)
		if (n->kids[i]->kind == kind && !strcmp(n->kids[i]->name, name))
			return n->kids[i];
	if (n->nkids == n->cap) {
		__u32 cap = n->cap ? n->cap * 2 : 4;
		struct node **k = realloc(n->kids, cap * sizeof(*k));

		if (!k)
			return NULL;
		n->kids = k;
		n->cap = cap;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->name = name;
	c->kind = kind;
	n->kids[n->nkids++] = c;
	return c;
}

static struct node *build(struct prof_run *run, struct sym_names *names,
			  __u32 *depth)
{
	struct node *root = calloc(1, sizeof(*root));

	if (!root)
		return NULL;
	root->name = "all";
	*depth = 1;
	for (size_t i = 0; i < stacks_cnt(run->stacks); i++) {
		struct prof_stack *st = stacks_get(run->stacks, i);
		struct node *n = child(root, st->comm, 1);

		for (__u32 j = 0; n && j < st->nframes; j++) {
			n->value += st->count;
			n = child(n, names_frame(names, &st->frames[j]),
				  st->frames[j].file == SYM_KERNEL_FILE ? 3 : 2);
		}
		if (!n) {
			node_free(root);
			return NULL;
		}
		n->value += st->count;
		root->value += st->count;
		if (st->nframes + 2 > *depth)
			*depth = st->nframes + 2;
	}
	return root;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct node *const *)a)->name,
		      (*(struct node *const *)b)->name);
}

/* XML text: printable ASCII, the five entities; other bytes as '?' */
static void xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(c >= 0x20 && c < 0x7f ? c : '?', f);
		}
	}
}

static void color(const struct node *n, char *buf, size_t sz)
{
	unsigned h = 2166136261u;

	for (const char *p = n->name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0,
	       v3 = ((h >> 16) & 0xff) / 255.0;

	if (n->kind == 3)	/* kernel: blue-green */
		snprintf(buf, sz, "rgb(%d,%d,%d)", (int)(60 + 50 * v1),
			 (int)(170 + 50 * v2), (int)(170 + 50 * v3));
	else if (n->kind == 2)	/* user: warm, as flamegraph.pl */
		snprintf(buf, sz, "rgb(%d,%d,%d)", (int)(205 + 50 * v3),
			 (int)(230 * v1), (int)(55 * v2));
	else
		snprintf(buf, sz, "rgb(%d,%d,%d)", 190 + (int)(20 * v1),
			 190 + (int)(20 * v1), 200 + (int)(20 * v1));
}

/* One box and its children; @x0 in samples from the left. */
static void box(FILE *f, struct node *n, __u64 x0, __u32 d, __u64 total,
		int height)
{
	double scale = (double)(WIDTH - 2 * PAD) / (double)total;
	double x = PAD + (double)x0 * scale, w = (double)n->value * scale;
	int y = height - BOTTOM - (int)(d + 1) * ROW;
	int chars = (int)((w - 6) / 7);
	size_t len = strlen(n->name);
	char fill[48];

	if (w < MIN_PX)
		return;
	color(n, fill, sizeof(fill));
	fprintf(f, "<g class=\"f\" data-x=\"%.8f\" data-w=\"%.8f\" data-d=\"%u\"><title>",
		(double)x0 / (double)total, (double)n->value / (double)total, d);
	xml(f, n->name);
	fprintf(f, " (%llu samples, %.2f%%)</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"2\"/><text x=\"%.1f\" y=\"%d\">",
		(unsigned long long)n->value, 100.0 * (double)n->value / (double)total,
		x, y, w, ROW - 1, fill, x + 3, y + ROW - 5);
	if (chars >= 3 && len <= (size_t)chars) {
		xml(f, n->name);
	} else if (chars >= 3) {
		char cut[256];

		snprintf(cut, sizeof(cut), "%.*s..", chars - 2 < 250 ? chars - 2 : 250,
			 n->name);
		xml(f, cut);
	}
	fputs("</text></g>\n", f);
	if (n->nkids)
		qsort(n->kids, n->nkids, sizeof(*n->kids), by_name);
	for (__u32 i = 0; i < n->nkids; i++) {
		box(f, n->kids[i], x0, d + 1, total, height);
		x0 += n->kids[i]->value;
	}
}

/* Zoom, search and details; the boxes carry their place as fractions of
 * the samples (data-x, data-w) and their level (data-d). */
static const char script[] =
"<script type=\"text/ecmascript\"><![CDATA[\n"
"var W = %d, PAD = %d, frames = [], details, matched, zoomed = null;\n"
"function num(g, a) { return parseFloat(g.getAttribute(a)); }\n"
"function label(g, w) {\n"
"  var t = g.querySelector('text'), name = g.querySelector('title').textContent;\n"
"  var n = Math.floor((w - 6) / 7);\n"
"  name = name.replace(/ \\([0-9]+ samples, [0-9.]+%%\\)$/, '');\n"
"  t.textContent = n < 3 ? '' : name.length <= n ? name : name.slice(0, n - 2) + '..';\n"
"}\n"
"function place(g, x, w) {\n"
"  var r = g.querySelector('rect'), t = g.querySelector('text');\n"
"  r.setAttribute('x', x); r.setAttribute('width', w); t.setAttribute('x', x + 3);\n"
"  label(g, w); g.style.display = w < 0.3 ? 'none' : '';\n"
"}\n"
"function zoom(g) {\n"
"  var x0 = g ? num(g, 'data-x') : 0, w0 = g ? num(g, 'data-w') : 1;\n"
"  var d0 = g ? num(g, 'data-d') : 0, span = W - 2 * PAD;\n"
"  zoomed = g;\n"
"  frames.forEach(function (f) {\n"
"    var x = num(f, 'data-x'), w = num(f, 'data-w'), d = num(f, 'data-d');\n"
"    var e = 1e-9;\n"
"    if (d < d0 && x <= x0 + e && x + w >= x0 + w0 - e) {\n"
"      place(f, PAD, span); f.style.opacity = 0.5;\n"
"    } else if (x >= x0 - e && x + w <= x0 + w0 + e) {\n"
"      place(f, PAD + (x - x0) / w0 * span, w / w0 * span); f.style.opacity = 1;\n"
"    } else {\n"
"      f.style.display = 'none';\n"
"    }\n"
"  });\n"
"  document.getElementById('unzoom').style.opacity = g ? 1 : 0.3;\n"
"}\n"
"function search() {\n"
"  var re = prompt('Search frames (a regular expression):', '');\n"
"  var pct = 0, seen = [];\n"
"  if (re === null) return;\n"
"  try { re = new RegExp(re); } catch (e) { alert(e); return; }\n"
"  frames.forEach(function (f) {\n"
"    var r = f.querySelector('rect'), name = f.querySelector('title').textContent;\n"
"    if (!r.getAttribute('data-fill')) r.setAttribute('data-fill', r.getAttribute('fill'));\n"
"    var hit = re.source !== '' && re.test(name.replace(/ \\(.*$/, ''));\n"
"    r.setAttribute('fill', hit ? 'rgb(230,0,230)' : r.getAttribute('data-fill'));\n"
"    if (!hit) return;\n"
"    var x = num(f, 'data-x'), w = num(f, 'data-w');\n"
"    /* a match inside another match is not counted twice */\n"
"    if (!seen.some(function (s) { return x >= s[0] && x + w <= s[0] + s[1] + 1e-9; })) {\n"
"      seen.push([x, w]); pct += w;\n"
"    }\n"
"  });\n"
"  matched.textContent = re.source === '' ? '' : 'Matched: ' + (100 * pct).toFixed(1) + '%%';\n"
"}\n"
"window.addEventListener('load', function () {\n"
"  frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
"  details = document.getElementById('details');\n"
"  matched = document.getElementById('matched');\n"
"  frames.forEach(function (f) {\n"
"    f.addEventListener('click', function () { zoom(f); });\n"
"    f.addEventListener('mouseover', function () {\n"
"      details.textContent = f.querySelector('title').textContent; });\n"
"    f.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
"  });\n"
"  document.getElementById('unzoom').addEventListener('click', function () { zoom(null); });\n"
"  document.getElementById('search').addEventListener('click', search);\n"
"  /* file.svg#zoom=NAME opens zoomed on the first box called NAME */\n"
"  var m = /^#zoom=(.+)$/.exec(location.hash);\n"
"  if (m) frames.some(function (f) {\n"
"    var name = f.querySelector('title').textContent.replace(/ \\(.*$/, '');\n"
"    if (name !== decodeURIComponent(m[1])) return false;\n"
"    zoom(f); return true;\n"
"  });\n"
"  document.documentElement.setAttribute('data-ready', frames.length);\n"
"});\n"
"window.addEventListener('keydown', function (e) {\n"
"  if (e.key === 'Escape') zoom(null);\n"
"  if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); search(); }\n"
"});\n"
"]]></script>\n";

static void header(FILE *f, int height, const char *title, __u64 total)
{
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
		"g.f { cursor: pointer; } g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
		"#title { font-size: 17px; } .c { cursor: pointer; }</style>\n",
		WIDTH, height, WIDTH, height);
	fprintf(f, script, WIDTH, PAD);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n"
		"<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">", WIDTH / 2);
	xml(f, title);
	fprintf(f, " (%llu samples)</text>\n"
		"<text id=\"unzoom\" class=\"c\" x=\"%d\" y=\"24\" style=\"opacity:0.3\">Reset zoom</text>\n"
		"<text id=\"search\" class=\"c\" x=\"%d\" y=\"24\" text-anchor=\"end\">Search</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n",
		(unsigned long long)total, PAD, WIDTH - PAD, WIDTH - PAD,
		height - 6, PAD, height - 6);
}

int out_svg(FILE *f, struct prof_run *run, struct sym_names *names,
	    const char *title)
{
	__u32 depth;
	struct node *root = build(run, names, &depth);
	int height;

	if (!root)
		return -ENOMEM;
	height = TOP + (int)depth * ROW + BOTTOM;
	header(f, height, title, root->value);
	if (root->value)
		box(f, root, 0, 0, root->value, height);
	fputs("</svg>\n", f);
	node_free(root);
	return ferror(f) ? -EIO : 0;
}
