#!/usr/bin/env bash
# perfbuf trace --nats and perfbuf nats-tail against real nats-server
# processes this test starts on 127.0.0.1 (free ports, JetStream stores in
# a temporary directory; every server killed on every way out): events as
# batches of JSON Lines with their headers (sizes, sequence numbers, the
# latency bound), a server down at the start, killed and restarted
# mid-run, a three-node cluster losing a node under an R3 stream (and
# nats-tail reading it back: each event once, the late ones counted), the
# buffer bound, two hosts merged by time, nats-tail's text as trace's,
# the error cases.
# What the stream holds is read back by tests/nats_util.py, a client of
# its own (the wire protocol), not by libnats.
source "$(dirname "$0")/lib.sh"
TARGET=$(realpath "$BUILD/tests/uprobe_target")
UTIL=(/usr/bin/python3 "$(dirname "$0")/nats_util.py")
scratch nats
tpid= tpid2= gpid= wpid= spid=
declare -A SPID
# the servers killed, the clients stopped
cleanup() {
	local p
	for p in "${SPID[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	[[ -n $spid ]] && kill -CONT "$spid" 2>/dev/null
	end_runs INT "$tpid" "$tpid2" "$gpid" "$wpid" "$spid"
}
source "$(dirname "$0")/trace_lib.sh"
root_or_finish nats_tests BPF
if ! command -v nats-server >/dev/null; then
	fail nats_tests "nats-server is not installed: run 'make setup'"
	finish
fi
SEQ="uprobe:$TARGET:pb_target_seq"

