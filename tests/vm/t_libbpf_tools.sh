#!/usr/bin/env bash
# Real libbpf-tools objects on kprobes and fentry (the build machine has
# neither), and drsnoop (it runs the guest out of memory): the subtests
# `kprobes` of tests/libbpf-tools/check.py, each tool's records compared
# field by field with a workload it drives. The objects come from Debian's
# package, fetched on the host by tests/test_libbpf_tools.sh (make check
# runs it before the VM tests): the guest has no network.
# timeout: 600
source "$(dirname "$0")/lib.sh"
objs=$BUILD/libbpf-tools/objs
if [[ ! -s $objs/execsnoop.bpf.o ]]; then
	skip libbpf_tools "no $objs: the guest has no network; tests/test_libbpf_tools.sh fetches Debian's libbpf-tools on the host first"
	finish
fi
# check.py prints its own PASS/FAIL/SKIP lines; PBLT_GUEST: a machine that
# may run out of memory
PBLT_GUEST=1 /usr/bin/python3 tests/libbpf-tools/check.py "$BUILD" "$objs" kprobes || failed=1
finish
