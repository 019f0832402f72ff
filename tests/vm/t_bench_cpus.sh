#!/usr/bin/env bash
# vcpus: 64 128
# The bench's part "cpus" in this guest: start-up (every CPU's ring
# opened) and an idle consumer's CPU a second, perfbuf against libbpf's
# perf_buffer; the ratios on the PASS line (TCG time is not real time:
# ratios only). In a guest of 2: tests/vm/vm.sh BUILD 6.1 bench_cpus.
source "$(dirname "$0")/lib.sh"
ncpu=$(getconf _NPROCESSORS_ONLN)
if timeout 250 "$BUILD/perfbuf-bench" --only cpus -d 3 -o "$tmp/b" >"$tmp/out" 2>&1; then
	r() { grep -F "| $1" "$tmp/out" | awk -F'|' '{gsub(/ /, "", $3); print $3}'; }
	ms() { grep -F "| $1 |" "$tmp/out" | awk -F'|' '{gsub(/ /, "", $3); gsub(/ /, "", $4); print $3 " ms, " $4 " us/s"}'; }
	pass "bench_cpus $ncpu vCPUs: start-up perfbuf/libbpf $(r 'start-up: perfbuf'), idle perfbuf/libbpf $(r 'idle CPU: perfbuf default') (no bound: $(r 'idle CPU: perfbuf, no bound')); perfbuf $(ms 'perfbuf default (10 ms latency bound)'), libbpf $(ms 'libbpf perf_buffer')"
else
	fail bench_cpus "exit $?: $(tail -c 400 "$tmp/out")"
fi
finish
