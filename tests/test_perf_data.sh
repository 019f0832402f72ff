#!/usr/bin/env bash
# perfbuf report --perf-data: a capture as perf.data, read by perf itself.
# `perf script` must print every event of `perfbuf report --json` of the
# same capture: thread, CPU, time to the nanosecond, the event's name, a
# tracepoint's fields as perf decodes them (a __data_loc string included),
# a uprobe's arguments in its bpf-output bytes.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/trace_lib.sh"
TARGET=$(realpath "$BUILD/tests/uprobe_target")
scratch perf-data
tpid=
cleanup() { end_runs INT "$tpid"; }
root_or_finish perf_data_tests BPF
if ! perf version >/dev/null 2>&1; then
	fail perf_installed "perf is not installed: run 'make setup' (Debian package linux-perf)"
	finish
fi

# perf script's events against report --json's: prints "ok" or the first
# difference
compare() {
	python3 - "$1" "$2" <<'PY'
import json, re, sys
events = [o for o in map(json.loads, open(sys.argv[1]))
          if o.get("type") == "event"]
head = re.compile(r'^\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(?:\d+\s+)?(\S+):\s*(.*)$')
perf, lines = [], open(sys.argv[2], errors="replace").read().splitlines()
for i, l in enumerate(lines):
    m = head.match(l)
    if not m:
        continue
    comm, tid, cpu, s, ns, name, rest = m.groups()
    e = dict(comm=comm, tid=int(tid), cpu=int(cpu),
             time=int(s) * 10**9 + int(ns), name=name, rest=rest)
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    b = re.match(r'\s*BPF output: 0000: ((?:[0-9a-f]{2} ?){8})', nxt)
    if b:
        e["arg0"] = int.from_bytes(bytes.fromhex(b.group(1).replace(" ", "")), "little")
    perf.append(e)

def same(j, p):
    if (j["comm"], j["tid"], j["cpu"], j["time_ns"]) != (p["comm"], p["tid"], p["cpu"], p["time"]):
        return "thread, cpu or time"
    probe, args = j["probe"], j["args"]
    if probe.startswith("tracepoint:"):
        if p["name"] != probe[len("tracepoint:"):]:
            return "name"
        if probe.endswith("sys_enter_getpgid"):
            return None if p["rest"] == "pid: 0x%08x" % args["pid"] else "getpgid's pid"
        want = "filename=%s pid=%d old_pid=%d" % (args["filename"], args["pid"], args["old_pid"])
        return None if p["rest"] == want else "exec's fields"
    if p["name"] != probe:
        return "name"
    return None if p.get("arg0") == args["i"] else "pb_target_seq's i in the bpf-output bytes"

key = lambda e: (e.get("time_ns", e.get("time")), e["cpu"], e["tid"])
events.sort(key=key)
perf.sort(key=key)
if len(events) != len(perf):
    sys.exit("report has %d events, perf script %d" % (len(events), len(perf)))
for j, p in zip(events, perf):
    why = same(j, p)
    if why:
        sys.exit("%s differs: %s / %s" % (why, json.dumps(j), json.dumps(p)))
kinds = {j["probe"].split(":")[0] + ":" + j["probe"].split(":")[-1] for j in events}
print("ok %d events, %d kinds" % (len(events), len(kinds)))
PY
}

SEQ="uprobe:$TARGET:pb_target_seq"
# the workload under one command name of its own (the basename of what is
# executed, with this shell's pid: another copy of this test too): other
# jobs' events stay out of the capture
comm=pbpd$$
mkdir "$tmp/a" "$tmp/b"
ln -s "$TARGET" "$tmp/a/$comm"
ln -s "$(python3 -c "import os, sys; print(os.path.realpath(sys.executable))")" "$tmp/b/$comm"
if start_attached tpid "$tmp/rout" "$tmp/rerr" record --comm $comm -o "$tmp/c.cap" \
	tracepoint:syscalls:sys_enter_getpgid tracepoint:sched:sched_process_exec "$SEQ"; then
	# two execs (the filename: a __data_loc string), 5 uprobe hits, 3 getpgid
	"$tmp/a/$comm" 5
	"$tmp/b/$comm" -c '
