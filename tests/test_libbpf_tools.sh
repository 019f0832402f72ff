#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Real libbpf-tools objects (Debian's libbpf-tools package, fetched once
# into BUILD/libbpf-tools by tests/libbpf-tools/fetch.sh) through perfbuf
# run: each tool's records compared field by field with a workload the
# test drives (tests/libbpf-tools/check.py), and every object run or its
# failure named. Skipped when the Debian archive cannot be reached.
#   tests/test_libbpf_tools.sh BUILD [SUBTEST...]
# normal build only: the same decoding runs under ASan in test_run.sh; this adds the kernel and a download
set -u
build=${1:-build}
shift
if [[ $(id -u) != 0 ]]; then
	echo "SKIP libbpf_tools: needs root (BPF programs and maps)"
	exit 0
fi
tests/libbpf-tools/fetch.sh "$build/libbpf-tools"
case $? in
0) ;;
2) echo "SKIP libbpf_tools: Debian's libbpf-tools package cannot be fetched (see above)"; exit 0 ;;
*) echo "FAIL libbpf_tools_fetch"; exit 1 ;;
esac
scripts/setup.sh --tracefs-only >/dev/null 2>&1
exec /usr/bin/python3 tests/libbpf-tools/check.py "$build" "$build/libbpf-tools/objs" "$@"
