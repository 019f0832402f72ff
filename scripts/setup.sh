#!/usr/bin/env bash
# Install what perfbuf needs (Debian, as root) and mount tracefs.
#   scripts/setup.sh               build/test dependencies + tracefs
#   scripts/setup.sh --bench       also bpftrace and gnuplot for `make bench`,
#                                  and kernel headers for bcc (python part)
#   scripts/setup.sh --tracefs-only
set -euo pipefail

# chromium: the tests render perfbuf profile's flame graphs (headless);
# libnats-dev, nats-server: trace --nats and its tests; linux-perf: the
# tests read report --perf-data with perf script, the bench runs perf;
# libdeflate-dev: the capture files' CRC-32; libdw-dev: DWARF types and
# uprobe arguments; qemu-system-x86, busybox-static, cpio: the VM tests boot
# Debian's kernels; prometheus: scrapes --metrics in the tests;
# python3-numpy/-cffi/-pytest/-bpfcc: the Python package, its tests and bench
pkgs=(make gcc clang llvm libclang-rt-14-dev libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev libdeflate-dev python3 valgrind pkg-config man-db chromium
	libnats-dev nats-server linux-perf qemu-system-x86 busybox-static cpio prometheus
	python3-numpy python3-cffi python3-pytest python3-bpfcc)
mode=${1:-}
[[ $mode == --bench ]] && pkgs+=(bpftrace gnuplot-nox)

need_root() {
	if [[ $(id -u) != 0 ]]; then
		echo "setup: $1 needs root: run 'sudo make setup' (or install: ${pkgs[*]})" >&2
		exit 1
	fi
}

if [[ $mode != --tracefs-only ]]; then
	missing=()
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	if ((${#missing[@]})); then
		need_root "installing ${missing[*]}"
		echo "setup: installing ${missing[*]}"
		# apt's chatter (debconf, progress) only when it fails
		log=$(mktemp)
		if ! { apt-get update -qq &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
				--no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
			cat "$log" >&2
			rm -f "$log"
			echo "setup: installing ${missing[*]} failed" >&2
			exit 1
		fi
		rm -f "$log"
	fi
fi

# libbpf attaches tracepoints through tracefs: without it, ENOENT.
if [[ ! -e /sys/kernel/tracing/events ]]; then
	if [[ $(id -u) == 0 ]]; then
		mount -t tracefs nodev /sys/kernel/tracing ||
			echo "setup: could not mount tracefs; tracepoint probes will fail" >&2
	else
		echo "setup: tracefs is not mounted; as root run: mount -t tracefs nodev /sys/kernel/tracing" >&2
	fi
fi

# bcc (the bench's Python peer) compiles its programs against kernel headers
# found at /lib/modules/$(uname -r)/{build,source}: this kernel has no
# package of its own, so Debian 12's newest 6.1 headers stand in (the
# bench's programs use no kernel struct). Headers only: no kernel installed.
bcc_headers() {
	local mod=/lib/modules/$(uname -r) v
	[[ -e $mod/build/include/linux/kconfig.h || -e $mod/source/include/linux/kconfig.h ]] && return
	v=$(apt-cache search '^linux-headers-6\.1\.0-[0-9]*-amd64$' |
		sed -n 's/^linux-headers-\(6\.1\.0-[0-9]*\)-amd64 .*/\1/p' | sort -t- -k2 -n | tail -1)
	if [[ -z $v ]] || ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "linux-headers-$v-amd64" >/dev/null 2>&1; then
		echo "setup: no Debian 6.1 kernel headers: the bench's bcc rows will say unavailable" >&2
		return
	fi
	mkdir -p "$mod"
	ln -sfn "/usr/src/linux-headers-$v-amd64" "$mod/build"
	ln -sfn "/usr/src/linux-headers-$v-common" "$mod/source"
}
[[ $mode == --bench && $(id -u) == 0 && $(uname -m) == x86_64 ]] && bcc_headers
exit 0
