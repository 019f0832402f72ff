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
exec /usr/bin/python3 tests/run_check.py "$build" "$@"
