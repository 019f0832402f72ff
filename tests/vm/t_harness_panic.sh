#!/usr/bin/env bash
# The harness's own check, run by name only (tests/test_vm.sh): the
# kernel panics in the middle of a test, as it would on an oops; the host
# must name this test and the kernel's words in its FAIL line.
# by name only
source "$(dirname "$0")/lib.sh"
pass harness_panic_started
sync
echo c >/proc/sysrq-trigger
fail harness_panic "the kernel is still running after sysrq's crash"
finish
