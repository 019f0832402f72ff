#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# fetch.sh DIR: the BPF objects of Debian's libbpf-tools package (bcc's
# libbpf-tools, built by Debian; each binary's skeleton carries its
# object) in DIR/objs/TOOL.bpf.o, and the tools themselves in DIR/sbin.
# Downloads once (apt-get download through an apt configuration of DIR's
# own: the host's sources are untouched, nothing is installed). Exit 2
# when the archive cannot be reached (the caller skips), 1 on another
# failure. No code of bcc is kept in this repository.
set -euo pipefail
mkdir -p "$1"
dir=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
suite=trixie			# bcc 0.31: tcppktlat, the tp_btf/raw_tp sets
die() { echo "libbpf-tools: $1" >&2; exit "${2:-1}"; }

[[ -s $dir/objs/execsnoop.bpf.o ]] && exit 0
a=$dir/apt key=/usr/share/keyrings/debian-archive-keyring.gpg
opts=(-o Dir::Etc::SourceList="$a/sources.list" -o Dir::Etc::SourceParts="$a/none"
      -o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache"
      -o APT::Sandbox::User=root -o Debug::NoLocking=1)
mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/none"
echo "deb [signed-by=$key] http://deb.debian.org/debian $suite main" >"$a/sources.list"
apt-get "${opts[@]}" -qq update >"$a/update.log" 2>&1 || true
[[ -n $(find "$a/lists" -maxdepth 1 -name '*Packages*') ]] ||
	die "cannot reach deb.debian.org: $(grep -m1 -E '^(W|E|Err):' "$a/update.log")" 2
rm -rf "$dir/dl" && mkdir -p "$dir/dl"
(cd "$dir/dl" && apt-get "${opts[@]}" -qq download libbpf-tools >download.log 2>&1) ||
	die "apt-get download libbpf-tools failed: $(tail -1 "$dir/dl/download.log")" 2
dpkg -x "$dir"/dl/libbpf-tools_*.deb "$dir/dl/root"
rm -rf "$dir/objs.tmp" "$dir/sbin" && mkdir -p "$dir/objs.tmp"
for bin in "$dir"/dl/root/usr/sbin/*-libbpf; do
	tool=${bin##*/}
	tool=${tool%-libbpf}
	[[ -L $bin ]] && continue	# an alias of another tool
	python3 "$here/extract.py" "$bin" "$dir/objs.tmp/$tool.bpf.o" ||
		die "$bin: no BPF object in it"
done
ls "$dir"/dl/libbpf-tools_*.deb | sed 's|.*/||' >"$dir/objs.tmp/package"
mv "$dir/dl/root/usr/sbin" "$dir/sbin"
rm -rf "$dir/objs" "$dir/dl" && mv "$dir/objs.tmp" "$dir/objs"
