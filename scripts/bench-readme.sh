#!/usr/bin/env bash
# Put the latest benchmark tables (bench.md of perfbuf-bench) into
# docs/benchmarks.md between the <!-- bench:begin --> and <!-- bench:end --> markers, each
# section in place of the one of the same title (a run with --only PART
# updates that part), and the plot into docs/bench.png.
#   scripts/bench-readme.sh [build/bench/bench.md]
set -euo pipefail
md=${1:-build/bench/bench.md}
readme=$(dirname "$0")/../docs/benchmarks.md
[[ -s $md ]] || { echo "bench-readme: no $md; run 'make bench' first" >&2; exit 1; }
grep -q '<!-- bench:begin -->' "$readme" ||
	{ echo "bench-readme: docs/benchmarks.md has no <!-- bench:begin --> marker" >&2; exit 1; }
python3 - "$readme" "$md" <<'PY'
# Section by section (#### headings): a run of one part (--only) replaces
# that part's tables and leaves the others as they were.
import re, sys
readme, md = sys.argv[1], sys.argv[2]
text, table = open(readme).read(), open(md).read().strip()
table = re.sub(r'^### ', '#### ', table, flags=re.M)
begin, end = '<!-- bench:begin -->\n', '<!-- bench:end -->'
head, rest = text.split(begin, 1)
block, tail = rest.split(end, 1)
split = lambda s: re.split(r'(?m)^(?=#### )', s.strip())
sections = [s for s in split(block) if s]
for new in (s for s in split(table) if s.startswith('#### ')):
    title = new.split('\n', 1)[0]
    at = [i for i, s in enumerate(sections) if s.split('\n', 1)[0] == title]
    if at:
        sections[at[0]] = new
    else:
        sections.append(new)
body = '\n\n'.join(s.strip() for s in sections)
open(readme, 'w').write(head + begin + body + '\n' + end + tail)
PY
png=$(dirname "$md")/bench.png
if [[ -s $png ]]; then
	mkdir -p "$(dirname "$0")/../docs"
	cp "$png" "$(dirname "$0")/../docs/bench.png"
fi
echo "bench-readme: docs/benchmarks.md (and docs/bench.png) updated from $md"
