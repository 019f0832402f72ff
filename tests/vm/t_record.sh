#!/usr/bin/env bash
# perfbuf record of a kprobe, then perfbuf report: the read() of 1234
# bytes the test made is in the capture.
source "$(dirname "$0")/lib.sh"
head -c 777 /dev/urandom >"$tmp/file"
: >"$tmp/rec.err"
"$PERFBUF" record -o "$tmp/cap" --comm pbvm_dd kprobe:vfs_read kretprobe:vfs_read 2>"$tmp/rec.err" &
tpid=$!
for _ in $(seq 1200); do
	grep -q '^Attached\|^Recording' "$tmp/rec.err" && break
	kill -0 $tpid 2>/dev/null || break
	sleep 0.1
done
pbdd "$tmp/file" 1234
kill -INT $tpid	# drained after it, the probes stopped: no pause needed
wait $tpid
tpid=
"$PERFBUF" report --json "$tmp/cap" >"$tmp/r" 2>"$tmp/r.err"
check record_report_kprobe jcheck "$tmp/r" "
	any(o.get('probe') == 'kprobe:vfs_read' and o['args']['count'] == 1234 for o in objs) and
	any(o.get('probe') == 'kretprobe:vfs_read' and o['args']['ret'] == 777 for o in objs)" ||
	{ cat "$tmp/rec.err"; show "$tmp/r"; }
finish
