#!/usr/bin/env bash
# Soak: `perfbuf stress` with a slow consumer for SECONDS. The rings overflow
# all along; the accounting must hold exactly on every CPU, and the RSS and
# fd count of the process must stay flat (a leak per poll round or per LOST
# record would show within a minute). Usage: tests/soak.sh BUILD_DIR SECONDS
source "$(dirname "$0")/lib.sh"
secs=${2:?usage: $0 BUILD_DIR SECONDS}
if [[ ! $secs =~ ^[0-9]+$ ]] || ((secs < 4)); then
	echo "usage: $0 BUILD_DIR SECONDS (an integer >= 4)" >&2
	exit 2
fi
if ! need_root; then
	fail soak_accounting "needs root (BPF): run it with sudo"
	finish
fi
tmp=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

# 100k records/s per CPU into 64 KiB rings (~800 records) while the consumer
# sleeps 20 ms per round (2000 records): most of each round is lost.
"$PERFBUF" stress --rate 100k --batch 64 --pages 16 --consumer-delay 20000 \
	--duration "$secs" --json >"$tmp/out.json" 2>"$tmp/err" &
pid=$!

# The producer threads start after the BPF load and the perf buffer set-up,
# and are joined before the teardown: a sample counts only when all of them
# run before and after it, so its fds are those of the steady state.
ncpu=$(getconf _NPROCESSORS_ONLN)
threads() { awk '/^Threads:/ { print $2 }' "/proc/$pid/status" 2>/dev/null; }
rss=() fds=()
deadline=$((SECONDS + secs + 60))
while kill -0 "$pid" 2>/dev/null; do
	if ((SECONDS > deadline)); then
		kill "$pid"
		fail soak_accounting "still running ${secs}+60 s after its start"
		finish
	fi
	if [[ $(threads) == $((ncpu + 1)) ]]; then
		r=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
		f=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
		if [[ -n $r && $(threads) == $((ncpu + 1)) ]]; then
			rss+=("$r")
			fds+=("$f")
		fi
	fi
	sleep 0.5
done
wait "$pid"
rc=$?
pid=

if ((rc == 0)); then
	python3 - "$tmp/out.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for c in j["per_cpu"]:
    print("  cpu %d: offered %d, received %d, lost %d (%.1f%%), -ENOSPC %d" %
          (c["cpu"], c["offered"], c["received"], c["lost"],
           c["loss_pct"], c["enospc"]))
PY
	# overloaded on every CPU, and still exact on every CPU
	check soak_accounting python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if j["type"] == "stress" and j["ok"] and j["failed"] == 0 and
	 j["offered"] == j["received"] + j["lost"] and len(j["per_cpu"]) >= 1 and
	 all(c["offered"] == c["received"] + c["lost"] and c["lost"] > 0 and
	     c["received"] > 0 and c["lost"] == c["enospc"] and
	     c["seq_errors"] == 0 and c["ok"] for c in j["per_cpu"]) else 1)' \
		"$tmp/out.json"
else
	fail soak_accounting "exit $rc: $(head -c 300 "$tmp/err")"
fi

n=${#rss[@]}
if ((n < 6)); then
	fail soak_rss_flat "only $n samples of the running process"
	fail soak_fds_flat "only $n samples of the running process"
	finish
fi
# After a warm-up (the first 20 % of the samples), the largest RSS of the
# last quarter against that of the first quarter: nothing is allocated per
# record or per round, so it may grow by a few pages, not by 1 MiB.
w=$(((n + 4) / 5))
m=$((n - w))
q=$(((m + 3) / 4))
first=0 last=0
for ((i = w; i < w + q; i++)); do ((rss[i] > first)) && first=${rss[i]}; done
for ((i = n - q; i < n; i++)); do ((rss[i] > last)) && last=${rss[i]}; done
fmin=${fds[0]} fmax=${fds[0]}
for f in "${fds[@]}"; do
	((f < fmin)) && fmin=$f
	((f > fmax)) && fmax=$f
done
echo "  $n samples, 0.5 s apart: RSS ${rss[w]} kB after warm-up, ${rss[n - 1]} kB at the end (quarter maxima $first -> $last kB); fds $fmin..$fmax"
if ((last - first < 1024)); then
	pass soak_rss_flat
else
	fail soak_rss_flat "RSS grew from $first kB to $last kB"
fi
if ((fmin == fmax)); then
	pass soak_fds_flat
else
	fail soak_fds_flat "fd count changed: ${fds[*]}"
fi
finish
