#!/usr/bin/env bash
# kprobe:vfs_*, kretprobe:vfs_rea* and kprobe:do_sys_open*: every matching
# function a probe, typed from BTF as when named alone: the test's read()
# of 1234 bytes (vfs_read's count) and write() of the 777 it got
# (vfs_write's count, vfs_read's ret), its open's filename (a user string
# read through the probe's config). One kprobe.multi link per kind where
# the kernel has it (6.12: CONFIG_FPROBE), a kprobe per function where it
# has not (5.10, 6.1: said once).
source "$(dirname "$0")/lib.sh"
head -c 777 /dev/urandom >"$tmp/file"
vm_trace "$tmp/g" 'pbdd $tmp/file 1234' -- --comm pbvm_dd 'kprobe:vfs_*' 'kretprobe:vfs_rea*' \
	'kprobe:do_sys_open*'
# ev PROBE EXPR: some event of PROBE has EXPR (a: its args)
ev() {
	jcheck "$tmp/g" "any(o.get('probe') == '$1' and
		(lambda a: $2)(o['args']) for o in objs)"
}
check kprobe_glob_typed ev kprobe:vfs_read "a['count'] == 1234 and
	sorted(a) == ['buf', 'count', 'file', 'pos'] and a['file'].startswith('0x')" ||
	show "$tmp/g"
check kprobe_glob_typed_write ev kprobe:vfs_write "a['count'] == 777 and
	sorted(a) == ['buf', 'count', 'file', 'pos']" || show "$tmp/g"
check kretprobe_glob_typed ev kretprobe:vfs_read "a['ret'] == 777 and set(a) <= {'ret', 'duration_ns'}" || show "$tmp/g"
check kprobe_glob_typed_string ev kprobe:do_sys_openat2 \
	"a.get('filename') == '$tmp/file' and sorted(a) == ['dfd', 'filename', 'how']" ||
	show "$tmp/g"
if grep -q 'no multi-attach for kprobe globs' "$tmp/g.err"; then
	multi=no
else
	multi=yes
fi
case $KVER in
5.10 | 6.1) want=no ;;
*) want=yes ;;
esac
check "kprobe_multi_$want" test "$multi" = "$want" || cat "$tmp/g.err"
finish
