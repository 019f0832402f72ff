#!/usr/bin/env bash
# perfbuf record / perfbuf report: round trips (report prints what trace
# printed live, byte for byte), cut and damaged captures, the flight
# recorder keeping only the newest events, snapshots on SIGUSR1, a full disk.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/trace_lib.sh"
PERFBUF=$BUILD/perfbuf
TARGET=$(realpath "$BUILD/tests/uprobe_target")
scratch record
tpid= rpid=
cleanup() { end_runs INT "$tpid" "$rpid"; }
root_or_finish record_tests BPF
SEQ="uprobe:$TARGET:pb_target_seq"

# start_record ARGS...: perfbuf record in the background until attached
start_record() {
	start_attached rpid "$tmp/rout" "$tmp/rerr" record "$@"
}
stop_record() {
	sleep 0.3
	kill "-${1:-INT}" "$rpid" 2>/dev/null
	wait "$rpid"
	rrc=$?
	rpid=
}
# seqs FILE: the i (its DWARF name) of each pb_target_seq event of report --json FILE
seqs() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("type") == "event":
        print(int(o["args"]["i"]))' "$1"
}

# untimed FILE: its event lines without "time_ns":N, (summary left out)
untimed() {
	grep '"type":"event"' "$1" | sed 's/"time_ns":[0-9]*,//'
}

# --- live == offline: trace and record see the same events -------------
if start_trace --json "$SEQ" && start_record -o "$tmp/rt.cap" "$SEQ"; then
	# two bursts, two drains at least: a capture of several frames
	"$TARGET" 250
	sleep 0.2
	"$TARGET" 250
	stop_record
	stop_trace
	"$PERFBUF" report --json "$tmp/rt.cap" >"$tmp/rt.json" 2>"$tmp/rt.err"
	rep=$?
	# two BPF programs on one uprobe: each event's kernel time differs by
	# the microseconds between them; every other byte must be the same
	if ((rrc == 0 && rep == 0)) && grep -c '"type":"event"' "$tmp/rt.json" | grep -qx 500 &&
	   cmp -s <(untimed "$tmp/out") <(untimed "$tmp/rt.json"); then
		pass "record_report_json_equals_trace_json"
	else
		fail "record_report_json_equals_trace_json" \
			"record $rrc, report $rep: $(diff <(untimed "$tmp/out") <(untimed "$tmp/rt.json") | head -4) $(head -c 300 "$tmp/rt.err")"
	fi
	check record_summary_counts grep -q '^perfbuf record: 500 events, [0-9]* bytes of records in .*, 0 lost$' "$tmp/rerr"
	check record_summary_per_cpu grep -q '^  CPU [0-9]*: [0-9]* events, [0-9]* bytes, 0 lost$' "$tmp/rerr"
	# the probes' ledger kept in the capture: report's summary has trace's
	# per-probe line, every event the probe offered received
	if python3 -c '
import json, sys
summ = [json.loads(l) for l in open(sys.argv[1]) if "\"type\":\"summary\"" in l]
live = [json.loads(l) for l in open(sys.argv[2]) if "\"type\":\"summary\"" in l]
want = [{"probe": sys.argv[3], "offered": 500, "received": 500, "lost": 0,
         "no_reader": 0, "failed": 0}]
sys.exit(not (len(summ) == 1 and summ[0].get("probes") == want == live[0]["probes"]))' \
		"$tmp/rt.json" "$tmp/out" "$SEQ"; then
		pass report_probes_ledger
	else
		fail report_probes_ledger "report: $(grep '"summary"' "$tmp/rt.json" | head -c 400)"
	fi
	check report_in_time_order python3 -c '
import json, sys
t = [json.loads(l)["time_ns"] for l in open(sys.argv[1]) if "time_ns" in l]
sys.exit(0 if t == sorted(t) and len(t) == 500 else 1)' "$tmp/rt.json"
	check record_file_mode test "$(stat -c %a "$tmp/rt.cap")" = 600
	"$PERFBUF" report "$tmp/rt.cap" >"$tmp/rt.txt" 2>&1
	# the events' lines; the summary's per-probe line ends with the spec
	check report_text_lines test "$(grep pb_target_seq "$tmp/rt.txt" | grep -vc " $SEQ\$")" = 500
	"$PERFBUF" report --info "$tmp/rt.cap" >"$tmp/info" 2>&1
	check report_info grep -q "^  $SEQ\$" "$tmp/info"
	# no root, no tracefs: the capture describes itself
	# (copies others can read: the checkout may be private)
	public_copy "$PERFBUF" "$tmp/rt.cap"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$pub/perfbuf" report --json "$pub/rt.cap" >"$tmp/nobody.json" 2>&1
	check report_needs_no_root cmp -s "$tmp/nobody.json" "$tmp/rt.json"
