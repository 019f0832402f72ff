#!/usr/bin/env bash
# The guest's kernel patches its own code while both vCPUs run it, as
# every probe attached and detached does: a kprobe on vfs_read (placed on
# its ftrace site) switched on and off while the other vCPU reads. The
# emulator must keep the kernel's int3 protocol: qemu 7.2's TCG with a
# thread per vCPU lets a vCPU run the stale int3 and the guest oopses
# within seconds (tests/vm/vm.sh runs a 2-vCPU TCG guest in one thread).
source "$(dirname "$0")/lib.sh"
T=/sys/kernel/tracing
(while :; do cat /proc/version >/dev/null; done) &
rd=$!
rounds=100 done=0
for ((i = 1; i <= rounds; i++)); do
	echo 'p:pbvm_poke vfs_read' >$T/kprobe_events || break
	echo 1 >$T/events/kprobes/pbvm_poke/enable &&
		echo 0 >$T/events/kprobes/pbvm_poke/enable || break
	echo '-:pbvm_poke' >>$T/kprobe_events || break
	done=$i
done
kill $rd
wait $rd 2>/dev/null
if ((done == rounds)); then
	pass textpoke_kprobe_rounds
else
	fail textpoke_kprobe_rounds "round $((done + 1)) of $rounds: tracefs refused it"
fi
finish
