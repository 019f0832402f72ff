#!/usr/bin/env bash
# One BPF object for every kernel from 5.10 on, pruned at load time
# (tools/common/kfeat.h): the kfeat_* constants the verifier follows, and
# the _bounded twins of the programs that call bpf_loop(). Here, on a new
# kernel, PERFBUF_KFEAT_OFF=all makes the tool take 5.10's choices: it
# still traces right (execve's argv through the bounded loop, a tracepoint
# without cookies), stress runs, and the programs it loaded are the ones
# the choice names, as the kernel kept them (bpftool's dump of the
# translated programs: no bpf_loop(), cookie, fetch-and-add or
# bpf_get_current_task_btf() left), while a default run's have them.
# tests/vm/ runs the same programs on 5.10 itself.
# normal build only: the BPF objects are the same in the ASan build
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/trace_lib.sh"
cd "$(dirname "$0")/.."
trace_test compat compat
if ! command -v bpftool >/dev/null; then
	skip compat "bpftool is not installed: run 'make setup'"
	finish
fi
prog=$tmp/pbcompat_$$
cp /bin/true "$prog"
comm=$(basename "$prog" | cut -c1-15)

# xlated PID: the programs PID holds, as the kernel runs them, one
# "prog NAME" line before each
xlated() {
	local f id
	for f in /proc/"$1"/fdinfo/*; do
		id=$(sed -n 's/^prog_id:[[:space:]]*//p' "$f" 2>/dev/null)
		[[ -n $id ]] || continue
		bpftool prog show id "$id" | sed -n '1s/.* name \([^ ]*\) .*/prog \1/p'
		bpftool prog dump xlated id "$id"
	done
}

# run MODE: a trace of execve (argv) and exec (a tracepoint of its own)
# with PERFBUF_KFEAT_OFF=MODE ("" for the default); $tmp/MODE.x its
# programs, $tmp/MODE.out its events
run() {
	local mode=$1 name=${1:-default}
	if ! PERFBUF_KFEAT_OFF=$mode start_trace --json tracepoint:syscalls:sys_enter_execve \
		tracepoint:sched:sched_process_exec; then
		fail "compat_${name}_attach" "$(head -c 300 "$tmp/err")"
		return 1
	fi
	xlated "$tpid" >"$tmp/$name.x"
	"$prog" one "two words"
	stop_trace
	cp "$tmp/out" "$tmp/$name.out"
	check "compat_${name}_argv" json_check "$tmp/out" "
		any(o['type'] == 'event' and o['args'].get('filename') == '$prog' and
		    o['args']['argv'] == ['$prog', 'one', 'two words'] for o in objs)"
	check "compat_${name}_tracepoint" json_check "$tmp/out" "
		any(o['type'] == 'event' and o['probe'].endswith('sched_process_exec') and
		    o['comm'] == '$comm' for o in objs)"
}

# has MODE WHAT: MODE's programs call or hold WHAT
has() { grep -q -- "$2" "$tmp/${1:-default}.x"; }

run ""
run all
# the default (this kernel has them all) and the forced old choices, told
# apart by what the verifier kept: each feature's instruction is in one
# and pruned from the other
if [[ -s $tmp/default.x && -s $tmp/all.x ]]; then
	for what in bpf_loop bpf_get_attach_cookie atomic_fetch_add bpf_get_current_task_btf; do
		if has "" "$what" && ! has all "$what"; then
			pass "compat_pruned_$what"
		else
			fail "compat_pruned_$what" "want it in the default programs only: $(grep -c -- "$what" "$tmp/default.x") and $(grep -c -- "$what" "$tmp/all.x") lines"
		fi
	done
	# what the old kernels use instead
	if has all bpf_get_current_comm && ! has "" bpf_get_current_comm; then
		pass compat_fallback_comm
	else
		fail compat_fallback_comm "bpf_get_current_comm() not in the old choice's programs only"
	fi
	# the program names: without bpf_loop(), the _bounded twins (the
	# kernel keeps 15 characters of a name)
	if grep -q '^prog trace_tp_bounde' "$tmp/all.x" && ! grep -q '^prog trace_tp_bounde' "$tmp/default.x"; then
		pass compat_twin_loaded
	else
		fail compat_twin_loaded "programs: $(grep '^prog' "$tmp/all.x" | tr '\n' ' ') / default: $(grep '^prog' "$tmp/default.x" | tr '\n' ' ')"
	fi
fi

# stress: emit's bounded twin, every record accounted for
if PERFBUF_KFEAT_OFF=loop timeout 60 "$PERFBUF" stress -d 0.3 >"$tmp/stress" 2>&1; then
	pass compat_stress_bounded
else
	fail compat_stress_bounded "$(tail -n 5 "$tmp/stress")"
fi

# a word that names no feature: refused in one line, nothing loaded
PERFBUF_KFEAT_OFF=loop,bogus error_case compat_off_unknown \
	"PERFBUF_KFEAT_OFF: no feature 'bogus'" trace -d 1 tracepoint:sched:sched_process_exec
finish
