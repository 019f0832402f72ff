#!/usr/bin/env bash
# The BPF objects for every kernel from 5.10 on, pruned at load time
# (tools/common/kfeat.h): the kfeat_* constants the verifier follows, and
# the _bounded twins of the programs that call bpf_loop(). Here, on a new
# kernel, PERFBUF_KFEAT_OFF=all makes the tool take 5.10's choices: it
# still traces right (execve's argv through the bounded loop, a tracepoint
# without cookies), stress runs, and the programs it loaded are the ones
# the choice names, as the kernel kept them (bpftool's dump of the
# translated programs: no bpf_loop(), cookie, fetch-and-add or
# bpf_get_current_task_btf() left), while a default run's have them.
# tests/vm/ runs them on 5.10 itself.
# Fetch-and-add, which old verifiers refuse even in dead code, is the one
# second build (PERFBUF_NO_FETCH), loaded through the skeleton of the
# normal build: that holds while both have the same programs, maps and
# globals. The build compares them (scripts/bpf_layout.c); here, that
# the built pairs are the same, and that the comparison sees a difference.
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

layout=$BUILD/bpf_layout
if [[ ! -x $layout ]]; then
	fail compat_layout "$layout not built"
	finish
fi
for o in "$BUILD"/bpf/nofetch/*.bpf.o; do
	name=$(basename "$o" .bpf.o)
	if ! "$layout" "$BUILD/bpf/$name.bpf.o" >"$tmp/a" || ! "$layout" "$o" >"$tmp/b"; then
		fail "compat_layout_$name" "bpf_layout failed"
	elif [[ ! -s $tmp/a ]] || ! grep -q '^program ' "$tmp/a"; then
		fail "compat_layout_$name" "no program listed: $(head -c 200 "$tmp/a")"
	elif ! diff -u "$tmp/a" "$tmp/b" >"$tmp/diff"; then
		fail "compat_layout_$name" "$(head -c 400 "$tmp/diff")"
	else
		pass "compat_layout_$name"
	fi
done

# A global only the nofetch build has moves the next one: seen, and the
# build stops (the rule of the Makefile, run on this pair)
cat >"$tmp/t.bpf.c" <<'C'
#define SEC(name) __attribute__((section(name), used))
#ifdef PERFBUF_NO_FETCH
const volatile int nofetch_only = 0;
#endif
const volatile int shared = 0;
SEC("raw_tp/sys_enter") int prog(void *ctx) { return shared; }
char LICENSE[] SEC("license") = "GPL";
C
if ! clang -g -O2 -target bpf -c "$tmp/t.bpf.c" -o "$tmp/t.o" 2>"$tmp/cerr" ||
   ! clang -g -O2 -target bpf -DPERFBUF_NO_FETCH -c "$tmp/t.bpf.c" -o "$tmp/tc.o" 2>>"$tmp/cerr"; then
	fail compat_layout_differs "clang: $(head -c 300 "$tmp/cerr")"
elif "$layout" "$tmp/t.o" >"$tmp/a" && "$layout" "$tmp/tc.o" >"$tmp/b" &&
     ! diff -q "$tmp/a" "$tmp/b" >/dev/null &&
     grep -qx 'global .rodata shared offset 4 size 4' "$tmp/b"; then
	pass compat_layout_differs
else
	fail compat_layout_differs "not told apart: $(cat "$tmp/a" "$tmp/b" | tr '\n' ' ')"
fi
finish
