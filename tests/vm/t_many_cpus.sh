#!/usr/bin/env bash
# vcpus: 64
# perfbuf on 64 CPUs: stress keeps its identity (received + lost ==
# offered); trace, record/report and run deliver what runs on the last
# CPUs too; fds stay at one per CPU plus a constant; the ring memory
# mapped stays within --buffer-size, and the default budget maps 16 MiB.
source "$(dirname "$0")/lib.sh"
ncpu=$(getconf _NPROCESSORS_ONLN)
check many_vcpus test "$ncpu" -ge 64 || echo "online: $ncpu"

if "$PERFBUF" stress --rate 2k --duration 3 --json >"$tmp/st" 2>"$tmp/st.err"; then
	check many_stress_identity jcheck "$tmp/st" "objs[-1]['ok'] and objs[-1]['offered'] > 0 and
		objs[-1]['received'] + objs[-1]['lost'] == objs[-1]['offered']" || cat "$tmp/st"
else
	fail many_stress_identity "exit $?: $(head -c 300 "$tmp/st.err")"
fi

# trace: execs pinned to the first, a middle and the last CPU; the fds
# counted while it runs (a perf event per CPU, the epoll, the BPF objects)
prog=$tmp/pbmany
cp /bin/true "$prog"
vm_trace "$tmp/tr" 'for c in 0 31 $((ncpu - 1)); do taskset -c $c "$prog"; done
	ls /proc/$tpid/fd | wc -l >"$tmp/fds"' -- tracepoint:sched:sched_process_exec
check many_trace_cpus jcheck "$tmp/tr" "sorted(o['cpu'] for o in objs if o['type'] == 'event' and
	o['args']['filename'] == '$prog') == [0, 31, $((ncpu - 1))]" || show "$tmp/tr"
if (($(cat "$tmp/fds") <= ncpu + 40)); then
	pass "many_trace_fds ($(cat "$tmp/fds") fds with $ncpu CPUs)"
else
	fail many_trace_fds "$(cat "$tmp/fds") fds with $ncpu CPUs"
fi
# the default budget: 64 CPUs share 2 MiB x 17 / 80 each, rings of 256 KiB
check many_default_budget jcheck "$tmp/tr" "objs[-1]['type'] == 'summary' and
	objs[-1]['rings'] == $ncpu and objs[-1]['ring_bytes'] == $ncpu * 256 * 1024" ||
	tail -1 "$tmp/tr"
vm_trace "$tmp/tb" 'taskset -c $((ncpu - 1)) "$prog"' -- --buffer-size 8M \
	tracepoint:sched:sched_process_exec
check many_buffer_size jcheck "$tmp/tb" "objs[-1]['type'] == 'summary' and
	0 < objs[-1]['ring_bytes'] <= 8 << 20 and
	any(o['type'] == 'event' and o['cpu'] == $((ncpu - 1)) for o in objs)" || tail -1 "$tmp/tb"

# record and report: the capture lists every CPU and keeps the last one's
"$PERFBUF" record -o "$tmp/m.cap" tracepoint:sched:sched_process_exec >/dev/null 2>"$tmp/rec.err" &
rpid=$!
for _ in $(seq 1200); do grep -q '^Attached' "$tmp/rec.err" && break; sleep 0.1; done
taskset -c $((ncpu - 1)) "$prog"
kill -INT $rpid
wait $rpid
"$PERFBUF" report --json "$tmp/m.cap" >"$tmp/rep" 2>"$tmp/rep.err"
check many_record_report jcheck "$tmp/rep" "any(o['type'] == 'event' and
	o['cpu'] == $((ncpu - 1)) and o['args']['filename'] == '$prog' for o in objs)" ||
	{ head -c 500 "$tmp/rec.err"; head -c 500 "$tmp/rep.err"; }
"$PERFBUF" report --info "$tmp/m.cap" >"$tmp/info" 2>&1
check many_report_info grep -q "CPUs 0-$((ncpu - 1))\$" "$tmp/info" || cat "$tmp/info"

# run: a summary row for every CPU
obj=$BUILD/tests/bpf/run_types.bpf.o
if [[ -f $obj ]]; then
	timeout 200 "$PERFBUF" run --json -d 2 "$obj" >"$tmp/run" 2>"$tmp/run.err"
	check many_run_summary jcheck "$tmp/run" "objs[-1]['type'] == 'summary' and
		len(objs[-1]['per_cpu']) == $ncpu" || { tail -1 "$tmp/run"; head -c 300 "$tmp/run.err"; }
else
	skip many_run_summary "no $obj"
fi
finish
