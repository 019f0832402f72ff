# Helpers for the tests that run `perfbuf trace`: source it after lib.sh,
# with $tmp a scratch directory and $tpid cleaned up by the caller's trap
# (trace_test makes both).

# trace_test NAME SCRATCH: what a test of perfbuf trace starts with: $tmp
# (scratch SCRATCH), $TARGET (tests/uprobe_target), the trace in $tpid
# killed when the script ends; without root, SKIP NAME and the end
trace_test() {
	TARGET=$(realpath "$BUILD/tests/uprobe_target")
	scratch "$2"
	tpid=
	cleanup() { [[ -n $tpid ]] && kill "$tpid" 2>/dev/null; }
	root_or_finish "$1"
}

# start_attached PIDVAR OUT ERR ARGS...: perfbuf ARGS in the background,
# its pid in PIDVAR; wait until it has attached
start_attached() {
	local var=$1 out=$2 err=$3 pid
	shift 3
	# emptied here, not by the child's redirection: the wait below must
	# not find the previous run's "Attached" line
	: >"$out"
	: >"$err"
	"$PERFBUF" "$@" >"$out" 2>"$err" &
	pid=$!
	printf -v "$var" %s "$pid"
	attached "$err" "$pid"
}
# attached ERR PID: wait_line for the "Attached" line
attached() { wait_line "$1" '^Attached' "$2"; }
# after_attach ERR PID: attached ERR PID, then wait for PID; $attach_ms is
# the time between, $attach_rc PID's status. A time bound thus leaves out
# the start, seconds in a loaded ASan build.
after_attach() {
	local t0
	attached "$1" "$2"
	t0=$(date +%s%N)
	wait "$2"
	attach_rc=$?
	attach_ms=$((($(date +%s%N) - t0) / 1000000))
}
# start_trace ARGS...: perfbuf trace in the background, wait until attached
start_trace() {
	start_attached tpid "$tmp/out" "$tmp/err" trace "$@"
}
# running PID: it exists and has not exited (an unreaped child is a zombie)
running() {
	local st
	read -r st 2>/dev/null <"/proc/$1/stat" || return 1
	st=${st##*) }
	[[ ${st:0:1} != Z ]]
}
# traced NAME ARGS...: start_trace ARGS; when it did not attach, FAIL NAME
# (the test it was for) and false
traced() {
	local name=$1
	shift
	start_trace "$@" && return 0
	fail "$name" "did not attach: $(cat "$tmp/err")"
	return 1
}
# stop_trace: SIGINT, wait; $trc is the exit status. One that is still
# there 30 s later is killed (trc 137, a line on stderr): a hang fails its
# test instead of the whole file's time limit. No pause before: the
# records of what ran are in the rings, and the tool drains them after
# SIGINT (its probes stopped first).
stop_trace() {
	kill -INT "$tpid" 2>/dev/null	# it may have ended on its own
	local i
	for ((i = 0; i < 1500; i++)); do
		running "$tpid" || break
		sleep 0.02
	done
	if running "$tpid"; then
		echo "stop_trace: pid $tpid did not end 30 s after SIGINT; killed" >>"$tmp/err"
		kill -KILL "$tpid" 2>/dev/null
	fi
	wait "$tpid"
	trc=$?
	tpid=
}
# json_check FILE PYTHON: every line is JSON (list `objs`); run the check
json_check() {
	python3 - "$1" "$2" <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1], 'rb')]
sys.exit(0 if eval(sys.argv[2].strip()) else 1)
PY
}
# error_case NAME PATTERN ARGS...: exit 1, one line on stderr matching PATTERN
error_case() {
	local name=$1 pat=$2
	shift 2
	timeout 120 "$PERFBUF" "$@" >"$tmp/eout" 2>"$tmp/eerr"	# (an error case accepted runs on)
	local rc=$? lines
	lines=$(wc -l <"$tmp/eerr")
	if ((rc == 1)) && ((lines == 1)) && grep -q -- "$pat" "$tmp/eerr"; then
		pass "$name"
	else
		fail "$name" "exit $rc, stderr: $(head -c 300 "$tmp/eerr")"
	fi
}

# The ledger's storm (tests/test_trace.sh, tests/vm/t_ledger.sh): two
# probes hit 3:1. ledger_storm COMM N: a process named COMM calls
# getpgid() three times and getppid() once, N times
ledger_storm() {
	python3 -c 'import ctypes, os, sys
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)	# PR_SET_NAME
for i in range(int(sys.argv[2])):
	os.getpgid(0); os.getpgid(0); os.getpgid(0); os.getppid()' "$1" "$2"
}
# ledger_verdict json|text FILE N: what is wrong with the summary of a
# trace of ledger_storm's two probes (JSON: the output; text: stderr), or
# nothing: each probe offered what the storm made and lost some, offered
# = received + lost + no_reader + failed, the probes' lost and received
# add up to the summary's
ledger_verdict() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, re, sys
mode, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if mode == "json":
    s = [json.loads(l) for l in open(path) if '"summary"' in l][-1]
    probes, lost, received = s.get("probes", []), s["lost"], s["received"]
else:
    text = open(path).read()
    m = re.search(r"^(\d+) events received: .*; (\d+) lost", text, re.M)
    received, lost = int(m.group(1)), int(m.group(2))
    rows = re.findall(r"^(\d+) +(\d+) +(\d+) +(\d+) +(\S+)$", text, re.M)
    probes = [dict(zip(("offered", "received", "lost", "no_reader"), map(int, r[:4])),
                   probe=r[4], failed=0) for r in rows]
want = {"tracepoint:syscalls:sys_enter_getpgid": 3 * n,
        "tracepoint:syscalls:sys_enter_getppid": n}
got = {p["probe"]: p for p in probes}
bad = []
if sorted(got) != sorted(want):
    bad.append("probes %s" % sorted(got))
for k, v in want.items():
    p = got.get(k, {})
    if p.get("offered") != v:
        bad.append("%s offered %s, the storm made %d" % (k, p.get("offered"), v))
    if not p.get("lost"):
        bad.append("%s lost nothing" % k)
    if p and p["offered"] != p["received"] + p["lost"] + p["no_reader"] + p["failed"]:
        bad.append("%s: offered != received + lost + no_reader + failed: %s" % (k, p))
if sum(p["lost"] for p in probes) != lost:
    bad.append("the probes' lost add up to %d, the summary says %d" % (sum(p["lost"] for p in probes), lost))
if sum(p["received"] for p in probes) != received:
    bad.append("the probes' received add up to %d, the summary says %d" % (sum(p["received"] for p in probes), received))
print("; ".join(bad))
PY
}
