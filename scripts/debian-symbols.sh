#!/usr/bin/env bash
# debian/libperfbuf3.symbols from src/libperfbuf.map: every exported symbol
# at the version node that added it (LIBPERFBUF_3.N: 3.N.0), so that
# dpkg-gensymbols fails a package build whose library exports anything
# else. tests/test_deb.sh checks the committed file is this output.
#   scripts/debian-symbols.sh [src/libperfbuf.map] > debian/libperfbuf3.symbols
set -euo pipefail
map=${1:-$(dirname "$0")/../src/libperfbuf.map}
major=$(sed -n 's/^LIBPERFBUF_\([0-9]*\)\.[0-9]* {.*/\1/p' "$map" | head -1)
[[ -n $major ]] || { echo "debian-symbols: no LIBPERFBUF_M.N node in $map" >&2; exit 1; }
echo "libperfbuf.so.$major libperfbuf$major #MINVER#"
echo "* Build-Depends-Package: libperfbuf-dev"
awk '
	/^LIBPERFBUF_[0-9]+\.[0-9]+ *\{/ { node = $1; sub(/ *\{.*/, "", node)
		v = node; sub(/^LIBPERFBUF_/, "", v)
		printf " %s@%s %s.0\n", node, node, v; next }
	node != "" && /^[ \t]+[a-z_0-9]+;/ { s = $1; sub(/;/, "", s)
		v = node; sub(/^LIBPERFBUF_/, "", v)
		printf " %s@%s %s.0\n", s, node, v }
	/^\}/ { node = "" }' "$map" | LC_ALL=C sort
