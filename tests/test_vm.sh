#!/usr/bin/env bash
# The probe tests inside Debian 12's own kernel (6.1) in qemu
# (tests/vm/vm.sh; `make vmtest` runs every kernel). In the normal build
# only: the ASan build's run would test the same kernel paths again.
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
exec bash "$(dirname "$0")/vm/vm.sh" "$BUILD" 6.1
