#!/usr/bin/env bash
# One man page per group of functions (man/*.3); every exported function
# (src/libperfbuf.map) and the inline iterator get a link page
# (".so man3/GROUP.3") so that `man perfbuf__poll` finds its group.
#   scripts/man-links.sh [--remove|--check] MAP DIR
set -euo pipefail
mode=install
[[ ${1:-} == --remove || ${1:-} == --check ]] && { mode=${1#--}; shift; }
map=$1 dir=$2

group() {
	case $1 in
	perfbuf__*) echo perfbuf__new ;;
	perfbuf_ring__* | perfbuf_iter__* | perfbuf_record_copy | perfbuf_sample_size)
		echo perfbuf_ring__new ;;
	perfbuf_merge__*) echo perfbuf_merge__new ;;
	perfbuf_event_* | perfbuf_ioc_* | perfbuf_count_read | perfbuf_group_read)
		echo perfbuf_event_open ;;
	perfbuf_set_print | perfbuf_now_ns | perfbuf_*_cpus | perfbuf_parse_cpus | \
	perfbuf_page_cnt_check | perfbuf_version | perfbuf_*_version)
		echo perfbuf_set_print ;;
	*) return 1 ;;
	esac
}

fns=$(sed -n 's/^[[:space:]]*\(perfbuf[a-z_0-9]*\);$/\1/p' "$map")
for f in $fns perfbuf_iter__next; do
	g=$(group "$f") || { echo "man-links: no man page group for $f: add one to $0" >&2; exit 1; }
	[[ -e $(dirname "$0")/../man/$g.3 ]] ||
		{ echo "man-links: man/$g.3 (for $f) is missing" >&2; exit 1; }
	[[ $f == "$g" ]] && continue
	case $mode in
	install) echo ".so man3/$g.3" > "$dir/$f.3" ;;
	remove) rm -f "$dir/$f.3" ;;
	check) ;;
	esac
done
