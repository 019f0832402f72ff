#!/usr/bin/env bash
# Install what perfbuf needs (Debian, as root) and mount tracefs. Nothing
# else on the host changes: what a step needs beyond packages goes into
# the build tree ($OUTPUT, default build/).
#   scripts/setup.sh               building and running perfbuf (make setup)
#   scripts/setup.sh --test        and what the test suite needs (make check)
#   scripts/setup.sh --bench       and what make bench compares with
#   scripts/setup.sh --tracefs-only
#   --dry-run                      say what would be installed, change nothing
#   (--test and --bench add up; --tracefs-only goes alone)
set -euo pipefail

# Building and running: the library (libbpf, libelf, libdw: DWARF types,
# zlib), the tool (libdeflate: the capture files' CRC-32; libnats: trace
# --nats), BPF programs (clang, bpftool), the Python package (numpy),
# the man pages (man-db)
base=(make gcc clang pkg-config bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev
	libdeflate-dev libnats-dev python3 python3-numpy man-db)
# The test suite's, each for:
#   libclang-rt-14-dev   the libFuzzer targets (clang -fsanitize=fuzzer)
#   valgrind             tests/test_memcheck.sh
#   python3-pytest       tests/test_python.sh
#   linux-perf           report --perf-data read back with perf script
#   nats-server          trace --nats against real servers (tests/test_nats.sh)
#   prometheus           --metrics scraped by a real Prometheus
#   chromium             perfbuf profile's flame graphs rendered headless
#   qemu-system-x86, busybox-static, cpio   Debian's kernels booted (tests/vm/)
#   dpkg-dev, debhelper, lintian            the Debian packages built and checked
test=(libclang-rt-14-dev valgrind python3-pytest linux-perf nats-server prometheus
	chromium qemu-system-x86 busybox-static cpio dpkg-dev debhelper lintian)
# make bench's peers: bpftrace, perf, nats-server, bcc (the Python
# readers' comparison), gnuplot (the plot)
bench=(bpftrace linux-perf nats-server python3-bpfcc gnuplot-nox)

# --test and --bench add up (each adds its packages to the base)
mode= dry= tiers=()
for a in "$@"; do
	case $a in
	--test | --bench) tiers+=("$a") ;;
	--tracefs-only) mode=$a ;;
	--dry-run) dry=1 ;;
	*) echo "setup: unknown option '$a': use --test, --bench, --tracefs-only or --dry-run" >&2
	   exit 2 ;;
	esac
done
if [[ -n $mode && ${#tiers[@]} -gt 0 ]]; then
	echo "setup: --tracefs-only installs nothing: give it alone, or --test/--bench without it" >&2
	exit 2
fi
pkgs=("${base[@]}")
for t in "${tiers[@]}"; do
	[[ $t == --test ]] && pkgs+=("${test[@]}")
	[[ $t == --bench ]] && pkgs+=("${bench[@]}")
done
# a package of two tiers once
mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | awk '!seen[$0]++')
out=${OUTPUT:-build}

need_root() {
	if [[ $(id -u) != 0 ]]; then
		echo "setup: $1 needs root: run 'sudo make setup' (or install: ${pkgs[*]})" >&2
		exit 1
	fi
}

# the packages of the step that are not installed
missing() {
	local p
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || echo "$p"
	done
}

if [[ $mode != --tracefs-only ]]; then
	mapfile -t todo < <(missing)
	if [[ -n $dry ]]; then
		echo "setup: would install: ${todo[*]:-nothing}"
		exit 0
	fi
	if ((${#todo[@]})); then
		need_root "installing ${todo[*]}"
		echo "setup: installing ${todo[*]}"
		# apt's chatter (debconf, progress) only when it fails
		log=$(mktemp)
		if ! { apt-get update -qq &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
				--no-install-recommends "${todo[@]}"; } >"$log" 2>&1; then
			cat "$log" >&2
			rm -f "$log"
			echo "setup: installing ${todo[*]} failed" >&2
			exit 1
		fi
		rm -f "$log"
	fi
fi
[[ -z $dry ]] || exit 0

# libbpf attaches tracepoints through tracefs: without it, ENOENT.
if [[ ! -e /sys/kernel/tracing/events ]]; then
	if [[ $(id -u) == 0 ]]; then
		mount -t tracefs nodev /sys/kernel/tracing ||
			echo "setup: could not mount tracefs; tracepoint probes will fail" >&2
	else
		echo "setup: tracefs is not mounted; as root run: mount -t tracefs nodev /sys/kernel/tracing" >&2
	fi
fi

# bcc (the bench's Python peer) compiles its programs against kernel
# headers. A kernel without a package of its own gets Debian 12's newest
# 6.1 headers (the bench's programs use no kernel struct), unpacked into
# the build tree, never installed: $out/bcc-headers/kernel, a tree of
# links to both halves of Debian's headers, is what `make bench` gives bcc
# as BCC_KERNEL_SOURCE.
bcc_headers() {
	local dir=$out/bcc-headers v p
	[[ -e /lib/modules/$(uname -r)/build/include/linux/kconfig.h ||
		-e $dir/kernel/include/linux/kconfig.h ]] && return
	v=$(apt-cache search '^linux-headers-6\.1\.0-[0-9]*-amd64$' |
		sed -n 's/^linux-headers-\(6\.1\.0-[0-9]*\)-amd64 .*/\1/p' | sort -t- -k2 -n | tail -1)
	rm -rf "$dir" && mkdir -p "$dir/root"
	if [[ -z $v ]] || ! (cd "$dir" && apt-get download -qq "linux-headers-$v-amd64" \
		"linux-headers-$v-common" >download.log 2>&1); then
		echo "setup: no Debian 6.1 kernel headers: the bench's bcc rows will say unavailable" >&2
		return
	fi
	for p in "$dir"/*.deb; do dpkg -x "$p" "$dir/root"; done
	rm -f "$dir"/*.deb
	p=$(realpath "$dir/root/usr/src")
	mkdir "$dir/kernel"
	cp -rs "$p/linux-headers-$v-common/." "$dir/kernel/"
	cp -rs --remove-destination "$p/linux-headers-$v-amd64/." "$dir/kernel/"
}
[[ " ${tiers[*]} " == *" --bench "* && $(uname -m) == x86_64 ]] && bcc_headers
exit 0
