#!/usr/bin/env bash
# uprobe and uretprobe on tests/targets/uprobe_target.c: the arguments it
# passes (1..6, named a..f by its DWARF) and the value it returns (-7).
source "$(dirname "$0")/lib.sh"
target=$(realpath "$BUILD/tests/uprobe_target")
vm_trace "$tmp/u" '"$target" 2' -- "uprobe:$target:pb_target_add" \
	"uretprobe:$target:pb_target_neg"
check uprobe jcheck "$tmp/u" "len([o for o in objs if o.get('probe', '').endswith(':pb_target_add') and
	[o['args'][k] for k in 'abcdef'] == [1, 2, 3, 4, 5, 6]]) == 2" || show "$tmp/u"
check uretprobe jcheck "$tmp/u" "len([o for o in objs if o.get('probe', '').endswith(':pb_target_neg') and
	o['args']['ret'] == -7]) == 2" || show "$tmp/u"
finish
