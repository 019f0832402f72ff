#!/usr/bin/env bash
# A short libFuzzer run over the ring parser (longer: make fuzz).
source "$(dirname "$0")/lib.sh"
f=$BUILD/fuzz_ring
if [[ ! -x $f ]]; then
	fail fuzz_ring "$f not built: run 'make check'"
	finish
fi
corpus=$(mktemp -d)
if out=$("$f" -max_total_time=5 -seed=$RANDOM "$corpus" 2>&1); then
	pass "fuzz_ring ($(grep -o 'Done [0-9]* runs' <<<"$out"))"
else
	fail fuzz_ring "$(grep -m3 -E 'ERROR|SUMMARY|deadly' <<<"$out")"
fi
rm -rf "$corpus"
finish
