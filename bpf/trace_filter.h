/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A compiled `perfbuf trace --filter`: a short list of ops run in order by
 * the BPF program before anything is copied (bpf/trace_filter.bpf.h),
 * written by tools' filter compiler. Each op leaves its result in one
 * accumulator; && and || are forward jumps on it, so the program has no
 * stack and every run ends within TRACE_FILTER_OPS steps. A string
 * compare is a TF_STR read, then one TF_WORD per 8 bytes of the constant:
 * one loop, no loop inside it, which keeps the verifier's work small.
 */
#ifndef TRACE_FILTER_H
#define TRACE_FILTER_H

#define TRACE_FILTER_OPS 64	/* ops per probe's filter, a power of two */
#define TRACE_FILTER_STR 256	/* string compare window, a power of two */
#define TRACE_MAX_FILTERS 256	/* distinct compiled filters */

enum trace_filter_code {
	TF_CMP = 1,	/* acc = value(src) cmp val */
	TF_STR,		/* read string(src), val + 1 bytes at most; acc = it could */
	TF_WORD,	/* acc = acc && (string word arg & mask) == val */
	TF_NOT,		/* acc = !acc */
	TF_JMP_FALSE,	/* if !acc: go to op arg (&&) */
	TF_JMP_TRUE,	/* if acc: go to op arg (||) */
};

enum trace_filter_src {
	TFS_FIELD = 1,	/* integer of size bytes at off in the event's data */
	TFS_PID,
	TFS_TID,
	TFS_CPU,
	TFS_CHARS,	/* char[size] at off */
	TFS_COMM,
	TFS_DATA_LOC,	/* __data_loc u32 at off: kernel string */
	TFS_REL_LOC,	/* __rel_loc u32 at off */
	TFS_USER_PTR,	/* user pointer (u64) at off: user string */
	TFS_ANY_PTR,	/* pointer (u64) at off: a kernel string, else a
			 * user one (a kernel function's char *) */
};

enum trace_filter_cmp { TF_EQ, TF_NE, TF_LT, TF_LE, TF_GT, TF_GE };

#define TF_SIGNED 1	/* op flags: compare as signed */

struct trace_filter_op {
	unsigned long long val;	/* TF_CMP: the constant; TF_STR: bytes compared;
				 * TF_WORD: 8 bytes of the string constant */
	unsigned long long mask;	/* TF_WORD: the bytes that count */
	unsigned short off, size;
	unsigned short arg;	/* jumps: target op; TF_WORD: word index */
	unsigned char code, src, cmp, flags;
	unsigned char pad[4];
};

/* The data a TFS_FIELD reads: the tracepoint record for tracepoints, the
 * u64 arguments (or the return value) for the other kinds. */
struct trace_filter_prog {
	unsigned int n;		/* ops; 0: every event passes */
	unsigned int pad;
	struct trace_filter_op op[TRACE_FILTER_OPS];
};

#endif
