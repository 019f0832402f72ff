#!/usr/bin/env bash
# One man page per group of functions (man/GROUP.3); every exported function
# (of a version script: src/libperfbuf.map, src/object/libperfbuf-object.map)
# and the inline iterator get a link page
# (".so man3/GROUP.3") so that `man perfbuf__poll` finds its group.
#   scripts/man-links.sh MAP DIR            write the link pages into DIR
#   scripts/man-links.sh --remove MAP DIR   remove them
#   scripts/man-links.sh --list MAP         print "FUNCTION GROUP" lines
# Each mode first checks that every function has a group and its page.
set -euo pipefail
mode=install
[[ ${1:-} == --remove || ${1:-} == --list ]] && { mode=${1#--}; shift; }
map=${1:?usage: $0 [--remove|--list] MAP [DIR]}
dir=${2:-}
[[ $mode == list || -n $dir ]] || { echo "usage: $0 [--remove] MAP DIR" >&2; exit 2; }
man=$(dirname "$0")/../man

group() {
	case $1 in
	perfbuf__*) echo perfbuf__new ;;
	perfbuf_ring__* | perfbuf_iter__* | perfbuf_record__*)
		echo perfbuf_ring__new_mem ;;
	perfbuf_merge__*) echo perfbuf_merge__new ;;
	perfbuf_callchain__*) echo perfbuf_callchain__next ;;
	perfbuf_sampler__*) echo perfbuf_sampler__new ;;
	perfbuf_event__*) echo perfbuf_event__attr ;;
	perfbuf_type__*) echo perfbuf_type__from_file ;;
	perfbuf_object__*) echo perfbuf_object__open ;;
	perfbuf_batch__*) echo perfbuf_batch__new ;;
	perfbuf_ledger__*) echo perfbuf_ledger__new ;;
	perfbuf_set_print | perfbuf_vprint | perfbuf_now_ns | perfbuf_cpus__* | \
	perfbuf_version)
		echo perfbuf_set_print ;;
	*) return 1 ;;
	esac
}

fns=$(sed -n 's/^[[:space:]]*\(perfbuf[a-z_0-9]*\);$/\1/p' "$map")
[[ -n $fns ]] || { echo "man-links: no perfbuf symbol in $map" >&2; exit 1; }
for f in $fns perfbuf_ring__begin perfbuf_iter__next perfbuf_callchain__next; do
	g=$(group "$f") || { echo "man-links: no man page group for $f: add it to group() in $0 and document it in man/" >&2; exit 1; }
	[[ -e $man/$g.3 ]] ||
		{ echo "man-links: man/$g.3 (for $f) is missing" >&2; exit 1; }
	case $mode in
	list) echo "$f $g" ;;
	install) [[ $f == "$g" ]] || echo ".so man3/$g.3" > "$dir/$f.3" ;;
	remove) [[ $f == "$g" ]] || rm -f "$dir/$f.3" ;;
	esac
done
