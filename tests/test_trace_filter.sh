#!/usr/bin/env bash
# perfbuf trace --filter: integers (signed, unsigned, ranges), strings
# (equality at word boundaries, prefixes, long ones, comm), &&, ||, !,
# per-probe filters, arguments of uprobes and raw tracepoints, the
# refusals with their messages; events filtered out are never received.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/trace_lib.sh"
trace_test trace_filter filter
name="pbf$$"
name=${name:0:15}

# run_py CODE: python3 named $name (its comm) running CODE
run_py() {
	python3 -c "
import ctypes, os
open('/proc/self/comm', 'w').write('$name')
def opn(p):
    try: os.close(os.open(p, os.O_RDONLY))
    except OSError: pass
def pgid(k):
    try: os.getpgid(k)
    except OSError: pass
def sid(k):
    try: os.getsid(k)
    except OSError: pass
$1"
}

# received FILE: the JSON summary's count; events FILE [PROBE]: event lines
received() { python3 -c "import json; o = [json.loads(l) for l in open('$1')][-1]; print(o['received'] if o['type'] == 'summary' else 'none')"; }
events() { python3 -c "
import json, sys
print(sum(1 for l in open('$1') for o in [json.loads(l)] if o['type'] == 'event' and o['probe'].startswith(sys.argv[1]) and o['probe'].endswith(sys.argv[2])))" "$2" "$3"; }

# expect NAME FILE KIND SUFFIX COUNT: COUNT events of probes KIND...SUFFIX
expect() {
	local got
	got=$(events "$2" "$3" "$4")
	if [[ $got == "$5" ]]; then pass "$1"; else fail "$1" "$got events of $3...$4, want $5"; fi
}

# 1. integers: getpgid(pid_t) and getsid(pid_t), per-probe filters in one run;
# 'pid' is the task's, args.pid the argument
storm='
for k in range(4200, 4300): pgid(k); sid(k)
for _ in range(4): pgid(4242); sid(4242)
for _ in range(3): pgid(-7); sid(-7)'
if traced int_eq --json --filter "comm == \"$name\"" \
		--filter 'tracepoint:syscalls:sys_enter_getpgid:args.pid == 4242' \
		--filter 't:syscalls:sys_enter_getsid:args.pid >= 4240 && args.pid < 4245 || args.pid < 0' \
		tracepoint:syscalls:sys_enter_getpgid tracepoint:syscalls:sys_enter_getsid; then
	run_py "$storm"
	stop_trace
	expect int_eq "$tmp/out" tracepoint: sys_enter_getpgid 5
	expect int_range_or_signed "$tmp/out" tracepoint: sys_enter_getsid 12
	check int_values json_check "$tmp/out" \
		"all(o['args']['pid']==4242 for o in objs if o['type']=='event' and o['probe'].endswith('getpgid')) and sorted({o['args']['pid'] for o in objs if o['type']=='event' and o['probe'].endswith('getsid')})==[-7,4240,4241,4242,4243,4244]"
	# the ring carried only what passed: 17 of the 424 calls
	check filtered_never_received test "$(received "$tmp/out")" = 17
	check filtered_exit_0 test "$trc" = 0
	# what a filter drops in the kernel is never offered: each probe's
	# ledger counts what passed, 5 and 12, all received
	check filtered_not_offered json_check "$tmp/out" \
		"sorted((p['probe'], p['offered'], p['received']) for p in objs[-1]['probes'])==[('tracepoint:syscalls:sys_enter_getpgid', 5, 5), ('tracepoint:syscalls:sys_enter_getsid', 12, 12)]"
fi

# 2. logic: !, !=, a constant on the left, parentheses
if traced logic_not_flip --json --filter "comm == \"$name\"" \
		--filter 'tracepoint:syscalls:sys_enter_getpgid:!(args.pid != 4242) || 4201 >= args.pid' \
		--filter 'tracepoint:syscalls:sys_enter_getsid:(args.pid == 4242 || args.pid == 4243) && !(args.pid == 4243)' \
		tracepoint:syscalls:sys_enter_getpgid tracepoint:syscalls:sys_enter_getsid; then
	run_py "$storm"
	stop_trace
	expect logic_not_flip "$tmp/out" tracepoint: sys_enter_getpgid 10
	expect logic_parens "$tmp/out" tracepoint: sys_enter_getsid 5
fi

# 3. strings: == at and around 8-byte words, prefixes, a long one, \*, !=
d="$tmp/fa"
long="$d/$(printf 'L%.0s' $(seq 180))"
paths=("$d/abcdefg" "$d/abcdefgh" "$d/abcdefghi" "$d/st*r" "$d/sta" "$long" "$long" "$tmp/fb/x")
py_paths=$(printf "'%s'," "${paths[@]}")
if traced str_eq_exact --json --filter "comm == \"${name:0:3}*\"" \
		--filter "filename == \"$d/abcdefgh\" || filename == \"$d/st\\*r\" || filename == \"$long\" || filename != \"$tmp/f*\"" \
		tracepoint:syscalls:sys_enter_openat; then
	run_py "for p in [$py_paths]: opn(p)"
	stop_trace
	check str_eq_exact json_check "$tmp/out" \
		"sorted(o['args']['filename'] for o in objs if o['type']=='event' and o['args']['filename'].startswith('$tmp/'))==sorted(['$d/abcdefgh','$d/st*r','$long','$long'])"
fi
if traced str_prefix --json --filter "comm == \"$name\" && filename == \"$d/abcdefg*\"" \
		tracepoint:syscalls:sys_enter_openat; then
	run_py "for p in [$py_paths]: opn(p)"
	stop_trace
	check str_prefix json_check "$tmp/out" \
		"sorted(o['args']['filename'] for o in objs if o['type']=='event')==['$d/abcdefg','$d/abcdefgh','$d/abcdefghi']"
fi

# 4. uprobe arguments, uretprobe return values, per probe and for all
if traced uprobe_args_filter --json --filter 'comm == "uprobe_target"' \
		--filter "uprobe:$TARGET:pb_target_add:arg0 == 1 && arg5 == 6 && arg2 > 2" \
		--filter "uretprobe:$TARGET:pb_target_neg:ret == -7 && ret < 0" \
		--filter "uprobe:$TARGET:pb_target_neg:arg0 == 8" \
		"uprobe:$TARGET:pb_target_add" "uretprobe:$TARGET:pb_target_neg" \
		"uprobe:$TARGET:pb_target_neg"; then
	"$TARGET" 4
	stop_trace
	expect uprobe_args_filter "$tmp/out" uprobe: :pb_target_add 4
	expect uretprobe_ret_filter "$tmp/out" uretprobe: :pb_target_neg 4
	expect uprobe_args_filtered_out "$tmp/out" uprobe: :pb_target_neg 0
fi

# 5. raw tracepoint arguments: sys_enter(regs, id), a syscall number no
# kernel has
if traced rawtp_args --json --filter "arg1 == 4001 && comm == \"$name\"" rawtracepoint:sys_enter; then
	run_py '
sc = ctypes.CDLL(None, use_errno=True).syscall
for _ in range(5): sc(4001)
for _ in range(3): sc(4002)'
	stop_trace
	expect rawtp_args "$tmp/out" rawtracepoint: sys_enter 5
fi

# 6. refused: one line naming the part, exit 1, before anything is traced
tp=tracepoint:syscalls:sys_enter_openat
error_case refuse_arith "arithmetic and bit operators are not supported in the kernel filter ('&' at column 7)" \
	trace --filter 'flags & 1' $tp
error_case refuse_two_fields "'dfd == flags' compares two fields" trace --filter 'mode == 1 || dfd == flags' $tp
error_case refuse_str_order "'comm < \"a\"': strings compare only with == and !=" trace --filter 'dfd == 1 && comm < "a"' $tp
error_case refuse_str_int "'dfd' of $tp is an integer; compare it with a number" trace --filter 'dfd == "x"' $tp
error_case refuse_int_str "'filename' of $tp is a string" trace --filter 'filename == 3' $tp
error_case refuse_glob_middle "only a trailing '\*' (a prefix match) is supported" trace --filter 'filename == "/etc/*.conf"' $tp
error_case refuse_no_field "$tp has no field 'fname' (its names: __syscall_nr dfd filename flags mode pid tid comm cpu)" \
	trace --filter 'fname == "x"' $tp
error_case refuse_range "the constant does not fit 'dfd' (4 bytes, signed)" trace --filter 'dfd == 4294967296' $tp
error_case refuse_comm_long "'comm' holds at most 15 bytes, so this can never match" trace --filter 'comm == "0123456789abcdef"' $tp
error_case refuse_call "function calls are not supported" trace --filter 'strlen(filename) == 3' $tp
error_case refuse_single_eq "write == to compare" trace --filter 'dfd = 3' $tp
error_case refuse_unbalanced "the ')' at column 9 closes no '('" trace --filter 'dfd == 3)' $tp
error_case refuse_empty "empty expression" trace --filter ' ' $tp
error_case refuse_unknown_probe "no probe matches 'tracepoint:sched:nope'" trace --filter 'tracepoint:sched:nope:pid == 1' $tp
error_case refuse_glob_missing_field "tracepoint:syscalls:sys_enter_[a-z]* has no field 'fd'" \
	trace --filter 'fd == 3' 'tracepoint:syscalls:sys_enter_c*'
error_case refuse_argv "'argv' of tracepoint:syscalls:sys_enter_execve is a list of strings" \
	trace --filter 'argv == "ls"' tracepoint:syscalls:sys_enter_execve
error_case refuse_ptr_str "'buf' of tracepoint:syscalls:sys_enter_read is a pointer (an address); compare it with a number" \
	trace --filter 'buf == "x"' tracepoint:syscalls:sys_enter_read
error_case refuse_args_common "has no field 'comm'" trace --filter 'args.comm == "x"' $tp
error_case refuse_ret_on_entry "has no field 'ret'" trace --filter 'ret == 0' "uprobe:$TARGET:pb_target_neg"
error_case refuse_too_long "more than 64 operations" \
	trace --filter "$(for i in $(seq 70); do printf 'dfd == %d || ' $i; done) dfd == 0" $tp
# hostile: nesting past the parser's stack, an escaped closing quote,
# an operator twice, a name of 100,000 characters (the line stays short)
error_case refuse_deep_not "nested more than 64 deep" \
	trace --filter "$(printf '!%.0s' $(seq 60000))dfd == 1" $tp
error_case refuse_deep_parens "nested more than 64 deep" \
	trace --filter "$(printf '(%.0s' $(seq 60000))dfd == 1" $tp
error_case refuse_long_chain "more than 64 operations" \
	trace --filter "$(printf 'dfd == 1 || %.0s' $(seq 10000))dfd == 1" $tp
error_case refuse_escaped_close "the string at column 13 has no closing '\"'" \
	trace --filter 'filename == "/etc/ho\"' $tp
error_case refuse_op_twice "'||' at column 13: a value expected" \
	trace --filter 'pid == 1 || || pid == 2' $tp
error_case refuse_huge_name "a name of 100000 characters at column 1" \
	trace --filter "$(printf 'a%.0s' $(seq 100000)) == 1" $tp
check refuse_huge_name_short_line test "$(wc -c <"$tmp/eerr")" -lt 400

finish
