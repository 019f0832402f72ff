#!/usr/bin/env bash
# Typed arguments from BTF, each probe kind: the test opens a file of its
# own unique path (do_sys_openat2's filename, a user string) and reads 1234
# bytes of its 777 (vfs_read's count, ret). The values are named as the
# prototype names them, as many as it has; --filter takes the names (a
# string glob, an integer); list -v prints the prototype.
source "$(dirname "$0")/lib.sh"
path="$tmp/pb_typed_$$_$RANDOM"
head -c 777 /dev/urandom >"$path"
vm_trace "$tmp/t" 'pbdd $path 1234; pbdd $path 999' -- --comm pbvm_dd \
	--filter "kprobe:do_sys_openat2:filename == \"$tmp/pb_typed_*\"" \
	--filter 'fentry:vfs_read:count > 1000' \
	kprobe:do_sys_openat2 kretprobe:do_sys_openat2 fentry:do_sys_openat2 \
	fexit:do_sys_openat2 kprobe:vfs_read kretprobe:vfs_read fentry:vfs_read \
	fexit:vfs_read
# ev PROBE EXPR: some event of PROBE has EXPR (a: its args)
ev() {
	jcheck "$tmp/t" "any(o.get('probe') == '$1' and
		(lambda a: $2)(o['args']) for o in objs)"
}
open="a.get('filename') == '$path'"
check typed_kprobe_string ev kprobe:do_sys_openat2 \
	"$open and sorted(a) == ['dfd', 'filename', 'how'] and a['dfd'] == -100 and
	 a['how'].startswith('0x')" || show "$tmp/t"
check typed_fentry_string ev fentry:do_sys_openat2 "$open and len(a) == 3" ||
	show "$tmp/t"
# an fd: the open's typed int return value, beside its arguments (fexit)
check typed_fexit_ret ev fexit:do_sys_openat2 "$open and a['ret'] >= 3" ||
	show "$tmp/t"
check typed_kretprobe_ret ev kretprobe:do_sys_openat2 "a['ret'] >= 3 and list(a) == ['ret']" ||
	show "$tmp/t"
check typed_kprobe_count ev kprobe:vfs_read \
	"a['count'] == 1234 and sorted(a) == ['buf', 'count', 'file', 'pos'] and
	 a['file'].startswith('0x')" || show "$tmp/t"
check typed_fexit_count_ret ev fexit:vfs_read "a['count'] == 1234 and a['ret'] == 777" ||
	show "$tmp/t"
check typed_kretprobe_count ev kretprobe:vfs_read "a['ret'] == 777" || show "$tmp/t"
# the filters by name: the path's glob kept only the test's file; count > 1000
# dropped the 999-byte read
check typed_filter_string jcheck "$tmp/t" "all(o['args']['filename'].startswith('$tmp/pb_typed_')
	for o in objs if o.get('probe') == 'kprobe:do_sys_openat2')" || show "$tmp/t"
check typed_filter_int jcheck "$tmp/t" "
	any(o.get('probe') == 'kprobe:vfs_read' and o['args']['count'] == 999 for o in objs) and
	all(o['args']['count'] > 1000 for o in objs if o.get('probe') == 'fentry:vfs_read')" ||
	show "$tmp/t"
"$PERFBUF" list -v fentry:vfs_read >"$tmp/l" 2>&1
check typed_list_proto grep -q 'vfs_read(struct file \*file, char \*buf, size_t count, loff_t \*pos)' "$tmp/l" ||
	cat "$tmp/l"
finish
