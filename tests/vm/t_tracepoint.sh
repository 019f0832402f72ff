#!/usr/bin/env bash
# Tracepoints and raw tracepoints on the test's own process: its exec
# (pid), the openat of a path made up here, the read()'s byte count;
# the raw sys_enter's syscall number; --kstack on a syscall tracepoint
# reaches the system call entry.
source "$(dirname "$0")/lib.sh"
head -c 777 /dev/urandom >"$tmp/file"
path=$tmp/file_$RANDOM
cp "$tmp/file" "$path"
vm_trace "$tmp/t" '"$tmp/pbvm_dd" if="$path" of=/dev/null bs=1234 count=1 status=none & pid=$!; wait $pid' \
	-- --comm pbvm_dd --kstack tracepoint:sched:sched_process_exec \
	tracepoint:syscalls:sys_enter_openat tracepoint:syscalls:sys_exit_read \
	rawtracepoint:sched_process_exec
ev() {
	jcheck "$tmp/t" "any(o.get('probe') == '$1' and
		(lambda a, o: $2)(o['args'], o) for o in objs)"
}
check tracepoint_exec ev tracepoint:sched:sched_process_exec "a['pid'] == $pid and
	a['filename'] == '$tmp/pbvm_dd'" || show "$tmp/t"
check tracepoint_openat_path ev tracepoint:syscalls:sys_enter_openat "a['filename'] == '$path'" ||
	show "$tmp/t"
check tracepoint_read_ret ev tracepoint:syscalls:sys_exit_read "a['ret'] == 777" || show "$tmp/t"
check rawtracepoint_exec ev rawtracepoint:sched_process_exec "a['arg1'] == $pid" || show "$tmp/t"
check kstack_syscall_tracepoint ev tracepoint:syscalls:sys_enter_openat "
	a['filename'] == '$path' and 'do_syscall_64_[k]' in o['kstack'] and
	not o['kstack'][0].startswith('bpf_')" || show "$tmp/t"
finish
