# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The workloads of the --aggregate tests (test_trace_agg.sh,
# test_bpftrace_docs.sh): sourced after trace_lib.sh.

name="pbg$$"
name=${name:0:12}

# as COMM CODE: python3 named COMM (its comm) running CODE, os imported
as() {
	python3 -c "
import os
open('/proc/self/comm', 'w').write('$1')
$2"
}
# the sizes written, a bucket of each kind: 0 (x3), 1 (x5), 100 (x7),
# 3000 (x11), 5000 (x2), 1 MiB (x1)
writes='
fd = os.open("/dev/null", os.O_WRONLY)
buf = bytes(1 << 20)
for n, times in ((0, 3), (1, 5), (100, 7), (3000, 11), (5000, 2), (1 << 20, 1)):
    for _ in range(times): os.write(fd, buf[:n])'
WR=tracepoint:syscalls:sys_enter_write
