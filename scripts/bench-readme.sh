#!/usr/bin/env bash
# Put the latest benchmark tables (bench.md of perfbuf-bench) into README.md
# between the <!-- bench:begin --> and <!-- bench:end --> markers, and the
# plot into docs/bench.png.
#   scripts/bench-readme.sh [build/bench/bench.md]
set -euo pipefail
md=${1:-build/bench/bench.md}
readme=$(dirname "$0")/../README.md
[[ -s $md ]] || { echo "bench-readme: no $md; run 'make bench' first" >&2; exit 1; }
grep -q '<!-- bench:begin -->' "$readme" ||
	{ echo "bench-readme: README.md has no <!-- bench:begin --> marker" >&2; exit 1; }
python3 - "$readme" "$md" <<'PY'
import re, sys
readme, md = sys.argv[1], sys.argv[2]
text, table = open(readme).read(), open(md).read().strip()
table = re.sub(r'^### ', '#### ', table, flags=re.M)
new = re.sub(r'(<!-- bench:begin -->\n).*?(<!-- bench:end -->)',
             lambda m: m.group(1) + table + '\n' + m.group(2), text, flags=re.S)
open(readme, 'w').write(new)
PY
png=$(dirname "$md")/bench.png
if [[ -s $png ]]; then
	mkdir -p "$(dirname "$0")/../docs"
	cp "$png" "$(dirname "$0")/../docs/bench.png"
fi
echo "bench-readme: README.md (and docs/bench.png) updated from $md"
