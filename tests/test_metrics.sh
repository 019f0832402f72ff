#!/usr/bin/env bash
# perfbuf trace --metrics, scraped by a real Prometheus (Debian's package)
# on 127.0.0.1 every second and read back through its HTTP API: the
# exposition passes promtool; while events flow, 200 idle connections, a
# client sending a byte a second and garbage requests change nothing (every
# event received, every scrape answered); what Prometheus holds equals the
# tool's own summary per CPU, with the BPF side's failed writes by reason;
# under overload with losses and with CPU1 taken offline and back, every
# CPU keeps its series, no counter goes back, and the sums still match.
# Every server is killed and CPU1 put back online on every way out.
source "$(dirname "$0")/lib.sh"
UTIL=(/usr/bin/python3 "$(dirname "$0")/metrics_util.py")
tmp=$(mktemp -d)
tpid= ppid_= apid= ppid2= npid=
CPU1=/sys/devices/system/cpu/cpu1/online
cleanup() {
	[[ -f $CPU1 && $(cat $CPU1) == 0 ]] && echo 1 >$CPU1
	[[ -n $tpid ]] && kill -INT "$tpid" 2>/dev/null
	[[ -n $apid ]] && kill "$apid" 2>/dev/null
	[[ -n $ppid2 ]] && kill -INT "$ppid2" 2>/dev/null
	[[ -n $ppid_ ]] && kill -KILL "$ppid_" 2>/dev/null
	[[ -n $npid ]] && kill -KILL "$npid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
source "$(dirname "$0")/trace_lib.sh"

if ! need_root; then
	skip metrics_tests "needs root (BPF)"
	finish
fi
for t in prometheus promtool; do
	if ! command -v $t >/dev/null; then
		fail metrics_tests "$t is not installed: run 'make setup'"
		finish
	fi
done
# the workload under a name of its own: other jobs' uprobe_target runs
# stay out of the counts
T=$tmp/pbmetrics_t
cp "$BUILD/tests/uprobe_target" "$T"
PROBE="uprobe:$T:pb_target_seq"
{ read -r MPORT; read -r PPORT; } < <(free_ports 2)
PROM=http://127.0.0.1:$PPORT
cat >"$tmp/prom.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: perfbuf
    static_configs:
      - targets: ['127.0.0.1:$MPORT']
YML
prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address=127.0.0.1:$PPORT >"$tmp/prom.log" 2>&1 &
ppid_=$!
if ! "${UTIL[@]}" ready "$PROM/-/ready" 20; then
	fail metrics_tests "prometheus did not start: $(tail -3 "$tmp/prom.log")"
	finish
fi

q() { "${UTIL[@]}" query "$PROM" "$@"; }
# the value of one series of query $1 at time $2 ("" if none)
q1() { q "$1" "$2" | awk 'NR == 1 { print $2 }'; }
# scraped(): wait for a scrape that started after now
scraped() { "${UTIL[@]}" scraped_after "$PROM" perfbuf "$(date +%s.%N)" 10; }
# the summary's per-CPU numbers as "cpu=N received lost" lines
summary_cpus() {
	python3 - "$1" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if '"summary"' in l][-1]
for c in s["per_cpu"]:
    print("cpu=%d %d %d" % (c["cpu"], c["received"], c["lost"]))
print("printed", s["printed"])
PY
}
# Prometheus's per-CPU numbers at time $1, in the same lines
prom_cpus() {
	join <(q perfbuf_events_received_total "$1") \
	     <(q 'perfbuf_events_lost_total{cpu!=""}' "$1")
	echo "printed $(q1 'perfbuf_events_written_total{sink="json"}' "$1")"
}
# stop_at VAR: the time just before SIGINT (Prometheus's series go stale
# once the target is gone: queries are made at this time)
stop_at() {
	scraped
	printf -v "$1" %s "$(date +%s.%N)"
	stop_trace
}

