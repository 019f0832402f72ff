#!/usr/bin/env bash
# kernel.sh VMDIR SERIES: Debian's kernel SERIES (5.10: Debian 11's own,
# 6.1: Debian 12's own, 6.12: bookworm-backports, sid: the newest in
# unstable) unpacked under VMDIR/SERIES, with an initramfs for it; prints
# that directory. Each is the newest package matching the series' version
# pattern, never a pinned version. Downloads once (apt-get download,
# through an apt configuration of VMDIR's own: the host's sources are not
# touched, nothing is installed), unpacks with dpkg -x. Two layouts: one
# linux-image package with /boot/vmlinuz-VERSION and /lib/modules (up to
# trixie), or sid's linux-binary-VERSION (vmlinuz under
# /usr/lib/modules/VERSION/) with linux-modules-VERSION beside it; either
# way the directory gets root/boot/vmlinuz and root/lib/modules/VERSION.
# Exit 2 when the archive cannot be reached (the caller skips), 1 on any
# other failure.
set -euo pipefail
vmdir=$1 series=$2
here=$(cd "$(dirname "$0")" && pwd)
out=$vmdir/$series

die() { echo "vm: $series: $1" >&2; exit "${2:-1}"; }

# the generic amd64 flavour only: -cloud has no 9p, -rt is another kernel
# (sid's newest: linux-binary-X.Y.Z+debNN-amd64, or linux-image-... when
# it still has that layout)
case $series in
5.10) pattern='^linux-image-5\.10\.0-[0-9]+-amd64$' ;;
6.1) pattern='^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
6.12) pattern='^linux-image-6\.12\.[0-9]+\+deb12-amd64$' ;;
sid) pattern='^linux-(binary|image)-[0-9]+\.[0-9]+\.[0-9]+\+deb[0-9]+-amd64$' ;;
*) die "unknown kernel series (known: 5.10, 6.1, 6.12, sid)" ;;
esac

# apt's own tree under VMDIR: sources, lists, cache
apt_opts() {
	local a=$vmdir/apt
	echo "-o Dir::Etc::SourceList=$a/sources.list -o Dir::Etc::SourceParts=$a/none
	      -o Dir::State::Lists=$a/lists -o Dir::Cache=$a/cache
	      -o APT::Sandbox::User=root -o Debug::NoLocking=1"
}
apt_update() {
	local a=$vmdir/apt key=/usr/share/keyrings/debian-archive-keyring.gpg
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/none"
	cat >"$a/sources.list" <<-EOF
	deb [signed-by=$key] http://deb.debian.org/debian bookworm main
	deb [signed-by=$key] http://deb.debian.org/debian-security bookworm-security main
	deb [signed-by=$key] http://deb.debian.org/debian bookworm-backports main
	deb [signed-by=$key] http://deb.debian.org/debian bullseye main
	deb [signed-by=$key] http://deb.debian.org/debian-security bullseye-security main
	deb [signed-by=$key] http://deb.debian.org/debian sid main
	EOF
	# once per hour at most: a clean tree updates, a cached one does not
	if [[ -z $(find "$a/lists" -maxdepth 1 -name '*Packages*' -mmin -60) ]]; then
		apt-get $(apt_opts) -qq update >"$a/update.log" 2>&1
	fi
	# apt-get update exits 0 when it could fetch nothing: no lists then
	if [[ -z $(find "$a/lists" -maxdepth 1 -name '*Packages*') ]]; then
		die "cannot reach deb.debian.org: $(grep -m1 -E '^(W|E|Err):' "$a/update.log")" 2
	fi
}

