#!/usr/bin/env bash
# Run every test binary of each build directory given, and every
# tests/test_*.sh with that directory as its argument; print each subtest
# result and one closing line: N passed, N failed, N skipped.
set -u
pass=0 fail=0 skip=0
for dir in "$@"; do
	for t in "$dir"/tests/test_* tests/test_*.sh; do
		# scripts run with bash whatever their mode; binaries if built
		[[ $t == *.sh && -f $t ]] || [[ -x $t && $t != *.[od] ]] || continue
		name="${dir##*/}/${t##*/}"
		if [[ $t == *.sh ]]; then
			out=$(timeout 900 bash "$t" "$dir" 2>&1 </dev/null)
		else
			out=$(timeout 300 "$t" 2>&1 </dev/null)
		fi
		rc=$?
		while IFS= read -r line; do
			case $line in
			PASS\ *) pass=$((pass + 1)); echo "  $name: $line" ;;
			FAIL\ *) fail=$((fail + 1)); echo "  $name: $line" ;;
			SKIP\ *) skip=$((skip + 1)); echo "  $name: $line" ;;
			*) echo "    $line" ;;
			esac
		done <<<"$out"
		if ((rc != 0)) && ! grep -q '^FAIL ' <<<"$out"; then
			echo "  $name: FAIL (exit status $rc)"
			fail=$((fail + 1))
		fi
	done
done
echo "$pass passed, $fail failed, $skip skipped"
((fail == 0 && pass > 0))
