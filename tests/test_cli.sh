#!/usr/bin/env bash
# The perfbuf tool's front door: dispatch, help, the demo.
source "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one_line_error NAME REGEX ARGS...: exit 1 and exactly one stderr line
one_line_error() {
	local name=$1 re=$2
	shift 2
	"$PERFBUF" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	local rc=$?
	if [[ $rc == 1 && $(wc -l <"$tmp/err") == 1 ]] && grep -qE "$re" "$tmp/err"; then
		pass "$name"
	else
		fail "$name" "rc=$rc stderr=$(cat "$tmp/err")"
	fi
}

check help_lists_commands bash -c "'$PERFBUF' --help | grep -q '^  trace ' && '$PERFBUF' --help | grep -q '^  stress '"
one_line_error unknown_command "unknown command 'frob'.*--help" frob
one_line_error demo_bad_duration "^perfbuf demo: -d wants a duration from 1ms to 1000d \\(e.g. 5, 0.5, 500ms, 2m\\), not 'x'$" demo -d x
one_line_error demo_duration_range "^perfbuf demo: -d wants a duration from 1ms to 1000d \\(e.g. 5, 0.5, 500ms, 2m\\), not '1001d'$" demo -d 1001d
one_line_error demo_unknown_option "^perfbuf demo: unknown option '--frob'; run 'perfbuf demo --help'$" demo --frob
one_line_error demo_missing_value "^perfbuf demo: -d needs a value" demo -d
one_line_error demo_extra_argument "^perfbuf demo: unexpected argument 'x'" demo x
# the other commands' operand check is the same one (cli_opts.no_operands)
one_line_error stress_extra_argument "^perfbuf stress: unexpected argument 'x'; run 'perfbuf stress --help'$" stress x
one_line_error nats_tail_extra_argument "^perfbuf nats-tail: unexpected argument 'x'; run 'perfbuf nats-tail --help'$" nats-tail x
one_line_error demo_bad_time "^perfbuf demo: --time wants rel, mono or wall, not 'utc'$" demo --time utc
# perfbuf-bench is not run by the suite, but its bad options are checked
if [[ -x $BUILD/perfbuf-bench ]]; then
	PERFBUF=$BUILD/perfbuf-bench
	one_line_error bench_bad_only "^perfbuf-bench: --only wants throughput, ordered, drain, trace, filter, profile, record, record_load, python, run, nats, cpus or ledger, not 'x'$" --only x
	one_line_error bench_unknown_option "^perfbuf-bench: unknown option '--frob'" --frob
	one_line_error bench_bad_duration "^perfbuf-bench: -d wants a duration from 1ms to 10m \\(e.g. 5, 0.5, 500ms, 2m\\), not '0'$" -d 0
	one_line_error bench_bad_pages "^perfbuf-bench: --pages wants a power of two, not '3'$" -p 3
	one_line_error bench_extra_argument "^perfbuf-bench: unexpected argument 'extra'$" extra
	PERFBUF=$BUILD/perfbuf
else
	fail bench_options "$BUILD/perfbuf-bench not built"
fi
# Sizes and durations: every command takes the same forms (a fraction, a
# unit) and refuses what does not fit in the same words, an overflow too
# (17179869188G is 2^64 + 4G bytes: once taken as 4G)
SZ="wants a size from [0-9]+[KMGT]? to [0-9]+[KMGT]? \\(e.g. 8M, 512M\\), not '17179869188G'$"
for c in "trace --buffer-size" "record --buffer-size" "record --flight-recorder" \
	 "run --buffer-size" "trace --nats-buffer" "trace --nats-max-bytes"; do
	one_line_error "size_overflow_${c// /_}" "^perfbuf ${c% *}: ${c#* } $SZ" $c 17179869188G x