# start_server NAME ARGS...: nats-server ARGS in the background (its log
# $tmp/NAME.log, its pid ${SPID[NAME]})
start_server() {
	local name=$1
	shift
	nats-server "$@" >>"$tmp/$name.log" 2>&1 &
	SPID[$name]=$!
}
# server NAME URL ARGS...: start_server, then wait until its JetStream
# answers at URL
server() {
	local name=$1 url=$2
	shift 2
	start_server "$name" "$@"
	"${UTIL[@]}" ready "$url" 15
}
stop_server() {	# NAME [SIGNAL]; bash's "Killed" notice silenced
	{
		kill "-${2:-KILL}" "${SPID[$1]}"
		wait "${SPID[$1]}"
	} 2>/dev/null
	unset "SPID[$1]"
}
# nats_counts FILE [batches]: the NATS summary line's counts, in events
# (or batches): published acknowledged retried dropped
nats_counts() {
	sed -n 's/^NATS '"${2:-events}"': \([0-9]*\) published, \([0-9]*\) acknowledged ([0-9]* duplicates), \([0-9]*\) retried, \([0-9]*\) dropped.*/\1 \2 \3 \4/p' "$1"
}
# events_once LINES SUBJECT_PREFIX N: the stream has N pb_target_seq
# events under the prefix, each (pid, i) once (LINES: nats_util.py
# lines)
events_once() {
	python3 - "$@" <<'PY'
import collections, json, sys
seen = collections.Counter()
for l in open(sys.argv[1]):
    m = json.loads(l)
    if not m["subject"].startswith(sys.argv[2]):
        continue	# (perfbuf.inj.x: not JSON on purpose)
    d = json.loads(m["data"])
    if d["type"] == "event":
        seen[(d["pid"], d["args"]["i"])] += 1
n = int(sys.argv[3])
ok = len(seen) == n and all(c == 1 for c in seen.values())
if not ok:
    print("distinct %d (want %d), copies %s" % (len(seen), n,
          collections.Counter(seen.values())), file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}
# target N: N events of $SEQ, on CPU0 (other tests may take CPU1 offline
# meanwhile, and events on a CPU coming back online are not ours to test)
target() {
	taskset -c 0 "$TARGET" "$1"
}
# gen ROUNDS: ROUNDS x 100 events, 50 ms apart, in the background ($gpid)
gen() {
	(for _ in $(seq "$1"); do target 100; sleep 0.05; done) &
	gpid=$!
}

P1=$(free_ports)
U1=nats://127.0.0.1:$P1
server s1 "$U1" -a 127.0.0.1 -p "$P1" -js -sd "$tmp/s1" || fail nats_server_start "$(tail -3 "$tmp/s1.log")"

# --- N execs of a unique binary: N events in batches, valid JSON Lines,
# headers ------------------------------------------------------------
prog="$tmp/pbnats_$$"
cp /bin/true "$prog"
if start_attached tpid "$tmp/out" "$tmp/err" trace --nats "$U1" --nats-stream T1 \
	--nats-host h1 tracepoint:sched:sched_process_exec; then
	for _ in 1 2 3 4 5; do "$prog"; done
	stop_trace
	"${UTIL[@]}" dump "$U1" T1 >"$tmp/t1.dump"
	"${UTIL[@]}" lines "$U1" T1 >"$tmp/t1.lines"
	check nats_exec_n_events python3 - "$tmp/t1.dump" "$prog" "$trc" <<'PY'
import json, sys
msgs = [json.loads(l) for l in open(sys.argv[1])]
ev = []
for m in msgs:
    h = m["headers"]
    lines = m["data"].split("\n")
    assert lines[-1] == "" and len(lines) - 1 == int(h["Perfbuf-Count"])
    objs = [json.loads(l) for l in lines[:-1]]   # each line one object
    assert h["Perfbuf-Host"] == "h1" and "Perfbuf-Cpu" not in h
    assert 1.6e18 < int(h["Perfbuf-Time"]) <= int(h["Perfbuf-Time-Last"])
    assert int(h["Perfbuf-Last-Seq"]) - int(h["Perfbuf-First-Seq"]) + 1 == len(objs)
    for d in objs:
        if d["type"] == "event" and d["args"]["filename"] == sys.argv[2]:
            assert h["Perfbuf-Probe"] == d["probe"] == "tracepoint:sched:sched_process_exec"
            assert m["subject"] == "perfbuf.h1.tracepoint.sched.sched_process_exec"
            assert len(h["Perfbuf-Args"]) == len(d["args"])
            ev.append(d)
ids = [m["headers"]["Nats-Msg-Id"] for m in msgs]
assert len(set(ids)) == len(ids)
assert sum(m["data"].count('{"type":"summary"') for m in msgs) == 1
sys.exit(0 if len(ev) == 5 and sys.argv[3] == "0" else 1)
PY
	read -r pub ack _ drop <<<"$(nats_counts "$tmp/err")"
	read -r bpub back _ bdrop <<<"$(nats_counts "$tmp/err" batches)"
	check nats_published_all_acknowledged test "${pub:-x}" = "$ack" -a "$drop" = 0 -a \
		"$pub" = "$(wc -l <"$tmp/t1.lines")" -a "${bpub:-x}" = "$back" -a "$bdrop" = 0 -a \
		"$bpub" = "$(wc -l <"$tmp/t1.dump")"
	check nats_stream_created grep -q '^perfbuf trace: created stream T1 (subjects perfbuf.>, 1 replica)$' "$tmp/err"
else
	fail nats_exec_n_events "did not attach: $(cat "$tmp/err")"
fi

# --- perfbuf run --nats: a BPF object's typed records (tests/bpf/
# run_types.bpf.o copies what its target writes to fd -1) in the stream,
# each once, decoded as run --json decodes them ---------------------------
RUN_N=40
mkfifo "$tmp/go"
# the writer: its pid is the object's target_pid; it writes RUN_N records
# (struct run_event, 120 bytes, s8 = i) once "go" comes through the fifo;
# on CPU0, as target() (CPU1 may go offline and back meanwhile)
taskset -c 0 /usr/bin/python3 -c '
import os, sys
open(sys.argv[1]).read()
for i in range(int(sys.argv[2])):
    try:
        os.write(-1, bytes([i]) + bytes(119))
    except OSError:
        pass' "$tmp/go" "$RUN_N" &
wpid=$!
if start_attached tpid "$tmp/out" "$tmp/err" run --nats "$U1" --nats-stream R1 \
	--subject 'pbrun.{host}.{probe}' --nats-host h1 --set "target_pid=$wpid" --set tag=nats \
	"$BUILD/tests/bpf/run_types.bpf.o"; then
	echo go >"$tmp/go"
	wait "$wpid"; wpid=
	stop_trace
	"${UTIL[@]}" lines "$U1" R1 >"$tmp/r1.lines"
	check nats_run_typed_events python3 - "$tmp/r1.lines" "$RUN_N" "$trc" <<'PY'
import json, sys
n = int(sys.argv[2])
s8, summ = [], []
for l in open(sys.argv[1]):
    m = json.loads(l)
    d = json.loads(m["data"])
    if d["type"] == "event":
        assert m["subject"] == "pbrun.h1.events" and d["probe"] == "events", m
        assert d["args"]["tag"] == "nats" and d["args"]["state"] == "RUN_IDLE", d
        s8.append(int(d["args"]["s8"]))
    elif d["type"] == "summary":
        summ.append(d)
ok = sorted(s8) == list(range(n)) and len(summ) == 1 and summ[0]["received"] == n
if not ok:
    print("events s8 %s, summaries %s" % (sorted(s8), summ), file=sys.stderr)
sys.exit(0 if ok and sys.argv[3] == "0" else 1)
PY
	read -r pub ack _ drop <<<"$(nats_counts "$tmp/err")"
	check nats_run_published_acknowledged test "${pub:-x}" = "$ack" -a "$drop" = 0 -a \
		"$pub" = "$(wc -l <"$tmp/r1.lines")"
else
	fail nats_run_typed_events "did not attach: $(cat "$tmp/err")"
fi

# --- batches: at most --nats-batch events (or bytes), each subject's
# lines numbered without a gap; a lone event sent within the latency ---
# batch_check DUMP MAX_EVENTS MAX_BYTES EVENTS: every batch within the
# bounds, sequence numbers first..last chained per subject, EVENTS
# pb_target_seq events in all, most batches full
batch_check() {
	python3 - "$@" <<'PY'
import collections, json, sys
msgs = [json.loads(l) for l in open(sys.argv[1])]
maxev, maxb, want = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
nxt = collections.defaultdict(int)
events = 0
for m in msgs:
    h = m["headers"]
    n, first, last = int(h["Perfbuf-Count"]), int(h["Perfbuf-First-Seq"]), int(h["Perfbuf-Last-Seq"])
    ok = (n <= maxev and len(m["data"].encode()) <= maxb and first == nxt[m["subject"]]
          and last == first + n - 1 and m["data"].count("\n") == n)
    if not ok:
        print("batch %s: %d events, %d bytes, seq %d..%d (want from %d)" % (
              m["subject"], n, len(m["data"]), first, last, nxt[m["subject"]]), file=sys.stderr)
        sys.exit(1)
    nxt[m["subject"]] = last + 1
    events += m["data"].count("pb_target_seq")
full = sum(int(m["headers"]["Perfbuf-Count"]) == maxev or
           len(m["data"].encode()) > maxb * 3 / 4 for m in msgs)
sys.exit(0 if events == want and full >= len(msgs) / 2 else 1)
PY
}
# batch_run NAME BATCH TAG MAXEV MAXB: 1000 events traced with
# --nats-batch BATCH to perfbuf.TAG.{probe}, batch_check'ed
batch_run() {
	local name=$1 batch=$2 tag=$3
	if start_attached tpid "$tmp/out" "$tmp/err" trace --nats "$U1" --nats-batch "$batch" \
		--subject "perfbuf.$tag.{probe}" "$SEQ"; then
		target 1000
		stop_trace
		"${UTIL[@]}" dump "$U1" T1 | grep "\"subject\": \"perfbuf.$tag.uprobe" >"$tmp/$tag.dump"
		check "$name" batch_check "$tmp/$tag.dump" "$4" "$5" 1000
	else
		fail "$name" "did not attach: $(cat "$tmp/err")"
	fi
}
batch_run nats_batch_events_bound 50 b50 50 1000000
batch_run nats_batch_bytes_bound 2K b2k 1000000 2048
# one event, the tracer still running: in the stream within a second
if start_attached tpid "$tmp/out" "$tmp/err" trace --nats "$U1" \
	--subject 'perfbuf.lat.{probe}' "$SEQ"; then
	target 1
	found=0
	for _ in $(seq 20); do
		sleep 0.05
		"${UTIL[@]}" lines "$U1" T1 | grep -q '"subject": "perfbuf.lat.uprobe' && { found=1; break; }
	done
	check nats_batch_sent_within_latency test "$found" = 1
	stop_trace
else
	fail nats_batch_sent_within_latency "did not attach: $(cat "$tmp/err")"
fi

# --- nats-tail: two tracers as two hosts, merged by time ---------------
if start_attached tpid "$tmp/out" "$tmp/err" trace --nats "$U1" --nats-host ha "$SEQ" &&
   start_attached tpid2 "$tmp/out2" "$tmp/err2" trace --nats "$U1" --nats-host hb "$SEQ"; then
	target 200
	stop_trace
	kill -INT "$tpid2"; wait "$tpid2"; tpid2=
	"$PERFBUF" nats-tail --nats "$U1" --since all --no-follow --json \
		>"$tmp/tail.json" 2>"$tmp/tail.err"
	check nats_tail_merges_hosts_by_time python3 - "$tmp/tail.json" <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
t = [o["realtime_ns"] for o in objs]
seq = {h: [o["args"]["i"] for o in objs if o["host"] == h and
           o["type"] == "event" and o["probe"].endswith("pb_target_seq")]
       for h in ("ha", "hb")}
# both hosts whole, in time order, and interleaved (not one after the other)
first_b = next(i for i, o in enumerate(objs) if o["host"] == "hb")
last_a = max(i for i, o in enumerate(objs) if o["host"] == "ha")
sys.exit(0 if t == sorted(t) and seq["ha"] == list(range(200)) and
         seq["hb"] == list(range(200)) and first_b < last_a else 1)
PY
	"$PERFBUF" nats-tail --nats "$U1" --subject 'perfbuf.ha.>' --since 1h --no-follow \
		>"$tmp/tail.txt" 2>"$tmp/tail.err"
	check nats_tail_text_lines test "$(grep -c '^[0-9:.]* ha  *[0-9]  *[0-9]* .* uprobe_target  *pb_target_seq i=' "$tmp/tail.txt")" = 200
	check nats_tail_text_summary grep -q '^ha: ended: [0-9]* events received, 0 lost$' "$tmp/tail.err"
	"$PERFBUF" nats-tail --nats "$U1" --no-follow >"$tmp/tail.new" 2>&1
	check nats_tail_new_only_by_default test "$(cat "$tmp/tail.new")" = \
		"$(printf '%-15s %-12s %-3s %-7s %-7s %-16s %s' TIME HOST CPU PID TID COMM 'PROBE ARGS')"
else
	fail nats_tail_merges_hosts_by_time "did not attach: $(cat "$tmp/err" "$tmp/err2")"
fi

# --- nats-tail: what the stream holds is untrusted input ---------------
# (anyone who may publish can store these: a line with a "host" of its
# own after a valid one, raw control bytes, a host header with terminal
# escapes; each line of a batch is checked on its own)
ev='{"type":"event","cpu":0,"pid":1,"tid":1,"comm":"x","probe":"p:q","args":{}}'
inj() { "${UTIL[@]}" pub "$U1" perfbuf.inj.x "$1"; }
printf '%s\n{"host":"forged","realtime_ns":1,"type":"event"}' "$ev" | inj h1
printf '{"type":"event","comm":"\033[2J"}' | inj h2
printf '{"type":"event"' | inj h3
printf '{"host":"forged","type":"event"}' | inj h5
printf '%s' "$ev" | inj $'\e]0;pwned\a\e[31mh4'
"$PERFBUF" nats-tail --nats "$U1" --subject 'perfbuf.inj.>' --since all --no-follow --json \
	>"$tmp/inj.json" 2>"$tmp/inj.err"
check nats_tail_json_no_forged_line json_check "$tmp/inj.json" \
	'len(objs) == 2 and [o["host"] for o in objs] == ["h1", "\x1b]0;pwned\x07\x1b[31mh4"]'
check nats_tail_invalid_json_skipped grep -q '^perfbuf nats-tail: 4 lines skipped: not perfbuf' "$tmp/inj.err"
"$PERFBUF" nats-tail --nats "$U1" --subject 'perfbuf.inj.>' --since all --no-follow \
	>"$tmp/inj.txt" 2>&1
no_ctl() { ! grep -q $'[\e\a]' "$1"; }
check nats_tail_text_no_control_bytes no_ctl "$tmp/inj.txt"
check nats_tail_text_host_escaped grep -q '^[0-9:.]* \\x1b]0;pwned\\x07\\x1b\[31mh4 ' "$tmp/inj.txt"
# a full disk is said and fails the run (it ended quietly with 0, as a
# reader gone away does)
"$PERFBUF" nats-tail --nats "$U1" --subject 'perfbuf.inj.>' --since all --no-follow \
	>/dev/full 2>"$tmp/full.err"
check nats_tail_disk_full_said test $? = 1 -a -n \
	"$(grep -x 'perfbuf nats-tail: writing stdout failed: No space left on device' "$tmp/full.err")"
"$PERFBUF" nats-tail --nats "$U1" --no-follow >&- 2>"$tmp/closed.err"
check nats_tail_stdout_closed_refused test $? = 1 -a "$(cat "$tmp/closed.err")" = \
	"perfbuf nats-tail: stdout is closed; redirect it (>FILE, >/dev/null)"

# --- nats-tail's text as trace's: strings escaped and cut, argv, value
# names, addresses, pointers, a hidden field ----------------------------
comm="pbnt$$"
TT=(--comm "$comm" --string-size 8 tracepoint:sock:inet_sock_set_state
    tracepoint:syscalls:sys_enter_openat tracepoint:syscalls:sys_enter_execve)
if start_attached tpid "$tmp/out" "$tmp/err" trace -o "$tmp/tt.txt" "${TT[@]}" &&
   start_attached tpid2 "$tmp/out2" "$tmp/err2" trace --nats "$U1" --nats-host ht \
	--subject 'perfbuf.ht.{probe}' "${TT[@]}"; then
	/usr/bin/python3 - "$comm" "$prog" <<'PY'
import ctypes, os, socket, sys
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)   # PR_SET_NAME
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
socket.create_connection(s.getsockname()).close()
for p in [b'/nonexistent/a"b\\c', b"/x\n\t\xff\xc3\xa9z", b"/s"]:
    try:
        os.open(p, os.O_RDONLY)
    except OSError:
        pass
