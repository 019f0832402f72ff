#!/usr/bin/env bash
# The ledger in the guest's kernel (5.10: the programs' choices for old
# kernels, the _bounded twins; the counts by atomic adds without fetch): two probes hit 3:1 by a storm
# (--comm) into one page. Both lose; each probe offered what the storm
# made; offered = received + lost + no_reader + failed; the probes' lost
# add up to the summary's, in the JSON and the text summary.
source "$(dirname "$0")/lib.sh"
n=4000
probes=(tracepoint:syscalls:sys_enter_getpgid tracepoint:syscalls:sys_enter_getppid)
vm_note "json"
vm_trace "$tmp/j" 'ledger_storm pbledg $n' -- --pages 1 --comm pbledg "${probes[@]}"
why=$(ledger_verdict json "$tmp/j" $n 2>&1)
if [[ $trc == 0 && -z $why ]]; then
	pass ledger_json
else
	fail ledger_json "exit $trc; $why"
	show "$tmp/j"
fi
# text: vm_trace's --json comes first; --json=false is no option, so the
# text run is its own
vm_note "text"
: >"$tmp/t.err"
"$PERFBUF" trace --pages 1 --comm pbledg -o /dev/null "${probes[@]}" 2>"$tmp/t.err" &
tpid=$!
for _ in $(seq 1200); do
	grep -q '^Attached' "$tmp/t.err" && break
	kill -0 $tpid 2>/dev/null || break
	sleep 0.1
done
ledger_storm pbledg $n
kill -INT $tpid
wait $tpid
trc=$?
tpid=
why=$(ledger_verdict text "$tmp/t.err" $n 2>&1)
if [[ $trc == 0 && -z $why ]]; then
	pass ledger_text
else
	fail ledger_text "exit $trc; $why"
	head -c 2000 "$tmp/t.err"
fi
check ledger_no_mismatch test -z "$(grep 'counts disagree' "$tmp/j.err" "$tmp/t.err")"
finish