done
DU="wants a duration from [0-9]+(ms|s) to [0-9]+[dhms] \\(e.g. 5, 0.5, 500ms, 2m\\), not '17179869188G'$"
for c in trace record run attach profile stress nats-tail demo; do
	one_line_error "duration_overflow_$c" "^perfbuf $c: -d $DU" $c -d 17179869188G
done
# the forms taken: the run then stops at what comes after -d (no such probe, file)
for d in 0.5 500ms 2m 1.5s 1500us; do
	"$PERFBUF" trace -d $d no:such:probe >/dev/null 2>"$tmp/err"
	if grep -q -- '-d wants' "$tmp/err"; then
		fail "duration_form_$d" "$(cat "$tmp/err")"
	else
		pass "duration_form_$d"
	fi
done
check demo_help bash -c "'$PERFBUF' demo --help | grep -q '^Usage: perfbuf demo'"
"$PERFBUF" demo -d 1 >&- 2>"$tmp/err"
check demo_stdout_closed test "$?" = 1 -a "$(wc -l <"$tmp/err")" = 1 -a \
	-n "$(grep -x 'perfbuf demo: stdout is closed; redirect it (>FILE, >/dev/null)' "$tmp/err")"
"$PERFBUF" list >&- 2>"$tmp/err"
check list_stdout_closed test "$?" = 1 -a -n "$(grep 'perfbuf list: stdout is closed' "$tmp/err")"

# list -v 'uprobe:BIN:GLOB': the functions of a -g binary with their
# prototypes from DWARF; without -v their names (ELF symbols); without
# DWARF the names and one line saying so
TARGET=$BUILD/tests/uprobe_target
T=$(realpath "$TARGET")
"$PERFBUF" list -v "uprobe:$TARGET:pb_target_*" >"$tmp/out" 2>"$tmp/err"
check list_uprobe_protos test "$?" = 0 -a ! -s "$tmp/err" -a "$(sort "$tmp/out")" = "$(printf '%s\n' \
	"uprobe:$T:pb_target_add	long int pb_target_add(long int a, long int b, long int c, long int d, long int e, long int f)" \
	"uprobe:$T:pb_target_neg	long int pb_target_neg(long int x)" \
	"uprobe:$T:pb_target_seq	long int pb_target_seq(long int i)" \
	"uprobe:$T:pb_target_str	int pb_target_str(const char *path, unsigned int n, enum pb_color color, _Bool on)")" ||
	cat "$tmp/out" "$tmp/err"
"$PERFBUF" list -v "uprobe:$TARGET:main" >"$tmp/out" 2>&1
check list_uprobe_proto_pointers grep -qxF "uprobe:$T:main	int main(int argc, char **argv)" "$tmp/out"
"$PERFBUF" list "uprobe:$TARGET:pb_many_1*" >"$tmp/out" 2>"$tmp/err"
check list_uprobe_names test "$?" = 0 -a "$(grep -c "^uprobe:$T:pb_many_1[0-9][0-9]$" "$tmp/out")" = 100 -a \
	"$(wc -l <"$tmp/out")" = 100
objcopy --strip-debug "$TARGET" "$tmp/nodwarf"
"$PERFBUF" list -v "uprobe:$tmp/nodwarf:pb_target_neg" >"$tmp/out" 2>"$tmp/err"
check list_uprobe_no_dwarf test "$?" = 0 -a "$(cat "$tmp/out")" = "uprobe:$(realpath "$tmp/nodwarf"):pb_target_neg" -a \
	-n "$(grep -x "perfbuf list: .*/nodwarf has no DWARF (build it with -g): its functions without prototypes; a uprobe on one prints arg0..arg5" "$tmp/err")"
