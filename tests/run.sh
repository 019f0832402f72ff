#!/usr/bin/env bash
# Run every test binary of each build directory given, and every
# tests/test_*.sh with that directory as its argument; print each subtest
# result, each file's seconds, the slowest files, and one closing line:
# N passed, N failed, N skipped.
# In an ASan build (its perfbuf has __asan_init), a script with a line
# "# normal build only: WHY" is not run again: it tests what ASan adds
# nothing to (the kernel's behaviour, install layout, the same binaries).
set -u
# a hung file fails, and the suite still ends within its 20 minutes' order
script_limit=600 binary_limit=300
pass=0 fail=0 skip=0
times=() failures=()
for dir in "$@"; do
	san=
	readelf -sW "$dir/perfbuf" 2>/dev/null | grep -q '__asan_init' && san=1
	for t in "$dir"/tests/test_* tests/test_*.sh; do
		# scripts run with bash whatever their mode; binaries if built
		[[ $t == *.sh && -f $t ]] || [[ -x $t && $t != *.[od] ]] || continue
		name="${dir##*/}/${t##*/}"
		if [[ -n $san && $t == *.sh ]] && why=$(grep -m1 '^# normal build only: ' "$t"); then
			echo "  $name: not run again in the ASan build (${why#\# normal build only: })"
			continue
		fi
		start=$SECONDS
		if [[ $t == *.sh ]]; then
			out=$(timeout $script_limit bash "$t" "$dir" 2>&1 </dev/null)
		else
			out=$(timeout $binary_limit "$t" 2>&1 </dev/null)
		fi
		rc=$?
		secs=$((SECONDS - start))
		times+=("$secs $name")
		results=0
		while IFS= read -r line; do
			case $line in
			PASS\ *) pass=$((pass + 1)); echo "  $name: $line" ;;
			FAIL\ *) fail=$((fail + 1)); echo "  $name: $line"
				failures+=("$name: ${line:0:200}") ;;
			SKIP\ *) skip=$((skip + 1)); echo "  $name: $line" ;;
			*) echo "    $line"; continue ;;
			esac
			results=$((results + 1))
		done <<<"$out"
		if ((rc == 124)); then
			# the lines above say how far it got; name where it stopped
			why="timed out after $secs s, its last line: $(tail -n1 <<<"$out" | cut -c1-200)"
			echo "  $name: FAIL ($why)"
			failures+=("$name: FAIL ($why)")
			fail=$((fail + 1))
		elif ((rc != 0)) && ! grep -q '^FAIL ' <<<"$out"; then
			echo "  $name: FAIL (exit status $rc)"
			failures+=("$name: FAIL (exit status $rc)")
			fail=$((fail + 1))
		elif ((results == 0)); then
			# it ended before its first check: nothing was tested
			echo "  $name: FAIL (exit status 0 without a PASS, FAIL or SKIP line)"
			failures+=("$name: FAIL (no PASS, FAIL or SKIP line)")
			fail=$((fail + 1))
		fi
		echo "  $name: $secs s"
	done
done
echo "slowest files (seconds):"
printf '%s\n' "${times[@]}" | sort -rn | head -10 | sed 's/^/  /'
# the failures again, where the end of a long log shows them
((${#failures[@]})) && printf 'failed: %s\n' "${failures[@]}"
echo "$pass passed, $fail failed, $skip skipped"
((fail == 0 && pass > 0))