else
	fail record_report_json_equals_trace_json "did not attach: $(head -c 300 "$tmp/err" "$tmp/rerr")"
	stop_record
	stop_trace
fi

# --- what BPF read goes with the capture: --buffers, --string-size ------
# (the records' slots depend on them: report decodes as trace did)
if start_record -o "$tmp/buf.cap" --buffers --string-size 2 --comm "pbrec$$" \
		tracepoint:syscalls:sys_enter_write; then
	python3 -c 'import ctypes, os, sys
libc = ctypes.CDLL(None)
libc.prctl(15, sys.argv[1].encode(), 0, 0, 0)
fd = os.open("/dev/null", os.O_WRONLY)
libc.write(fd, b"abcdefXYZ", 3)' "pbrec$$"
	stop_record
	"$PERFBUF" report --json "$tmp/buf.cap" >"$tmp/buf.json" 2>"$tmp/buf.err"
	check record_buffers_reported json_check "$tmp/buf.json" \
		"[(o['args']['buf'], o['cut']) for o in objs if o['type']=='event']==[('ab', ['buf'])]"
else
	fail record_buffers_reported "did not attach: $(cat "$tmp/rerr")"
fi

# --- what the probes' fields are goes with the capture: duration_ns of a
# paired syscall exit, struct members (an unreadable one null, not 0)
LAT=$(realpath "$BUILD/tests/latency_target")
if start_record -o "$tmp/lat.cap" --comm latency_target --member 'p->x,p->next->x' \
		"uprobe:$LAT:pb_point" tracepoint:syscalls:sys_enter_clock_nanosleep \
		tracepoint:syscalls:sys_exit_clock_nanosleep; then
	"$LAT" 1
	stop_record
	"$PERFBUF" report --json "$tmp/lat.cap" >"$tmp/lat.json" 2>"$tmp/lat.err"
	check record_latency_members json_check "$tmp/lat.json" "(
		[o['args']['duration_ns'] >= lo for o, lo in zip([o for o in objs if o['type'] == 'event' and
		 o['probe'].endswith('sys_exit_clock_nanosleep')], [10**6, 20 * 10**6] + [2 * 10**6] * 3)] == [True] * 5 and
		[(o['args']['p->x'], o['args']['p->next->x']) for o in objs
		 if o['type'] == 'event' and o['probe'].endswith(':pb_point')] ==
		[(x, 1000 + x if x < 9 else None) for x in range(10)])" || cut -c 1-300 "$tmp/lat.json" "$tmp/lat.err"
else
	fail record_latency_members "did not attach: $(cat "$tmp/rerr")"
fi

# --time and --width as trace has them: the recording's own clocks
if [[ -s $tmp/buf.cap ]]; then
	"$PERFBUF" report --time wall "$tmp/buf.cap" >"$tmp/wall.txt" 2>/dev/null
	check report_time_wall grep -qE "^$(date +%Y-%m-%d)T[0-9:]{8}\.[0-9]{6} .*sys_enter_write" "$tmp/wall.txt"
	"$PERFBUF" report --time mono --json "$tmp/buf.cap" >"$tmp/mono.json" 2>/dev/null
	up=$(cut -d' ' -f1 /proc/uptime)
	check report_time_mono json_check "$tmp/mono.json" \
		"all(0 < $up - o['time_ns'] / 1e9 < 300 for o in objs if o['type'] == 'event')"
else
	fail report_time_wall "no capture from the test before"
fi

