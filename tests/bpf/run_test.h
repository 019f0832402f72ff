/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Record types of the tests of `perfbuf run` (tests/test_run.sh): the
 * test writes a record's bytes with write(-1, rec, size), the BPF
 * programs copy them into their map, and the test compares every field
 * perfbuf decoded with what it wrote (tests/run_check.py packs them).
 */
#ifndef RUN_TEST_H
#define RUN_TEST_H

enum run_state { RUN_IDLE, RUN_BUSY = 5, RUN_GONE = -1 };

struct run_inner {
	unsigned short port;
	signed char level;
	unsigned char flags[3];
};

union run_addr {
	unsigned int v4;
	unsigned char v6[16];
};

/* every kind of field perfbuf decodes */
struct run_event {
	signed char s8;
	unsigned char u8;
	short s16;
	unsigned short u16;
	int s32;
	unsigned int u32;
	long long s64;
	unsigned long long u64;
	enum run_state state;
	_Bool ok;
	char comm[16];
	struct run_inner inner;
	union run_addr addr;
	int counts[4];
	void *ptr;
	unsigned int bits_lo : 3, bits_hi : 5;
	char tag[8];		/* the --set string, copied by the program */
};

/* a variable tail: execsnoop's args */
struct run_tail {
	unsigned int seq;
	unsigned int len;
	char args[64];
};

/* a wide bitfield ending the struct (a long long's 8 bytes from d's first
 * would reach 3 past it) and enums whose underlying type is signed char */
enum __attribute__((packed)) run_sc { RUN_SC_NEG = -2, RUN_SC_ONE = 1 };

struct run_bits {
	enum run_sc sc;
	enum run_sc sc_raw;	/* a value with no name */
	char pad;
	long long d : 40;	/* bytes 3 to 7 of 8 */
};

/* strings inside a nested struct: the same escapes and cut marks as a
 * top-level string */
struct run_nested {
	unsigned int seq;
	struct run_named {
		char name[4];
		int x;
	} in;
};

#endif
