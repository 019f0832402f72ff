#!/usr/bin/env bash
# kprobe:vfs_* and kretprobe:vfs_rea*: every matching function a probe;
# the test's read() of 1234 bytes (vfs_read's arg2) and write() of the
# 777 it got (vfs_write's arg2, vfs_read's ret). One kprobe.multi link per
# kind where the kernel has it (6.12: CONFIG_FPROBE), a kprobe per
# function where it has not (6.1: said once).
source "$(dirname "$0")/lib.sh"
head -c 777 /dev/urandom >"$tmp/file"
vm_trace "$tmp/g" 'pbdd $tmp/file 1234' -- --comm pbvm_dd 'kprobe:vfs_*' 'kretprobe:vfs_rea*'
check kprobe_glob jcheck "$tmp/g" "
	any(o.get('probe') == 'kprobe:vfs_read' and o['args']['arg2'] == 1234 for o in objs) and
	any(o.get('probe') == 'kprobe:vfs_write' and o['args']['arg2'] == 777 for o in objs)" ||
	show "$tmp/g"
check kretprobe_glob jcheck "$tmp/g" "
	any(o.get('probe') == 'kretprobe:vfs_read' and o['args']['ret'] == 777 for o in objs)" ||
	show "$tmp/g"
if grep -q 'no multi-attach for kprobe globs' "$tmp/g.err"; then
	multi=no
else
	multi=yes
fi
case $KVER in
6.1) want=no ;;
*) want=yes ;;
esac
check "kprobe_multi_$want" test "$multi" = "$want" || cat "$tmp/g.err"
finish
