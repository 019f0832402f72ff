#!/usr/bin/env bash
# The test programs and the tool under valgrind memcheck: no invalid access,
# no use of uninitialised memory, no leak (definite or indirect). valgrind
# cannot run ASan binaries: in the ASan build this prints nothing, the
# plain build's run covers both.
# normal build only: valgrind cannot run ASan binaries (it says so itself too)
source "$(dirname "$0")/lib.sh"
# gcc links libasan.so, clang its static runtime: both name __asan_init
if readelf -sW "$PERFBUF" 2>/dev/null | grep -q '__asan_init'; then
	skip memcheck "$BUILD is an ASan build; valgrind runs on the plain build"
	finish
fi
if ! command -v valgrind >/dev/null; then
	fail memcheck "valgrind is not installed: run 'make setup'"
	finish
fi
# libbpf reads /sys/kernel/btf/vmlinux (5 MB) for every BPF load, a page
# per read(2), and memcheck checks the whole rest of the buffer at each:
# 4.5 s a load here, 0.5 s from a regular file. So the script runs again
# in a mount namespace of its own with a copy bound over it: the same
# bytes, the same code paths, 2-3 times faster.
if need_root && [[ -z ${PERFBUF_VG_BTF:-} && -r /sys/kernel/btf/vmlinux ]] &&
	unshare -m true 2>/dev/null; then
	btf=$(mktemp /tmp/perfbuf-vmlinux.XXXXXX)
	cp /sys/kernel/btf/vmlinux "$btf"
	# the mount holds the copy: its name goes at once, the bytes with
	# the namespace
	exec env PERFBUF_VG_BTF="$btf" unshare -m --propagation private bash -c \
		'mount --bind "$PERFBUF_VG_BTF" /sys/kernel/btf/vmlinux ||
			echo "memcheck: vmlinux BTF not bound: each load 4 s slower"
		rm -f "$PERFBUF_VG_BTF"
		exec bash "$@"' bash "$0" "$@"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
supp=$(dirname "$0")/valgrind.supp

# memcheck NAME CMD...: valgrind reports no error in CMD (exit 99 if it
# does) and CMD does not crash or hang. A subtest that fails only because
# valgrind runs it 30 times slower is shown, not counted: the plain and
# ASan runs judge the subtests.
memcheck() {
	local name=$1 rc
	shift
	# fair scheduling: a thread spinning on syscalls would starve the others
	timeout 600 valgrind -q --fair-sched=yes --error-exitcode=99 --suppressions="$supp" \
		--leak-check=full --show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect \
		--log-file="$tmp/$name.vg" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
	rc=$?
	if ((rc == 0 || rc == 1)); then
		pass "memcheck_$name"
		grep -h '^FAIL' "$tmp/$name.out" | sed 's/^/note: under valgrind, /'
		return
	fi
	fail "memcheck_$name" "exit $rc"
	# valgrind's report, and the failed subtests, for the log
	grep -v -e 'unhandled amd64-linux syscall' -e 'write your own handler' \
		-e README_MISSING -e 'consider this a bug' -e bug_reports "$tmp/$name.vg" | head -40
	grep -h '^FAIL\|^  ' "$tmp/$name.out" "$tmp/$name.err" | head -20
}

# loops that repeat one path for volume or timing run fewer times (the
# test programs' test_count()): 100 stop/wake rounds, not 1000, 60 000
# ordered records, not 1.2 M
export PERFBUF_TEST_VALGRIND=1
# Three stay out, checked by the plain and ASan runs: test_lib_races, whose
# fake syscalls (tests/fake_sys.h) pass ioctl's integer arguments through
# syscall(2), where valgrind reads them as pointers; test_bpf_load, whose
# libbpf loads use bpf() commands valgrind does not know (BPF_PROG_BIND_MAP:
# "unhandled eBPF command 35"), so it calls their results uninitialised;
# test_ledger, whose kind names come from a map's BTF read from the kernel
# (bpf(BPF_OBJ_GET_INFO_BY_FD) fills libbpf's buffer: valgrind does not
# see it written, and calls every name read from it uninitialised)
# Two at a time: --fair-sched runs each on one CPU; the results in order.
# test_hotplug runs alone, after the others: it takes CPU1 offline, and the
# program beside it would lose its second CPU mid-test (sparse_cpu_list,
# ordered_two_cpus failed that way: shown, not counted, but not checked).
res=()
for t in "$BUILD"/tests/test_*; do
	[[ -x $t && $t != *.[od] ]] || continue
	[[ ${t##*/} == test_lib_races || ${t##*/} == test_bpf_load ||
	   ${t##*/} == test_ledger || ${t##*/} == test_hotplug ]] && continue
	memcheck "${t##*/}" "$t" >"$tmp/${t##*/}.res" 2>&1 &
	res+=("$tmp/${t##*/}.res")
	while (($(jobs -rp | wc -l) >= 2)); do wait -n; done
done
wait
if [[ -x $BUILD/tests/test_hotplug ]]; then
	memcheck test_hotplug "$BUILD/tests/test_hotplug" >"$tmp/test_hotplug.res" 2>&1
	res+=("$tmp/test_hotplug.res")
fi
cat "${res[@]}"
grep -q '^FAIL' "${res[@]}" && failed=1
# The tool: a few runs of trace (each BPF load costs 5-10 s here), then
# the whole of test_cli.sh and test_stress.sh with the tool under valgrind
# (tests/vg-perfbuf). test_trace.sh and test_faults.sh stay out: 60 loads
# would take 4 minutes and their timing breaks, and valgrind takes fds of
# its own under the RLIMIT_NOFILE cases. ASan and LSan run them all.
if need_root; then
	memcheck trace "$PERFBUF" trace -n 50 --json tracepoint:sched:sched_switch \
		tracepoint:syscalls:sys_enter_openat
	memcheck trace_text "$PERFBUF" trace -n 20 tracepoint:sched:sched_switch
	memcheck list "$PERFBUF" list 'sched:*'
	# error paths free what they took too: exit 1, not valgrind's 99
	valgrind -q --error-exitcode=99 --suppressions="$supp" --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --log-file="$tmp/bad.vg" \
		"$PERFBUF" trace tracepoint:sched:no_such_tp >/dev/null 2>&1
	check memcheck_trace_error_path test $? = 1
else
	skip memcheck_trace "needs root"
fi
mkdir -m 1777 "$tmp/vg"	# setpriv'd runs log there too
for s in cli stress; do
	out=$(PERFBUF_VG_LOGS=$tmp/vg bash "$(dirname "$0")/test_$s.sh" "$BUILD" 2>&1)
	if grep -q '^FAIL' <<<"$out"; then
		fail "memcheck_test_$s.sh" "$(grep '^FAIL' <<<"$out" | head -5)"
	else
		pass "memcheck_test_$s.sh ($(grep -c '^PASS' <<<"$out") subtests)"
	fi
done
# what valgrind reported, less its notes on syscalls it does not model
reports=$(cat "$tmp"/vg/*.log 2>/dev/null | grep -v -e 'WARNING: unhandled' \
	-e 'write your own handler' -e README_MISSING -e 'consider this a bug' \
	-e bug_reports)
if [[ -z $reports ]]; then
	pass "memcheck_tool_reports ($(ls "$tmp"/vg | wc -l) runs)"
else
	fail memcheck_tool_reports "$(head -40 <<<"$reports")"
fi
finish
