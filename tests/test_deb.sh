#!/usr/bin/env bash
# The Debian packages: `dpkg-buildpackage -us -uc -b` on a copy of the
# tree builds libperfbuf4, libperfbuf-object4, libperfbuf-dev, perfbuf and
# python3-perfbuf (dpkg-gensymbols checking the exports against
# debian/libperfbuf4.symbols and debian/libperfbuf-object4.symbols), lintian
# finds no error in them, libperfbuf4 needs no libdw, and, unpacked into a
# scratch root, the tool runs and the examples build against the packaged
# reading library alone with pkg-config only.
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

# the symbols files are the maps' (scripts/debian-symbols.sh)
bad=
for pair in libperfbuf4:src/libperfbuf.map libperfbuf-object4:src/object/libperfbuf-object.map; do
	pkg=${pair%%:*} map=${pair#*:}
	diff -u "debian/$pkg.symbols" <(scripts/debian-symbols.sh "$map") >"$tmp/sym.diff" ||
		bad+="debian/$pkg.symbols is not $map's: run scripts/debian-symbols.sh $map > debian/$pkg.symbols ($(grep -m2 '^[-+] ' "$tmp/sym.diff" | tr '\n' ' ')) "
done
[[ -z $bad ]] && pass deb_symbols_file || fail deb_symbols_file "$bad"

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
if [[ $debs != "libperfbuf-dev libperfbuf-object4 libperfbuf4 perfbuf python3-perfbuf " ]]; then
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

# dpkg-gensymbols guards the ABI: each packaged library matches its
# symbols file at the build's check level (debian/rules), and a symbol the
# file lacks fails it
so=$(ls "$lib"/libperfbuf.so.*.*.* 2>/dev/null | head -1)
oso=$(ls "$lib"/libperfbuf-object.so.*.*.* 2>/dev/null | head -1)
gensym() { dpkg-gensymbols -c4 -p"$1" -v"$want" -e"$2" -I"$3" -O"$tmp/sym.out" >"$tmp/gensym.log" 2>&1; }
grep -v '^ perfbuf__poll@' debian/libperfbuf4.symbols >"$tmp/short.symbols"
if [[ -z $so || -z $oso ]]; then
	fail deb_symbols_guard "no libperfbuf.so.M.m.p or libperfbuf-object.so.M.m.p in the packages"
elif ! gensym libperfbuf4 "$so" debian/libperfbuf4.symbols; then
	fail deb_symbols_guard "the packaged library differs from debian/libperfbuf4.symbols: $(grep -m3 '^[-+] ' "$tmp/gensym.log" | tr '\n' ' ')"
elif ! gensym libperfbuf-object4 "$oso" debian/libperfbuf-object4.symbols; then
	fail deb_symbols_guard "the packaged library differs from debian/libperfbuf-object4.symbols: $(grep -m3 '^[-+] ' "$tmp/gensym.log" | tr '\n' ' ')"
elif gensym libperfbuf4 "$so" "$tmp/short.symbols"; then
	fail deb_symbols_guard "dpkg-gensymbols -c4 let a symbol missing from the symbols file pass"
else
	pass deb_symbols_guard
fi

# the reading library needs libbpf, not libdw: neither the package nor the
# shared object names it
deps=$(dpkg-deb -f "$tmp"/src/libperfbuf4_*.deb Depends)
needed=$(readelf -d "$so" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
if [[ -z $so || $deps == *libdw* || $deps == *libelf* || $needed == *libdw* || $needed == *libelf* ]]; then
	fail deb_reader_no_libdw "libperfbuf4 Depends: $deps; NEEDED: $needed"
else
	pass deb_reader_no_libdw
fi

cp -r "$root/usr/share/doc/libperfbuf-dev/examples" "$tmp/ex"
# the .pc file's paths are /usr/...: the sysroot maps them into the scratch root
if ! PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_PATH=$lib/pkgconfig \
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$tmp/ex" >"$tmp/ex.log" 2>&1; then
	fail deb_examples_build "$(grep -m3 -iE 'error|pkg-config' "$tmp/ex.log" | tr '\n' ' ')"
elif ! LD_LIBRARY_PATH=$lib ldd "$tmp/ex/tpcount" | grep -q "libperfbuf.so.$(ver MAJOR) => $lib/"; then
	fail deb_examples_build "tpcount is not linked to the packaged library: $(LD_LIBRARY_PATH=$lib ldd "$tmp/ex/tpcount" | grep perfbuf)"
elif LD_LIBRARY_PATH=$lib ldd "$tmp/ex/tpcount" | grep -qE "libperfbuf-object|libdw"; then
	fail deb_examples_build "tpcount, a reader, links the object library or libdw: $(LD_LIBRARY_PATH=$lib ldd "$tmp/ex/tpcount" | grep -E 'perfbuf|libdw' | tr '\n' ' ')"
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
