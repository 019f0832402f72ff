# Shell-test helpers: source it, then call pass/fail/skip once per subtest.
# Each prints one line (PASS/FAIL/SKIP name) that tests/run.sh adds up.
# $1 of the test script is the build directory holding the perfbuf tool.
BUILD=${1:?usage: $0 BUILD_DIR}
PERFBUF=$BUILD/perfbuf
# tests/test_memcheck.sh runs some scripts with the tool under valgrind
if [[ -n ${PERFBUF_VG_LOGS:-} ]]; then
	export PERFBUF_REAL=$(realpath "$PERFBUF")
	PERFBUF=$(realpath "$(dirname "${BASH_SOURCE[0]}")/vg-perfbuf")
fi
failed=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; failed=1; }
skip() { echo "SKIP $1 ($2)"; }
# check NAME COND...: PASS if the command succeeds, FAIL otherwise
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n"; return 1; fi; }
need_root() { [[ $(id -u) == 0 ]]; }
# root_or_finish NAME [WHY]: without root, SKIP NAME and end the script
root_or_finish() {
	need_root && return 0
	skip "$1" "needs root${2:+ ($2)}"
	finish
}
# scratch NAME: $tmp, a scratch directory; when the script ends, its
# cleanup() runs if it has one (its background runs), what it mounted in
# $tmp is unmounted, and $tmp goes (KEEP=1 keeps it all, to look at)
scratch() {
	tmp=$(mktemp -d "/tmp/perfbuf-$1.XXXXXX")
	trap scratch_end EXIT
	[[ -z ${KEEP:-} ]] || trap - EXIT
}
scratch_end() {
	declare -F cleanup >/dev/null && cleanup
	awk -v d="$tmp/" 'index($2, d) == 1 { print $2 }' /proc/mounts | xargs -r umount
	rm -rf "$tmp" ${pub:+"$pub"}
}
# public_copy FILE...: copies of FILEs in $pub, a directory every user can
# read (mode 0755 in /tmp, removed with $tmp), for what runs as another
# user (nobody, or the children of a capability-only binary): the
# checkout, its build and $tmp may be mode 0700 (a clone in /root or in
# a mktemp -d). Call it in the script's shell (it sets $pub); the copies
# keep their names: "$pub/perfbuf".
public_copy() {
	if [[ -z ${pub:-} ]]; then
		pub=$(mktemp -d /tmp/perfbuf-pub.XXXXXX) && chmod 755 "$pub" || return 1
	fi
	cp "$@" "$pub/" && chmod -R a+rX "$pub"
}
# end_runs SIGNAL PID...: SIGNAL to each PID given (empty ones left
# out), then wait for every background job (a cleanup's last step)
end_runs() {
	local sig=$1 p
	shift
	for p; do
		[[ -n $p ]] && kill "-$sig" "$p" 2>/dev/null
	done
	wait 2>/dev/null
}
# built_or_finish NAME FILE: FAIL NAME and end the script when make did
# not build FILE
built_or_finish() {
	[[ -x $2 ]] && return 0
	fail "$1" "$2 not built: run 'make'"
	finish
}
# is $BUILD an ASan build? (gcc links libasan.so, clang its static
# runtime: both name __asan_init) Behaviour checks can run smaller there.
asan_build() { readelf -sW "$BUILD/perfbuf" 2>/dev/null | grep -q '__asan_init'; }
# thread_target: a process of two threads (python's) in the background,
# its PID in $threaded, the ID of its thread that is not the leader in
# $thread; false if that thread did not show in 10 s. The caller kills
# $threaded.
thread_target() {
	/usr/bin/python3 -c 'import threading, time
threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
time.sleep(60)' &
	threaded=$! thread=
	for _ in $(seq 200); do
		thread=$(ls "/proc/$threaded/task" 2>/dev/null | grep -vx "$threaded" | head -1)
		[[ -n $thread ]] && return 0
		sleep 0.05
	done
	return 1
}
# wait_line FILE REGEX [PID]: wait until a line of FILE matches REGEX;
# false after 60 s (a loaded machine's ASan build starts in seconds), or
# when PID ended without it. Empty FILE before PID starts: a line of the
# last run must not count.
wait_line() {
	for _ in $(seq 1200); do
		grep -qs -- "$2" "$1" && return 0
		if [[ -n ${3:-} ]] && ! kill -0 "$3" 2>/dev/null; then
			grep -qs -- "$2" "$1"	# (the line came just before the exit)
			return
		fi
		sleep 0.05
	done
	return 1
}
# spin SECONDS: a CPU busy for that long (a sampler needs it: the idle task
# is not sampled)
spin() { timeout "$1" bash -c 'while :; do :; done'; }
# free_ports [N]: N (1) free TCP ports on 127.0.0.1, a line each, all
# different: every socket is held until all are bound (ports chosen one by
# one, each freed at once, could come out twice)
free_ports() {
	/usr/bin/python3 -c 'import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print("\n".join(str(s.getsockname()[1]) for s in socks))' "${1:-1}"
}
finish() { exit $failed; }
