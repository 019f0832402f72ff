#!/usr/bin/env bash
# trace -p PID ends by itself when the process exits (a pidfd in the
# collector's epoll set; without pidfds, a look at each wake-up): exit 0,
# "process PID exited", every event the process made in the output and
# the summary; -p of no process is one line and exit 1. (record -p ends
# the same way: one loop, trace/session.c.)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/trace_lib.sh"
trace_test trace_pid tpid
cleanup() {
	[[ -n $tpid ]] && kill "$tpid" 2>/dev/null
	[[ -n $threaded ]] && kill "$threaded" 2>/dev/null
	touch "$tmp/go" 2>/dev/null	# a waiting target runs and ends
	[[ -n ${pub:-} ]] && rm -rf "$pub"
}

# target N: uprobe_target N in the background once $tmp/go exists (it
# waits for the attach: a loaded machine takes seconds); its pid in $target
target() {
	rm -f "$tmp/go"
	(while [[ ! -e $tmp/go ]]; do sleep 0.05; done; exec "$TARGET" "$1") &
	target=$!
}
# ends_alone NAME: the run ($tpid) ends by itself within 20 s of the
# target's end; $trc its status
ends_alone() {
	wait "$target"
	for _ in $(seq 200); do
		kill -0 "$tpid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$tpid" 2>/dev/null; then
		fail "$1" "still running 20 s after process $target exited"
		stop_trace
		return 1
	fi
	wait "$tpid"
	trc=$?
	tpid=
	check "$1" test "$trc" = 0 || head -c 300 "$tmp/err"
}
ASAN=
asan_build && ASAN=1
N=${ASAN:+2000}
N=${N:-20000}

# 1. Events up to the exit, all drained after it (--pages: 4 MiB per CPU
# hold them all, so none lost however late the reader);
# the summary last; "process PID exited" on stderr
target "$N"
if start_trace --json --pages 1024 -p "$target" "uprobe:$TARGET:pb_target_add"; then
	touch "$tmp/go"
	if ends_alone pid_exit_ends_trace; then
		check pid_exit_said grep -qx "perfbuf trace: process $target exited" "$tmp/err"
		check pid_exit_drains_all json_check "$tmp/out" "(
			[o['pid'] for o in objs if o['type'] == 'event'] == [$target] * $N and
			objs[-1]['type'] == 'summary' and objs[-1]['received'] == $N and
			objs[-1]['lost'] == 0)"
	fi
else
	fail pid_exit_ends_trace "did not attach: $(head -c 300 "$tmp/err")"
fi

# 2. No pidfd (ENOSYS injected by strace): the look at each wake-up
if command -v strace >/dev/null && [[ -z ${PERFBUF_VG_LOGS:-} ]]; then
	target 3
	# (LeakSanitizer cannot run under ptrace: the ASan build's leak check
	# is off for this run only)
	printf '#!/bin/bash\nexport ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\nexec strace -f -qq --seccomp-bpf -o %q -e trace=pidfd_open -e inject=pidfd_open:error=ENOSYS %q "$@"\n' \
		"$tmp/strace" "$(realpath "$PERFBUF")" >"$tmp/no-pidfd"
	chmod +x "$tmp/no-pidfd"
	real=$PERFBUF
	PERFBUF=$tmp/no-pidfd
	if start_attached tpid "$tmp/out" "$tmp/err" trace -p "$target" \
		"uprobe:$TARGET:pb_target_add"; then
		touch "$tmp/go"
		if ends_alone pid_exit_no_pidfd; then
			check pid_exit_no_pidfd_injected grep -q 'ENOSYS.*INJECTED' "$tmp/strace"
			check pid_exit_no_pidfd_counts grep -qx '3 events received: 3 printed, 0 discarded (past -n); 0 lost' "$tmp/err"
		fi
	else
		fail pid_exit_no_pidfd "did not attach: $(head -c 300 "$tmp/err")"
	fi
	PERFBUF=$real
else
	skip pid_exit_no_pidfd "strace is not installed (or under valgrind)"
fi

# 2b. -c CMD: started held until the probes are attached (every call
# seen), traced as -p (its events only), the end when it exits, its events
# drained; exit 0 whatever its status, which is said; words split as a
# shell splits them ('exit 3' one word)
timeout 120 "$PERFBUF" trace --json -c "$TARGET 50" "uprobe:$TARGET:pb_target_add" \
	>"$tmp/out" 2>"$tmp/err"
trc=$?
check cmd_traced_to_its_end test "$trc" = 0 || head -c 300 "$tmp/err"
check cmd_every_event json_check "$tmp/out" "(
	len([o for o in objs if o['type'] == 'event']) == 50 and
	len({o['pid'] for o in objs if o['type'] == 'event'}) == 1 and
	objs[-1]['type'] == 'summary' and objs[-1]['received'] == 50)"
