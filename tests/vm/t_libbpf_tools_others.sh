#!/usr/bin/env bash
# The libbpf-tools checks the build machine runs too (tests/libbpf-tools/
# check.py's `others`: tracepoint, raw_tp and tp_btf tools, every object
# run or its failure named), here on the guest's kernel: the program kinds
# chosen differ (fentry loads here). Not in make check (the host runs them;
# about 2 minutes under TCG): make vmtest runs it on every kernel.
# timeout: 600
source "$(dirname "$0")/lib.sh"
objs=$BUILD/libbpf-tools/objs
if [[ ! -s $objs/execsnoop.bpf.o ]]; then
	skip libbpf_tools_others "no $objs: the guest has no network; tests/test_libbpf_tools.sh fetches Debian's libbpf-tools on the host first"
	finish
fi
/usr/bin/python3 tests/libbpf-tools/check.py "$BUILD" "$objs" others || failed=1
finish