# --- cut and damaged captures -----------------------------------------
if [[ -s $tmp/rt.cap ]]; then
	size=$(stat -c %s "$tmp/rt.cap")
	# cut anywhere: what is printed is a prefix of the whole, then one line
	some=0 bad=
	for pct in 50 70 90 97; do
		head -c $((size * pct / 100)) "$tmp/rt.cap" >"$tmp/cut.cap"
		"$PERFBUF" report --json "$tmp/cut.cap" >"$tmp/cut.json" 2>"$tmp/cut.err"
		rc=$?
		n=$(grep -c '"type":"event"' "$tmp/cut.json")
		if ((rc == 1)) && (($(wc -l <"$tmp/cut.err") == 1)) && ((n < 500)) &&
		   grep -q -e 'damaged at byte [0-9]*' -e 'cut short' "$tmp/cut.err" &&
		   cmp -s <(head -n "$n" "$tmp/rt.json") <(grep '"type":"event"' "$tmp/cut.json"); then
			((n > 0)) && some=1
		else
			bad="$pct%: exit $rc, $n events, $(head -c 200 "$tmp/cut.err")"
		fi
	done
	if [[ -z $bad ]] && ((some)); then
		pass "report_cut_capture_prints_the_part_before"
	else
		fail "report_cut_capture_prints_the_part_before" "${bad:-no cut kept any event}"
	fi
	cp "$tmp/rt.cap" "$tmp/bad.cap"
	printf '\xff\xff\xff\xff' | dd of="$tmp/bad.cap" bs=1 seek=$((size - 200)) conv=notrunc 2>/dev/null
	"$PERFBUF" report "$tmp/bad.cap" >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	# the text summary goes to stderr too; the damage is the last line
	if ((rc == 1)) && tail -1 "$tmp/bad.err" | grep -q 'damaged at byte [0-9]*: frame of type [0-9]* fails its CRC; the [0-9]* events before it are printed'; then
		pass report_damaged_capture
	else
		fail report_damaged_capture "exit $rc: $(tail -c 300 "$tmp/bad.err")"
	fi
fi
printf 'hello' >"$tmp/junk"
# --- report --aggregate: trace --aggregate's maps, from a capture -------
# trace and record see the same events: the maps print the same, byte for
# byte; then JSON, and the refusals
AGGS=(--aggregate 'count() by comm' --aggregate 'hist(i)' --aggregate '@s = sum(i) by probe')
if start_trace "${AGGS[@]}" "$SEQ" && start_record -o "$tmp/agg.cap" "$SEQ"; then
	"$TARGET" 300
	stop_record
	stop_trace
	"$PERFBUF" report "${AGGS[@]}" "$tmp/agg.cap" >"$tmp/agg.txt" 2>"$tmp/agg.err"
	check report_aggregate_equals_trace cmp "$tmp/out" "$tmp/agg.txt"
	check report_aggregate_counts grep -qx '@count\[uprobe_target\]: 300' "$tmp/agg.txt"
	check report_aggregate_summary grep -q '^300 events received: 300 aggregated' "$tmp/agg.err"
	"$PERFBUF" report --json --aggregate 'count() by probe' "$tmp/agg.cap" >"$tmp/agg.json" 2>&1
	check report_aggregate_json grep -qF "\"expr\":\"count() by probe\",\"key\":{\"probe\":\"$SEQ\"},\"value\":300}" "$tmp/agg.json"
	# cut short: the one line after the maps says where its events went
	head -c $(($(stat -c %s "$tmp/agg.cap") * 7 / 10)) "$tmp/agg.cap" >"$tmp/aggcut.cap"
	"$PERFBUF" report --aggregate 'count()' "$tmp/aggcut.cap" >"$tmp/aggcut.txt" 2>"$tmp/aggcut.err"
	check report_aggregate_cut_said grep -qE "(damaged at byte [0-9]+|cut short).*; the [0-9]+ events (before it|in it) are in the maps above$" "$tmp/aggcut.err"
	error_case report_aggregate_stack "^perfbuf report: --aggregate 'count() by kstack': a capture holds no stacks (perfbuf record takes none); maps by stack are perfbuf trace's$" \
		report --aggregate 'count() by kstack' "$tmp/agg.cap"
	error_case report_aggregate_no_field "^perfbuf report: --aggregate 'sum(nosuch)': no probe has a field 'nosuch'" \
		report --aggregate 'sum(nosuch)' "$tmp/agg.cap"
	error_case report_aggregate_info "^perfbuf report: --info prints what the capture says about itself, not maps: drop --aggregate$" \
		report --aggregate 'count()' --info "$tmp/agg.cap"
	error_case report_aggregate_perf_data "^perfbuf report: --perf-data writes perf.data in time order; drop --aggregate$" \
		report --aggregate 'count()' --perf-data "$tmp/agg.data" "$tmp/agg.cap"
	error_case report_aggregate_keys_alone "^perfbuf report: --aggregate-keys is about the maps of --aggregate" \
		report --aggregate-keys 5 "$tmp/agg.cap"
	error_case report_aggregate_bad "^perfbuf report: --aggregate 'cnt()': unknown function" \
		report --aggregate 'cnt()' "$tmp/agg.cap"
	# a storm into one-page rings: what the map counts and what the line
	# after it says its probe lost add up to the calls made
	if start_record --pages 1 -o "$tmp/aggl.cap" --comm pbaggstorm tracepoint:syscalls:sys_enter_getppid; then
		python3 -c "
