#!/usr/bin/env bash
# perfbuf trace --aggregate: workloads of known shape counted per command,
# write() sizes in log2 and linear buckets (each bucket's count and bar
# checked), sum/min/max/avg, JSON objects, --interval (printed and reset),
# the key limit, losses stated beside the maps (counted + lost == calls),
# the refusals (docs/bpftrace.md and bpftrace's own text: test_bpftrace_docs.sh).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/trace_lib.sh"
trace_test trace_agg agg
source "$(dirname "$0")/agg_lib.sh"

# 1. per-comm counts: two commands, 37 and 113 getpgid() calls; sorted
# by count, ascending, as bpftrace prints a map
if traced per_comm_counts --aggregate 'count() by comm' --filter "comm == \"$name*\"" \
		tracepoint:syscalls:sys_enter_getpgid; then
	as "${name}a" 'for _ in range(37): os.getpgid(0)'
	as "${name}b" 'for _ in range(113): os.getpgid(0)'
	stop_trace
	check per_comm_counts test "$(cat "$tmp/out")" = "@[${name}a]: 37
@[${name}b]: 113"
	check per_comm_exit_0 test "$trc" = 0
	check per_comm_summary grep -qE '^150 events received: 150 aggregated, 0 discarded' "$tmp/err"
fi

# -n keeps its meaning: the map holds the first N events, the run ends
if traced count_limit -n 10 --aggregate 'count()' --comm "${name}n" \
		tracepoint:syscalls:sys_enter_getpgid; then
	as "${name}n" 'for _ in range(50): os.getpgid(0)'
	for _ in $(seq 250); do running "$tpid" || break; sleep 0.02; done
	check count_limit_ended test "$(running "$tpid" && echo running)" = ""
	stop_trace
	check count_limit test "$(cat "$tmp/out")" = "@: 10"
fi

# 2. write() sizes: hist and lhist, each bucket's count and bpftrace's
# bar (int(count / max * 52)); sum, min, max, avg by comm; named maps
if traced write_hist --aggregate 'hist(count)' --aggregate 'lhist(count, 0, 5000, 1000)' \
		--aggregate '@total = sum(count) by comm' --aggregate 'min(count)' \
		--aggregate 'max(count)' --aggregate 'avg(count)' --comm "${name}w" "$WR"; then
	as "${name}w" "$writes"
	stop_trace
	bar() { printf '%*s' "$1" '' | tr ' ' @; }
	row() { printf '%-16s%8s |%-52s|\n' "$1" "$2" "$(bar "$3")"; }
	{
		echo '@hist: '
		row '[0]' 3 14
		row '[1]' 5 23
		for b in '[2, 4)' '[4, 8)' '[8, 16)' '[16, 32)' '[32, 64)'; do row "$b" 0 0; done
		row '[64, 128)' 7 33
		for b in '[128, 256)' '[256, 512)' '[512, 1K)' '[1K, 2K)'; do row "$b" 0 0; done
		row '[2K, 4K)' 11 52
		row '[4K, 8K)' 2 9
		for b in '[8K, 16K)' '[16K, 32K)' '[32K, 64K)' '[64K, 128K)' '[128K, 256K)' \
			 '[256K, 512K)' '[512K, 1M)'; do row "$b" 0 0; done
		row '[1M, 2M)' 1 4
		echo
		echo '@lhist: '
		row '[0, 1000)' 15 52
		row '[1000, 2000)' 0 0
		row '[2000, 3000)' 0 0
		row '[3000, 4000)' 11 38
		row '[4000, 5000)' 0 0
		row '[5000, ...)' 3 10
		echo
		echo "@total[${name}w]: 1092281"
		echo '@min: 0'
		echo '@max: 1048576'
		echo '@avg: 37664'
		echo
	} >"$tmp/want"
	check write_size_buckets diff -u "$tmp/want" "$tmp/out"
fi

# 3. JSON: an object per key, hist buckets with their bounds
if traced json_objects --json --aggregate 'count() by comm' --aggregate 'hist(count) by comm' \
		--comm "${name}w" "$WR"; then
	as "${name}w" "$writes"
	stop_trace
	check json_count json_check "$tmp/out" "
[(o['map'], o['expr'], o['key'], o['value']) for o in objs if o['type'] == 'aggregate' and o['map'] == '@count'] == [('@count', 'count() by comm', {'comm': '${name}w'}, 29)]"
	check json_hist_buckets json_check "$tmp/out" "
