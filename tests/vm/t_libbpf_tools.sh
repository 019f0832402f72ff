#!/usr/bin/env bash
# Real libbpf-tools objects on kprobes and fentry (the build machine has
# neither): tests/libbpf-tools/check.py in the guest, each tool's records
# compared field by field with a workload it drives. The objects come from
# Debian's package, fetched on the host by tests/test_libbpf_tools.sh (make
# check runs it before the VM tests): the guest has no network.
#   LT_TOOLS: check.py's subtests (default: the tools that need kprobes or
#   fentry; "all" runs every one, the host's tools too)
# timeout: 900
source "$(dirname "$0")/lib.sh"
objs=$BUILD/libbpf-tools/objs
if [[ ! -s $objs/execsnoop.bpf.o ]]; then
	skip libbpf_tools "no $objs: the guest has no network; tests/test_libbpf_tools.sh fetches Debian's libbpf-tools on the host first"
	finish
fi
set=${LT_TOOLS:-bindsnoop solisten tcpconnect tcpconnlat filelife tcptracer oomkill drsnoop}
[[ $set == all ]] && set=
# check.py prints its own PASS/FAIL/SKIP lines and the table
PBLT_GUEST=1 /usr/bin/python3 tests/libbpf-tools/check.py "$BUILD" "$objs" $set || failed=1
finish
