#!/usr/bin/env bash
# kprobe, kretprobe, fentry, fexit on vfs_read in one trace: read()s of
# 1234 and 999 bytes asked (count, BTF's name) of a file of 777 (ret),
# by the test's own command; --filter on the kprobe's arg2 (count's old
# name, still taken) keeps the 1234 one only;
# kprobe:vfs_read+OFFSET sees it too;
# --kstack: the kprobe's and fentry's stacks are the read() system
# call's. Typed arguments from BTF, each kind: do_sys_openat2's filename
# (a user string) is the file's own path, its ret an fd; exactly the
# prototype's names; --filter by name (a string glob, count > 1000 on
# fexit); list -v prints the prototype.
source "$(dirname "$0")/lib.sh"
head -c 777 /dev/urandom >"$tmp/file"
# kprobe:vfs_read+OFF: its first instruction (past endbr64 and the
# ftrace call site), where the registers still hold the arguments
off=$(/usr/bin/python3 "$(dirname "$0")/kfunc_start.py" vfs_read) || fail kprobe_offset "$off"
vm_trace "$tmp/k" 'pbdd $tmp/file 1234; pbdd $tmp/file 999' -- --comm pbvm_dd --kstack \
	--filter 'kprobe:vfs_read:arg2 == 1234' --filter 'fexit:vfs_read:count > 1000' \
	--filter "kprobe:do_sys_openat2:filename == \"$tmp/fil*\"" \
	kprobe:vfs_read kretprobe:vfs_read fentry:vfs_read fexit:vfs_read ${off:+kprobe:vfs_read+$off} \
	kprobe:do_sys_openat2 kretprobe:do_sys_openat2 fentry:do_sys_openat2 fexit:do_sys_openat2
# ev PROBE EXPR: some event of PROBE has EXPR (o: the event, a: its args)
ev() {
	jcheck "$tmp/k" "any(o.get('probe') == '$1' and
		(lambda a: $2)(o['args']) for o in objs)"
}
check kprobe ev kprobe:vfs_read "a['count'] == 1234" || show "$tmp/k"
check fentry ev fentry:vfs_read "a['count'] == 1234" || show "$tmp/k"
# at +OFFSET the registers are whatever the code left: arg0..arg5, untyped
[[ -n $off ]] && { check kprobe_offset ev "kprobe:vfs_read+$off" "a['arg2'] == 1234" || show "$tmp/k"; }
check kretprobe ev kretprobe:vfs_read "a['ret'] == 777" || show "$tmp/k"
check fexit ev fexit:vfs_read "a['ret'] == 777" || show "$tmp/k"
# the filter: fentry saw the 999-byte read, the filtered kprobe did not
check filter_kprobe_arg jcheck "$tmp/k" "
	any(o.get('probe') == 'fentry:vfs_read' and o['args']['count'] == 999 for o in objs) and
	all(o['args']['count'] == 1234 for o in objs if o.get('probe') == 'kprobe:vfs_read')" ||
	show "$tmp/k"
# (before 5.15 the kernel's unwinder stops at the kretprobe on vfs_read:
# its return address is kretprobe_trampoline then, the callers unseen)
if [[ $KVER == 5.10 ]]; then
	callers="o['kstack'][1:] == ['kretprobe_trampoline_[k]']"
else
	callers="o['kstack'][1] == 'ksys_read_[k]' and 'entry_SYSCALL_64_after_hwframe_[k]' in o['kstack']"
fi
check kstack_kprobe jcheck "$tmp/k" "any(o.get('probe') == 'kprobe:vfs_read' and
	o['args']['count'] == 1234 and o['kstack'][0] == 'vfs_read_[k]' and $callers
	for o in objs)" || show "$tmp/k"
# fentry's stack starts at the function too: the program and its
# trampoline are left out
# (sid's 7.x unwinder leaves out the function a trampoline was called from:
# its stack starts at the caller)
if [[ $KVER == sid ]]; then
	fentry_top="o['kstack'][0] == 'ksys_read_[k]' and 'entry_SYSCALL_64_after_hwframe_[k]' in o['kstack']"
else
	fentry_top="o['kstack'][0] == 'vfs_read_[k]' and $callers"
fi
check kstack_fentry jcheck "$tmp/k" "any(o.get('probe') == 'fentry:vfs_read' and
	o['args']['count'] == 1234 and $fentry_top for o in objs)" || show "$tmp/k"
# typed: names and values as the prototype gives them
open="a.get('filename') == '$tmp/file'"
check typed_kprobe_string ev kprobe:do_sys_openat2 \
	"$open and sorted(a) == ['dfd', 'filename', 'how'] and a['dfd'] == -100 and
	 a['how'].startswith('0x')" || show "$tmp/k"
check typed_fentry_string ev fentry:do_sys_openat2 "$open and len(a) == 3" || show "$tmp/k"
check typed_fexit_ret ev fexit:do_sys_openat2 "$open and a['ret'] >= 3" || show "$tmp/k"
check typed_kretprobe_ret ev kretprobe:do_sys_openat2 "a['ret'] >= 3 and list(a) == ['ret', 'duration_ns']" ||
	show "$tmp/k"
check typed_keys ev kprobe:vfs_read "sorted(a) == ['buf', 'count', 'file', 'pos'] and
	a['file'].startswith('0x')" || show "$tmp/k"
check typed_fexit_count_ret ev fexit:vfs_read "a['count'] == 1234 and a['ret'] == 777" ||
	show "$tmp/k"
check typed_filter_string jcheck "$tmp/k" "all(o['args']['filename'] == '$tmp/file'
	for o in objs if o.get('probe') == 'kprobe:do_sys_openat2')" || show "$tmp/k"
check typed_filter_int jcheck "$tmp/k" "
	any(o.get('probe') == 'fexit:vfs_read' for o in objs) and
	all(o['args']['count'] > 1000 for o in objs if o.get('probe') == 'fexit:vfs_read')" ||
	show "$tmp/k"
"$PERFBUF" list -v fentry:vfs_read >"$tmp/l" 2>&1
check typed_list_proto grep -q 'vfs_read(struct file \*file, char \*buf, size_t count, loff_t \*pos)' "$tmp/l" ||
	cat "$tmp/l"
# a module's function (9p's, loaded at boot): typed where the kernel has
# BTF of modules (5.11); on 5.10 untyped, and the line says why
"$PERFBUF" trace -d 1 kprobe:v9fs_vfs_lookup >/dev/null 2>"$tmp/mod.err"
if [[ $KVER == 5.10 ]]; then
	check module_btf_missing_said grep -q "BTF does not describe v9fs_vfs_lookup: it is in module 9p, and this kernel lacks BTF of modules (Linux 5.11)" "$tmp/mod.err" ||
		cat "$tmp/mod.err"
else
	grep -q "^Attached 1 probe" "$tmp/mod.err" && ! grep -q "BTF does not describe" "$tmp/mod.err"
	check module_btf_typed test $? = 0 || cat "$tmp/mod.err"
fi
finish
