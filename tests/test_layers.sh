#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The shape of the source tree, from the sources alone (no build, < 1 s):
#   include_edges   every #include between tools/ folders points down the
#                   layers below, and no folders include each other round
#                   a circle
#   commands_in_cmd every command is defined in tools/cmd/NAME.c
#   file_sizes      no source file outside tests/ over 1000 lines
#   function_sizes  no function over 80 lines (the longest are listed)
# Usage: tests/test_layers.sh BUILD   (BUILD, as every test takes it: unused)
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.." || exit 1

# The layers of tools/, bottom first: a folder includes from its own layer
# or lower ones. A folder not listed is taken as a command (layer 4) and
# named in a NOTE line: add it here.
declare -A layer=(
	[common]=0	# CLI helpers, clock, producer: what every command shares
	[output]=1	# output files, typed values, the text and JSON sinks
	[sym]=1 [metrics]=1	# naming stack frames; the Prometheus endpoint
	[trace]=2	# the trace engine: probes, filters, formats, decode
	[record]=3 [nats]=3 [profile]=3 [run]=3 [stress]=3	# parts plugged into it
	[cmd]=4 [bench]=4	# the commands (cmd/NAME.c) and perfbuf-bench
	[.]=5		# perfbuf.c: the dispatcher
)

# "FROM TO FILE" for each #include "..." that names another folder's
# header (the tools are built with -Itools: "dir/x.h"; "x.h": its own)
edges() {
	local f from inc
	for f in $(find tools -name '*.[ch]' | sort); do
		from=${f#tools/}
		[[ $from == */* ]] && from=${from%/*} || from=.
		while read -r inc; do
			[[ $inc == */* && -f tools/$inc ]] || continue
			[[ ${inc%/*} != "$from" ]] && echo "$from ${inc%/*} $f"
		done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
	done | sort -u
}

rank() {
	if [[ -n ${layer[$1]+x} ]]; then
		echo "${layer[$1]}"
	else
		echo 4
	fi
}

all_edges=$(edges)
for d in $(find tools -mindepth 1 -type d | sed 's|^tools/||' | sort); do
	[[ -n ${layer[$d]+x} ]] || echo "NOTE tools/$d is in no layer of tests/test_layers.sh: taken as a command (4)"
done

# the folder graph, one line per edge with the files that make it
echo "include edges between tools/ folders (layer: folder -> folder, files):"
up=()
while read -r from to; do
	files=$(awk -v a="$from" -v b="$to" '$1 == a && $2 == b { print $3 }' <<<"$all_edges" | tr '\n' ' ')
	echo "  $(rank "$from"):$from -> $(rank "$to"):$to  ($files)"
	(( $(rank "$to") > $(rank "$from") )) && up+=("$from -> $to ($files)")
done < <(awk '{ print $1, $2 }' <<<"$all_edges" | sort -u)

# circles: drop, again and again, the edges into a folder that includes
# nothing left or out of one nothing left includes; what stays is circles
circle=$(awk '{ print $1, $2 }' <<<"$all_edges" | sort -u | awk '
	{ e[NR] = $0; out[$1]++; in_[$2]++; n = NR }
	END {
		do {
			changed = 0
			for (i = 1; i <= n; i++) {
				if (!(i in e)) continue
				split(e[i], p, " ")
				if (!out[p[2]] || !in_[p[1]]) {
					delete e[i]; out[p[1]]--; in_[p[2]]--; changed = 1
				}
			}
		} while (changed)
		for (i in e) printf "%s; ", e[i]
	}')

if (( ${#up[@]} )); then
	fail include_edges "an #include points up the layers: ${up[*]}"
elif [[ -n $circle ]]; then
	fail include_edges "folders include each other round a circle: $circle"
else
	pass include_edges
fi

# Every command is defined in tools/cmd/ (common/commands.h says the
# rule), and a file there defines no command of another name but the
# modes it names (record in trace.c, attach in run.c)
elsewhere=$(grep -rln --include='*.c' '^int cmd_[a-z_]*(' tools | grep -v '^tools/cmd/' | tr '\n' ' ')
misnamed=$(grep -rHo '^int cmd_[a-z_]*(' tools/cmd | sed 's|^tools/cmd/\(.*\)\.c:int cmd_\(.*\)(|\1 \2|' |
	awk '$1 != $2 && !($1 == "trace" && $2 == "record") && !($1 == "run" && $2 == "attach") { printf "cmd_%s in tools/cmd/%s.c; ", $2, $1 }')
if [[ -n $elsewhere ]]; then
	fail commands_in_cmd "commands defined outside tools/cmd/: $elsewhere"
elif [[ -n $misnamed ]]; then
	fail commands_in_cmd "a command not in its own file: $misnamed"
elif ! grep -q '^int cmd_trace(' tools/cmd/trace.c; then
	fail commands_in_cmd "cmd_trace is not in tools/cmd/trace.c: the check found nothing"
else
	pass commands_in_cmd
fi

big=$(find src lib include tools bpf fuzz scripts examples -type f \( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' \) \
	-exec wc -l {} + 2>/dev/null | awk '$2 != "total" && $1 > 1000 { printf "%s (%d lines) ", $2, $1 }')
echo "largest source files:"
find src lib include tools bpf fuzz -type f -name '*.[ch]' -exec wc -l {} + | grep -v ' total$' | sort -rn | head -5 | sed 's/^/  /'
if [[ -n $big ]]; then
	fail file_sizes "over 1000 lines: $big"
else
	pass file_sizes
fi

# A function: from its NAME( line at column 0 to its "}" at column 0.
funcs=$(find src lib include tools bpf fuzz -type f -name '*.[ch]' | sort | xargs awk '
	/^[A-Za-z_].*\(/ { sig = $0; sigline = FNR }
	/^\{/ { start = sigline ? sigline : FNR; name = sig; inbody = 1; next }
	/^\}/ {
		if (inbody) {
			match(name, /[A-Za-z_0-9]+\(/)
			printf "%d %s:%d %s()\n", FNR - start + 1, FILENAME, start,
			       substr(name, RSTART, RLENGTH - 1)
		}
		inbody = 0; sigline = 0
	}' | sort -rn)
echo "longest functions (lines):"
head -5 <<<"$funcs" | sed 's/^/  /'
long=$(awk '$1 > 80 { printf "%s %s (%d lines); ", $3, $2, $1 }' <<<"$funcs")
if [[ -n $long ]]; then
	fail function_sizes "over 80 lines: $long"
else
	pass function_sizes
fi

# The layout table of docs/design.md names every source file (a new one is
# said where it belongs) and every folder below tools/, tests/ and python/
layout=$(sed -n '/^## The code.s layout/,/^## /p' docs/design.md)
unnamed=
for f in $(git ls-files 'include/perfbuf/*.h' 'src/*.c' 'lib/*.[ch]' 'bpf/*.[ch]' 'tools/*.c' 2>/dev/null); do
	grep -q "${f##*/}" <<<"$layout" || unnamed+="$f "
done
for d in $(git ls-files tools tests python | cut -d/ -f1-2 | sort -u); do
	[[ -d $d ]] && ! grep -q "$d" <<<"$layout" && unnamed+="$d/ "
done
if [[ -z $layout ]]; then
	fail readme_layout "docs/design.md has no section '## The code's layout'"
elif ! git ls-files --error-unmatch tests/test_layers.sh >/dev/null 2>&1; then
	skip readme_layout "not a git checkout: no list of the tree's files"
elif [[ -n $unnamed ]]; then
	fail readme_layout "not in docs/design.md's layout table: $unnamed"
else
	pass readme_layout
fi
# One printer of messages: a line naming its program ("perfbuf trace: ...")
# goes through cli_say() (tools/common/say.c), never a hand-made prefix in
# an fprintf(stderr, ...) of its own
by_hand=$(git ls-files 'tools/*.c' 'tools/*.h' 2>/dev/null | grep -v '^tools/common/say\.c$' |
	xargs -r perl -0777 -ne 'while (/\b(?:v?fprintf|fputs|dprintf)\s*\(\s*(?:stderr|2)\s*,\s*((?:"(?:%s|perfbuf[a-z -]*): )|(?:[A-Z][A-Z_]*\s+": ))/g) {
		my $line = 1 + (substr($_, 0, pos($_)) =~ tr/\n//); print "$ARGV:$line ";
	}')
if [[ -n $by_hand ]]; then
	fail messages_through_cli_say "a message's program named by hand, not by cli_say(): $by_hand"
else
	pass messages_through_cli_say
fi

finish
