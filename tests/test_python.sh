#!/usr/bin/env bash
# The Python package (python/perfbuf) over this build's libperfbuf.so:
# pytest's python/tests, a PASS/FAIL/SKIP line per test. An ASan build's
# library runs with its runtime preloaded (Python itself is not built with
# it; Python's own allocations are not leak-checked).
source "$(dirname "$0")/lib.sh"
BUILD=$(realpath "$BUILD")
cd "$(dirname "$0")/.."
py=/usr/bin/python3		# Debian's: numpy and pytest are installed for it
if ! $py -c 'import numpy, pytest' 2>/dev/null; then
	fail python_deps "numpy or pytest missing for $py: run make setup"
	finish
fi
env=(PERFBUF_BUILD="$BUILD" PERFBUF_LIB="$BUILD/libperfbuf.so.4" PYTHONPATH=python)
if readelf -dW "$BUILD/libperfbuf.so.4" | grep -q 'libasan' ||
   nm -D "$BUILD/libperfbuf.so.4" 2>/dev/null | grep -q ' U __asan_init'; then
	env+=(LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
	      ASAN_OPTIONS=detect_leaks=0)
fi
out=$(env "${env[@]}" timeout 300 $py -m pytest -p no:cacheprovider -rA -q python/tests 2>&1)
rc=$?
# -rA's summary: "PASSED file::test", "FAILED file::test - why", "SKIPPED [1] file:line: why"
while IFS= read -r line; do
	case $line in
	PASSED\ *) pass "python_${line##*::}" ;;
	FAILED\ *) t=${line#FAILED *::}; fail "python_${t%% *}" "${t#* - }" ;;
	ERROR\ *) t=${line#ERROR *::}; fail "python_${t%% *}" "${t#* - }" ;;
	SKIPPED\ *) skip "python_${line##*: }" "${line#*: }" ;;
	esac
done <<<"$out"
if ((rc != 0 && rc != 1)); then
	# 5: no test collected; others: pytest itself failed
	fail python_pytest "pytest exit $rc: $(tail -5 <<<"$out" | tr '\n' ' ')"
fi
((rc == 1)) && echo "$out" | sed -n '/^=* FAILURES =*$/,/^=* short test summary/p' | head -80
finish