import os
open('/proc/self/comm', 'w').write('pbaggstorm')
for _ in range(200000): os.getppid()"
		stop_record
		"$PERFBUF" report --aggregate 'count()' "$tmp/aggl.cap" >"$tmp/aggl.txt" 2>"$tmp/aggl.err"
		check report_aggregate_losses_add_up python3 - "$tmp/aggl.txt" <<'EOF'
import re, sys
t = open(sys.argv[1]).read()
n = int(re.search(r'^@: (\d+)$', t, re.M).group(1))
m = re.search(r'^# @: (\d+) events of its probes lost: not counted above$', t, re.M)
assert n + (int(m.group(1)) if m else 0) == 200000, t
EOF
	fi
else
	fail report_aggregate_equals_trace "trace or record did not attach: $(head -c 300 "$tmp/err" "$tmp/rerr")"
fi

error_case report_not_a_capture "junk: not a perfbuf capture" report "$tmp/junk"
error_case report_missing_file "nope.cap: No such file or directory" report "$tmp/nope.cap"
error_case report_no_file "no capture file given" report
error_case record_no_command_option "^perfbuf record: unknown option '-c'; run 'perfbuf record --help'$" record -c true "$SEQ"
error_case record_json_is_report_option "--json is an option of perfbuf report" record --json "$SEQ"
error_case trace_flight_is_record_option "--flight-recorder is an option of perfbuf record" trace --flight-recorder 4M "$SEQ"
error_case record_bad_flight_size "--flight-recorder wants a size from 4K to 4G" record --flight-recorder 12Q "$SEQ"
python3 - "$tmp/newer.cap" <<'PY'
import struct, sys
open(sys.argv[1], 'wb').write(b'PERFBUF-CAPTURE\n' + struct.pack('<IIQ', 99, 32, 0))
PY
error_case report_newer_format "format version 99 is newer than this perfbuf reads" report "$tmp/newer.cap"
ln -s "$tmp/target.cap" "$tmp/link.cap"
error_case record_refuses_symlink "cannot write .*symbolic link" record -o "$tmp/link.cap" "$SEQ"

# --- flight recorder: only the newest, a contiguous run to the last ----
if start_record --flight-recorder 8K -o "$tmp/fr.cap" "$SEQ"; then
	# one CPU: each CPU keeps its own newest
	taskset -c 0 "$TARGET" 3000
	kill -USR1 "$rpid"
	sleep 0.5
	taskset -c 0 "$TARGET" 30
	stop_record
	"$PERFBUF" report --json "$tmp/fr.cap" >"$tmp/fr.json" 2>"$tmp/fr.err"
	seqs "$tmp/fr.json" >"$tmp/fr.seq"
	# snapshot 1: the newest of the 3000 (8 KiB per CPU holds 64 of
	# these 128-byte records), ending at 2999; snapshot 2: the 30 of the
	# second run, all of them, none of the first again
	python3 - "$tmp/fr.seq" <<'PY' && pass flight_recorder_keeps_the_newest ||
import sys
s = [int(x) for x in open(sys.argv[1])]
first, second = s[:-30], s[-30:]
ok = (0 < len(first) < 3000 and first[-1] == 2999 and
      first == list(range(first[0], 3000)) and second == list(range(30)))
sys.exit(0 if ok else 1)
PY
		fail flight_recorder_keeps_the_newest "rc $rrc, $(wc -l <"$tmp/fr.seq") events: $(head -3 "$tmp/fr.seq" | tr '\n' ' ') ... $(tail -3 "$tmp/fr.seq" | tr '\n' ' '); $(head -c 200 "$tmp/fr.err")"
	check flight_recorder_two_snapshots grep -q '^  2 snapshots$' "$tmp/rerr"