os.execv(sys.argv[2], [sys.argv[2], b'a"b', b"c\nd", b"\xff-long-argument", b""])
PY
	stop_trace
	kill -INT "$tpid2"; wait "$tpid2"; tpid2=
	"$PERFBUF" nats-tail --nats "$U1" --subject 'perfbuf.ht.>' --since 1h --no-follow \
		>"$tmp/tt.tail" 2>/dev/null
	check nats_tail_text_as_trace python3 - "$tmp/tt.txt" "$tmp/tt.tail" "$comm" <<'PY'
import re, sys
def rest(path, pat):
    r = re.compile(pat + re.escape(sys.argv[3]) + r" +(.*)$")
    return sorted(m.group(1) for m in map(r.match, open(path, errors="replace")) if m)
trace = rest(sys.argv[1], r"^\S+ +\d+ +\d+ +\d+ +")
tail = rest(sys.argv[2], r"^\S+ +ht +\d+ +\d+ +\d+ +")
kinds = {l.split()[0] for l in trace}
# every kind of value seen: a name, an address, a cut string, argv
need = ["(TCP_", "saddr=127.0.0.1", 'filename="/nonexis"...', '"\\xff-long-a"...', "__syscall_nr"]
seen = [any(n in l for l in trace) for n in need]
if trace != tail or seen != [True] * 4 + [False] or len(kinds) != 3:
    print("trace:\n  %s\nnats-tail:\n  %s\nseen %s" % ("\n  ".join(trace), "\n  ".join(tail), seen),
          file=sys.stderr)
    sys.exit(1)
