#!/usr/bin/env bash
# docs/bpftrace.md against the tool and against bpftrace: each perfbuf
# command of its one-liners runs and prints a map; where bpftrace is
# installed, its text and ours on the same events, line for line.
# normal build only: the docs' commands and bpftrace's text (test_trace_agg.sh runs the same code under ASan)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/trace_lib.sh"
trace_test bpftrace_docs bpfdocs
source "$(dirname "$0")/agg_lib.sh"

# 1. docs/bpftrace.md: each perfbuf command of its one-liners runs for
# 1 s (or until its -c command ends) beside a workload (cat, ls), exits 0
# and prints a map (or events)
docs=$(dirname "$0")/../docs/bpftrace.md
(while :; do cat /etc/hostname /etc/passwd >/dev/null; ls / >/dev/null; sleep 0.05; done) &
workload=$!
n=0
while read -r cmd; do
	n=$((n + 1))
	eval "timeout 60 \"\$PERFBUF\" trace -d 1 ${cmd#perfbuf trace }" >"$tmp/dout" 2>"$tmp/derr"
	rc=$?
	if [[ $rc != 0 ]]; then
		fail "docs_bpftrace_$n" "$cmd: exit $rc: $(grep -v ^Attached "$tmp/derr" | head -2)"
	elif [[ $cmd == *--aggregate* ]] && ! grep -q '^@' "$tmp/dout"; then
		fail "docs_bpftrace_$n" "$cmd: no map printed: $(head -c 200 "$tmp/dout")"
	elif [[ ! -s $tmp/dout ]]; then
		fail "docs_bpftrace_$n" "$cmd: nothing printed"
	else
		pass "docs_bpftrace_$n"
	fi
done < <(sed -n '/^```sh$/,/^```$/p' "$docs" | grep '^perfbuf trace ')
kill "$workload"
wait "$workload" 2>/dev/null
check docs_bpftrace_commands test "$n" -ge 10

# 2. bpftrace's text on the same events: both running, one workload
if ! command -v bpftrace >/dev/null; then
	skip bpftrace_same_text "bpftrace is not installed (apt-get install bpftrace)"
	finish
fi
bt_prog="tracepoint:syscalls:sys_enter_write /comm == \"${name}w\" || comm == \"${name}v\"/ { @[comm] = count(); @h = hist(args->count); @l = lhist(args->count, 0, 5000, 1000); @s[comm, pid] = sum(args->count); }"
bpftrace -e "$bt_prog" >"$tmp/bt" 2>"$tmp/bterr" &
btpid=$!
if ! wait_line "$tmp/bterr" '^Attaching' "$btpid" && ! wait_line "$tmp/bt" '^Attaching' "$btpid"; then
	kill "$btpid" 2>/dev/null
	skip bpftrace_same_text "bpftrace did not attach: $(head -c 300 "$tmp/bterr")"
	finish
fi
sleep 1	# bpftrace says Attaching before it is attached
if traced bpftrace_same_text --filter "comm == \"${name}w\" || comm == \"${name}v\"" \
		--aggregate '@ = count() by comm' --aggregate '@h = hist(count)' \
		--aggregate '@l = lhist(count, 0, 5000, 1000)' --aggregate '@s = sum(count) by comm, pid' "$WR"; then
	as "${name}w" "$writes"
	as "${name}v" "$writes
$writes"
	stop_trace
	kill -INT "$btpid"
	wait "$btpid"
	# bpftrace: "Attaching", blank lines, its maps in name order; ours in
	# the order given (the same here); ties of equal counts in any order
	grep -v -e '^Attaching' "$tmp/bt" | sed '/./,$!d' >"$tmp/bt.maps"
	check bpftrace_same_text diff -u <(sort "$tmp/bt.maps") <(sort "$tmp/out")
	check bpftrace_same_hist diff -u <(sed -n '/^@h: $/,/^$/p' "$tmp/bt.maps") \
		<(sed -n '/^@h: $/,/^$/p' "$tmp/out")
fi
finish