one_line_error list_uprobe_no_match "^perfbuf list: no function of $T matches 'no_such_fn'$" list -v "uprobe:$TARGET:no_such_fn"
one_line_error list_uprobe_not_elf "^perfbuf list: /etc/passwd is not an ELF executable or library; give a binary$" list -v 'uprobe:/etc/passwd:*'
one_line_error list_uprobe_no_binary "^perfbuf list: no such binary '/no/such'$" list 'uprobe:/no/such:*'
# where bpftrace is installed: the same parameters (its spacing aside)
if command -v bpftrace >/dev/null && need_root; then
	bpftrace -lv "uprobe:$TARGET:pb_target_*" 2>/dev/null | awk '/^uprobe/ { if (s) print s; s = $0; sep = " " ; next }
		{ sub(/^ +/, ""); s = s sep $0; sep = ", " } END { if (s) print s }' | tr -d ' ' | sort >"$tmp/bt"
	"$PERFBUF" list -v "uprobe:$TARGET:pb_target_*" | sed -E 's/\t[^(]*\(/ /; s/\)$//; s/^uprobe:[^:]*:/uprobe:X:/' |
		tr -d ' ' | sort >"$tmp/pb"
	sed -i -E 's/^uprobe:[^:]*:/uprobe:X:/' "$tmp/bt"
	check list_uprobe_as_bpftrace diff "$tmp/bt" "$tmp/pb"
else
	skip list_uprobe_as_bpftrace "no bpftrace, or not root"
fi