PY
else
	fail nats_tail_text_as_trace "did not attach: $(cat "$tmp/err" "$tmp/err2")"
fi

# --- the server restarted while events stream ---------------------------
# (SIGTERM: a lone server acknowledges what it has not written out yet,
# so SIGKILL may lose acknowledged messages; the R3 cluster below is the
# setup that survives a killed node)
if start_attached tpid "$tmp/out" "$tmp/err" trace --nats "$U1" --subject 'perfbuf.r.{probe}' "$SEQ"; then
	gen 30
	sleep 1
	stop_server s1 TERM
	sleep 1
	server s1 "$U1" -a 127.0.0.1 -p "$P1" -js -sd "$tmp/s1"
	wait "$gpid"; gpid=
	stop_trace
	"${UTIL[@]}" lines "$U1" T1 >"$tmp/r.lines"
	check nats_restart_mid_run_every_event_once events_once "$tmp/r.lines" perfbuf.r. 3000
	read -r pub ack _ drop <<<"$(nats_counts "$tmp/err")"
	check nats_restart_published_acknowledged test "${pub:-x}" = "$ack" -a "$drop" = 0
	check nats_restart_said grep -q 'NATS: disconnected' "$tmp/err"
	if grep -q '^perfbuf trace: 3000 events received, 0 lost$' "$tmp/err"; then
		pass nats_restart_received_all
	else
		fail nats_restart_received_all "$(grep -v '^nats:' "$tmp/err")"
	fi
