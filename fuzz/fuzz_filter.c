// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer: `perfbuf trace --filter` (tools/trace/filter.c): any string
 * is parsed (no crash, no unbounded recursion, a bounded error line), and
 * what parses is compiled for a uprobe (arguments arg0.., the common
 * fields) into at most TRACE_FILTER_OPS ops whose jumps stay inside the
 * program. The BPF map the programs go to is a stub here: abort() on a
 * program that breaks those bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/filter.h"
#include "trace/tool.h"

/* filters_load()'s two maps: the compiled programs checked, not stored */
int bpf_map_update_elem(int fd, const void *key, const void *value, __u64 flags)
{
	const struct trace_filter_prog *p = value;

	(void)key, (void)flags;
	if (fd != 2)
		return 0;	/* filter_of: an index */
	if (p->n > TRACE_FILTER_OPS)
		abort();
	for (unsigned int i = 0; i < p->n; i++)
		if ((p->op[i].code == TF_JMP_FALSE || p->op[i].code == TF_JMP_TRUE) &&
		    (p->op[i].arg <= i || p->op[i].arg > p->n))
			abort();	/* forward, within the program */
	return 0;
}

/* The refusals' lines: not libFuzzer's (it keeps its own FILE), nor the
 * sanitizers' (fd 2) */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	stderr = fopen("/dev/null", "w");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	struct trace_probe probe = {
		.kind = PK_UPROBE, .spec = "uprobe:/bin/true:main",
		.label = "main", .nargs = -1, .sys_nr = -1,
	};
	struct probe_set set = { .v = &probe, .n = 1, .cap = 1 };
	struct trace_filters fs = { .prog = "perfbuf trace" };
	char *s = malloc(len + 1);

	if (!s)
		return 0;
	memcpy(s, in, len);
	s[len] = '\0';
	if (!filter_add(&fs, s))
		filters_load(&fs, &set, 1, 2);
	filters_free(&fs);
	free(s);
	return 0;
}
