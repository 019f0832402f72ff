#!/usr/bin/env bash
# Function latency: a return probe traced with its entry gets duration_ns
# (the same thread's entry to this return), paired in the BPF program.
# latency_target (built with -g) sleeps 1 ms and 20 ms in pb_sleep_ms()
# (clock_nanosleep() underneath) and nests pb_nest() three deep, 2 ms a
# level: each duration must fall in its window and their count equal the
# calls. Uprobes and the syscall tracepoints, --filter on duration_ns, an
# entry filtered out (still paired) and a return with no entry (no
# duration: null, never a wrong number).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/trace_lib.sh"
trace_test trace_latency latency
LAT=$(realpath "$BUILD/tests/latency_target")
SLACK=40000000		# ns a loaded 2-vCPU machine may add to a sleep (seen: 30 ms)
N=3

# lat_check NAME FILE EXPR: EXPR (Python) over `d`, the JSON objects of
# FILE's events by probe name: {probe: [args, ...]} in order; on failure
# the durations seen are printed
lat_check() {
	local out
	if out=$(python3 - "$2" "$3" "$SLACK" <<'PY'
import json, sys
d, slack = {}, int(sys.argv[3])
for l in open(sys.argv[1], 'rb'):
    o = json.loads(l)
    if o['type'] == 'event':
        d.setdefault(o['probe'].split(':')[-1], []).append(o['args'])
ms = 1000000
def within(v, lo):
    return v is not None and lo <= v <= lo + slack
def rets(probe):
    return [a['duration_ns'] for a in d.get(probe, []) if 'duration_ns' in a]
def windows(v, los):
    return len(v) == len(los) and all(within(x, lo) for x, lo in zip(v, los))
ok = eval(sys.argv[2].strip())
if not ok:
    print({k: [a.get('duration_ns', '-') for a in v] for k, v in d.items()
           if any('duration_ns' in a for a in v)})
sys.exit(0 if ok else 1)
PY
	); then
		pass "$1"
	else
		fail "$1" "$out"
	fi
}

if traced latency_uprobe --json "uprobe:$LAT:pb_sleep_ms" "uretprobe:$LAT:pb_sleep_ms" \
		"uprobe:$LAT:pb_nest" "uretprobe:$LAT:pb_nest"; then
	"$LAT" $N
	stop_trace
	# pb_sleep_ms: N of 1 ms, N of 20 ms, then 3 of 2 ms inside pb_nest
	lat_check latency_uprobe "$tmp/out" \
		"windows(rets('pb_sleep_ms'), [1 * ms] * $N + [20 * ms] * $N + [2 * ms] * 3)"
	# nested: innermost first, each level 2 ms more than the one inside
	lat_check latency_nested "$tmp/out" "(
		[a['ret'] for a in d['pb_nest'] if 'duration_ns' in a] == [1, 2, 3] and
		windows(rets('pb_nest'), [2 * ms, 4 * ms, 6 * ms]))"
	check latency_entry_plain json_check "$tmp/out" "(
		all('duration_ns' not in o['args'] for o in objs
		    if o['type'] == 'event' and o['probe'].startswith('uprobe:')))"
fi

# the syscall's tracepoints: every clock_nanosleep() of the target
if traced latency_syscall --json --comm latency_target \
		tracepoint:syscalls:sys_enter_clock_nanosleep tracepoint:syscalls:sys_exit_clock_nanosleep; then
	"$LAT" $N
	stop_trace
	lat_check latency_syscall "$tmp/out" \
		"windows(rets('sys_exit_clock_nanosleep'), [1 * ms] * $N + [20 * ms] * $N + [2 * ms] * 3)"
fi

# --filter in the kernel: only the 20 ms returns (entries have no
# duration: a comparison of it is false)
if traced latency_filter --json --filter 'duration_ns > 10000000' \
		"uprobe:$LAT:pb_sleep_ms" "uretprobe:$LAT:pb_sleep_ms"; then
	"$LAT" $N
	stop_trace
	lat_check latency_filter "$tmp/out" "(
		list(d) == ['pb_sleep_ms'] and windows(rets('pb_sleep_ms'), [20 * ms] * $N))"
fi

# an entry filtered out still opens its call: the returns keep their
# durations, as they do when an entry's record is lost
if traced latency_entry_filtered --json --filter "uprobe:$LAT:pb_sleep_ms:ms == 20" \
		"uprobe:$LAT:pb_sleep_ms" "uretprobe:$LAT:pb_sleep_ms"; then
	"$LAT" $N
	stop_trace
	lat_check latency_entry_filtered "$tmp/out" "(
		[a for a in d['pb_sleep_ms'] if 'ms' in a] == [{'ms': 20}] * $N and
		windows(rets('pb_sleep_ms'), [1 * ms] * $N + [20 * ms] * $N + [2 * ms] * 3))"
fi

# losses: a storm of getpgid() shares one-page rings with the target's
# probes, so that records are lost (entries and returns alike); each
# return that arrives still has its own call's duration (its ret is the
# ms asked for), never none or another call's: no pairing goes through
# the rings
"$LAT" 1 >/dev/null	# its pages in
if traced latency_losses --json --pages 1 "uprobe:$LAT:pb_sleep_ms" "uretprobe:$LAT:pb_sleep_ms" \
		tracepoint:syscalls:sys_enter_getpgid; then
	# bursts of 300 a ms apart: each overflows the ring, the target's
	# records fall between them or into them
	python3 -c 'import os, time
while True:
    for _ in range(300):
        os.getpgid(0)
    time.sleep(0.0005)' &
	spid=$!
	sleep 0.3
	"$LAT" 5
	kill $spid
	wait $spid 2>/dev/null
	stop_trace
	lat_check latency_losses "$tmp/out" "(
		[o for o in map(json.loads, open(sys.argv[1], 'rb')) if o['type'] == 'summary'][0]['lost'] > 1000 and
		len(rets('pb_sleep_ms')) >= 1 and
		all(within(a['duration_ns'], a['ret'] * ms) for a in d['pb_sleep_ms'] if 'ret' in a))" ||
		grep -h '^{"type":"summary"' "$tmp/out" | cut -c 1-200
fi

# a return whose entry came before the trace began: no duration (null),
# never one measured from another call's entry
"$LAT" 100 &
lpid=$!
sleep 0.5
if traced latency_unknown --json -p $lpid \
		tracepoint:syscalls:sys_enter_clock_nanosleep tracepoint:syscalls:sys_exit_clock_nanosleep; then
	wait $lpid
	stop_trace
	lat_check latency_unknown "$tmp/out" "(
		len(d['sys_exit_clock_nanosleep']) - len(d['sys_enter_clock_nanosleep']) in (0, 1) and
		[a['duration_ns'] is None for a in d['sys_exit_clock_nanosleep']].count(True) ==
		len(d['sys_exit_clock_nanosleep']) - len(d['sys_enter_clock_nanosleep']) and
		all(a['duration_ns'] >= ms for a in d['sys_exit_clock_nanosleep'][1:]))"
fi
wait $lpid 2>/dev/null

# text: the duration after the return's fields
if traced latency_text "uprobe:$LAT:pb_nest" "uretprobe:$LAT:pb_nest"; then
	"$LAT" 1
	stop_trace
	check latency_text grep -Eq 'pb_nest ret=3 duration_ns=[1-9][0-9]{6,7}$' "$tmp/out"
fi
finish
