#!/usr/bin/env bash
# The set-up tiers on a faked fresh machine (a dpkg-query that knows no
# package): `make setup` installs what building and running need and none
# of the test suite's packages, `make check` adds those first, `make bench`
# its peers; nothing outside the build tree is touched.
# normal build only: it runs scripts/setup.sh, the same in both builds
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
scratch setup

# a fresh machine: nothing installed; an old one: everything
mkdir -p "$tmp/fresh" "$tmp/full"
printf '#!/bin/sh\nexit 1\n' >"$tmp/fresh/dpkg-query"
printf '#!/bin/sh\nprintf "install ok installed"\n' >"$tmp/full/dpkg-query"
chmod +x "$tmp/fresh/dpkg-query" "$tmp/full/dpkg-query"
# tier MACHINE ARGS...: the packages `scripts/setup.sh --dry-run ARGS` would install
tier() {
	local m=$1
	shift
	PATH=$tmp/$m:$PATH OUTPUT=$tmp/out scripts/setup.sh --dry-run "$@" 2>&1 |
		sed -n 's/^setup: would install: //p' | tr ' ' '\n' | sort
}
tier fresh >"$tmp/base"
tier fresh --test >"$tmp/test"
tier fresh --bench >"$tmp/bench"

# has FILE PKG...: the PKGs FILE lacks
lacks() {
	local f=$1 p out=
	shift
	for p; do grep -qx -- "$p" "$f" || out+="$p "; done
	echo "$out"
}
build_run=(make gcc clang pkg-config bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev
	libdeflate-dev libnats-dev python3 python3-numpy man-db)
test_only=(libclang-rt-14-dev valgrind python3-pytest linux-perf nats-server prometheus
	chromium qemu-system-x86 busybox-static cpio dpkg-dev debhelper lintian)
bench_only=(bpftrace gnuplot-nox python3-bpfcc)

miss=$(lacks "$tmp/base" "${build_run[@]}")
extra=$(grep -xF -f <(printf '%s\n' "${test_only[@]}" "${bench_only[@]}") "$tmp/base" | tr '\n' ' ')
if [[ ! -s $tmp/base ]]; then
	fail setup_tier_build "scripts/setup.sh --dry-run named no package: $(tier fresh 2>&1 | head -2)"
elif [[ -n $miss ]]; then
	fail setup_tier_build "make setup would not install: $miss"
elif [[ -n $extra ]]; then
	fail setup_tier_build "make setup would install test-only packages: $extra"
else
	pass setup_tier_build
fi

miss=$(lacks "$tmp/test" "${build_run[@]}" "${test_only[@]}")
extra=$(grep -xF -f <(printf '%s\n' "${bench_only[@]}") "$tmp/test" | tr '\n' ' ')
if [[ -n $miss ]]; then
	fail setup_tier_test "make check's set-up would not install: $miss"
elif [[ -n $extra ]]; then
	fail setup_tier_test "make check's set-up would install the bench's: $extra"
else
	pass setup_tier_test
fi

miss=$(lacks "$tmp/bench" "${build_run[@]}" "${bench_only[@]}")
if [[ -n $miss ]]; then
	fail setup_tier_bench "make bench's set-up would not install: $miss"
else
	pass setup_tier_bench
fi

# tiers add up: --test --bench is both (the last one alone was taken);
# --tracefs-only with a tier is refused in one line
tier fresh --test --bench >"$tmp/both"
miss=$(lacks "$tmp/both" "${build_run[@]}" "${test_only[@]}" "${bench_only[@]}")
if [[ -n $miss ]]; then
	fail setup_tiers_add_up "scripts/setup.sh --test --bench would not install: $miss"
else
	pass setup_tiers_add_up
fi
out=$(scripts/setup.sh --dry-run --tracefs-only --test 2>&1)
rc=$?
if ((rc != 0)) && [[ $out == "setup: --tracefs-only installs nothing: give it alone, or --test/--bench without it" ]]; then
	pass setup_tracefs_only_alone
else
	fail setup_tracefs_only_alone "exit $rc: $out"
fi

# an installed machine: nothing to do, and no root needed to say so
out=$(PATH=$tmp/full:$PATH scripts/setup.sh --dry-run --test 2>&1)
if [[ $out != "setup: would install: nothing" ]]; then
	fail setup_nothing_missing "with every package installed: '$out'"
else
	pass setup_nothing_missing
fi
out=$(scripts/setup.sh --bogus 2>&1)
rc=$?
if ((rc != 0)) && [[ $out == *"unknown option '--bogus'"* ]]; then
	pass setup_bad_option
else
	fail setup_bad_option "exit $rc: $out"
fi

# every package of every tier is one Debian knows (a typo fails here,
# not on a fresh machine)
sort -u "$tmp/base" "$tmp/test" "$tmp/bench" >"$tmp/all"
apt-cache show --no-all-versions $(cat "$tmp/all") 2>/dev/null |
	sed -n 's/^Package: //p' | sort -u >"$tmp/known"
unknown=$(comm -23 "$tmp/all" "$tmp/known" | tr '\n' ' ')
if ! command -v apt-cache >/dev/null; then
	skip setup_packages_exist "no apt-cache"
elif [[ -n $unknown ]]; then
	fail setup_packages_exist "apt-cache knows no: $unknown"
else
	pass setup_packages_exist
fi

# make check's first step is the tests' set-up; make setup stays the base
if ! make -rpn OUTPUT="$tmp/out" setup-test 2>/dev/null | grep -qx 'check: setup-test'; then
	fail make_check_sets_up "the Makefile's check does not depend on setup-test"
elif ! make -n setup-test 2>/dev/null | grep -q 'scripts/setup.sh --test'; then
	fail make_check_sets_up "make setup-test does not run scripts/setup.sh --test"
else
	pass make_check_sets_up
fi

# nothing outside the build tree: no links or files under /lib/modules,
# /usr or /etc made by the set-up (packages aside)
host=$(grep -nE '^[^#]*(\bln -|(mkdir -p|>) *"?/(lib|usr|etc)/)' scripts/setup.sh | head -3)
if [[ -n $host ]]; then
	fail setup_leaves_host "scripts/setup.sh writes outside the build tree: $host"
else
	pass setup_leaves_host
fi
finish
