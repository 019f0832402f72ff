#!/usr/bin/env bash
# The guest tests in the oldest and the newest kernel of the matrix
# (Debian 11's 5.10 and sid's newest) in qemu (tests/vm/vm.sh; `make
# vmtest` runs all four kernels, every test). Under TCG a kernel's whole
# set takes minutes, so each runs what only it can show: 5.10 every test
# (the fallbacks: no bpf_loop(), cookies, kprobe.multi; fentry on
# 8-parameter functions refused), the newest what its newer paths take
# (the default objects, kprobe.multi globs, fentry beyond 6 arguments,
# uprobes, stress and the other commands). In the normal build only: the
# ASan build's run would test the same kernel paths again.
# normal build only: the VM runs the normal build's tool (it says so itself too)
source "$(dirname "$0")/lib.sh"
if [[ $(realpath "$BUILD") == */san ]]; then
	skip vm "the VM tests run in the normal build only"
	finish
fi
if ! need_root; then
	skip vm "needs root (9p export of /, BPF in the guest)"
	finish
fi
for c in qemu-system-x86_64 busybox cpio apt-get dpkg; do
	if ! command -v $c >/dev/null; then
		skip vm "$c is not installed: run 'make setup'"
		finish
	fi
done
rc=0
PBTESTS="${VM_CHECK_OLDEST-}" bash "$(dirname "$0")/vm/vm.sh" "$BUILD" 5.10 || rc=1
PBTESTS="${VM_CHECK_NEWEST-load kfunc kglob fallback uprobe stress tools}" \
	bash "$(dirname "$0")/vm/vm.sh" "$BUILD" sid || rc=1
exit $rc
