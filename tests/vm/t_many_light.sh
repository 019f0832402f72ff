#!/usr/bin/env bash
# vcpus: 128
# What a guest of 128 vCPUs on TCG carries (a load on every vCPU stalls
# it): a rare event traced on the last CPU, and the idle cost of a trace
# that sees nothing (its CPU time over 10 s).
source "$(dirname "$0")/lib.sh"
ncpu=$(getconf _NPROCESSORS_ONLN)
check light_vcpus test "$ncpu" -ge 128 || echo "online: $ncpu"
prog=$tmp/pbrare
cp /bin/true "$prog"
vm_trace "$tmp/r" 'taskset -c $((ncpu - 1)) "$prog"
	t0=$(awk "{print \$14 + \$15}" /proc/$tpid/stat); sleep 10
	echo $(( $(awk "{print \$14 + \$15}" /proc/$tpid/stat) - t0 )) >"$tmp/ticks"' \
	-- --comm pbrare_none tracepoint:sched:sched_process_exec
# the filter: only the rare one, and nothing while idle
vm_trace "$tmp/r2" 'taskset -c $((ncpu - 1)) "$prog"' -- --comm pbrare \
	tracepoint:sched:sched_process_exec
check light_rare_event jcheck "$tmp/r2" "[o['cpu'] for o in objs if o['type'] == 'event'] == [$((ncpu - 1))]" ||
	show "$tmp/r2"
# clock ticks of 10 ms: a trace of nothing on 128 CPUs, its grid drains
# (125 a second, a look at each ring) included: a bound against a spin or
# a cost growing faster than the CPUs, loose since TCG stretches a guest
# thread's CPU time by the vCPUs sharing the host's 2
ticks=$(cat "$tmp/ticks")
if ((ticks <= 500)); then
	pass "light_idle_cost ($ticks ticks of 10 ms in 10 s, $ncpu CPUs)"
else
	fail light_idle_cost "$ticks ticks of 10 ms in 10 s, $ncpu CPUs"
fi
finish