[[(b.get('min'), b.get('max'), b['count']) for b in o['buckets'] if b['count']] for o in objs if o['type'] == 'aggregate' and o['map'] == '@hist'] == [[(0, 0, 3), (1, 1, 5), (64, 127, 7), (2048, 4095, 11), (4096, 8191, 2), (1048576, 2097151, 1)]]"
	check json_summary_last json_check "$tmp/out" "objs[-1]['type'] == 'summary' and objs[-1]['received'] == 29"
fi

# --events: the events printed too, the maps after them (one summary)
if traced events_too --events --json --aggregate 'count() by comm' --comm "${name}e" \
		tracepoint:syscalls:sys_enter_getpgid; then
	as "${name}e" 'for _ in range(7): os.getpgid(0)'
	stop_trace
	check events_too json_check "$tmp/out" "
[o['type'] for o in objs] == ['event'] * 7 + ['aggregate', 'summary'] and objs[7]['value'] == 7"
fi

# a return probe's duration_ns (paired with its entry) in a hist: sleeps
# of 1 ms and 20 ms, each in a bucket of its size
if traced duration_hist --json --comm "${name}d" --aggregate 'hist(duration_ns)' \
		tracepoint:syscalls:sys_enter_clock_nanosleep tracepoint:syscalls:sys_exit_clock_nanosleep; then
	as "${name}d" 'import time
for _ in range(5): time.sleep(0.001)
for _ in range(3): time.sleep(0.02)'
	stop_trace
	check duration_hist json_check "$tmp/out" "
[(sum(b['count'] for b in o['buckets'] if b['min'] >= 1 << 20 and b['max'] < 1 << 24),
  sum(b['count'] for b in o['buckets'] if b['min'] >= 1 << 24)) for o in objs if o['type'] == 'aggregate'] == [(5, 3)]"
fi

# struct members as F and keys (read as --member reads them; a NULL on
# the way is null): latency_target's pb_point(struct point *p), -g
LAT=$(realpath "$BUILD/tests/latency_target")
if traced member_keys --aggregate 'sum(p->x) by p->name' --aggregate 'count() by p->next->x' \
		"uprobe:$LAT:pb_point"; then
	"$LAT" 1
	stop_trace
	{
		for x in $(seq 0 9); do echo "@sum[p$x]: $x"; done
		for x in $(seq 1000 1008); do echo "@count[$x]: 1"; done
		echo '@count[null]: 1'
	} >"$tmp/want"
	check member_keys diff -u "$tmp/want" "$tmp/out"
fi

# 4. --interval: printed every second with the time, then emptied: the
# prints add up to the calls
if traced interval_reset --interval 1 --aggregate 'count() by comm' --comm "${name}i" \
		tracepoint:syscalls:sys_enter_getpgid; then
	as "${name}i" 'import time
for _ in range(3):
    for _ in range(50): os.getpgid(0)
    time.sleep(1.3)'
	stop_trace
	times=$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' "$tmp/out")
	total=$(grep -oE "^@\[${name}i\]: [0-9]+$" "$tmp/out" | awk '{ s += $2 } END { print s + 0 }')
	prints=$(grep -cE "^@\[${name}i\]: " "$tmp/out")
	check interval_reset test "$times" -ge 3 -a "$total" = 150 -a "$prints" -ge 3
fi

# 5. the key limit: 3 keys kept, the other events counted apart and said
if traced key_limit --aggregate-keys 3 --aggregate 'count() by args.pid' --comm "${name}k" \
		tracepoint:syscalls:sys_enter_getpgid; then
	as "${name}k" 'for k in range(4200, 4210):
    for _ in range(k - 4199):
        try: os.getpgid(k)
        except OSError: pass'
	stop_trace
	check key_limit_kept test "$(grep -c '^@\[' "$tmp/out")" = 3
	# the first 3 keys seen: 4200 (1), 4201 (2), 4202 (3) of 55
	check key_limit_counts test "$(grep '^@\[' "$tmp/out" | tr '\n' ' ')" = "@[4200]: 1 @[4201]: 2 @[4202]: 3 "
	check key_limit_said grep -q '^# @: 49 events of keys past the limit of 3 (--aggregate-keys): not shown above$' "$tmp/out"
	check key_limit_stderr grep -q "aggregate 'count() by args.pid': 3 keys, the limit" "$tmp/err"
fi

