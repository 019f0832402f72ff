#!/usr/bin/env bash
# perfbuf stress: zero loss at a low rate, exact accounting in overload,
# --json parsed back, bad options refused with one line.
source "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# json FILE EXPR: evaluate a python expression over the parsed object j
json() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }

# bad options: exit 1, exactly one line on stderr, nothing on stdout
bad() {
	local name=$1; shift
	"$PERFBUF" stress "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if ((rc == 1)) && [[ $(wc -l <"$tmp/err") == 1 && ! -s $tmp/out ]]; then
		pass "$name"
	else
		fail "$name" "rc=$rc stderr=$(head -c 300 "$tmp/err")"
	fi
}
bad bad_size --size 8
bad bad_size_big --size 100000
bad bad_batch --batch 0
bad bad_rate --rate fast
bad bad_rate_zero --rate 0
bad rate_and_max --rate 1k --max
bad bad_duration --duration -1
bad bad_pages --pages 3
bad bad_cpus --cpus x-y
bad offline_cpu --cpus 4095
bad bad_latency --latency 0
bad bad_consumer_delay --consumer-delay 1ms
bad bad_consumer_delay_big --consumer-delay 10000001
bad unknown_option --frobnicate
bad extra_argument 12
bad missing_value --size
bad record_too_big --size 8192 --pages 1
"$PERFBUF" stress --help >"$tmp/help" 2>&1 && grep -q Examples "$tmp/help" &&
	pass help || fail help

if ! need_root; then
	skip stress_low_rate "needs root"
	skip stress_overload "needs root"
	finish
fi

# Low rate, default ring: nothing may be lost.
if "$PERFBUF" stress --rate 2k --duration 1 --json >"$tmp/low.json" 2>"$tmp/low.err"; then
	check stress_low_rate json "$tmp/low.json" \
		'j["type"] == "stress" and j["lost"] == 0 and j["failed"] == 0 and
		 j["offered"] > 0 and j["received"] == j["offered"] and j["ok"] and
		 len(j["per_cpu"]) >= 1 and
		 all(c["received"] == c["offered"] and c["seq_errors"] == 0 for c in j["per_cpu"])'
else
	fail stress_low_rate "exit $?: $(head -c 300 "$tmp/low.err")"
fi

# Overload: 1024 records of 80 bytes per run into a 4 KiB ring always
# overflow. The identity must hold exactly (the tool exits 1 if not).
if "$PERFBUF" stress --max --pages 1 --batch 1024 --duration 1 --json \
	>"$tmp/over.json" 2>"$tmp/over.err"; then
	check stress_overload json "$tmp/over.json" \
		'j["lost"] > 0 and j["offered"] == j["received"] + j["lost"] and
		 j["failed"] == 0 and j["ok"] and
		 all(c["lost"] == c["enospc"] and c["seq_errors"] == 0 and
		     c["offered"] == c["received"] + c["lost"] for c in j["per_cpu"])'
else
	fail stress_overload "exit $?: $(head -c 300 "$tmp/over.err")"
fi

# --ordered: one stream in time order, overloaded too (LOST records in it);
# the tool itself counts records older than the one before (order_errors).
if "$PERFBUF" stress --ordered --pages 4 --duration 1 --json \
	>"$tmp/ord.json" 2>"$tmp/ord.err"; then
	check stress_ordered json "$tmp/ord.json" \
		'j["ordered"] and j["order_errors"] == 0 and j["ok"] and
		 j["received"] > 0 and j["offered"] == j["received"] + j["lost"] and
		 j["late"] <= j["received"] // 1000'
else
	fail stress_ordered "exit $?: $(head -c 300 "$tmp/ord.err")"
fi

# The table: one row per CPU and a total.
if "$PERFBUF" stress --cpus 0 --pages 1 --batch 64 --duration 0.3 >"$tmp/table" 2>"$tmp/table.err"; then
	check stress_table grep -Eq '^total +[0-9]+ +[0-9]+ +[0-9]+ .* yes$' "$tmp/table"
else
	fail stress_table "exit $?: $(head -c 300 "$tmp/table.err")"
fi
finish
