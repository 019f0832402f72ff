#!/usr/bin/env bash
# The test programs and the tool under valgrind memcheck: no invalid access,
# no use of uninitialised memory, no leak (definite or indirect). valgrind
# cannot run ASan binaries: in the ASan build this prints nothing, the
# plain build's run covers both.
source "$(dirname "$0")/lib.sh"
if readelf -d "$PERFBUF" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
	echo "memcheck: $BUILD is an ASan build; valgrind runs on the plain build"
	finish
fi
if ! command -v valgrind >/dev/null; then
	fail memcheck "valgrind is not installed: run 'make setup'"
	finish
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
supp=$(dirname "$0")/valgrind.supp

# memcheck NAME CMD...: CMD under valgrind exits 0 with no error reported
memcheck() {
	local name=$1 rc
	shift
	timeout 600 valgrind -q --error-exitcode=99 --suppressions="$supp" \
		--leak-check=full --show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect \
		--log-file="$tmp/$name.vg" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
	rc=$?
	if ((rc == 0)); then
		pass "memcheck_$name"
		return
	fi
	fail "memcheck_$name" "exit $rc"
	# valgrind's report, and the failed subtests, for the log
	grep -v -e 'unhandled amd64-linux syscall' -e 'write your own handler' \
		-e README_MISSING -e 'consider this a bug' -e bug_reports "$tmp/$name.vg" | head -40
	grep -h '^FAIL\|^  ' "$tmp/$name.out" "$tmp/$name.err" | head -20
}

for t in "$BUILD"/tests/test_*; do
	[[ -x $t && $t != *.[od] ]] || continue
	memcheck "${t##*/}" "$t"
done
if need_root; then
	memcheck stress "$PERFBUF" stress --rate 10k --duration 1 --json
	memcheck stress_overload "$PERFBUF" stress --max --pages 1 --batch 256 --duration 1
	memcheck trace "$PERFBUF" trace -n 50 --json tracepoint:sched:sched_switch \
		tracepoint:syscalls:sys_enter_openat
	memcheck trace_text "$PERFBUF" trace -n 20 tracepoint:sched:sched_switch
	memcheck list "$PERFBUF" list 'sched:*'
else
	skip memcheck_tool "needs root"
fi
# error paths free what they took too
valgrind -q --error-exitcode=99 --suppressions="$supp" --leak-check=full \
	--errors-for-leak-kinds=definite,indirect --log-file="$tmp/bad.vg" \
	"$PERFBUF" trace tracepoint:sched:no_such_tp >/dev/null 2>&1
check memcheck_trace_error_path test $? = 1
finish
