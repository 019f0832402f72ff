#!/usr/bin/env bash
# perfbuf stress (bpf/emit.bpf.c): nothing lost at a low rate, and in
# overload the kernel's loss count adds up exactly (the tool checks it).
source "$(dirname "$0")/lib.sh"
if "$PERFBUF" stress --rate 2k --duration 1 --json >"$tmp/low" 2>"$tmp/low.err"; then
	check stress_low_rate jcheck "$tmp/low" "objs[-1]['lost'] == 0 and
		objs[-1]['offered'] > 0 and objs[-1]['received'] == objs[-1]['offered']" ||
		cat "$tmp/low"
else
	fail stress_low_rate "exit $?: $(head -c 300 "$tmp/low.err")"
fi
if "$PERFBUF" stress --max --pages 1 --batch 1024 --duration 1 --json >"$tmp/over" 2>"$tmp/over.err"; then
	check stress_overload jcheck "$tmp/over" "objs[-1]['lost'] > 0 and objs[-1]['ok'] and
		objs[-1]['received'] + objs[-1]['lost'] == objs[-1]['offered']" || cat "$tmp/over"
else
	fail stress_overload "exit $?: $(head -c 300 "$tmp/over.err")"
fi
finish
