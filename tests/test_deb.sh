#!/usr/bin/env bash
# The Debian packages: `dpkg-buildpackage -us -uc -b` on a copy of the
# tree builds libperfbuf3, libperfbuf-dev, perfbuf and python3-perfbuf
# (dpkg-gensymbols checking the exports against debian/libperfbuf3.symbols),
# lintian finds no error in them, and, unpacked into a scratch root, the
# tool runs and the examples build against the packaged library with
# pkg-config only.
# normal build only: the packages build from the sources, the same in both builds
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
scratch deb

ver() { sed -n "s/^#define PERFBUF_$1_VERSION \\([0-9]*\\)$/\\1/p" include/perfbuf/version.h; }
want=$(ver MAJOR).$(ver MINOR).$(ver PATCH)
# the package's version is the library's
got=$(dpkg-parsechangelog -S Version 2>&1)
[[ $got == "$want" ]] && pass deb_version ||
	fail deb_version "debian/changelog says $got, include/perfbuf/version.h $want: add a debian/changelog entry"

# the symbols file is the map's (scripts/debian-symbols.sh)
if ! diff -u debian/libperfbuf3.symbols <(scripts/debian-symbols.sh) >"$tmp/sym.diff"; then
	fail deb_symbols_file "debian/libperfbuf3.symbols is not src/libperfbuf.map's: run scripts/debian-symbols.sh > debian/libperfbuf3.symbols ($(grep -m2 '^[-+] ' "$tmp/sym.diff" | tr '\n' ' '))"
else
	pass deb_symbols_file
fi

for t in dpkg-buildpackage dh lintian; do
	if ! command -v $t >/dev/null; then
		fail deb_build "no $t: make check installs dpkg-dev, debhelper and lintian (scripts/setup.sh --test)"
		finish
	fi
done

# a copy of the tree as git sees it (tracked and new files, not build/)
src=$tmp/src/perfbuf
mkdir -p "$src"
git ls-files -co --exclude-standard -z | tar -cf - --null -T - | tar -xf - -C "$src"
start=$SECONDS
# make check's make: not its jobserver
if ! (cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	DEB_BUILD_OPTIONS=noddebs dpkg-buildpackage -us -uc -b -j"$(nproc)" >"$tmp/build.log" 2>&1); then
	fail deb_build "dpkg-buildpackage failed: $(grep -m4 -E 'error:|\*\*\*|^dpkg-[a-z]*: error|^E: ' "$tmp/build.log" | cut -c1-300 | tr '\n' ' ')"
	finish
fi
debs=$(cd "$tmp/src" && ls *.deb 2>/dev/null | sed 's/_.*//' | sort | tr '\n' ' ')
if [[ $debs != "libperfbuf-dev libperfbuf3 perfbuf python3-perfbuf " ]]; then
	fail deb_build "built: ${debs:-nothing}"
	finish
fi
pass deb_build
echo "    packages built in $((SECONDS - start)) s"
# the suite needs root and BPF: make check runs it, not the package build
if grep -qE 'tests/run\.sh|make.* check( |$)' "$tmp/build.log"; then
	fail deb_no_test_suite "the package build ran the test suite: $(grep -m1 -E 'tests/run\.sh|make.* check' "$tmp/build.log")"
else
	pass deb_no_test_suite
fi

# lintian: no error (warnings are said, not failed)
lintian --tag-display-limit 0 "$tmp"/src/*.deb >"$tmp/lintian" 2>&1
rc=$?
errors=$(grep '^E: ' "$tmp/lintian" | head -5 | tr '\n' ' ')
if ((rc > 1)); then
	fail deb_lintian "lintian could not check the packages (exit $rc): $(tail -2 "$tmp/lintian" | tr '\n' ' ')"
elif [[ -n $errors ]]; then
	fail deb_lintian "$errors"
else
	pass deb_lintian
	sed -n 's/^\(W: .*\)/    lintian: \1/p' "$tmp/lintian" | head -10
fi

# unpacked into a scratch root: the tool, and the examples against the
# packaged library through pkg-config
root=$tmp/root
for d in "$tmp"/src/*.deb; do dpkg -x "$d" "$root"; done
multi=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
lib=$root/usr/lib/$multi
got=$(LD_LIBRARY_PATH=$lib "$root/usr/bin/perfbuf" --version 2>&1)
if [[ $got == "perfbuf $want" ]]; then
	pass deb_tool_runs
else
	fail deb_tool_runs "perfbuf --version from the package: '$got', not 'perfbuf $want'"
fi

# dpkg-gensymbols guards the ABI: the packaged library matches the symbols
# file at the build's check level (debian/rules), and a symbol the file
# lacks fails it
so=$(ls "$lib"/libperfbuf.so.*.*.* 2>/dev/null | head -1)
gensym() { dpkg-gensymbols -c4 -plibperfbuf3 -v"$want" -e"$so" -I"$1" -O"$tmp/sym.out" >"$tmp/gensym.log" 2>&1; }
grep -v '^ perfbuf__poll@' debian/libperfbuf3.symbols >"$tmp/short.symbols"
if [[ -z $so ]]; then
	fail deb_symbols_guard "no libperfbuf.so.M.m.p in the libperfbuf3 package"
elif ! gensym debian/libperfbuf3.symbols; then
	fail deb_symbols_guard "the packaged library differs from debian/libperfbuf3.symbols: $(grep -m3 '^[-+] ' "$tmp/gensym.log" | tr '\n' ' ')"
elif gensym "$tmp/short.symbols"; then
	fail deb_symbols_guard "dpkg-gensymbols -c4 let a symbol missing from the symbols file pass"
else
	pass deb_symbols_guard
fi

cp -r "$root/usr/share/doc/libperfbuf-dev/examples" "$tmp/ex"
# the .pc file's paths are /usr/...: the sysroot maps them into the scratch root
if ! PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_PATH=$lib/pkgconfig \
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$tmp/ex" >"$tmp/ex.log" 2>&1; then
	fail deb_examples_build "$(grep -m3 -iE 'error|pkg-config' "$tmp/ex.log" | tr '\n' ' ')"
elif ! LD_LIBRARY_PATH=$lib ldd "$tmp/ex/tpcount" | grep -q "libperfbuf.so.3 => $lib/"; then
	fail deb_examples_build "tpcount is not linked to the packaged library: $(LD_LIBRARY_PATH=$lib ldd "$tmp/ex/tpcount" | grep perfbuf)"
else
	pass deb_examples_build
fi

# the Python module finds the packaged library by its soname
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	got=$(LD_LIBRARY_PATH=$lib PYTHONPATH=$root/usr/lib/python3/dist-packages \
		/usr/bin/python3 -c 'import perfbuf; print(perfbuf.version())' 2>&1)
	[[ $got == "$want" ]] && pass deb_python ||
		fail deb_python "import perfbuf from the package: '$got'"
else
	skip deb_python "no numpy for /usr/bin/python3"
fi
finish
