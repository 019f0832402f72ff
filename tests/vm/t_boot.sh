#!/usr/bin/env bash
# The guest itself: the kernel the host asked for, tracefs and bpffs
# mounted, the build's perfbuf runs.
source "$(dirname "$0")/lib.sh"
# (sid: whatever its newest is, a +debNN version)
case $KVER/$(uname -r) in sid/*+deb* | "$KVER/$KVER".*) pass kernel_series ;;
*) fail kernel_series "$(uname -r)" ;; esac
check tracefs test -e /sys/kernel/tracing/events/syscalls
check bpffs test "$(stat -f -c %T /sys/fs/bpf)" = bpf_fs
check perfbuf_runs "$PERFBUF" --version
finish
