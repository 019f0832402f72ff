#!/usr/bin/env bash
# Function latency and struct members on kernel functions (kprobes and
# fentry: absent on the development host): vfs_read's entry and return
# paired, each kind with its own (kprobe with kretprobe, fentry with
# fexit), duration_ns on every return of the test's own reads; the file's
# name through file->f_path.dentry->d_name.name (BTF, kernel pointers),
# printed and filtered on in the kernel.
source "$(dirname "$0")/lib.sh"
head -c 777 /dev/urandom >"$tmp/pbfile_lat"
name='file->f_path.dentry->d_name.name'
vm_trace "$tmp/k" 'pbdd $tmp/pbfile_lat 1234; pbdd $tmp/pbfile_lat 999' -- --comm pbvm_dd \
	--filter "kprobe:vfs_read:$name == \"pbfile_lat\"" --member "$name" \
	kprobe:vfs_read kretprobe:vfs_read fentry:vfs_read fexit:vfs_read
check kprobe_member jcheck "$tmp/k" "
	[o['args']['count'] for o in objs if o.get('probe') == 'kprobe:vfs_read'] == [1234, 999] and
	all(o['args'][\"$name\"] == 'pbfile_lat' for o in objs if o.get('probe') == 'kprobe:vfs_read')" ||
	show "$tmp/k"
check fentry_member jcheck "$tmp/k" "
	'pbfile_lat' in [o['args'][\"$name\"] for o in objs if o.get('probe') == 'fentry:vfs_read']" ||
	show "$tmp/k"
# every return of pbvm_dd's reads has its entry: a duration, each under
# 1 s; both reads of the file return its 777 bytes
for kind in kretprobe fexit; do
	check ${kind}_duration jcheck "$tmp/k" "
		len([o for o in objs if o.get('probe') == '$kind:vfs_read']) >= 2 and
		all(0 < o['args']['duration_ns'] < 10**9 for o in objs if o.get('probe') == '$kind:vfs_read') and
		[o['args']['ret'] for o in objs if o.get('probe') == '$kind:vfs_read'].count(777) == 2" ||
		show "$tmp/k"
done
finish