if need_root; then
	"$PERFBUF" demo -d 2 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	# it runs /bin/true every second: at least one exec of it is seen
	check demo_traces_exec test "$rc" = 0 -a -n "$(grep -E '^[0-9.]+ +[0-9]+ +[0-9]+ +[0-9]+ +true +/bin/true$' "$tmp/out")"
	check demo_prints_stats grep -qE '^CPU +SAMPLES +BYTES +LOST +WAKEUPS +DRAINS +HIGHWATER$' "$tmp/out"
	# --time as perfbuf trace has it: rel by default (small), wall the date
	check demo_time_rel awk '/ true +\/bin\/true$/ { n++; if ($1 > 10) bad = 1 } END { exit bad || !n }' "$tmp/out"
	"$PERFBUF" demo -d 1 --time wall >"$tmp/out" 2>"$tmp/err"
	check demo_time_wall grep -qE "^$(date +%Y-%m-%d)T[0-9:]{8}\.[0-9]{6} +[0-9]+ +[0-9]+ +[0-9]+ +true +/bin/true$" "$tmp/out"
	# a reader that stops early (| head -1): a prompt end, exit 0, the
	# statistics on stderr (an exec a second writes, and finds EPIPE)
	start=$SECONDS
	"$PERFBUF" demo -d 60 2>"$tmp/head.err" | head -1 >"$tmp/head.out"
	rc=${PIPESTATUS[0]}
	check demo_head_1 test "$rc" = 0 -a $((SECONDS - start)) -lt 30 -a \
		-n "$(grep -E '^CPU +SAMPLES' "$tmp/head.err")" -a "$(wc -l <"$tmp/head.out")" = 1
	# a write that fails otherwise (a full disk): one line, exit 1
	"$PERFBUF" demo -d 2 >/dev/full 2>"$tmp/err"
	check demo_full_disk test "$?" = 1 -a "$(wc -l <"$tmp/err")" = 1 -a \
		-n "$(grep -x 'perfbuf demo: writing stdout failed: No space left on device' "$tmp/err")"
	"$PERFBUF" list 'tracepoint:sched:*' >/dev/full 2>"$tmp/err"
	check list_full_disk test "$?" = 1 -a "$(wc -l <"$tmp/err")" = 1 -a \
		-n "$(grep -x 'perfbuf list: writing stdout failed: No space left on device' "$tmp/err")"
	# list -v: a tracepoint's fields (those --filter takes) with their
	# types as bpftrace -lv prints them; a kernel function's prototype
	"$PERFBUF" list -v tracepoint:sched:sched_switch >"$tmp/out" 2>"$tmp/err"
	check list_tracepoint_fields test "$?" = 0 -a "$(cat "$tmp/out")" = "$(printf '%s\n' \
		tracepoint:sched:sched_switch '    char prev_comm[16]' '    pid_t prev_pid' \
		'    int prev_prio' '    long prev_state' '    char next_comm[16]' \
		'    pid_t next_pid' '    int next_prio')" || cat "$tmp/out" "$tmp/err"
	"$PERFBUF" list -v 'tracepoint:syscalls:sys_enter_openat' >"$tmp/out" 2>"$tmp/err"
	check list_tracepoint_fields_syscall grep -qx '    const char \* filename' "$tmp/out"
	check list_tracepoint_fields_no_common test -z "$(grep common_ "$tmp/out")"
	if command -v bpftrace >/dev/null; then
		for tp in sched:sched_switch 'syscalls:sys_enter_open*' 'sched:sched_process_*'; do
			bpftrace -lv "tracepoint:$tp" 2>/dev/null | awk '/^tracepoint/ { h = $0; next } { print h "|" $0 }' | sort >"$tmp/bt"
			"$PERFBUF" list -v "tracepoint:$tp" | awk '/^tracepoint/ { h = $0; next } { print h "|" $0 }' | sort >"$tmp/pb"
			check "list_tracepoint_as_bpftrace_${tp//[^a-z_]/_}" diff "$tmp/bt" "$tmp/pb"
		done
	else
		skip list_tracepoint_as_bpftrace "bpftrace is not installed"
	fi
	if [[ -r /sys/kernel/btf/vmlinux ]]; then
		"$PERFBUF" list -v fentry:do_sys_openat2 >"$tmp/out" 2>"$tmp/err"
		check list_fentry_proto grep -qx 'fentry:do_sys_openat2	int do_sys_openat2(int dfd, const char \*filename, struct open_how \*how)' "$tmp/out"
	fi
	"$PERFBUF" 2>"$tmp/head.err" | head -1 >"$tmp/head.out"
	rc=${PIPESTATUS[0]}
	check no_command_head_1 test "$rc" = 0 -a -n "$(grep -E '^CPU +SAMPLES' "$tmp/head.err")"
	# SIGHUP (a closed terminal) ends it as Ctrl-C does, with the
	# statistics; under nohup (SIGHUP ignored) it runs on to -d
	for mode in caught ignored; do
		if [[ $mode == ignored ]]; then
			(trap '' HUP; exec "$PERFBUF" demo -d 3 >"$tmp/hup.out" 2>"$tmp/hup.err") &
		else
			"$PERFBUF" demo -d 3 >"$tmp/hup.out" 2>"$tmp/hup.err" &
		fi
		p=$!
		wait_line "$tmp/hup.out" '^Tracing exec' "$p"
		start=$SECONDS
		kill -HUP "$p"
		wait "$p"
		rc=$?
		secs=$((SECONDS - start))
		if [[ $mode == caught ]]; then
			check demo_sighup_ends_run test "$rc" = 0 -a "$secs" -le 1 -a \
				-n "$(grep -E '^CPU +SAMPLES' "$tmp/hup.out")"
		else
			check demo_sighup_ignored_under_nohup test "$rc" = 0 -a "$secs" -ge 2 -a \
				-n "$(grep -E '^CPU +SAMPLES' "$tmp/hup.out")"
		fi
	done
	# tracefs mounted when missing, as trace does (a private mount namespace)
	if unshare -m true 2>/dev/null; then
		unshare -m bash -c "umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null
			[[ ! -e /sys/kernel/tracing/events ]] || exit 3
			'$PERFBUF' demo -d 1 >'$tmp/out' 2>'$tmp/err'"
		rc=$?
		if ((rc == 3)); then
			skip demo_tracefs_automount "cannot unmount tracefs"
		else
			check demo_tracefs_automount test "$rc" = 0 -a -n "$(grep -E ' true +/bin/true$' "$tmp/out")"
		fi
	else
		skip demo_tracefs_automount "no unshare -m"
	fi
else
	skip demo_traces_exec "needs root"
	skip demo_prints_stats "needs root"
fi
finish