# fetch: the newest package of the series, unpacked into $out/root; sid's
# linux-binary-V comes with linux-modules-V, and is moved into the /boot,
# /lib/modules layout the rest expects
fetch() {
	local pkg pkgs deb ver
	apt_update
	pkg=$(apt-cache $(apt_opts) search --names-only "$pattern" | cut -d' ' -f1 |
	      sed 's/^linux-[a-z]*-//' | sort -V | tail -1)
	[[ -n $pkg ]] || die "no package matches $pattern in the archive"
	ver=$pkg
	pkgs=linux-image-$ver
	if apt-cache $(apt_opts) show "linux-binary-$ver" >/dev/null 2>&1; then
		pkgs="linux-binary-$ver linux-modules-$ver"
	fi
	rm -rf "$out.tmp" && mkdir -p "$out.tmp"
	(cd "$out.tmp" && apt-get $(apt_opts) -qq download $pkgs >download.log 2>&1) ||
		die "apt-get download $pkgs failed: $(tail -1 "$out.tmp/download.log")" 2
	for deb in "$out.tmp"/*.deb; do
		dpkg -x "$deb" "$out.tmp/root"
	done
	echo $(cd "$out.tmp" && ls *.deb) >"$out.tmp/package"
	rm -f "$out.tmp"/*.deb
	local r=$out.tmp/root
	if [[ ! -d $r/lib/modules && -d $r/usr/lib/modules ]]; then
		mkdir -p "$r/lib" && mv "$r/usr/lib/modules" "$r/lib/modules"
	fi
	if ! ls "$r"/boot/vmlinuz-* >/dev/null 2>&1; then
		mkdir -p "$r/boot"
		mv "$r/lib/modules/$ver/vmlinuz" "$r/boot/vmlinuz-$ver" ||
			die "neither /boot/vmlinuz-$ver nor /usr/lib/modules/$ver/vmlinuz in $pkgs"
	fi
	rm -rf "$out" && mv "$out.tmp" "$out"
}

# modules NAME...: each module file with its dependencies first (.modinfo's
# depends=), decompressed into $out/initramfs/modules, listed in order;
# built-in ones are skipped
declare -A done_mod
add_module() {
	local m=${1//-/_} f dep mods=$out/root/lib/modules/$ver
	[[ -n ${done_mod[$m]:-} ]] && return 0
	done_mod[$m]=1
	f=$(find "$mods/kernel" -regextype egrep -regex ".*/${m//_/[-_]}\.ko(\.xz|\.zst)?" | head -1)
	if [[ -z $f ]]; then
		# (sid's packages ship no modules.builtin: a module they lack
		# is built in there, and the guest's init says so if not)
		[[ -f $mods/modules.builtin ]] || return 0
		grep -qE "/${m//_/[-_]}\.ko\$" "$mods/modules.builtin" && return 0
		die "module $m is neither in the package nor built in"
	fi
	local dst=$out/initramfs/modules/$m.ko
	case $f in
	*.xz) xz -dc "$f" >"$dst" ;;
	*.zst) zstd -qdc "$f" >"$dst" ;;
	*) cp "$f" "$dst" ;;
	esac
	for dep in $(objcopy -O binary -j .modinfo "$dst" /dev/stdout | tr '\0' '\n' |
		     sed -n 's/^depends=//p' | tr , ' '); do
		add_module "$dep"
	done
	echo "$m.ko" >>"$out/initramfs/modules/order"
}

# busybox_static: bookworm's static busybox, unpacked once under VMDIR
# (the host's may be dynamic, and sid's package has moved its binary)
busybox_static() {
	local b=$vmdir/busybox
	if [[ ! -x $b/bin/busybox ]]; then
		apt_update
		rm -rf "$b.tmp" && mkdir -p "$b.tmp"
		(cd "$b.tmp" && apt-get $(apt_opts) -qq download busybox-static/bookworm >download.log 2>&1) ||
			die "apt-get download busybox-static/bookworm failed: $(tail -1 "$b.tmp/download.log")" 2
		dpkg -x "$b.tmp"/*.deb "$b.tmp" && rm -f "$b.tmp"/*.deb
		rm -rf "$b" && mv "$b.tmp" "$b"
	fi
	echo "$b/bin/busybox"
}

# the initramfs: busybox, /init (tests/vm/init), the modules 9p and the
# overlay need; rebuilt when init changes
initramfs() {
	local d=$out/initramfs
	[[ $out/initramfs.cpio.gz -nt $here/init ]] && return 0
	rm -rf "$d" && mkdir -p "$d/bin" "$d/modules" "$d/proc" "$d/sys" "$d/dev"
	cp "$(busybox_static)" "$d/bin/busybox"
	cp "$here/init" "$d/init" && chmod 755 "$d/init"
	: >"$d/modules/order"
	ver=$(ls "$out/root/lib/modules")
	for m in virtio_pci 9pnet_virtio 9p overlay; do add_module "$m"; done
	(cd "$d" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs.cpio.gz.tmp"
	mv "$out/initramfs.cpio.gz.tmp" "$out/initramfs.cpio.gz"
}

mkdir -p "$vmdir"
exec 9>"$vmdir/.lock"
flock 9	# one download and one initramfs at a time per build tree
[[ -s $out/package ]] || fetch
initramfs
echo "$out"
