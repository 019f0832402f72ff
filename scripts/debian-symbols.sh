#!/usr/bin/env bash
# A Debian symbols file from a library's version script: every exported
# symbol at the version node that added it (LIBPERFBUF_4.N or
# LIBPERFBUF_OBJECT_4.N: 4.N.0), so that dpkg-gensymbols fails a package
# build whose library exports anything else. tests/test_deb.sh checks the
# committed files are this output.
#   scripts/debian-symbols.sh [src/libperfbuf.map] > debian/libperfbuf4.symbols
#   scripts/debian-symbols.sh src/object/libperfbuf-object.map > debian/libperfbuf-object4.symbols
set -euo pipefail
map=${1:-$(dirname "$0")/../src/libperfbuf.map}
# the first node, PREFIX_MAJOR.MINOR: the library's name and major version
node=$(sed -n 's/^\(LIBPERFBUF[A-Z_]*_[0-9]*\.[0-9]*\) {.*/\1/p' "$map" | head -1)
[[ -n $node ]] || { echo "debian-symbols: no LIBPERFBUF[_X]_M.N node in $map" >&2; exit 1; }
prefix=${node%_*} major=${node##*_}; major=${major%%.*}
name=$(echo "$prefix" | tr 'A-Z_' 'a-z-')
echo "$name.so.$major $name$major #MINVER#"
echo "* Build-Depends-Package: libperfbuf-dev"
awk -v prefix="$prefix" '
	$0 ~ "^" prefix "_[0-9]+\\.[0-9]+ *\\{" { node = $1; sub(/ *\{.*/, "", node)
		v = substr(node, length(prefix) + 2)
		printf " %s@%s %s.0\n", node, node, v; next }
	node != "" && /^[ \t]+[a-z_0-9]+;/ { s = $1; sub(/;/, "", s)
		v = substr(node, length(prefix) + 2)
		printf " %s@%s %s.0\n", s, node, v }
	/^\}/ { node = "" }' "$map" | LC_ALL=C sort
