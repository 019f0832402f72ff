#!/usr/bin/env bash
# The guest tests in the oldest and the newest kernel of the matrix
# (Debian 11's 5.10 and sid's newest) in qemu (tests/vm/vm.sh; `make
# vmtest` runs all four kernels, every test). Under TCG a kernel's whole
# set takes minutes, so make check runs each test once, on the kernel
# where it shows the most: 5.10 the fallbacks (the objects pruned for an
# old kernel at load time, tools/common/kfeat.h: the _bounded twins
# without bpf_loop(), no cookies, kprobes by address, no
# bpf_get_current_task_btf(); trace.bpf.c's build without fetch-and-add;
# no kprobe.multi; fentry refused on 8 parameters) through kfunc, kglob, fallback, record,
# uprobe; both the ledger (two probes losing 3:1 into one page, each
# identity held); the newest the default objects through tracepoint, stress and
# the other commands (tools), and the kernel patching its code under both
# vCPUs (textpoke). Both load every program and boot, and check the
# libbpf-tools on kprobes and fentry (libbpf_tools: their objects were
# fetched by tests/test_libbpf_tools.sh, which tests/run.sh runs before
# this file). First the harness's own check (harness_panic, in 5.10).
# VM_CHECK_OLDEST, VM_CHECK_NEWEST: other test sets ("" runs all).
# In the normal build only: the ASan build's run would test the same
# kernel paths again.
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
# the harness itself: a guest whose kernel panics in a test is a FAIL that
# names the test and the kernel's words (a CI log may keep that line only)
out=$(PBTESTS=harness_panic bash "$(dirname "$0")/vm/vm.sh" "$BUILD" 5.10 2>&1)
want="FAIL 5.10/vm: the guest stopped in t_harness_panic.sh: the kernel said 'Kernel panic - not syncing: sysrq triggered crash"
if [[ $out == "SKIP 5.10/vm ("* ]]; then
	why=${out#SKIP 5.10/vm (}
	skip vm_harness_names_a_panic "${why%)}"
elif [[ $out == *"vm 5.10: booted"* && $out == *"$want"* ]]; then
	pass vm_harness_names_a_panic
else
	fail vm_harness_names_a_panic "the harness said (want: $want):"
	sed 's/^/    /' <<<"$out" | head -n 20
fi
rc=0
PBTESTS="${VM_CHECK_OLDEST-boot load kfunc kglob fallback record uprobe ledger libbpf_tools}" \
	bash "$(dirname "$0")/vm/vm.sh" "$BUILD" 5.10 || rc=1
PBTESTS="${VM_CHECK_NEWEST-boot load tracepoint stress tools ledger libbpf_tools textpoke}" \
	bash "$(dirname "$0")/vm/vm.sh" "$BUILD" sid || rc=1
((rc == 0)) || failed=1
finish
