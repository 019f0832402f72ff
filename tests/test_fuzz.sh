#!/usr/bin/env bash
# Short libFuzzer runs (longer: make fuzz): per target, every file of
# tests/fuzz/TARGET/ (seeds and crash reproducers) once, then ~4 s of
# fuzzing from a copy of them. A crash is kept in BUILD/fuzz-crash/.
# normal build only: the fuzz targets are ASan/UBSan builds in both (FUZZ_CFLAGS)
source "$(dirname "$0")/lib.sh"
seeds=$(dirname "$0")/fuzz
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fuzz_target T: its PASS or FAIL line
fuzz_target() {
	local t=$1 f=$BUILD/fuzz_$1 out inputs
	if [[ ! -x $f ]]; then
		fail "fuzz_$t" "$f not built: run 'make check'"
		return
	fi
	inputs=("$seeds/$t"/*)
	mkdir -p "$tmp/$t/corpus" "$tmp/$t/crash"
	cp "${inputs[@]}" "$tmp/$t/corpus/"
	# -timeout: an input that runs for seconds is a hang
	if ! out=$("$f" -timeout=5 "${inputs[@]}" 2>&1); then
		fail "fuzz_$t" "$(grep '^Running: ' <<<"$out" | tail -1 | cut -c10-): $(grep -m1 SUMMARY <<<"$out")"
	# libFuzzer stops in the second after max_total_time: ~4 s
	elif ! out=$("$f" -max_total_time=3 -timeout=5 -seed=$RANDOM \
		     -artifact_prefix="$tmp/$t/crash/" "$tmp/$t/corpus" 2>&1); then
		mkdir -p "$BUILD/fuzz-crash/$t"
		cp "$tmp/$t/crash"/* "$BUILD/fuzz-crash/$t/" 2>/dev/null
		fail "fuzz_$t" "$(grep -m1 SUMMARY <<<"$out"); input in $BUILD/fuzz-crash/$t/"
	else
		pass "fuzz_$t (${#inputs[@]} inputs replayed, $(grep -o 'Done [0-9]* runs' <<<"$out"))"
	fi
}
# two at a time (each is one process on one CPU, 4 s of wall time): the
# same fuzzing in half the time; the results in order
res=()
for t in ring format json capture sample filter type agg; do
	fuzz_target "$t" >"$tmp/$t.res" &
	res+=("$tmp/$t.res")
	while (($(jobs -rp | wc -l) >= 2)); do wait -n; done
done
wait
cat "${res[@]}"
grep -q '^FAIL' "${res[@]}" && failed=1

# fuzz_capture gets past the frame CRC (its harness makes each right): a
# capture whose CRCs are all 0 reaches the records (touch(), the fold's
# callback, is covered)
if [[ -x $BUILD/fuzz_capture ]]; then
	mkdir -p "$tmp/zero-crc"
	cp "$seeds/capture/zero-crc" "$tmp/zero-crc/"
	"$BUILD/fuzz_capture" -runs=0 -print_coverage=1 "$tmp/zero-crc" >"$tmp/cov" 2>&1
	check fuzz_capture_past_crc grep -q '^COVERED_FUNC: .* touch .*fuzz_capture.c' "$tmp/cov"
fi
finish
