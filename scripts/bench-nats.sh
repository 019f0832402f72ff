#!/usr/bin/env bash
# The cost of `perfbuf trace --nats` against `trace --json -o /dev/null` on
# the same producer in the same run: dd writing 1-byte blocks on CPU0 for
# SECONDS (default 5) per case, traced at sys_enter_write, the tracer's --stats averaged over the
# middle seconds, and the traced loop's own rate (its slowdown). One
# nats-server with JetStream on a free loopback port, its store in a
# temporary directory. As root, after `make`:  scripts/bench-nats.sh [SECONDS]
set -u
BUILD=${BUILD:-build}
SECS=${1:-5}
PERFBUF=$BUILD/perfbuf
UTIL=(python3 "$(dirname "$0")/../tests/nats_util.py")
PROBE=tracepoint:syscalls:sys_enter_write
tmp=$(mktemp -d)
port=$("${UTIL[@]}" port)
URL=nats://127.0.0.1:$port
nats-server -a 127.0.0.1 -p "$port" -js -sd "$tmp/js" >"$tmp/server.log" 2>&1 &
spid=$!
trap 'kill "$spid" 2>/dev/null; wait; rm -rf "$tmp"' EXIT
"${UTIL[@]}" ready "$URL" 10 || exit 1

# loop: write(2) calls per second of dd (1-byte writes) on CPU0 for SECS
loop() {
	LC_ALL=C timeout -s INT "$SECS" taskset -c 0 dd if=/dev/zero of=/dev/null bs=1 2>"$tmp/dd" 
	sed -n 's/.* copied, \([0-9.]*\) s.*/\1/p' "$tmp/dd" | head -1 >"$tmp/dd.s"
	awk -v n="$(sed -n 's/^\([0-9]*\) bytes.*/\1/p' "$tmp/dd")" -v s="$(cat "$tmp/dd.s")" \
		'BEGIN {printf "%.0f", n / s}'
}
# avg FILE FIELD: the mean of FIELD ("events/s", "published/s",
# "acknowledged/s") over the stats lines but the first and the last
avg() {
	grep -o "[0-9]* $2" "$1" | awk '{v[NR]=$1} END {s=0; n=0; for (i=2; i<NR; i++) {s+=v[i]; n++} print n ? int(s/n) : 0}'
}
run() {	# NAME ARGS...: the tracer with --stats while the loop runs
	local name=$1
	shift
	"$PERFBUF" trace --stats --comm dd "$@" "$PROBE" 2>"$tmp/$name.err" &
	local tp=$!
	for _ in $(seq 100); do grep -q '^Attached' "$tmp/$name.err" && break; sleep 0.1; done
	rate=$(loop)
	kill -INT "$tp"
	wait "$tp"
}

rate=$(loop); base=$rate
run json --json -o /dev/null; json_rate=$rate
json_ev=$(avg "$tmp/json.err" events/s)
run nats --nats "$URL" --nats-stream BENCH --nats-max-bytes 1G ${NATS_ARGS:-}; nats_rate=$rate
nats_ev=$(avg "$tmp/nats.err" events/s)
nats_pub=$(avg "$tmp/nats.err" published/s)
nats_ack=$(avg "$tmp/nats.err" acknowledged/s)
echo "dd alone:                   $base writes/s"
echo "trace --json -o /dev/null:  $json_ev events/s; dd $json_rate writes/s ($((json_rate * 100 / base))%)"
echo "trace --nats (1 node):      $nats_ev events/s, $nats_pub published/s, $nats_ack acknowledged/s; dd $nats_rate writes/s ($((nats_rate * 100 / base))%)"
echo "nats / json events/s:       $(awk "BEGIN {printf \"%.2f\", $nats_ev / ($json_ev ? $json_ev : 1)}")"
grep '^NATS:' "$tmp/nats.err"
grep 'lost$' "$tmp/json.err" "$tmp/nats.err" | sed "s|$tmp/||"