check cmd_status_said grep -qx "perfbuf trace: -c: $TARGET exited with status 0" "$tmp/err"
timeout 120 "$PERFBUF" trace -c "sh -c 'exit 3'" tracepoint:syscalls:sys_enter_exit_group \
	>"$tmp/out" 2>"$tmp/err"
trc=$?
check cmd_exit_status_said test "$trc" = 0 -a -n "$(grep -x 'perfbuf trace: -c: sh exited with status 3' "$tmp/err")"
check cmd_quoted_words grep -q ' sh .*sys_enter_exit_group error_code=3$' "$tmp/out"
error_case cmd_not_found "^perfbuf trace: -c: no_such_cmd_pb: command not found (give a path, or a command in \$PATH)$" \
	trace -c 'no_such_cmd_pb x' tracepoint:syscalls:sys_enter_exit_group
error_case cmd_open_quote "^perfbuf trace: -c 'sh 'x': want a command" \
	trace -c "sh 'x" tracepoint:syscalls:sys_enter_exit_group
error_case cmd_and_pid "^perfbuf trace: -c and -p are exclusive" \
	trace -c true -p $$ tracepoint:syscalls:sys_enter_exit_group

# 2c. -c NAME and uprobe:NAME:FUNC name one file, found as execvp(3)
# finds it: the first executable NAME in $PATH (a copy that may not be
# run, earlier in $PATH, passed over; an empty entry is the working
# directory), and a NAME neither finds said in the same words
mkdir -p "$tmp/noexec" "$tmp/exec"
install -m 644 "$TARGET" "$tmp/noexec/pbwhich"
install -m 755 "$TARGET" "$tmp/exec/pbwhich"
PATH=$tmp/noexec:$tmp/exec:$PATH timeout 120 "$PERFBUF" trace --json -c "pbwhich 5" \
	uprobe:pbwhich:pb_target_add >"$tmp/out" 2>"$tmp/err"
trc=$?
check cmd_uprobe_one_file test "$trc" = 0 || head -c 300 "$tmp/err"
check cmd_uprobe_one_file_events json_check "$tmp/out" \
	"len([o for o in objs if o['type'] == 'event']) == 5"
pb=$(realpath "$PERFBUF")
(cd "$tmp/exec" && PATH=$tmp/noexec:$PATH: timeout 120 "$pb" trace --json -c "pbwhich 5" \
	uprobe:pbwhich:pb_target_add) >"$tmp/out" 2>"$tmp/err"
trc=$?
check cmd_uprobe_path_empty_entry_cwd json_check "$tmp/out" \
	"len([o for o in objs if o['type'] == 'event']) == 5" || head -c 300 "$tmp/err"
# a privileged (setcap) perfbuf too: its caller's PATH, as execvp takes it
# (a name is the caller's, as a path would be); nobody runs copies
if ! command -v setcap >/dev/null || asan_build; then
	skip setcap_uprobe_path_as_execvp "no setcap, or a sanitizer build (not run with file capabilities)"
elif public_copy "$PERFBUF" && install -m 755 "$TARGET" "$pub/pbwhich" &&
     setcap cap_bpf+ep "$pub/perfbuf"; then
	out=$(PATH=$pub:$PATH setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$pub/perfbuf" list 'uprobe:pbwhich:pb_target_add' 2>&1)
	[[ $out == *"$pub/pbwhich:pb_target_add"* ]] && pass setcap_uprobe_path_as_execvp ||
		fail setcap_uprobe_path_as_execvp "${out:0:300}"
else
	fail setcap_uprobe_path_as_execvp "could not make a setcap copy in $pub"
fi
error_case uprobe_not_found_as_cmd "^perfbuf trace: uprobe:no_such_cmd_pb:main: no_such_cmd_pb: command not found (give a path, or a command in \$PATH)$" \
	trace uprobe:no_such_cmd_pb:main

# 3. -p of no process: one line, exit 1 (pid_max is at most 2^22)
error_case pid_missing '^perfbuf trace: -p 2147483647: no such process' \
	trace -p 2147483647 "uprobe:$TARGET:pb_target_add"

# 4. -p of a thread that is not its process's leader (the programs compare
# the process ID: it would match nothing): one line naming the process
# (perf's -p is a process too; -t a thread), trace and record alike
if thread_target; then
	error_case pid_thread_refused "^perfbuf trace: -p $thread is a thread of process $threaded: -p takes a process ID (-p $threaded follows all its threads)$" \
		trace -p "$thread" "uprobe:$TARGET:pb_target_add"
	error_case pid_thread_refused_record "^perfbuf record: -p $thread is a thread of process $threaded: " \
		record -p "$thread" -o "$tmp/rec" "uprobe:$TARGET:pb_target_add"
	kill "$threaded"
else
	fail pid_thread_refused "no thread of a two-thread python in 10 s"
fi
finish
