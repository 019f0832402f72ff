# Sourced by each guest test tests/vm/t_NAME.sh (see tests/vm/vm.sh): the
# host tests' helpers (pass, fail, skip, check, finish, json_check), a
# scratch directory $tmp, the kernel series in $KVER, and:
#   vm_trace OUT WORKLOAD -- TRACE_ARGS...
#	perfbuf trace TRACE_ARGS in the background (--json added), waits until
#	it has attached (TCG is slow: up to 120 s), runs WORKLOAD (a shell
#	command), stops it with SIGINT; its stdout in OUT, stderr in OUT.err,
#	its exit status in $trc
#   vm_note WHAT: a progress line on the guest's console
#   pbdd FILE BS: reads FILE with one read() of BS bytes, as the command
#	pbvm_dd (a copy of dd: --comm pbvm_dd selects it)
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
tmp=$(mktemp -d)
tpid=
trap '[[ -n $tpid ]] && kill $tpid 2>/dev/null; rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../trace_lib.sh"
KVER=${KVER:-$(uname -r | cut -d. -f1,2)}
cp /bin/dd "$tmp/pbvm_dd"

pbdd() { "$tmp/pbvm_dd" if="$1" of=/dev/null bs="$2" count=1 status=none; }

vm_trace() {
	local out=$1 work=$2
	shift 3
	: >"$out" && : >"$out.err"
	"$PERFBUF" trace --json "$@" >"$out" 2>"$out.err" &
	tpid=$!
	for _ in $(seq 1200); do
		grep -q '^Attached' "$out.err" && break
		kill -0 $tpid 2>/dev/null || break
		sleep 0.1
	done
	eval "$work"
	# no pause: the tool drains the rings after SIGINT, its probes stopped
	kill -INT $tpid 2>/dev/null
	for _ in $(seq 1200); do
		running $tpid || break
		sleep 0.1
	done
	if running $tpid; then	# a hang fails the test, not the guest
		echo "vm_trace: perfbuf trace did not end 120 s after SIGINT; in $(cat /proc/$tpid/wchan 2>/dev/null); killed" >>"$out.err"
		for t in /proc/$tpid/task/*; do
			echo "  thread ${t##*/}: $(cat "$t/comm" 2>/dev/null) in $(cat "$t/wchan" 2>/dev/null)"
		done >>"$out.err"
		kill -KILL $tpid 2>/dev/null
	fi
	wait $tpid
	trc=$?
	tpid=
}
# vm_note WHAT: a line with the guest's uptime on its console, to follow
# a slow test from the host (the console file of tests/vm/vm.sh)
vm_note() { echo "[$(cut -d' ' -f1 /proc/uptime) s] ${0##*/}: $*" >/dev/console 2>/dev/null || :; }
# events FILE PROBE: the event objects of PROBE, one JSON line each
events() { grep '"type":"event"' "$1" | grep -F "\"probe\":\"$2\""; }
# show FILE: what a trace printed, for a failing check
show() { echo "--- $1:"; head -c 2000 "$1"; echo "--- stderr:"; head -c 1000 "$1.err"; }
# jcheck FILE EXPR: json_check with EXPR over several lines
jcheck() { json_check "$1" "($2)"; }
