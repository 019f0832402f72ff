#!/usr/bin/env bash
# Every BPF program the project ships loads on this kernel
# (tests/test_bpf_load.c: one PASS line per program, the verifier's log
# of one that fails).
source "$(dirname "$0")/lib.sh"
"$BUILD/tests/test_bpf_load"
