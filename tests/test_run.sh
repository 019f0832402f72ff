#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# perfbuf run and perfbuf attach on the test's own BPF objects (tests/bpf/):
# every field decoded compared with what the test wrote (tests/run_check.py).
#   tests/test_run.sh BUILD [SUBTEST...]
set -u
build=${1:-build}
shift
if [[ $(id -u) != 0 ]]; then
	echo "SKIP run: needs root (BPF programs and maps)"
	exit 0
fi
scripts/setup.sh --tracefs-only >/dev/null 2>&1
# Many CPUs (a /sys list of 300, LD_PRELOAD'ed; 2 online): a summary row
# for each (run kept 256), and the ring memory mapped (the default budget
# at 300 CPUs: rings of 64 KiB). Not with a sanitizer runtime (it must be
# preloaded first).
if [[ $# == 0 ]] && ! readelf -sW "$build/perfbuf" 2>/dev/null | grep -q __asan_init; then
	out=$(timeout 60 env LD_PRELOAD="$build/tests/fake_cpus.so" FAKE_CPUS_POSSIBLE=0-299 \
		"$build/perfbuf" run --json -d 1 "$build/tests/bpf/run_types.bpf.o" 2>/dev/null | tail -1)
	if /usr/bin/python3 -c 'import json, sys; s = json.loads(sys.argv[1])
sys.exit(not (len(s["per_cpu"]) == 300 and s["ring_bytes"] == s["rings"] * 65536))' "$out" 2>/dev/null; then
		echo "PASS run_many_cpus_summary"
	else
		echo "FAIL run_many_cpus_summary: ${out:0:300}"
	fi
fi
exec /usr/bin/python3 tests/run_check.py "$build" "$@"
