#!/usr/bin/env bash
# vm.sh BUILD SERIES...: perfbuf's tests inside Debian's own kernels
# (SERIES: 6.1, 6.12), booted in qemu, KVM when /dev/kvm works, TCG
# otherwise. Prints each guest test's PASS/FAIL/SKIP line, its name
# prefixed by the kernel (PASS 6.1/kprobe), as tests/run.sh counts them.
#
# How it works: tests/vm/kernel.sh downloads and unpacks the kernel .deb
# into BUILD/vm/SERIES once and packs an initramfs (busybox, tests/vm/init,
# the 9p and overlay modules); the guest mounts the host's root read-only
# over 9p under a tmpfs overlay, chroots into it and runs
# tests/vm/guest.sh, which runs every tests/vm/t_*.sh with BUILD as $1.
#
# Adding a guest test: one file, tests/vm/t_NAME.sh. It sources
# tests/vm/lib.sh (tests/lib.sh's pass/fail/skip/check, trace_lib.sh's
# helpers, $PERFBUF, $tmp, $KVER the kernel series), runs as root in the
# guest with tracefs and bpffs mounted, prints PASS/FAIL/SKIP lines and ends
# with `finish`. Assert on values the test itself produced (a path it
# opened, a byte count it wrote). Anything it writes outside /tmp is on the
# overlay, gone at power-off. Run one test: tests/vm/vm.sh build 6.1 NAME
# (PBTESTS="a b" selects several); a failing test's output is shown here.
#   VM_TIMEOUT  seconds per kernel before the VM is killed (default 600;
#               1800 with more than 2 vCPUs)
#   VM_ACCEL    qemu's -accel: kvm, tcg,thread=single or tcg,thread=multi
#               (default: kvm when it works, else TCG, in one thread up to
#               2 vCPUs)
#   VM_VCPUS    the guest's vCPUs (default 2). A test that needs another
#               count says so in a header line `# vcpus: 64` (or several:
#               `# vcpus: 64 128`): it runs only in a guest of that many
#               (make vmtest boots one per count of VM_MANY_VCPUS; TCG runs
#               every vCPU on the host's CPUs, so a 64-vCPU guest takes
#               minutes to boot), the others only in a guest of 2.
# A test with a line `# by name only` runs only when named (the harness's
# own check, t_harness_panic, crashes the guest on purpose).
set -u
build=$(realpath "${1:?usage: $0 BUILD SERIES [TEST...]}")
series=${2:?usage: $0 BUILD SERIES [TEST...]}
shift 2
tests=${PBTESTS:-$*}
here=$(cd "$(dirname "$0")" && pwd)
vcpus=${VM_VCPUS:-2}
# vcpus_of FILE: its `# vcpus: N...` header, 2 without one
vcpus_of() {
	local n
	n=$(sed -n 's/^# vcpus: *\([0-9][0-9 ]*\)$/\1/p' "$1" | head -1)
	echo "${n:-2}"
}
if [[ -z $tests ]]; then
	for t in "$here"/t_*.sh; do
		n=${t##*/t_}
		grep -q '^# by name only$' "$t" && continue
		[[ " $(vcpus_of "$t") " == *" $vcpus "* ]] && tests+="${tests:+ }${n%.sh}"
	done
	if [[ -z $tests ]]; then
		echo "SKIP $series/vm_$vcpus (no guest test of $vcpus vCPUs)"
		exit 0
	fi
fi
tree=$(cd "$here/../.." && pwd)
vmdir=$build/vm
run=$(mktemp -d)
qpid=
trap '[[ -n $qpid ]] && kill $qpid 2>/dev/null; wait 2>/dev/null; rm -rf "$run"' EXIT

# kvm_works KDIR: /dev/kvm opens and a kernel boots on it (a nested host
# may offer a /dev/kvm whose guests hang at once); the verdict is kept in
# BUILD/vm/kvm
kvm_works() {
	[[ -w /dev/kvm ]] || return 1
	if [[ ! -s $vmdir/kvm ]]; then
		(timeout 20 qemu-system-x86_64 -accel kvm -cpu host -m 256 -nodefaults \
			-display none -no-reboot -kernel "$1"/root/boot/vmlinuz-* \
			-append "console=ttyS0 panic=-1" -serial "file:$run/probe" \
			>"$run/probe.err" 2>&1) 2>/dev/null
		if grep -q 'Kernel panic' "$run/probe" 2>/dev/null; then
			echo yes >"$vmdir/kvm"
		else
			echo "no, a kernel does not boot on it: $(tail -1 "$run/probe.err" | cut -c1-120)" >"$vmdir/kvm"
		fi
	fi
	[[ $(cat "$vmdir/kvm") == yes ]]
}

kdir=$(bash "$here/kernel.sh" "$vmdir" "$series" 2>"$run/fetch.err")
case $? in
0) ;;
2) echo "SKIP $series/vm ($(cat "$run/fetch.err"))"; exit 0 ;;
*) echo "FAIL $series/vm: $(cat "$run/fetch.err")"; exit 1 ;;
esac
pkg=$(cat "$kdir/package")
# TCG in one thread: with a thread per vCPU, qemu 7.2 lets one vCPU run
# code another has just patched (kprobes, fentry, static keys: the
# kernel's int3 protocol) in its stale form, and the guest oopses at an
# int3 (t_textpoke); many vCPUs keep a thread each, or they would take
# hours
tcg=tcg,thread=single
((vcpus > 2)) && tcg=tcg,thread=multi
accel=${VM_ACCEL:-}
[[ -n $accel ]] || { kvm_works "$kdir" && accel=kvm || accel=$tcg; }
kvm_note=
[[ $accel == tcg* && -s $vmdir/kvm ]] && kvm_note="kvm: $(cat "$vmdir/kvm")"
cpu=qemu64
[[ $accel == kvm ]] && cpu=host
cpu=${VM_CPU:-$cpu}

