// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A record type nested 41 deep, named by the marker: too deep to decode,
 * which perfbuf run must say (not exit in silence) */
#include "common.bpf.h"
#include <perfbuf/bpf.h>

#define D(n, m) struct d##n { struct d##m x; };
struct d40 { int v; };
D(39, 40) D(38, 39) D(37, 38) D(36, 37) D(35, 36) D(34, 35) D(33, 34) D(32, 33)
D(31, 32) D(30, 31) D(29, 30) D(28, 29) D(27, 28) D(26, 27) D(25, 26) D(24, 25)
D(23, 24) D(22, 23) D(21, 22) D(20, 21) D(19, 20) D(18, 19) D(17, 18) D(16, 17)
D(15, 16) D(14, 15) D(13, 14) D(12, 13) D(11, 12) D(10, 11) D(9, 10) D(8, 9)
D(7, 8) D(6, 7) D(5, 6) D(4, 5) D(3, 4) D(2, 3) D(1, 2) D(0, 1)

PERFBUF_EVENT(events, struct d0);

SEC("tracepoint/syscalls/sys_enter_write")
int deep_write(void *ctx)
{
	return 0;
}