else
	fail flight_recorder_keeps_the_newest "did not attach: $(head -c 300 "$tmp/rerr")"
	stop_record
fi

# a closed terminal (SIGHUP) ends a flight recorder as SIGTERM does: the
# newest events in the capture, which replaces the file that was there
echo old >"$tmp/hup.cap"
if start_record --flight-recorder 8K -o "$tmp/hup.cap" "$SEQ"; then
	taskset -c 0 "$TARGET" 50
	stop_record HUP
	"$PERFBUF" report --json "$tmp/hup.cap" >"$tmp/hup.json" 2>"$tmp/hup.err"
	n=$(seqs "$tmp/hup.json" | wc -l)
	if [[ $rrc == 0 && $n == 50 ]] && ! compgen -G "$tmp/hup.cap.*" >/dev/null; then
		pass flight_recorder_sighup
	else
		fail flight_recorder_sighup "rc $rrc, $n events: $(head -c 300 "$tmp/rerr") $(head -c 200 "$tmp/hup.err") $(ls "$tmp" | grep hup)"
	fi
else
	fail flight_recorder_sighup "did not attach: $(head -c 300 "$tmp/rerr")"
	stop_record
fi

# a snapshot (SIGUSR1) lands in the file at once, in place of the one that
# was there, with nothing hidden beside it; a SIGKILL later leaves it there
echo old >"$tmp/last.cap"
if start_record --flight-recorder 64K -o "$tmp/last.cap" "$SEQ"; then
	taskset -c 0 "$TARGET" 40
	kill -USR1 "$rpid"
	for _ in $(seq 100); do
		[[ $(stat -c %s "$tmp/last.cap") -gt 4 ]] && break
		sleep 0.05
	done
	sleep 0.3
	n=$("$PERFBUF" report --json "$tmp/last.cap" 2>/dev/null | seqs /dev/stdin | wc -l)
	if [[ $n == 40 ]] && ! compgen -G "$tmp/last.cap.*" >/dev/null; then
		pass flight_recorder_snapshot_in_file
	else
		fail flight_recorder_snapshot_in_file "$n events in it, $(ls "$tmp" | grep last | tr '\n' ' ')"
	fi
	taskset -c 0 "$TARGET" 10
	kill -KILL "$rpid"
	wait "$rpid" 2>/dev/null
	rpid=
	n=$("$PERFBUF" report --json "$tmp/last.cap" 2>/dev/null | seqs /dev/stdin | wc -l)
	if [[ $n == 40 ]] && ! compgen -G "$tmp/last.cap.*" >/dev/null; then
		pass flight_recorder_sigkill_keeps_snapshot
	else
		fail flight_recorder_sigkill_keeps_snapshot "$n events in it, $(ls "$tmp" | grep last | tr '\n' ' ')"
	fi
else
	fail flight_recorder_snapshot_in_file "did not attach: $(head -c 300 "$tmp/rerr")"
	stop_record
fi

# --- a full disk: one line, the counts, exit 1 -------------------------
mkdir -p "$tmp/small"
if mount -t tmpfs -o size=64k tmpfs "$tmp/small" 2>/dev/null; then
	# 8 pages: a frame (one drain's bytes) of at most 32 KiB, so the first
	# one fits; with the default ring a first drain of more than 64 KiB
	# left a capture of no event (CI, once)
	if start_record --pages 8 -o "$tmp/small/full.cap" "$SEQ"; then
		"$TARGET" 20000
		stop_record
		if ((rrc == 1)) && grep -q "writing $tmp/small/full.cap failed: No space left on device" "$tmp/rerr" &&
		   grep -q '^perfbuf record: [0-9]* events' "$tmp/rerr"; then
			pass record_disk_full
		else
			fail record_disk_full "exit $rrc: $(head -c 300 "$tmp/rerr")"
		fi
		"$PERFBUF" report --json "$tmp/small/full.cap" >"$tmp/full.json" 2>"$tmp/full.err"
		check report_of_a_full_disk_capture test $? = 1 -a "$(grep -c '"type":"event"' "$tmp/full.json")" -gt 0
		# the bytes it states are in the file (not all it read)
		stated=$(grep -m1 -oE '^perfbuf record: .* ([0-9]+) bytes' "$tmp/rerr" | grep -oE '[0-9]+ bytes' | grep -oE '[0-9]+')
		check record_disk_full_states_what_is_in_the_file \
			test "${stated:-x}" -le "$(stat -c %s "$tmp/small/full.cap")"
		# the events it states are those report reads back; the rest are
		# said not written, for that reason
		said=$(grep -m1 -oE '^perfbuf record: [0-9]+ events, [0-9]+ bytes of records in [^,]*, [0-9]+ not written: disk full \([^)]*\), [0-9]+ lost$' "$tmp/rerr" | grep -oE '^perfbuf record: [0-9]+' | grep -oE '[0-9]+$')
		check record_disk_full_counts_what_report_reads \
			test "${said:-x}" = "$(grep -c '"type":"event"' "$tmp/full.json")"
	else
		fail record_disk_full "did not attach: $(head -c 300 "$tmp/rerr")"
		stop_record
	fi
	umount "$tmp/small"