else
	fail nats_restart_mid_run_every_event_once "did not attach: $(cat "$tmp/err")"
fi

# --- the spool: the server away 30 s under a storm of ~20k events/s ----
# Three tracers of one storm (getpgid(10000000 + i), i from 0, by a
# process named $SCOMM), each --nats-buffer 1M (about 4 batches): A with
# a spool rides the outage; B with a spool is SIGKILLed in the middle of
# it (the storm paused first, so B has spooled all it saw), a record cut
# short appended to its last segment (as a kill in a write leaves), and
# started again on the same spool; C without a spool must drop (else
# the outage proves nothing). The server back, A's and B's events are in
# stream SP each once, every one of the storm's; the spools empty.
SCOMM=pbspool$$
# storm RATE OUT: getpgid() RATE times a second in the background ($spid)
# until SIGTERM, then the calls made into OUT
storm() {
	/usr/bin/python3 - "$1" "$2" "$SCOMM" <<'PY' &
import ctypes, os, signal, sys, time
ctypes.CDLL(None).prctl(15, sys.argv[3].encode(), 0, 0, 0)   # PR_SET_NAME
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
n, per, t = 0, int(sys.argv[1]) // 100, time.monotonic()
while not stop:
    for _ in range(per):
        try:
            os.getpgid(10000000 + n)   # past pid_max: ESRCH, nothing found
        except OSError:
            pass
        n += 1
    t += 0.01
    d = t - time.monotonic()
    if d > 0:
        time.sleep(d)
    elif d < -0.1:      # stopped (SIGSTOP) meanwhile: no burst to catch up
        t = time.monotonic()
open(sys.argv[2], "w").write("%d\n" % n)
PY
	spid=$!
}
# (rings of 16M a CPU: the storm's events wait there 8 s, a tracer
# starved that long on a loaded machine would still lose none)
SPOOL_T=(--nats-buffer 1M --buffer-size 32M --comm "$SCOMM" tracepoint:syscalls:sys_enter_getpgid)
spool_ok=0
if start_attached tpid "$tmp/out" "$tmp/spa.err" trace --nats "$U1" --nats-host sa \
	--nats-stream SP --nats-stream-subjects 'pbsp.>' --subject 'pbsp.{host}.{probe}' \
	--nats-spool "$tmp/spa" "${SPOOL_T[@]}" &&
   start_attached tpid2 "$tmp/out2" "$tmp/spb.err" trace --nats "$U1" --nats-host sb \
	--subject 'pbsp.{host}.{probe}' --nats-spool "$tmp/spb" "${SPOOL_T[@]}" &&
   start_attached wpid "$tmp/out3" "$tmp/spc.err" trace --nats "$U1" --nats-host sc \
	--subject 'pbsp.{host}.{probe}' "${SPOOL_T[@]}"; then
	spool_ok=1
	storm 20000 "$tmp/storm.n"
	sleep 2
	stop_server s1 TERM
	t_out=$SECONDS
	sleep 12
	kill -STOP "$spid"
	sleep 1		# B drains its rings, spools its last batches
	kill -KILL "$tpid2"; wait "$tpid2" 2>/dev/null
	error_case err_nats_spool_in_use 'is in use by another perfbuf run' \
		trace --nats "$U1" --nats-wait --nats-spool "$tmp/spa" "${SPOOL_T[@]}"
	seg=$(ls "$tmp/spb"/*.seg | tail -1)
	head -c 100 "$seg" >>"$seg"	# a record's start, the rest never written
	torn_at=$(($(stat -c %s "$seg") - 100))
	if ! start_attached tpid2 "$tmp/out2" "$tmp/spb2.err" trace --nats "$U1" --nats-wait \
		--nats-host sb --subject 'pbsp.{host}.{probe}' --nats-spool "$tmp/spb" "${SPOOL_T[@]}"; then
		spool_ok=0
		fail nats_spool_kill_restart "did not attach again: $(cat "$tmp/spb2.err")"
	fi
	kill -CONT "$spid"
	left=$((30 - (SECONDS - t_out)))
	((left > 0)) && sleep "$left"
	server s1 "$U1" -a 127.0.0.1 -p "$P1" -js -sd "$tmp/s1"
	sleep 3
	kill -TERM "$spid"; wait "$spid"; spid=
	stop_trace
	kill -INT "$tpid2" "$wpid"; wait "$tpid2"; wait "$wpid"; tpid2= wpid=
else
	fail nats_spool_outage "did not attach: $(cat "$tmp/spa.err" "$tmp/spb.err" "$tmp/spc.err" 2>/dev/null)"
fi
if ((spool_ok)); then
	n=$(cat "$tmp/storm.n")
	echo "spool: a storm of $n events, the server away 30 s"
	grep -h '^perfbuf trace: [0-9]* events received\|^NATS events' "$tmp/spa.err" "$tmp/spb2.err" \
		"$tmp/spc.err"
	# what the rings lost (said, counted) is not the spool's to keep;
	# B's killed run said nothing: its restart's count only
	lost() { sed -n 's/^perfbuf trace: [0-9]* events received, \([0-9]*\) lost$/\1/p' "$1"; }
	"${UTIL[@]}" spool-check "$U1" SP pid 10000000 "$n" "sa=$(lost "$tmp/spa.err")" \
		"sb=$(lost "$tmp/spb2.err")" >"$tmp/sp.check"
	cat "$tmp/sp.check"
	check nats_spool_outage_every_event_once grep -q "^sa: .* $(lost "$tmp/spa.err") missing, 0 not expected, 0 more than once; 0 message ids twice$" "$tmp/sp.check"
	check nats_spool_kill_restart_every_event_once grep -q "^sb: .* $(lost "$tmp/spb2.err") missing, 0 not expected, 0 more than once; 0 message ids twice$" "$tmp/sp.check"
	read -r pub ack _ drop <<<"$(nats_counts "$tmp/spa.err")"
	check nats_spool_outage_none_dropped test "${pub:-x}" = "$ack" -a "$drop" = 0
	read -r pub ack _ drop <<<"$(nats_counts "$tmp/spb2.err")"
	check nats_spool_restart_none_dropped test "${pub:-x}" = "$ack" -a "$drop" = 0
	check nats_spool_restart_sent_first grep -q "^perfbuf trace: NATS spool $tmp/spb: [0-9]* batches ([0-9]* events) left by an earlier run, sent first$" "$tmp/spb2.err"
	check nats_spool_torn_record_cut grep -q "^perfbuf trace: NATS spool: $seg: a record cut short or damaged at byte $torn_at .*: 100 bytes after it dropped" "$tmp/spb2.err"
	check nats_spool_segments_removed test -z "$(find "$tmp/spa" "$tmp/spb" -name '*.seg')"
	read -r pub ack _ drop <<<"$(nats_counts "$tmp/spc.err")"
	full=$(sed -n 's/^NATS events: .* dropped (\([0-9]*\) buffer full.*/\1/p' "$tmp/spc.err")
	check nats_no_spool_outage_drops test "${full:-0}" -gt 10000 -a "${pub:-0}" = "$((ack + drop))"
fi
# never a server (--nats-wait), the run ends: what waited counted
# unacknowledged, exit 0 (libnats has no pending list to give back)
P6=$(free_ports)
timeout 60 "$PERFBUF" trace -d 1 --nats "nats://127.0.0.1:$P6" --nats-wait "$SEQ" >/dev/null 2>"$tmp/never.err"
check nats_never_connected_ends test $? = 0 -a "$(nats_counts "$tmp/never.err")" = "1 0 0 1"
# the spool full (1M, no server): the rest dropped, counted, said; what
# it holds kept at the end, and sent by the next run
if start_attached tpid "$tmp/out" "$tmp/full.err" trace --nats "nats://127.0.0.1:$P6" --nats-wait \
	--nats-buffer 64K --nats-spool "$tmp/spf" --nats-spool-size 1M \
	--subject 'pbsp.full.{probe}' "$SEQ"; then
	target 20000
	stop_trace
	read -r pub ack _ drop <<<"$(nats_counts "$tmp/full.err")"
	kept=$(sed -n 's/^NATS events: .*, \([0-9]*\) kept in the spool$/\1/p' "$tmp/full.err")
	check nats_spool_full_dropped_counted test "${drop:-0}" -gt 1000 -a "${kept:-0}" -gt 1000 \
		-a "$pub" = "$((ack + drop + kept))" -a "$(du -sk "$tmp/spf" | cut -f1)" -le 1100
	check nats_spool_full_said grep -q "^perfbuf trace: NATS spool $tmp/spf is full (--nats-spool-size 1M)" "$tmp/full.err"
	if start_attached tpid "$tmp/out" "$tmp/full2.err" trace --nats "$U1" --nats-spool "$tmp/spf" \
		--subject 'pbsp.full.{probe}' "$SEQ"; then
		stop_trace
		read -r pub ack _ drop <<<"$(nats_counts "$tmp/full2.err")"
		check nats_spool_kept_sent_next_run test "${pub:-0}" -gt "$kept" -a "$ack" = "$pub" \
			-a -z "$(find "$tmp/spf" -name '*.seg')"
	else
		fail nats_spool_kept_sent_next_run "did not attach: $(cat "$tmp/full2.err")"
	fi
else
	fail nats_spool_full_dropped_counted "did not attach: $(cat "$tmp/full.err")"
fi
touch "$tmp/notdir"
error_case err_nats_spool_not_dir 'is not a directory' \
	trace --nats "$U1" --nats-spool "$tmp/notdir" "${SPOOL_T[@]}"
error_case err_nats_spool_size_needs_dir 'nats-spool-size needs --nats-spool DIR' \
	trace --nats "$U1" --nats-spool-size 1G "${SPOOL_T[@]}"
error_case err_nats_spool_size_bad 'nats-spool-size wants a size' \
	trace --nats "$U1" --nats-spool "$tmp/spd" --nats-spool-size 1K "${SPOOL_T[@]}"
error_case err_nats_spool_empty 'nats-spool wants a directory$' \
	trace --nats "$U1" --nats-spool '' "${SPOOL_T[@]}"
error_case err_nats_spool_cannot_create "nats-spool '$tmp/none/sp': No such file or directory; give a directory this run may create" \
	trace --nats "$U1" --nats-spool "$tmp/none/sp" "${SPOOL_T[@]}"
mkdir "$tmp/ro"
if mount --bind "$tmp/ro" "$tmp/ro" && mount -o remount,bind,ro "$tmp/ro"; then
	error_case err_nats_spool_not_writable 'is not writable: Read-only file system' \
		trace --nats "$U1" --nats-spool "$tmp/ro" "${SPOOL_T[@]}"
	umount "$tmp/ro"
else
	skip err_nats_spool_not_writable "no read-only bind mount here"
fi

# --- no server at the start (--nats-wait), one later; the buffer bound -
P2=$(free_ports)
U2=nats://127.0.0.1:$P2
if start_attached tpid "$tmp/out" "$tmp/err" trace --nats "$U2" --nats-wait \
	--nats-stream W --stats "$SEQ"; then
	target 300
	sleep 0.3
	server s2 "$U2" -a 127.0.0.1 -p "$P2" -js -sd "$tmp/s2"
	wait_line "$tmp/err" 'created stream W' "$tpid"
	target 200
	sleep 1		# a --stats line
	stop_trace
	"${UTIL[@]}" lines "$U2" W >"$tmp/w.lines"
	check nats_server_down_at_start events_once "$tmp/w.lines" perfbuf. 500
	check nats_stats_line grep -q '^nats: [0-9]* published/s, [0-9]* acknowledged/s ([0-9]* batches/s), ' "$tmp/err"
else
	fail nats_server_down_at_start "did not attach: $(cat "$tmp/err")"
fi
stop_server s2
if start_attached tpid "$tmp/out" "$tmp/err" trace --nats "$U2" --nats-wait \
	--nats-buffer 4K --nats-stream B "$SEQ"; then
	target 100
	sleep 0.3
	server s2 "$U2" -a 127.0.0.1 -p "$P2" -js -sd "$tmp/s2b"
	wait_line "$tmp/err" 'created stream B' "$tpid"
	stop_trace
	read -r pub ack _ drop <<<"$(nats_counts "$tmp/err")"
	full=$(sed -n 's/^NATS events: .* dropped (\([0-9]*\) buffer full.*/\1/p' "$tmp/err")
	stored=$("${UTIL[@]}" lines "$U2" B | wc -l)
	check nats_buffer_bound_drops_counted test "${pub:-0}" -ge 101 -a "$((ack + drop))" = "$pub" \
		-a "${full:-0}" -gt 50 -a "$stored" = "$ack" -a "$ack" -gt 0
else
	fail nats_buffer_bound_drops_counted "did not attach: $(cat "$tmp/err")"
fi

# --- a three-node cluster, an R3 stream, a node killed and restarted ---
for v in 'CP[1]' 'CP[2]' 'CP[3]' 'NP[1]' 'NP[2]' 'NP[3]'; do read -r "$v"; done < <(free_ports 6)
routes="nats-route://127.0.0.1:${CP[1]},nats-route://127.0.0.1:${CP[2]},nats-route://127.0.0.1:${CP[3]}"
node() {	# node I: start (again) cluster node I
	start_server "n$1" -a 127.0.0.1 -p "${NP[$1]}" -js -sd "$tmp/n$1" -n "n$1" \
		--cluster_name pbc --cluster "nats://127.0.0.1:${CP[$1]}" --routes "$routes"
}
node 1; node 2; node 3
for i in 1 2 3; do
	"${UTIL[@]}" ready "nats://127.0.0.1:${NP[$i]}" 15 || fail nats_cluster_start "$(tail -3 "$tmp/n$i.log")"
done
# an elected meta leader may not know all three peers yet: an R3 stream
# placed first (once, through node 1)
"${UTIL[@]}" ready "nats://127.0.0.1:${NP[1]}" 30 3 || fail nats_cluster_start "no R3 placement: $(tail -3 "$tmp/n1.log")"
URLS="nats://127.0.0.1:${NP[1]},nats://127.0.0.1:${NP[2]},nats://127.0.0.1:${NP[3]}"
if start_attached tpid "$tmp/out" "$tmp/err" trace --nats "$URLS" --nats-stream C \
	--nats-replicas 3 --subject 'perfbuf.c.{probe}' "$SEQ"; then
	gen 30
	sleep 1
	stop_server n1		# the one we are connected to: the first URL
	sleep 1.5
	node 1
	"${UTIL[@]}" ready "nats://127.0.0.1:${NP[1]}" 15
	wait "$gpid"; gpid=
	stop_trace
	"${UTIL[@]}" lines "nats://127.0.0.1:${NP[2]}" C >"$tmp/c.lines"
	check nats_cluster_r3_every_event_once events_once "$tmp/c.lines" perfbuf.c. 3000
	read -r pub ack retried drop <<<"$(nats_counts "$tmp/err")"
	echo "cluster: published $pub, acknowledged $ack, retried $retried, dropped $drop"
	((drop)) && grep -v '^Attached' "$tmp/err"
	check nats_cluster_published_is_acknowledged_plus_dropped \
		test "${pub:-x}" = "$((ack + drop))" -a "$ack" = "$(wc -l <"$tmp/c.lines")"
	read -r pub ack retried drop <<<"$(nats_counts "$tmp/err" batches)"
	check nats_cluster_batches_published_is_acknowledged_plus_dropped \
		test "${pub:-x}" = "$((ack + drop))" -a "$ack" -gt 0
	# nats-tail through the cluster: each event once; a line behind one
	# printed before it (a batch resent after the kill, stored after newer
	# ones) is counted late, exactly those. (nats-server 2.9 puts an
	# ordered consumer on any of the stream's nodes, the restarted one
	# too: until it has caught up, --no-follow ends at its end. Read again
	# until it has.)
	for _ in $(seq 20); do
		timeout 60 "$PERFBUF" nats-tail --nats "$URLS" --nats-stream C --since all \
			--no-follow --json >"$tmp/c.tail" 2>"$tmp/c.tail.err"
		(($(grep -c '"type":"event"' "$tmp/c.tail") >= 3000)) && break
		sleep 0.5
	done
	check nats_cluster_tail_every_event_once_late_counted python3 - "$tmp/c.tail" "$tmp/c.tail.err" <<'PY'
import collections, json, re, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
seen = collections.Counter((o["pid"], o["args"]["i"]) for o in objs if o["type"] == "event")
behind, newest = 0, 0
for o in objs:
    behind += o["realtime_ns"] < newest
    newest = max(newest, o["realtime_ns"])
err = open(sys.argv[2]).read()
m = re.search(r"(\d+) lines came more than --latency after newer ones", err)
late = int(m.group(1)) if m else 0
print("cluster nats-tail: %d events, %d distinct, %d late" % (sum(seen.values()), len(seen), late))
sys.exit(0 if len(seen) == 3000 and set(seen.values()) == {1} and
         behind == late and "skipped" not in err else 1)
PY
else
	fail nats_cluster_r3_every_event_once "did not attach: $(cat "$tmp/err")"
fi

# --- errors: one line, exit 1, nothing attached ------------------------
P3=$(free_ports)
error_case err_nats_bad_url 'is not a NATS URL' trace --nats http://x "$SEQ"
error_case err_nats_refused 'Connection refused' trace --nats "nats://127.0.0.1:$P3" "$SEQ"
error_case err_nats_no_stream 'no JetStream stream holds subject' \
	trace --nats "$U1" --subject 'nostream.{host}' "$SEQ"
error_case err_nats_subject_not_in_stream 'stream T1 does not hold subject' \
	trace --nats "$U1" --nats-stream T1 --subject 'other.{host}' "$SEQ"
error_case err_nats_bad_subject 'empty token' trace --nats "$U1" --subject 'a..b' "$SEQ"
error_case err_nats_options_need_url 'need --nats URL' trace --subject a.b "$SEQ"
error_case err_nats_and_output 'give one of them' trace --nats "$U1" -o "$tmp/x" "$SEQ"
error_case err_run_nats_and_record 'give one of them' \
	run --nats "$U1" --record "$BUILD/tests/bpf/run_types.bpf.o"
error_case err_run_nats_refused 'Connection refused' \
	run --nats "nats://127.0.0.1:$P3" "$BUILD/tests/bpf/run_types.bpf.o"
error_case err_nats_batch_zero 'nats-batch wants events per message' \
	trace --nats "$U1" --nats-batch 0 "$SEQ"
error_case err_nats_batch_unit 'nats-batch wants events per message' \
	trace --nats "$U1" --nats-batch 64Q "$SEQ"
error_case err_nats_creds_missing "nats-creds '/nonexistent'" \
	trace --nats "$U1" --nats-creds /nonexistent "$SEQ"
error_case err_tail_no_stream 'no stream matches' nats-tail --nats "$U1" --subject 'zzz.>'
error_case err_tail_refused 'Connection refused' nats-tail --nats "nats://127.0.0.1:$P3"
check err_tail_refused_no_trace_option eval "! grep -q -- --nats-wait '$tmp/eerr'"
{ read -r P4; read -r P5; } < <(free_ports 2)
start_server auth -a 127.0.0.1 -p "$P4" --user u --pass secret
start_server nojs -a 127.0.0.1 -p "$P5"
for _ in $(seq 50); do
	grep -q 'Server is ready' "$tmp/auth.log" && grep -q 'Server is ready' "$tmp/nojs.log" && break
	sleep 0.1
done
error_case err_nats_auth_failure 'refused us: Authorization Violation' \
	trace --nats "nats://127.0.0.1:$P4" "$SEQ"
error_case err_nats_no_jetstream 'has no JetStream' trace --nats "nats://127.0.0.1:$P5" "$SEQ"

finish