# bad values: one line, exit 1, nothing loaded
error_case metrics_bad_port '--metrics wants \[ADDR:\]PORT' trace --metrics 65536 "$PROBE"
error_case metrics_bad_addr 'does not resolve' profile --metrics no.such.host.invalid:1
error_case metrics_port_in_use 'cannot listen there: Address already in use' \
	trace -o /dev/null --metrics 127.0.0.1:$PPORT "$PROBE"
# the URL printed is one to use: the address bound, IPv6 in brackets
for c in "default_host :0 127\.0\.0\.1" "ipv6 ::1:0 \[::1\]"; do
	read -r name a host <<<"$c"
	timeout 20 "$PERFBUF" run -d 1 --metrics "$a" "$BUILD/tests/bpf/run_types.bpf.o" \
		>/dev/null 2>"$tmp/uerr"
	check "metrics_url_$name" grep -qxE "Metrics at http://$host:[0-9]+/metrics" "$tmp/uerr"
done

# --- run A: the exposition, abuse while events flow, no_ring ---
# --pages 1024: a burst of 20000 (2.4 MB) fits, so none is lost however
# late the reader
if ! start_trace --json -o "$tmp/a.json" --metrics 127.0.0.1:$MPORT --pages 1024 "$PROBE"; then
	fail metrics_start "$(head -c 300 "$tmp/err")"
	finish
fi
check metrics_url grep -qx "Metrics at http://127.0.0.1:$MPORT/metrics" "$tmp/err"
"${UTIL[@]}" get "http://127.0.0.1:$MPORT/metrics" >"$tmp/get"
check metrics_200 test "$(sed -n 1,2p "$tmp/get" | tr '\n' ' ')" = \
	"200 text/plain; version=0.0.4; charset=utf-8 "
sed 1,2d "$tmp/get" >"$tmp/expo"
promtool check metrics <"$tmp/expo" >"$tmp/promtool" 2>&1
check promtool_clean test "$?:$(wc -c <"$tmp/promtool")" = "0:0"
check metrics_404 test "$("${UTIL[@]}" get "http://127.0.0.1:$MPORT/" | sed -n 1p)" = 404
names=$(grep -v '^#' "$tmp/expo" | sed 's/[{ ].*//' | sort -u | tr '\n' ' ')
check metric_names test "$names" = "perfbuf_bpf_output_errors_total perfbuf_build_info perfbuf_events_lost_total perfbuf_events_offered_total perfbuf_events_received_total perfbuf_events_written_total perfbuf_ring_high_water_bytes perfbuf_ring_mapped_bytes perfbuf_ring_size_bytes perfbuf_sink_errors_total perfbuf_wakeups_total process_cpu_seconds_total process_max_fds process_open_fds process_resident_memory_bytes process_start_time_seconds process_virtual_memory_bytes "
# the ring memory of all CPUs: the rings' sizes added up, what was mapped
check ring_mapped_bytes awk '/^perfbuf_ring_size_bytes/ { sum += $2 }
	/^perfbuf_ring_mapped_bytes / { mapped = $2 }
	END { exit !(mapped > 0 && mapped == sum) }' "$tmp/expo"