import os
for pid in (1234567, 2345678, 3456789):
    try:
        os.getpgid(pid)
    except OSError:
        pass'
	stop_trace
	"$PERFBUF" report --json --time mono "$tmp/c.cap" >"$tmp/c.json" 2>"$tmp/c.jerr"
	"$PERFBUF" report --perf-data "$tmp/c.data" "$tmp/c.cap" >"$tmp/pd.out" 2>"$tmp/pd.err"
	rc=$?
	n=$(grep -c '"type":"event"' "$tmp/c.json")
	if ((trc == 0 && rc == 0)) && [[ ! -s $tmp/pd.out ]] &&
	   grep -qx "perfbuf report: $n events, 0 lost, into $tmp/c.data (perf script -i $tmp/c.data)" "$tmp/pd.err"; then
		pass perf_data_written
	else
		fail perf_data_written "record $trc, report $rc: $(head -c 300 "$tmp/pd.err")"
	fi
	check perf_data_file_mode test "$(stat -c %a "$tmp/c.data")" = 600
	perf script --ns -i "$tmp/c.data" >"$tmp/script.txt" 2>"$tmp/script.err"
	rc=$?
	res=$(compare "$tmp/c.json" "$tmp/script.txt" 2>&1)
	# all of them, and only them
	if ((rc == 0)) && [[ $res == "ok 10 events, 3 kinds" ]] &&
	   grep -q "pid: 0x0012d687" "$tmp/script.txt" &&
	   grep -q "filename=$tmp/a/$comm pid=" "$tmp/script.txt" &&
	   (($(grep -c ":pb_target_seq:" "$tmp/script.txt") == 5)); then
		pass perf_script_prints_every_event
	else
		fail perf_script_prints_every_event "perf script $rc, $res: $(head -c 300 "$tmp/script.err")"
	fi
	# perf report reads it too: the events counted per event
	perf report --stdio -i "$tmp/c.data" >"$tmp/report.txt" 2>/dev/null
	check perf_report_counts grep -q "^# Samples: 5  of event 'uprobe:$TARGET:pb_target_seq'" "$tmp/report.txt"

	# a capture cut short: the events before the cut, then one line, exit 1
	size=$(stat -c %s "$tmp/c.cap")
	head -c $((size - 40)) "$tmp/c.cap" >"$tmp/cut.cap"
	"$PERFBUF" report --json --time mono "$tmp/cut.cap" >"$tmp/cut.json" 2>/dev/null
	"$PERFBUF" report --perf-data "$tmp/cut.data" "$tmp/cut.cap" 2>"$tmp/cut.err"
	rc=$?
	perf script --ns -i "$tmp/cut.data" >"$tmp/cut.txt" 2>/dev/null
	res=$(compare "$tmp/cut.json" "$tmp/cut.txt" 2>&1)
	if ((rc == 1)) && [[ $res == "ok "* ]] && grep -q "events \(before it\|in it\) are written$" "$tmp/cut.err"; then
		pass perf_data_of_a_cut_capture
	else
		fail perf_data_of_a_cut_capture "exit $rc, $res: $(tail -c 300 "$tmp/cut.err")"
	fi
else
	fail perf_data_written "record did not attach: $(head -c 300 "$tmp/rerr")"
fi

touch "$tmp/c.cap"
ln -s "$tmp/target" "$tmp/link"
error_case perf_data_not_through_a_symlink "cannot write '$tmp/link': it is a symbolic link" \
	report --perf-data "$tmp/link" "$tmp/c.cap"
error_case perf_data_with_json "--perf-data writes perf.data in time order; drop --json" \
	report --json --perf-data "$tmp/x.data" "$tmp/c.cap"
error_case perf_data_needs_a_file "--perf-data needs" report "$tmp/c.cap" --perf-data

# a signal while it writes (SIGHUP: a closed terminal) stops it: the old
# file as it was, nothing left beside it (the default action left the new
# file half written there). Stopped once its file is there, then signalled.
if start_attached tpid "$tmp/rout" "$tmp/rerr" record --pages 1024 -o "$tmp/big.cap" "$SEQ"; then
	"$TARGET" 300000
	end_runs INT "$tpid"
	tpid=
	caught=
	# (tries: a loaded machine can let it finish before the look)
	for _ in 1 2 3 4 5; do
		echo precious >"$tmp/big.data"
		"$PERFBUF" report --perf-data "$tmp/big.data" "$tmp/big.cap" 2>"$tmp/big.err" &
		p=$!
		while kill -0 "$p" 2>/dev/null; do
			if compgen -G "$tmp/big.data.*" >/dev/null; then
				kill -STOP "$p"
				caught=1
				break
			fi
		done
		[[ -n $caught ]] && kill -HUP "$p" && kill -CONT "$p"
		wait "$p"
		rc=$?
		[[ -n $caught ]] && break
	done
	if [[ -z $caught ]]; then
		skip perf_data_signal_keeps_old "the write ended before it could be stopped"
	else
		check perf_data_signal_keeps_old test "$rc" = 1 -a "$(cat "$tmp/big.data")" = precious -a \
			-z "$(compgen -G "$tmp/big.data.*")" -a \
			"$(cat "$tmp/big.err")" = "perfbuf report: stopped by a signal; '$tmp/big.data' left as it was"
	fi
else
	fail perf_data_signal_keeps_old "record did not attach: $(head -c 300 "$tmp/rerr")"
fi
finish