else
	skip record_disk_full "cannot mount a small tmpfs"
fi
# --- the reader at SCHED_FIFO 1 while it reads (--realtime) -------------
# policy PID: the scheduling class of PID's main thread (FF, TS, ...)
policy() {
	ps -o cls= -p "$1" | tr -d ' '
}
if start_record -o "$tmp/rt1.cap" "$SEQ"; then
	sleep 0.2
	pol=$(policy "$rpid")
	"$TARGET" 50
	stop_record
	check record_reads_at_realtime_priority test "$pol" = FF -a "$rrc" = 0
else
	fail record_reads_at_realtime_priority "did not attach: $(head -c 300 "$tmp/rerr")"
	stop_record
fi
if start_record --realtime 0 -o "$tmp/rt0.cap" "$SEQ"; then
	sleep 0.2
	pol=$(policy "$rpid")
	stop_record
	check record_realtime_0_normal_scheduler test "$pol" = TS -a "$rrc" = 0
else
	fail record_realtime_0_normal_scheduler "did not attach: $(head -c 300 "$tmp/rerr")"
	stop_record
fi
"$PERFBUF" record --realtime 100 "$SEQ" >/dev/null 2>"$tmp/rt.err"
check record_realtime_out_of_range test $? = 1 -a "$(wc -l <"$tmp/rt.err")" = 1 \
	-a "$(cat "$tmp/rt.err")" = "perfbuf record: --realtime wants a number from 0 to 99, not '100'"
"$PERFBUF" trace --realtime 1 "$SEQ" >/dev/null 2>"$tmp/rt.err"
check trace_has_no_realtime test $? = 1 \
	-a "$(cat "$tmp/rt.err")" = "perfbuf trace: --realtime is an option of perfbuf record"
# Many CPUs (a /sys list of 300, LD_PRELOAD'ed; 2 online): the capture
# lists them all ("0-299", not a cut "0,1,2,..."), report reads it, and
# its information says the ring memory mapped
if asan_build || [[ $PERFBUF != "$BUILD/perfbuf" ]]; then
	skip record_many_cpus "the sanitizer or valgrind runtime must come first"
else
	timeout 60 env LD_PRELOAD="$BUILD/tests/fake_cpus.so" FAKE_CPUS_POSSIBLE=0-299 \
		"$PERFBUF" record --buffer-size 3M -o "$tmp/many.cap" "$SEQ" >/dev/null 2>"$tmp/many.err" &
	mpid=$!
	# ended once the target ran (a -d could end first on a loaded machine)
	attached "$tmp/many.err" "$mpid" && "$TARGET" 5 >/dev/null
	kill -INT "$mpid"
	wait "$mpid"
	"$PERFBUF" report --info "$tmp/many.cap" >"$tmp/many.info" 2>&1
	check record_many_cpus grep -q '^mode: .*CPUs 0-299$' "$tmp/many.info"
	# 3 MiB for 300 CPUs: rings of 8 KiB, two of them mapped
	check record_ring_memory grep -q '^rings:    16 KiB mapped' "$tmp/many.info"
	check record_ring_memory_said grep -q '^perfbuf record: ring memory: 16 KiB mapped in 2 rings of 8 KiB' "$tmp/many.err"
	"$PERFBUF" report --json "$tmp/many.cap" >"$tmp/many.json" 2>/dev/null
	check record_many_cpus_report test "$(seqs "$tmp/many.json" | wc -l)" = 5
fi
finish
