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
# is $BUILD an ASan build? (gcc links libasan.so, clang its static
# runtime: both name __asan_init) Behaviour checks can run smaller there.
asan_build() { readelf -sW "$BUILD/perfbuf" 2>/dev/null | grep -q '__asan_init'; }
finish() { exit $failed; }
