#!/usr/bin/env bash
# vcpus: 64
# timeout: 1500
# Hotplug at scale: while tracing, the upper half of the CPUs goes offline
# one by one and comes back (about 75 s each way under TCG on an idle
# host), then a burst of 8 at once. Every CPU that
# went says so, every one that came back says so and delivers again (an
# exec pinned to it), and the run ends without a ring said to be lost.
source "$(dirname "$0")/lib.sh"
ncpu=$(getconf _NPROCESSORS_ONLN)
if ((ncpu < 64)); then
	skip many_hotplug "needs 64 vCPUs, has $ncpu"
	finish
fi
half=$((ncpu / 2))
prog=$tmp/pbhot
cp /bin/true "$prog"
set_cpus() {	# set_cpus 0|1 FIRST LAST [burst]
	local v=$1 c pids=()
	vm_note "CPUs $2-$3 online=$v ${4:-one by one}"
	for c in $(seq "$2" "$3"); do
		if [[ ${4:-} == burst ]]; then
			echo "$v" >/sys/devices/system/cpu/cpu$c/online &
			pids+=($!)
		else
			echo "$v" >/sys/devices/system/cpu/cpu$c/online
		fi
	done
	# the burst's writes only: a bare wait would wait for the trace too
	((${#pids[@]} == 0)) || wait "${pids[@]}"
	vm_note "CPUs $2-$3 online=$v done: $(cat /sys/devices/system/cpu/online)"
}
# a CPU change that takes minutes: the blocked tasks' stacks on the console
( sleep 240; while :; do
	vm_note "still going: online $(cat /sys/devices/system/cpu/online); blocked tasks:"
	echo w >/proc/sysrq-trigger 2>/dev/null
	sleep 240
done ) &
watchdog=$!
work='set_cpus 0 $half $((ncpu - 1)); set_cpus 1 $half $((ncpu - 1))
	for c in $half $((half + 1)) $((ncpu - 1)); do taskset -c $c "$prog"; done
	set_cpus 0 $half $((half + 7)) burst; set_cpus 1 $half $((half + 7)) burst
	for c in $half $((ncpu - 1)); do taskset -c $c "$prog"; done'
vm_note "tracing"
vm_trace "$tmp/h" "$work" -- tracepoint:sched:sched_process_exec
vm_note "trace ended: $trc"
kill $watchdog 2>/dev/null
n=$((ncpu - half))
check many_hotplug_offline jcheck "$tmp/h" "sum(1 for o in objs if o['type'] == 'cpu' and
	not o['online']) >= $n + 8" || { grep -c '"type":"cpu"' "$tmp/h"; head -c 600 "$tmp/h.err"; }
check many_hotplug_online jcheck "$tmp/h" "sum(1 for o in objs if o['type'] == 'cpu' and
	o['online']) >= $n + 8"
check many_hotplug_delivers jcheck "$tmp/h" "sorted(o['cpu'] for o in objs if o['type'] == 'event'
	and o['args']['filename'] == '$prog') == sorted([$half, $((half + 1)), $((ncpu - 1)), $half, $((ncpu - 1))])" ||
	show "$tmp/h"
check many_hotplug_no_ring_lost sh -c "! grep -q 'could not be set up' '$tmp/h.err'" ||
	grep 'could not be set up' "$tmp/h.err" | head -3
check many_hotplug_all_back test "$(cat /sys/devices/system/cpu/online)" = "0-$((ncpu - 1))"
finish