# no ring in CPU1's slot (emptied from outside): 100 writes fail there
nr=0
if [[ -f $CPU1 && $(cat $CPU1) == 1 ]]; then
	map=$(for f in /proc/$tpid/fdinfo/*; do
		grep -qs '^map_type:[[:space:]]*4$' "$f" && awk '/^map_id:/ {print $2}' "$f"
	done | head -1)
	if [[ -n $map ]] && bpftool map delete id "$map" key 1 0 0 0 2>/dev/null; then
		taskset -c 1 "$T" 100
		nr=100
	fi
fi

# events flow on CPU0 while the server is abused
"${UTIL[@]}" abuse 127.0.0.1 "$MPORT" 4 >"$tmp/abuse" &
apid=$!
t0=$(date +%s.%N)
for i in 1 2 3; do
	taskset -c 0 "$T" 20000
	sleep 1
done
wait "$apid"
apid=
read -r _ idle _ _ _ garbage <"$tmp/abuse"
stop_at ta
cpus=$(summary_cpus "$tmp/a.json")
check abuse_events_flow grep -qx "cpu=0 60000 0" <<<"$cpus"
check abuse_idle_kept test "${idle:-0}" -ge 190
check abuse_garbage_answered test "${garbage:-0}" -ge 20
# Prometheus's scrapes during the abuse all answered (a stalled loop times
# them out: up 0); how many it made in the window is its own scheduling
span=$(python3 -c "print(int($ta - $t0))")
check abuse_scrapes test "$(q1 "count_over_time(up{job=\"perfbuf\"}[${span}s])" "$ta")" -ge 1 -a \
	"$(q1 "min_over_time(up{job=\"perfbuf\"}[${span}s])" "$ta")" = 1
prom=$(prom_cpus "$ta")
if [[ $prom == "$cpus" ]]; then
	pass sums_equal_summary
else
	fail sums_equal_summary "summary: $(echo $cpus), prometheus: $(echo $prom)"
fi
if ((nr)); then
	check bpf_no_ring test "$(q1 'perfbuf_bpf_output_errors_total{cpu="1",reason="no_ring"}' "$ta")" = 100 -a \
		"$(q1 'sum(perfbuf_bpf_output_errors_total{reason!="no_ring"})' "$ta")" = 0
else
	skip bpf_no_ring "needs CPU1 online and bpftool"
fi

# --- run B: overload with losses, CPU1 offline and back ---
if ! start_trace --json -o "$tmp/b.json" --metrics 127.0.0.1:$MPORT --pages 2 \
	--latency 1000 "$PROBE"; then
	fail metrics_start_overload "$(head -c 300 "$tmp/err")"
	finish
fi
N=50000
runs=0	# workload runs made: another job may take CPU1 away meanwhile
work() { taskset -c "$1" "$T" $N && runs=$((runs + 1)); }
t0=$(date +%s.%N)
work 0
hot=0
if [[ -f $CPU1 && $(cat $CPU1) == 1 ]] && work 1 && echo 0 >$CPU1; then
	hot=1
	sleep 1.1	# the collector drains and closes its ring within --latency
	scraped
	toff=$(date +%s.%N)
	work 0
	echo 1 >$CPU1
	sleep 1.5	# the collector's new ring for CPU1, within --latency
	work 1
fi
work 0
sleep 1.1	# records under the watermark: drained within --latency
stop_at tb
cpus=$(summary_cpus "$tmp/b.json")
prom=$(prom_cpus "$tb")
if [[ $prom == "$cpus" ]]; then
	pass overload_sums_equal_summary
else
	fail overload_sums_equal_summary "summary: $(echo $cpus), prometheus: $(echo $prom)"
fi
lost=$(q1 'sum(perfbuf_events_lost_total{cpu!=""})' "$tb")
check overload_lost test "${lost:-0}" -gt 0
# every event of the workload received or lost on some CPU, or not
# written (no ring in the slot while CPU1 came back)
check overload_all_counted test "$(q1 'sum(perfbuf_events_received_total) + sum(perfbuf_events_lost_total{cpu!=""}) + sum(perfbuf_bpf_output_errors_total{reason!="no_space"})' "$tb")" = $((N * runs))
# the probe offered each of them; its lost are the CPUs'
check overload_probe_offered test "$(q1 'sum(perfbuf_events_offered_total)' "$tb"):$(q1 'sum(perfbuf_events_lost_total{probe!=""})' "$tb")" = "$((N * runs)):$lost"
span=$(python3 -c "print(int($tb - $t0) + 1)")
resets=
for m in perfbuf_events_received_total perfbuf_events_lost_total \
	 perfbuf_bpf_output_errors_total perfbuf_wakeups_total \
	 perfbuf_events_written_total; do
	resets+="$(q1 "sum(resets(${m}[${span}s]))" "$tb")"
done
check counters_monotonic test "$resets" = 00000
if ((hot)); then
	# offline: its series there, its ring 0 bytes, its counts those of
	# the one run it had
	check offline_cpu_keeps_series test "$(q1 'perfbuf_ring_size_bytes{cpu="1"}' "$toff"):$(q1 'perfbuf_events_received_total{cpu="1"} + perfbuf_events_lost_total{cpu="1"}' "$toff")" = "0:$N"
else
	skip offline_cpu_keeps_series "needs CPU1 online to take it offline"
fi

# --- run: one's own object's perf map, through the collector ---
mkfifo "$tmp/go"
"${UTIL[@]}" emit "$tmp/go" 1000 120 >"$tmp/epid" &
epid=$!
for _ in $(seq 50); do
	[[ -s $tmp/epid ]] && break
	sleep 0.1
done
if start_attached tpid "$tmp/out" "$tmp/err" run --json -o "$tmp/r.json" \
	--metrics 127.0.0.1:$MPORT --set target_pid="$(cat "$tmp/epid")" \
	"$BUILD/tests/bpf/run_types.bpf.o"; then
	echo go >"$tmp/go"
	wait "$epid"
	sleep 0.3
	stop_at tr
	cpus=$(summary_cpus "$tmp/r.json")
	prom=$(prom_cpus "$tr")
	check run_sums_equal_summary test "$prom:$(q1 'sum(perfbuf_events_received_total)' "$tr")" = "$cpus:1000"
else
	kill "$epid" 2>/dev/null
	fail run_sums_equal_summary "run did not start: $(head -c 300 "$tmp/err")"
fi

# --- trace --nats: the publisher's counters ---
if command -v nats-server >/dev/null; then
	NPORT=$(free_ports)
	nats-server -a 127.0.0.1 -p "$NPORT" -js -sd "$tmp/nats" >"$tmp/nats.log" 2>&1 &
	npid=$!
	if /usr/bin/python3 "$(dirname "$0")/nats_util.py" ready "nats://127.0.0.1:$NPORT" 15 &&
	   start_trace --nats "nats://127.0.0.1:$NPORT" --nats-stream PBM \
		--metrics 127.0.0.1:$MPORT "$PROBE"; then
		"$T" 100
		sleep 1.5	# acknowledged
		stop_at tn
		# messages: the 100 events, and a CPU notice when another job
		# toggles a CPU meanwhile
		read -r pub ack wr drop < <(for m in nats_published_total nats_acknowledged_total \
			events_written_total nats_dropped_total; do q1 "sum(perfbuf_$m)" "$tn"; done | tr '\n' ' ')
		check nats_counters test "${pub:-0}" -ge 100 -a "$pub:$drop" = "$ack:0" -a "$wr" = "$ack"
	else
		fail nats_counters "trace --nats did not start: $(head -c 300 "$tmp/err")"
	fi
	kill -KILL "$npid" 2>/dev/null
	wait "$npid" 2>/dev/null
	npid=
else
	skip nats_counters "no nats-server: run 'make setup'"
fi

# --- profile: its own counters ---
# Ctrl-C, not -d: the run must outlast the scrape however slow its start
"$PERFBUF" profile --metrics 127.0.0.1:$MPORT >/dev/null 2>"$tmp/perr" &
ppid2=$!
wait_line "$tmp/perr" '^perfbuf profile: sampling' "$ppid2"
spin 1	# (an idle machine gave 0 samples in 1 s)
scraped
samples=$(q1 perfbuf_profile_samples_total "$(date +%s.%N)")
kill -INT "$ppid2"
wait "$ppid2"
ppid2=
total=$(sed -n 's/^perfbuf profile: \([0-9]*\) samples.*/\1/p' "$tmp/perr")
check profile_samples test "${samples:-0}" -gt 0 -a "${samples:-0}" -le "${total:-0}"
finish
