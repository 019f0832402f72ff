#!/usr/bin/env bash
# perfbuf trace and perfbuf list end to end: tracepoints with decoded
# fields, uprobes, JSON that survives hostile names, every error case,
# Ctrl-C drain, a closed stdout, and the options.
source "$(dirname "$0")/lib.sh"
TARGET=$(realpath "$BUILD/tests/uprobe_target")
tmp=$(mktemp -d /tmp/perfbuf-trace.XXXXXX)
tpid=
cleanup() { [[ -n $tpid ]] && kill "$tpid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

if ! need_root; then
	skip trace "needs root"
	finish
fi

source "$(dirname "$0")/trace_lib.sh"

# bpftool prints "ID: TYPE  name NAME  tag ..."
attached_progs() { bpftool prog show 2>/dev/null | grep -cE 'name trace_(tp|kprobe|kretprobe|uprobe|uretprobe|tp_btf|raw_tp|fentry|fexit)( |$)'; }

# 1. exec N times of a uniquely named program, seen N times with its filename
prog="$tmp/pbexec_$$"
cp /bin/true "$prog"
if start_trace --json tracepoint:sched:sched_process_exec; then
	for _ in 1 2 3 4 5; do "$prog"; done
	stop_trace
	check exec_seen_n_times json_check "$tmp/out" \
		"sum(1 for o in objs if o['type']=='event' and o['args'].get('filename')=='$prog' and o['comm']=='pbexec_$$'[:15])==5 and $trc==0"
	check json_summary_last json_check "$tmp/out" \
		"objs[-1]['type']=='summary' and objs[-1]['received']==sum(1 for o in objs if o['type']=='event') and len(objs[-1]['per_cpu'])>=1"
else
	fail exec_seen_n_times "did not attach: $(cat "$tmp/err")"
fi

# 2. the same in text: one line per event, headers, under 100 columns
if start_trace tracepoint:sched:sched_process_exec; then
	"$prog"
	stop_trace
	check text_event_line grep -q "pbexec_$$ .*sched_process_exec filename=${prog:0:20}" "$tmp/out"
	check text_header grep -q '^TIME(s) .*CPU .*PID .*TID .*COMM .*PROBE' "$tmp/out"
	check text_under_100_columns awk 'length($0) >= 100 { exit 1 }' "$tmp/out"
	check text_summary grep -q 'events received, [0-9]* lost' "$tmp/err"
else
	fail text_event_line "did not attach: $(cat "$tmp/err")"
fi

# 3. sys_enter_openat: the user-space filename read as a string; --comm
opener="$tmp/pbopen$$"
cp /bin/cat "$opener"
echo hi >"$tmp/openme_$$"
if start_trace --json --comm "pbopen$$" tracepoint:syscalls:sys_enter_openat; then
	"$opener" "$tmp/openme_$$" >/dev/null
	stop_trace
	check openat_filename json_check "$tmp/out" \
		"any(o['type']=='event' and o['args'].get('filename')=='$tmp/openme_$$' and o['args'].get('dfd')==-100 for o in objs) and all(o['comm']=='pbopen$$' for o in objs if o['type']=='event')"
else
	fail openat_filename "did not attach: $(cat "$tmp/err")"
fi

# 4. uprobe and uretprobe: known arguments and return values
if start_trace --json "uprobe:$TARGET:pb_target_add" "uretprobe:$TARGET:pb_target_add" \
		"uretprobe:$TARGET:pb_target_neg"; then
	"$TARGET" 3
	stop_trace
	cp "$tmp/out" "$tmp/uprobe.out"
	check uprobe_args json_check "$tmp/out" \
		"sum(1 for o in objs if o['type']=='event' and o['probe'].startswith('uprobe:') and o['args']=={'arg0':1,'arg1':2,'arg2':3,'arg3':4,'arg4':5,'arg5':6})==3"
	check uretprobe_ret json_check "$tmp/out" \
		"sum(1 for o in objs if o['type']=='event' and o['probe'].endswith(':pb_target_add') and o['args']=={'ret':21})==3 and sum(1 for o in objs if o['type']=='event' and o['probe'].endswith(':pb_target_neg') and o['args']=={'ret':-7})==3"
	if ((failed)); then	# what arrived, for the log
		echo "uprobe events (exit $trc):"
		cut -c1-200 "$tmp/uprobe.out"
		cat "$tmp/err"
	fi
else
	fail uprobe_args "did not attach: $(cat "$tmp/err")"
fi

# 5. hostile names: quote, backslash, newline, an invalid UTF-8 byte
hostile="$tmp/"$'pb"q\\b\nx\xff'
cp /bin/true "$hostile"
if start_trace --json tracepoint:sched:sched_process_exec; then
	"$hostile"
	stop_trace
	# invalid bytes come out as \u00XX: Latin-1 decoding gives the same
	exp=$(printf '%s' "$hostile" | python3 -c 'import sys; print(repr(sys.stdin.buffer.read().decode("latin-1")))')
	check json_hostile_names json_check "$tmp/out" \
		"any(o['type']=='event' and o['args'].get('filename')==$exp and o['comm']==$exp.split('/')[-1][:15] for o in objs)"
else
	fail json_hostile_names "did not attach: $(cat "$tmp/err")"
fi
# control bytes, DEL, overlong, surrogate, valid UTF-8, truncated at the end:
# valid UTF-8 stays, every other byte is \u00XX, no raw control byte or DEL
hostile2="$tmp/"$'pb\x01\x7f\xc0\xaf\xed\xa0\x80\xc3\xa9\xe2\x82'
cp /bin/true "$hostile2"
if start_trace --json tracepoint:sched:sched_process_exec; then
	"$hostile2"
	stop_trace
	exp=$(printf '%s' "$hostile2" | python3 -c '
import codecs, sys
codecs.register_error("byte", lambda e: ("".join(map(chr, e.object[e.start:e.end])), e.end))
print(repr(sys.stdin.buffer.read().decode("utf-8", "byte")))')
	check json_bad_utf8 json_check "$tmp/out" \
		"any(o['type']=='event' and o['args'].get('filename')==$exp for o in objs) and not any(b < 0x20 and b != 10 or b == 0x7f for b in open('$tmp/out','rb').read())"
	if ((failed)); then	# what arrived, for the log
		echo "exec events (exit $trc), wanted $exp:"
		cut -c1-300 "$tmp/out"
	fi
else
	fail json_bad_utf8 "did not attach: $(cat "$tmp/err")"
fi
if start_trace tracepoint:sched:sched_process_exec; then
	"$hostile"
	stop_trace
	check text_hostile_one_line grep -qF 'pb"q\\b\nx\xff' "$tmp/out"
else
	fail text_hostile_one_line "did not attach"
fi

# 6. errors: one line, exit 1, nothing left attached
before=$(attached_progs)
error_case err_no_probe 'no probe given' trace
error_case err_unknown_kind 'unknown probe' trace bogus:thing
error_case err_bad_syntax 'bad probe' trace tracepoint:sched
error_case err_unknown_tracepoint 'no tracepoint matches' trace tracepoint:sched:no_such_tp
error_case err_uprobe_no_binary 'no such binary' trace uprobe:/no/such/binary:main
error_case err_uprobe_no_symbol "no function symbol 'no_such_fn'" trace "uprobe:$TARGET:no_such_fn"
error_case err_partial_attach "no function symbol" trace tracepoint:sched:sched_process_exec "uprobe:$TARGET:no_such_fn"
# a busy probe attached before the failing one prints nothing
error_case err_partial_attach_busy "no function symbol" trace tracepoint:sched:sched_switch "uprobe:$TARGET:no_such_fn"
check err_partial_attach_no_events test ! -s "$tmp/eout"
error_case err_bad_duration '-d wants a number' trace -d abc tracepoint:sched:sched_process_exec
error_case err_bad_pages 'power of two' trace --pages 3 tracepoint:sched:sched_process_exec
error_case err_pages_too_small 'setting up the perf buffer failed: .*records of [0-9]* bytes cannot fit a ring of 4096 bytes.*use more pages' \
	trace --pages 1 tracepoint:sched:sched_process_exec
error_case err_pid_missing 'no such process' trace -p 2147483647 tracepoint:sched:sched_process_exec
error_case err_bad_cpu '--cpu wants a number' trace --cpu 99999 tracepoint:sched:sched_process_exec
error_case err_bad_option 'perfbuf trace --help' trace --nope tracepoint:sched:sched_process_exec
error_case err_rawtp_unknown 'no raw tracepoint' trace rawtracepoint:no_such_rawtp
if [[ ! -e /sys/bus/event_source/devices/kprobe ]]; then
	error_case err_kprobe_unsupported 'no kprobes.*tracepoint:syscalls:sys_enter_openat' trace kprobe:do_sys_openat2
	error_case err_fentry_unsupported 'no kprobes.*fentry' trace fentry:do_sys_openat2
	error_case err_kretprobe_unsupported 'no kprobes' trace kretprobe:do_sys_openat2
else
	skip err_kprobe_unsupported "this kernel has kprobes"
fi
error_case err_kprobe_no_function "no kernel function" trace kprobe:no_such_function_xyz
nobody=$(id -u nobody 2>/dev/null)
if [[ -n $nobody ]] && setpriv --reuid="$nobody" --regid="$nobody" --clear-groups test -x "$PERFBUF"; then
	timeout 20 setpriv --reuid="$nobody" --regid="$nobody" --clear-groups "$PERFBUF" trace \
		tracepoint:sched:sched_process_exec >/dev/null 2>"$tmp/eerr"
	rc=$?
	check err_not_root test "$rc" = 1 -a "$(wc -l <"$tmp/eerr")" = 1 -a -n "$(grep 'missing CAP_BPF, CAP_PERFMON, CAP_DAC_READ_SEARCH' "$tmp/eerr")"
else
	skip err_not_root "nobody cannot run $PERFBUF"
fi
if pgrep -x perfbuf >/dev/null || pgrep -x perfbuf-bench >/dev/null; then
	skip err_nothing_left_attached "another perfbuf is loading trace programs"
else
	check err_nothing_left_attached test "$(attached_progs)" -le "$before"
fi

# 7. Ctrl-C under load: drained, everything received is printed, exit 0
# getpgid() storms pinned to both CPUs: one stream in time order (it used
# to print half the lines older than the line before), late ones marked
# and rare.
storm() {
	python3 -c 'import os, sys
os.sched_setaffinity(0, {int(sys.argv[1])})
for i in range(100000): os.getpgid(0)' "$1"
}
if (($(nproc) >= 2)) && start_trace --json tracepoint:syscalls:sys_enter_getpgid; then
	storm 0 & p0=$!
	storm 1 & p1=$!
	wait "$p0" "$p1"
	stop_trace
	check trace_time_order json_check "$tmp/out" '
		(lambda ev: len({e["cpu"] for e in ev}) == 2 and
		 all(ev[i]["time_ns"] <= ev[i + 1]["time_ns"] for i in range(len(ev) - 1)) and
		 sum(1 for e in objs if e.get("late")) <= len(ev) // 1000)(
		[e for e in objs if e["type"] in ("event", "lost") and
		 "time_ns" in e and not e.get("late")])'
elif (($(nproc) < 2)); then
	skip trace_time_order "needs 2 CPUs"
else
	fail trace_time_order "did not attach: $(head -c 300 "$tmp/err")"
fi

if start_trace --json tracepoint:sched:sched_switch tracepoint:syscalls:sys_enter_getppid; then
	for _ in $(seq 200); do :; done
	stop_trace
	check sigint_drain_exit_0 test "$trc" = 0
	check sigint_drain_counts json_check "$tmp/out" \
		"objs[-1]['type']=='summary' and objs[-1]['received']==sum(1 for o in objs if o['type']=='event') > 0"
else
	fail sigint_drain_exit_0 "did not attach"
fi

# SIGTERM is a clean stop too; -p keeps one process only
if start_trace --json tracepoint:sched:sched_switch; then
	sleep 0.3
	kill -TERM "$tpid"
	wait "$tpid"
	trc=$?
	tpid=
	check sigterm_exit_0 json_check "$tmp/out" "objs[-1]['type']=='summary' and $trc==0"
else
	fail sigterm_exit_0 "did not attach"
fi
(sleep 2; exec "$TARGET" 2) &
target_pid=$!
if start_trace --json -p "$target_pid" "uprobe:$TARGET:pb_target_add"; then
	"$TARGET" 5
	wait "$target_pid"
	stop_trace
	check pid_filter json_check "$tmp/out" \
		"[o['pid'] for o in objs if o['type']=='event']==[$target_pid]*2"
else
	fail pid_filter "did not attach"
fi

# 8. stdout closed early: prompt stop, summary on stderr, no SIGPIPE death
start=$(date +%s%N)
timeout 20 "$PERFBUF" trace tracepoint:sched:sched_switch 2>"$tmp/err" | head -1 >"$tmp/out"
rc=${PIPESTATUS[0]}
ms=$((($(date +%s%N) - start) / 1000000))
check head_1_exit_0 test "$rc" = 0
check head_1_prompt test "$ms" -lt 5000
check head_1_summary_on_stderr grep -q 'events received' "$tmp/err"
timeout 20 "$PERFBUF" trace --json tracepoint:sched:sched_switch 2>"$tmp/err" | head -1 >"$tmp/out"
rc=${PIPESTATUS[0]}
check head_1_json_summary_on_stderr test "$rc" = 0 -a -n "$(grep '"type":"summary"' "$tmp/err")"

# 9. -n, -d, -o, --stats, --cpu, globs, raw tracepoints
timeout 20 "$PERFBUF" trace -n 3 tracepoint:sched:sched_switch >"$tmp/out" 2>"$tmp/err"
check count_n_3 test "$?" = 0 -a "$(grep -c sched_switch "$tmp/out")" = 3
start=$(date +%s)
timeout 20 "$PERFBUF" trace -d 2 --stats -o "$tmp/file" --cpu 0 --json \
	tracepoint:sched:sched_switch >"$tmp/out" 2>"$tmp/err"
rc=$?
check duration_and_output_file test "$rc" = 0 -a "$(($(date +%s) - start))" -le 5 -a -s "$tmp/file" -a ! -s "$tmp/out"
check cpu_filter json_check "$tmp/file" "all(o['cpu']==0 for o in objs if o['type']=='event')"
check stats_line grep -q '^stats: [0-9]* events/s, [0-9]* lost/s, ring fill' "$tmp/err"
# a full disk: an explicit error with the count of events it cost, exit 1
if [[ -w /dev/full ]]; then
	timeout 20 "$PERFBUF" trace -n 5 -o /dev/full tracepoint:sched:sched_switch >/dev/null 2>"$tmp/err"
	rc=$?
	# the first write fails: 0 to 5 events were read by then
	check output_disk_full test "$rc" = 1 -a -n "$(grep -xE 'perfbuf trace: writing /dev/full failed: No space left on device; ([02-5] events|1 event) not written' "$tmp/err")"
	timeout 20 "$PERFBUF" trace --json -n 5 tracepoint:sched:sched_switch >/dev/full 2>"$tmp/err"
	rc=$?
	check output_disk_full_json test "$rc" = 1 -a -n "$(grep -E 'writing stdout failed: No space left on device; ([02-5] events|1 event) not written' "$tmp/err")" -a -n "$(grep '"type":"summary"' "$tmp/err")"
else
	skip output_disk_full "no /dev/full"
fi
timeout 20 "$PERFBUF" trace -d 1 'tracepoint:syscalls:sys_enter_open*' >/dev/null 2>"$tmp/err"
check glob_attaches_several grep -qE '^Attached ([2-9]|[0-9]{2,}) probes' "$tmp/err"
if start_trace --json rawtracepoint:sched_process_exec; then
	"$prog"
	btf_progs=$(bpftool prog show 2>/dev/null | grep -cE 'name trace_tp_btf( |$)')
	stop_trace
	check rawtracepoint_event json_check "$tmp/out" \
		"any(o['type']=='event' and o['comm']=='pbexec_$$'[:15] and 'arg0' in o['args'] for o in objs)"
	# BTF has btf_trace_sched_process_exec: tp_btf, not the raw_tp fallback
	check rawtracepoint_uses_tp_btf test "$btf_progs" -ge 1
else
	fail rawtracepoint_event "did not attach: $(cat "$tmp/err")"
fi

# 10. tracefs mounted when missing (in a private mount namespace)
if unshare -m true 2>/dev/null; then
	unshare -m bash -c "umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null;
		[[ ! -e /sys/kernel/tracing/events ]] || exit 3
		timeout 20 '$PERFBUF' trace -d 1 tracepoint:sched:sched_process_exec >/dev/null 2>&1" 
	rc=$?
	if ((rc == 3)); then skip tracefs_automount "cannot unmount tracefs"; else check tracefs_automount test "$rc" = 0; fi
else
	skip tracefs_automount "no unshare -m"
fi

# 11. perfbuf list
"$PERFBUF" list 'sched:sched_process_e*' >"$tmp/out" 2>"$tmp/err"
check list_glob grep -qx 'tracepoint:sched:sched_process_exec' "$tmp/out"
check list_glob_only_matches test "$(grep -vc '^tracepoint:sched:sched_process_e' "$tmp/out")" = 0
error_case list_no_match 'nothing matches' list no_such_probe_xyz
"$PERFBUF" list | head -1 >/dev/null
check list_head_1 test "${PIPESTATUS[0]}" = 0
"$PERFBUF" trace --help >"$tmp/out"
check help_examples grep -q 'perfbuf trace tracepoint:sched:sched_process_exec' "$tmp/out"

finish