# 6. losses: a storm of two probes into one-page rings; each map states
# the losses of its own probes (the programs' ledger), and what it counted
# and what it says lost add up to the calls of its probes
: >"$tmp/err"
timeout 60 "$PERFBUF" trace --pages 1 --aggregate '@p = count() by args.pid' \
	--aggregate '@all = count()' --comm "${name}l" tracepoint:syscalls:sys_enter_getpgid \
	tracepoint:syscalls:sys_enter_getppid >"$tmp/out" 2>"$tmp/err" &
tpid=$!
if attached "$tmp/err" "$tpid"; then
	as "${name}l" 'for _ in range(150000): os.getpgid(0)
for _ in range(50000): os.getppid()'
	stop_trace
	stated() { sed -n "s/^# $1: \([0-9]*\) events of its probes lost: not counted above$/\1/p" "$tmp/out"; }
	ledger_lost() { awk -v p="$1" '$NF == p { print $3 + $4 }' "$tmp/err"; }
	p_counted=$(sed -n 's/^@p\[0\]: \([0-9]*\)$/\1/p' "$tmp/out")
	all_counted=$(sed -n 's/^@all: \([0-9]*\)$/\1/p' "$tmp/out")
	p_lost=$(stated @p) all_lost=$(stated @all)
	getpgid_lost=$(ledger_lost tracepoint:syscalls:sys_enter_getpgid)
	getppid_lost=$(ledger_lost tracepoint:syscalls:sys_enter_getppid)
	if [[ ${getpgid_lost:-0} == 0 ]]; then
		skip losses_stated "no loss into one-page rings on this run"
	else
		check losses_stated_per_probe test "${p_lost:-x}" = "$getpgid_lost" -a \
			"${all_lost:-x}" = "$((getpgid_lost + ${getppid_lost:-0}))"
		check losses_add_up test "$((${p_counted:-0} + ${p_lost:-0}))" = 150000 -a \
			"$((${all_counted:-0} + ${all_lost:-0}))" = 200000
	fi
else
	fail losses_stated "did not attach: $(cat "$tmp/err")"
fi

# 7. refusals: one line, exit 1
error_case bad_function "aggregate 'cnt()': unknown function; write FN(ARGS)" \
	trace --aggregate 'cnt()' "$WR"
error_case bad_lhist "lhist wants MIN < MAX and STEP > 0, not 10, 0, 1" \
	trace --aggregate 'lhist(count, 10, 0, 1)' "$WR"
error_case no_such_field "aggregate 'sum(nosuch)': no probe has a field 'nosuch'" \
	trace --aggregate 'sum(nosuch)' "$WR"
error_case interval_alone "--interval is about the maps of --aggregate" \
	trace --interval 1 "$WR"
error_case events_alone "--events is about the maps of --aggregate" \
	trace --events "$WR"
error_case record_aggregate "are options of perfbuf trace" \
	record --aggregate 'count()' "$WR"
error_case same_name "both name the map @n" \
	trace --aggregate '@n = count()' --aggregate '@n = sum(count)' "$WR"
error_case interval_zero "^perfbuf trace: --interval wants a number from 1 to 1000000, not '0'$" \
	trace --interval 0 --aggregate 'count()' "$WR"
error_case keys_not_number "^perfbuf trace: --aggregate-keys wants a number from 1 to 100000000, not 'x'$" \
	trace --aggregate-keys x --aggregate 'count()' "$WR"
error_case keys_alone "^perfbuf trace: --aggregate-keys is about the maps of --aggregate" \
	trace --aggregate-keys 5 "$WR"
error_case aggregate_kstack "^perfbuf trace: --aggregate prints maps, not events: it does not go with --kstack or --ustack without --events (maps by stack: 'count() by kstack')$" \
	trace --aggregate 'count()' --kstack "$WR"
error_case aggregate_sum_stack "^perfbuf trace: --aggregate 'sum(kstack)': a stack is no number: it is a key ('count() by kstack'); write " \
	trace --aggregate 'sum(kstack)' "$WR"
many=()
for i in $(seq 17); do many+=(--aggregate "@m$i = count()"); done
error_case aggregate_members "^perfbuf trace: --aggregate 'count() by p->c1': more than 16 struct members in all (--member's and --aggregate's); name fewer$" \
	trace --aggregate 'count() by p->a1,p->a2,p->a3,p->a4,p->a5,p->a6,p->a7,p->a8' \
	--aggregate 'count() by p->b1,p->b2,p->b3,p->b4,p->b5,p->b6,p->b7,p->b8' --aggregate 'count() by p->c1' "$WR"
error_case aggregate_too_many "^perfbuf trace: more than 16 --aggregate options$" \
	trace "${many[@]}" "$WR"
finish
