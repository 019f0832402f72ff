#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The test harness itself: what would let a broken test pass unseen.
#   subtest_name_unknown  a C test file given a subtest name that matches
#                         none runs nothing: one line, exit 1
#   run_sh_silent_file    tests/run.sh counts a test file that exits 0
#                         without a PASS, FAIL or SKIP line as failed
source "$(dirname "$0")/lib.sh"
scratch harness
repo=$(realpath "$(dirname "$0")/..")

t=$BUILD/tests/test_ring
built_or_finish subtest_name_unknown "$t"
first=$("$t" 2>/dev/null | sed -n '1s/^[A-Z]* \([^ ]*\).*/\1/p')
"$t" "$first" no_such_subtest >"$tmp/out" 2>"$tmp/err"
rc=$?
check subtest_name_unknown test "$rc" = 1 -a ! -s "$tmp/out" -a \
	"$(cat "$tmp/err")" = "$t: no subtest named 'no_such_subtest'; nothing run (give none to run them all)"
"$t" "$first" >"$tmp/out" 2>&1
check subtest_name_known test "$?" = 0 -a "$(cat "$tmp/out")" = "PASS $first"

# a build directory of one test file that prints nothing and exits 0; run
# from $tmp, where no tests/test_*.sh is found
mkdir -p "$tmp/b/tests"
printf '#!/bin/sh\necho "a line that is no result"\nexit 0\n' >"$tmp/b/tests/test_silent"
printf '#!/bin/sh\necho "PASS one"\n' >"$tmp/b/tests/test_one"
chmod +x "$tmp/b/tests/test_silent" "$tmp/b/tests/test_one"
(cd "$tmp" && bash "$repo/tests/run.sh" b) >"$tmp/run.out" 2>&1
rc=$?
check run_sh_silent_file bash -c "[[ $rc != 0 ]] &&
	grep -qx '  b/test_silent: FAIL (exit status 0 without a PASS, FAIL or SKIP line)' '$tmp/run.out' &&
	grep -qx '1 passed, 1 failed, 0 skipped' '$tmp/run.out'"
finish
