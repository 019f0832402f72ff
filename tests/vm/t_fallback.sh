#!/usr/bin/env bash
# The fallbacks, each with the kernel's own refusal:
# - fentry -> kprobe: do_mmap has 9 parameters; x86 trampolines take 6
#   before Linux 6.6, so 6.1 refuses fentry/fexit on it and perfbuf uses a
#   kprobe/kretprobe; 6.12 takes it (fentry works, nothing to fall back
#   from: SKIP). The mmap() length is the test's own.
# - kprobe -> fentry: in a mount namespace of its own, the kprobe PMU and
#   tracefs' kprobe_events are hidden, as a kernel without CONFIG_KPROBES
#   shows them; perfbuf then uses fentry/fexit on vfs_read.
source "$(dirname "$0")/lib.sh"
cp "$(command -v perl)" "$tmp/pbvm_mmap"
len=$((5000 * 4096))
vm_trace "$tmp/m" "\"\$tmp/pbvm_mmap\" -e 'syscall(9, 0, $len, 3, 0x22, -1, 0) > 0 or die \"mmap: \$!\"'" \
	-- --comm pbvm_mmap fentry:do_mmap fexit:do_mmap
# fell FILE PATTERN EXPR: the fallback said PATTERN, an event has EXPR
fell() { grep -q "$2" "$1.err" && jcheck "$1" "$3"; }
if grep -q 'fentry:do_mmap: fentry refused' "$tmp/m.err"; then
	check fentry_to_kprobe fell "$tmp/m" 'fentry:do_mmap: fentry refused .*, using kprobe' "
		any(o.get('probe') == 'fentry:do_mmap' and o['args']['len'] == $len for o in objs)" ||
		show "$tmp/m"
	check fexit_to_kretprobe fell "$tmp/m" 'fexit:do_mmap: fexit refused .*, using kretprobe' "
		any(o.get('probe') == 'fexit:do_mmap' and o['args']['ret'] > 0 for o in objs)" ||
		show "$tmp/m"
elif ((trc == 0)) && grep -q "\"len\":$len" "$tmp/m"; then
	skip fentry_to_kprobe "this kernel takes fentry on a function of 9 parameters"
	skip fexit_to_kretprobe "this kernel takes fexit on a function of 9 parameters"
else
	fail fentry_to_kprobe "exit $trc"
	show "$tmp/m"
fi

head -c 777 /dev/urandom >"$tmp/file"
export -f vm_trace pbdd
export PERFBUF tmp
unshare -m bash -c '
	mount -t tmpfs none /sys/bus/event_source/devices/kprobe &&
	mount -t tmpfs none /sys/kernel/tracing && mkdir /sys/kernel/tracing/events &&
	vm_trace "$tmp/k" "pbdd $tmp/file 1234" -- --comm pbvm_dd kprobe:vfs_read kretprobe:vfs_read'
check kprobe_to_fentry fell "$tmp/k" 'kprobe:vfs_read: no kprobes in this kernel, using fentry' "
	any(o.get('probe') == 'kprobe:vfs_read' and o['args']['count'] == 1234 for o in objs)" ||
	show "$tmp/k"
check kretprobe_to_fexit fell "$tmp/k" 'kretprobe:vfs_read: no kprobes in this kernel, using fexit' "
	any(o.get('probe') == 'kretprobe:vfs_read' and o['args']['ret'] == 777 for o in objs)" ||
	show "$tmp/k"
finish