# stopped_where: where a guest that did not finish stopped, from its
# result port (in_test: the test it had started and not ended)
stopped_where() {
	if ! grep -q '^KERNEL' "$run/res"; then
		echo "before its first test (while booting)"
	elif [[ -n $in_test ]]; then
		echo "in $in_test"
	else
		echo "between two tests"
	fi
}

# kernel_said: the kernel's own first words of an oops or panic on the
# console, and the instruction it stopped at (the failure's cause, in the
# first line a CI log keeps)
kernel_said() {
	local what rip
	what=$(grep -m1 -aoE '(Kernel panic - |BUG: |Oops: |int3: |general protection fault|rcu: INFO: )[^[:cntrl:]]*' "$run/console" | cut -c1-90)
	rip=$(grep -m1 -aoE 'RIP: 0010:[^[:space:]]+' "$run/console")
	[[ -n $what ]] && echo -n ": the kernel said '$what'${rip:+ at $rip}"
	[[ -n $killed ]] && echo -n "; killed after $timeout s (VM_TIMEOUT)"
	echo
}

start=$(date +%s%N)
: >"$run/res"
qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -smp "$vcpus" -m 2048 -nodefaults \
	-display none -no-reboot \
	-kernel "$kdir"/root/boot/vmlinuz-* -initrd "$kdir/initramfs.cpio.gz" \
	-append "console=ttyS0 quiet panic=-1 PBDIR=$tree PBBUILD=$build PBTESTS=\"$tests\" KVER=$series" \
	-serial "file:$run/console" -serial "file:$run/res" \
	-fsdev local,id=host,path=/,security_model=none,readonly=on,multidevs=remap \
	-device virtio-9p-pci,fsdev=host,mount_tag=host >"$run/qemu.log" 2>&1 &
qpid=$!
boot= killed=
timeout=${VM_TIMEOUT:-$((vcpus > 2 ? 1800 : 600))}
deadline=$((SECONDS + timeout))
while kill -0 $qpid 2>/dev/null; do
	if [[ -z $boot ]] && grep -q '^KERNEL' "$run/res"; then
		boot=$((($(date +%s%N) - start) / 1000000))
	fi
	if ((SECONDS > deadline)); then
		echo "vm: $series: killed after $timeout s" >>"$run/console"
		killed=1
		kill $qpid
		break
	fi
	sleep 0.2
done
wait $qpid 2>/dev/null
qpid=
total=$((($(date +%s%N) - start) / 1000000))

fails=0
in_test=
while IFS= read -r line; do
	line=${line%$'\r'}
	case $line in
	PASS\ * | SKIP\ *) echo "${line%% *} $series/${line#* }" ;;
	FAIL\ *) echo "FAIL $series/${line#FAIL }"; fails=$((fails + 1)) ;;
	KERNEL\ *) echo "    vm $series: $pkg, ${line#KERNEL }, $accel${kvm_note:+ ($kvm_note)}" ;;
	TIME\ *) set -- $line; echo "    vm $series: t_$2.sh took $3 ms"; in_test= ;;
	START\ *) in_test=t_${line#START }.sh ;;
	DONE) ;;
	*) echo "$line" ;;
	esac
done <"$run/res"
if ! grep -q '^DONE' "$run/res"; then
	# the whole console kept: an oops starts well above its last 40 lines
	cp "$run/console" "$build/vm/$series/console.last" 2>/dev/null
	echo "FAIL $series/vm: the guest stopped $(stopped_where)$(kernel_said) (its whole console: $build/vm/$series/console.last):"
	tail -n 40 "$run/console" "$run/qemu.log" | sed 's/^/    /'
	fails=$((fails + 1))
fi
echo "    vm $series: booted in ${boot:-?} ms, all in $total ms ($accel)"
((fails == 0))
