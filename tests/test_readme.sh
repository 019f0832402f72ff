#!/usr/bin/env bash
# The front door works as written: the README's C agent (the block after
# <!-- agent.c -->) builds warning-free with the README's in-tree command
# and prints the file a process opens; its Python agent does too; the
# README stays short and the user documents hold no history.
# normal build only: the README's commands build against the plain build
source "$(dirname "$0")/lib.sh"
BUILD=$(realpath "$BUILD")
cd "$(dirname "$0")/.."
scratch readme

# block MARKER LANG: the first ```LANG block after the line MARKER
block() {
	awk -v m="$1" -v l="$2" '$0 == m { f = 1; next }
		f && $0 == "```" l { g = 1; next } g && /^```/ { exit } g' README.md
}

# --- the README: short, and about perfbuf as it is
lines=$(wc -l <README.md)
if ((lines > 300)); then
	fail readme_short "README.md has $lines lines: keep it under 300, move the rest to docs/"
else
	pass readme_short
fi
# no issue numbers, diaries of past runs or of the build host (the bench's
# generated tables say what load they ran under: left out)
diary=$(awk '/<!-- bench:begin -->/ { b = 1 } /<!-- bench:end -->/ { b = 0 }
	!b { print FILENAME ":" FNR ": " $0 }' README.md CHANGELOG.md docs/*.md |
	grep -E -i '\(issue [0-9]+|issue [0-9]+\)|\(was: |load average|this (VM|machine|host)\b' |
	head -3 | tr '\n' ' ')
if [[ -n $diary ]]; then
	fail docs_speak_to_users "history or host diary in a user document: $diary"
else
	pass docs_speak_to_users
fi
# every docs page is in the index
unlisted=
for f in docs/*.md; do
	[[ $f == docs/README.md ]] || grep -q "(${f#docs/})" docs/README.md || unlisted+=" $f"
done
if [[ -n $unlisted ]]; then
	fail docs_index "not in docs/README.md:$unlisted"
else
	pass docs_index
fi

# ledger_ok FILE: its last line is "O offered = R received + L lost + N
# no reader" and adds up (every event the program offered accounted)
ledger_ok() {
	tail -1 "$1" | awk '$2 == "offered" && $3 == "=" && $5 == "received" &&
		$8 == "lost" && $11 == "no" && $12 == "reader" && NF == 12 {
			ok = $1 > 0 && $1 == $4 + $7 + $10 }
		END { exit !ok }'
}

# --- the C agent, built with the README's in-tree command
block '<!-- agent.c -->' c >"$tmp/agent.c"
cmd=$(grep -m1 '^cc -Iinclude -o agent agent.c ' README.md | sed 's/ *#.*//')
if [[ ! -s $tmp/agent.c || -z $cmd ]]; then
	fail readme_agent_builds "no <!-- agent.c --> block or 'cc -Iinclude -o agent agent.c' line in README.md"
	finish
fi
# the README's command, from this tree, with its build directory and warnings as errors
cmd=${cmd//build\//$BUILD/}
cmd=${cmd/-o agent agent.c/-Wall -Wextra -Wno-unused-parameter -Werror -o $tmp/agent $tmp/agent.c}
if ! eval "$cmd" >"$tmp/cc.log" 2>&1; then
	fail readme_agent_builds "$(head -3 "$tmp/cc.log" | tr '\n' ' ')"
	finish
fi
pass readme_agent_builds

root_or_finish readme_agent_runs "it loads a BPF object"
obj=$BUILD/tests/bpf/py_opensnoop.bpf.o
if [[ ! -f $obj ]]; then
	fail readme_agent_runs "$obj not built: run 'make'"
	finish
fi
target=$tmp/opened-by-readme-agent
touch "$target"
# interrupt PID: Ctrl-C, then its exit status (KILL, 137, after 10 s)
interrupt() {
	kill -INT "$1" 2>/dev/null
	for _ in $(seq 100); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1"
}
# opens the target until the agent has shown it (or 10 s)
opener() {
	for _ in $(seq 100); do
		cat "$target" >/dev/null
		grep -q "$target" "$1" 2>/dev/null && return
		sleep 0.1
	done
}
stdbuf -oL "$tmp/agent" "$obj" >"$tmp/agent.out" 2>"$tmp/agent.err" &
apid=$!
opener "$tmp/agent.out"
interrupt "$apid"
rc=$?
if ! grep -qE "^[0-9]+ +cat +$target\$" "$tmp/agent.out"; then
	fail readme_agent_runs "no line 'PID cat $target' (exit $rc): $(head -2 "$tmp/agent.err" | tr '\n' ' ')"
elif ((rc != 0)); then
	fail readme_agent_runs "exit status $rc after Ctrl-C, not 0"
else
	pass readme_agent_runs
fi
if ledger_ok "$tmp/agent.out"; then
	pass readme_agent_ledger
else
	fail readme_agent_ledger "last line, not 'O offered = R received + L lost + N no reader' adding up: $(tail -1 "$tmp/agent.out")"
fi

# --- the Python agent, run as the README says
py=/usr/bin/python3
if ! $py -c 'import numpy' 2>/dev/null; then
	skip readme_python_agent "no numpy for $py: make setup"
	finish
fi
block '**In Python**, whole numpy arrays per drain (`agent.py`; `python/examples/` has more):' python \
	>"$tmp/agent.py"
# a background job starts with SIGINT ignored, which Python keeps: give it
# back its Ctrl-C, as a terminal would
PYTHONPATH=python PERFBUF_LIB=$BUILD/libperfbuf.so.4 $py -u -c '
import runpy, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")' "$tmp/agent.py" "$obj" \
	>"$tmp/py.out" 2>"$tmp/py.err" &
ppid=$!
opener "$tmp/py.out"
interrupt "$ppid"
rc=$?
if ! grep -qE "^[0-9]+ cat $target\$" "$tmp/py.out"; then
	fail readme_python_agent "no line 'PID cat $target' (exit $rc): $(tail -2 "$tmp/py.err" | tr '\n' ' ')"
elif ((rc != 0)); then
	fail readme_python_agent "exit status $rc after Ctrl-C, not 0: $(tail -1 "$tmp/py.err")"
else
	pass readme_python_agent
fi
if ledger_ok "$tmp/py.out"; then
	pass readme_python_agent_ledger
else
	fail readme_python_agent_ledger "last line, not 'O offered = R received + L lost + N no reader' adding up: $(tail -1 "$tmp/py.out")"
fi
finish
