#!/usr/bin/env bash
# guest.sh DIR BUILD: runs inside the VM (tests/vm/init chroots into the
# host's root, read-only under a tmpfs overlay): each tests/vm/t_*.sh in
# turn (or those PBTESTS names), its PASS/FAIL/SKIP lines to the host on
# the second serial port; a failing test's whole output follows its
# lines, indented. "START NAME" before each test, "DONE" last: the host
# knows the run was complete, or in which test it stopped.
dir=$1 build=$2
res=/dev/ttyS1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
cd "$dir" || { echo "FAIL vm_guest: no $dir in the guest" >$res; exit 1; }
mount -t tracefs nodev /sys/kernel/tracing
mount -t bpf bpf /sys/fs/bpf
ip link set lo up	# (--metrics listens on 127.0.0.1)
# as on the build machine: Debian's kernels default to 3, where even
# CAP_PERFMON cannot open a perf event (run_check's unprivileged attach)
echo 2 >/proc/sys/kernel/perf_event_paranoid
ulimit -l unlimited
echo "KERNEL $(uname -r)" >$res
tests=()
for t in tests/vm/t_*.sh; do
	n=${t#tests/vm/t_}
	n=${n%.sh}
	[[ -z ${PBTESTS:-} || " $PBTESTS " == *" $n "* ]] && tests+=("$n")
done
for n in "${tests[@]}"; do
	# (the host names the test a guest that never says DONE stopped in)
	echo "START $n" >$res
	start=$(date +%s%N)
	# (TCG: t_kfunc takes 25 s on an idle host, a loaded one several times that)
	# a test may need longer: a `# timeout: SECONDS` header line
	limit=$(sed -n 's/^# timeout: *\([0-9][0-9]*\)$/\1/p' "tests/vm/t_$n.sh" | head -1)
	timeout "${limit:-300}" bash "tests/vm/t_$n.sh" "$build" >/tmp/out 2>&1 </dev/null
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	grep -E '^(PASS|FAIL|SKIP) ' /tmp/out >$res
	if ((rc != 0)) && ! grep -q '^FAIL ' /tmp/out; then
		echo "FAIL $n (exit status $rc)" >$res
	fi
	if ((rc != 0)) || grep -q '^FAIL ' /tmp/out; then
		grep -vE '^(PASS|FAIL|SKIP) ' /tmp/out | sed 's/^/    /' >$res
	fi
	echo "TIME $n $ms" >$res
done
echo DONE >$res
