#!/usr/bin/env bash
# libperfbuf as a packager installs it: `make install DESTDIR PREFIX=/usr`,
# the installed tree, the ABI (only versioned perfbuf symbols, each API
# function exported and each export declared), programs built with only
# pkg-config against the installed copy, the examples built from the
# installed tree and run for real, then `make uninstall`.
# normal build only: the plain build is the one installed (it says so itself too)
source "$(dirname "$0")/lib.sh"
BUILD=$(realpath "$BUILD")
cd "$(dirname "$0")/.."
# gcc links libasan.so, clang its static runtime: both name __asan_init
if readelf -sW "$BUILD/libperfbuf.a" 2>/dev/null | grep -q '__asan_init'; then
	skip install "$BUILD is an ASan build; the plain build is installed and checked"
	finish
fi
tmp=$(mktemp -d)
root=$tmp/root
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	[[ -n ${cpu1:-} ]] && echo 1 >"$cpu1" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# make from make check: not its jobserver
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory "$@"; }
ver() { sed -n "s/^#define PERFBUF_$1_VERSION \\([0-9]*\\)$/\\1/p" include/perfbuf/version.h; }
MAJOR=$(ver MAJOR) MINOR=$(ver MINOR) PATCH=$(ver PATCH)
VERSION=$MAJOR.$MINOR.$PATCH
lib=$root/usr/lib

if ! mk install OUTPUT="$BUILD" DESTDIR="$root" PREFIX=/usr >"$tmp/log" 2>&1; then
	fail make_install "$(tail -5 "$tmp/log" | tr '\n' ' ')"
	finish
fi
pass make_install

# --- the installed tree
missing=
want() { [[ -e $root/$1 || -L $root/$1 ]] || missing+=" /$1"; }
for f in lib/libperfbuf.a lib/libperfbuf.so.$VERSION lib/libperfbuf.so.$MAJOR \
	 lib/libperfbuf.so lib/pkgconfig/libperfbuf.pc include/perfbuf.h bin/perfbuf \
	 lib/libperfbuf-object.a lib/libperfbuf-object.so.$VERSION lib/libperfbuf-object.so.$MAJOR \
	 lib/libperfbuf-object.so lib/pkgconfig/libperfbuf-object.pc \
	 share/man/man8/perfbuf.8 share/doc/libperfbuf/examples/Makefile; do
	want "usr/$f"
done
for f in include/perfbuf/*.h; do want "usr/include/perfbuf/${f##*/}"; done
for f in man/*.3; do want "usr/share/man/man3/${f##*/}"; done
for f in examples/*.[ch]; do want "usr/share/doc/libperfbuf/examples/${f##*/}"; done
while read -r fn group; do
	want "usr/share/man/man3/$fn.3"
	if [[ $fn != "$group" && -e $root/usr/share/man/man3/$fn.3 ]] &&
	   [[ $(cat "$root/usr/share/man/man3/$fn.3") != ".so man3/$group.3" ]]; then
		missing+=" (man3/$fn.3 is not a link to $group.3)"
	fi
done < <(scripts/man-links.sh --list src/libperfbuf.map
	 scripts/man-links.sh --list src/object/libperfbuf-object.map)
for f in python/perfbuf/*.py; do want "usr/lib/python3/dist-packages/perfbuf/${f##*/}"; done
[[ -z $missing ]] && pass installed_files || fail installed_files "missing:$missing"

# the Python package finds the library it was installed with
site=$root/usr/lib/python3/dist-packages
got=$(cd "$tmp" && PYTHONPATH=$site PERFBUF_LIB=$lib/libperfbuf.so.$MAJOR /usr/bin/python3 -c \
	'import perfbuf; print(perfbuf.version())' 2>&1)
[[ $got == "$VERSION" ]] && pass python_package ||
	fail python_package "import perfbuf from the installed tree: $got"
grep -q "^LIBDIR = '/usr/lib'$" "$site/perfbuf/_config.py" && pass python_libdir ||
	fail python_libdir "_config.py: $(cat "$site/perfbuf/_config.py")"

if [[ $(readlink "$lib/libperfbuf.so") == libperfbuf.so.$MAJOR &&
      $(readlink "$lib/libperfbuf.so.$MAJOR") == libperfbuf.so.$VERSION &&
      -f $lib/libperfbuf.so.$VERSION && ! -L $lib/libperfbuf.so.$VERSION ]]; then
	pass so_symlinks
else
	fail so_symlinks "$(ls -l "$lib" | tr '\n' ' ')"
fi
soname=$(readelf -d "$lib/libperfbuf.so.$VERSION" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
check soname_is_major [ "$soname" = "libperfbuf.so.$MAJOR" ]
check tool_version [ "$("$root/usr/bin/perfbuf" --version)" = "perfbuf $VERSION" ]

# --- the ABI
nm -D --defined-only "$lib/libperfbuf.so.$VERSION" | awk '{ print $NF }' >"$tmp/dyn"
nm -D --defined-only "$lib/libperfbuf-object.so.$VERSION" | awk '{ print $NF }' >"$tmp/odyn"
# the version nodes themselves are absolute symbols named for the node
bad=$(grep -vxE 'perfbuf[a-z0-9_]*@@LIBPERFBUF_[0-9]+\.[0-9]+|LIBPERFBUF_[0-9]+\.[0-9]+' "$tmp/dyn" | tr '\n' ' ')
bad+=$(grep -vxE 'perfbuf[a-z0-9_]*@@LIBPERFBUF_OBJECT_[0-9]+\.[0-9]+|LIBPERFBUF_OBJECT_[0-9]+\.[0-9]+' "$tmp/odyn" | tr '\n' ' ')
[[ -z $bad && -s $tmp/dyn && -s $tmp/odyn ]] && pass exports_only_versioned_perfbuf ||
	fail exports_only_versioned_perfbuf "unexpected dynamic symbols: $bad"
bad=$(nm -g --defined-only "$lib/libperfbuf.a" "$lib/libperfbuf-object.a" |
	awk 'NF == 3 && $3 !~ /^perfbuf/ { print $3 }' | tr '\n' ' ')
[[ -z $bad ]] && pass archive_exports_only_perfbuf ||
	fail archive_exports_only_perfbuf "libperfbuf.a or libperfbuf-object.a defines global $bad(internal names must be hidden)"
# the reading library needs libbpf, not libdw (nor libelf, zlib): its
# NEEDED and its pkg-config file say so
needed=$(readelf -d "$lib/libperfbuf.so.$VERSION" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
if [[ $needed == *libdw* || $needed == *libelf* || $needed == *libz* || $needed != *libbpf* ]] ||
   ! grep -qx 'Requires.private: libbpf' "$lib/pkgconfig/libperfbuf.pc"; then
	fail reader_needs_libbpf_only "NEEDED: $needed; $(grep Requires "$lib/pkgconfig/libperfbuf.pc")"
else
	pass reader_needs_libbpf_only
fi

sed -n 's/@@.*//p' "$tmp/dyn" "$tmp/odyn" | sort -u >"$tmp/exported"
# every function declared with PERFBUF_API in the installed headers
for h in "$root"/usr/include/perfbuf/*.h; do
	tr '\n' ' ' <"$h" | grep -oP 'PERFBUF_API[^;(]*?\K\bperfbuf\w*(?=\s*\()'
done | sort -u >"$tmp/declared"
unexported=$(comm -23 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')
undeclared=$(comm -13 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')
if [[ ! -s $tmp/declared ]]; then
	fail api_exported "no PERFBUF_API function found in the installed headers"
elif [[ -n $unexported ]]; then
	fail api_exported "declared PERFBUF_API but not exported: $unexported- add them to src/libperfbuf.map (or src/object/libperfbuf-object.map), in a new version node (see its comment)"
elif [[ -n $undeclared ]]; then
	fail api_exported "exported but declared in no installed header: $undeclared"
else
	pass api_exported
fi
# the newest node is the minor version: new functions come with a bump
nodes=$(grep -oE '^LIBPERFBUF_[0-9]+\.[0-9]+' src/libperfbuf.map | tr '\n' ' ')
onodes=$(grep -oE '^LIBPERFBUF_OBJECT_[0-9]+\.[0-9]+' src/object/libperfbuf-object.map | tr '\n' ' ')
if [[ " $nodes" == *" LIBPERFBUF_$MAJOR.$MINOR " && $nodes =~ ^(LIBPERFBUF_$MAJOR\.[0-9]+ )+$ &&
      $onodes =~ ^(LIBPERFBUF_OBJECT_$MAJOR\.[0-9]+ )+$ ]]; then
	pass version_nodes
else
	fail version_nodes "src/libperfbuf.map nodes $nodes: the newest must be LIBPERFBUF_$MAJOR.$MINOR (include/perfbuf/version.h)"
fi

# --- programs built with pkg-config only, run against the installed .so
export PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root
check pc_valid pkg-config --validate libperfbuf
check pc_object_valid pkg-config --validate libperfbuf-object
check pc_modversion [ "$(pkg-config --modversion libperfbuf)" = "$VERSION" ]
cat >"$tmp/hello.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <perfbuf.h>

int main(void)
{
	printf("%s\n", perfbuf_version());
	/* the headers and the library agree */
	return strcmp(perfbuf_version(), PERFBUF_VERSION) || !perfbuf_now_ns();
}
EOF
# $(pkg-config ...) unquoted: a list of flags
if cc -Wall -Werror -o "$tmp/hello" "$tmp/hello.c" $(pkg-config --cflags --libs libperfbuf) 2>"$tmp/err" &&
   out=$(LD_LIBRARY_PATH=$lib "$tmp/hello") && [[ $out == "$VERSION" ]] &&
   LD_LIBRARY_PATH=$lib ldd "$tmp/hello" | grep -q "libperfbuf.so.$MAJOR => $lib/"; then
	pass pkgconfig_program
else
	fail pkgconfig_program "$(head -3 "$tmp/err" | tr '\n' ' ') output '${out:-}'"
fi
# statically: pkg-config --static names libbpf's own dependencies, and a
# program may have functions named as the library's internal ones
cat >"$tmp/static.c" <<'EOF'
#include <stdio.h>
#include <perfbuf.h>

int channel_open(void) { return 0; }	/* internal names of the library */
int merge_fold(void) { return 0; }

int main(void)
{
	/* perfbuf__new() pulls in the collector, the channels and the merge */
	printf("%s %d\n", perfbuf_version(), perfbuf__new != NULL);
	return channel_open() + merge_fold();
}
EOF
if cc -Wall -o "$tmp/static" "$tmp/static.c" $(pkg-config --cflags libperfbuf) \
	-Wl,-Bstatic $(pkg-config --static --libs libperfbuf) -Wl,-Bdynamic 2>"$tmp/err" &&
   [[ $("$tmp/static") == "$VERSION 1" ]] && ! ldd "$tmp/static" | grep -q 'libperfbuf\|libbpf'; then
	pass static_program
else
	fail static_program "$(head -3 "$tmp/err" | tr '\n' ' ')"
fi

# wait_for FILE REGEX PID: until a line of FILE matches (10 s), PID alive
wait_for() {
	for _ in $(seq 100); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
# stop PID: SIGINT, wait; $rc is its exit status
stop() {
	kill -INT "$1"
	wait "$1"
	rc=$?
}
# storm N: a process pinned to CPU 0 that makes N getppid() calls once a
# byte comes on fd 3 (go); $storm is its pid
storm() {
	"$tmp/storm" "$1" <&3 >"$tmp/storm.out" &
	storm=$!
	pids+=("$storm")
	wait_for "$tmp/storm.out" '^ready' "$storm"
}
go() {
	printf x >&3
	wait "$storm"
}

run_examples() {
	cat >"$tmp/storm.c" <<'EOF'
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = atol(argv[1]);
	cpu_set_t set;
	char c;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (argc != 2 || sched_setaffinity(0, sizeof(set), &set))
		return 2;
	puts("ready");
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 3;
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}
EOF
	if ! cc -O2 -o "$tmp/storm" "$tmp/storm.c"; then
		fail examples_run "cannot build the syscall storm"
		return
	fi
	mkfifo "$tmp/go"
	exec 3<>"$tmp/go"
	run_proctrack
	run_tpcount
	run_flightrec
	exec 3>&-
}

# proctrack sees a /bin/true we run, exec then exit, in time order; and the
# CPU notices when CPU 1 goes offline and comes back
run_proctrack() {
	local p t r l o u hotplug=
	"$tmp/ex/proctrack" >"$tmp/pt.out" 2>"$tmp/pt.err" &
	p=$!
	pids+=("$p")
	if ! wait_for "$tmp/pt.out" '^TIME' "$p"; then
		fail proctrack_sees_true "$(head -3 "$tmp/pt.err" | tr '\n' ' ')"
		return
	fi
	/bin/true &
	t=$!
	wait "$t"
	cpu1=/sys/devices/system/cpu/cpu1/online	# set back by cleanup()
	if [[ -w $cpu1 && $(cat "$cpu1") == 1 ]] && echo 0 >"$cpu1" 2>/dev/null; then
		sleep 0.2
		echo 1 >"$cpu1"
		hotplug=1
	fi
	cpu1=
	sleep 0.3
	stop "$p"
	if ((rc == 0)) && grep -qE "EXEC $t +[0-9]+ +true +/bin/true\$" "$tmp/pt.out" &&
	   grep -qE "EXIT $t +[0-9]+ +true +\[0\]" "$tmp/pt.out" &&
	   (($(grep -nE "EXEC $t " "$tmp/pt.out" | cut -d: -f1) < \
	     $(grep -nE "EXIT $t " "$tmp/pt.out" | cut -d: -f1))); then
		pass proctrack_sees_true
	else
		fail proctrack_sees_true "rc $rc, pid $t: $(grep -E " $t " "$tmp/pt.out" | head -3 | tr '\n' ' ')"
	fi
	# times never go back but on a line marked late ('*' after the time)
	if awk 'NR > 1 && /^[0-9]/ { t = $1 + 0; if (t < prev && $1 !~ /\*$/) exit 1; if (t > prev) prev = t }' \
	       "$tmp/pt.out"; then
		pass proctrack_time_order
	else
		fail proctrack_time_order "$(awk 'NR > 1 { t = $1 + 0; if (t < prev) print; prev = t }' "$tmp/pt.out" | head -2)"
	fi
	# the last line: every exec and exit the program offered, accounted
	read -r r l o u <<<"$(ledger_line "$tmp/pt.out" proctrack)"
	if ((rc == 0)) && [[ -n $o ]] && ((o >= 2 && o == r + l + u)); then
		pass proctrack_ledger
	else
		fail proctrack_ledger "rc $rc, last line: $(tail -1 "$tmp/pt.out")"
	fi
	if [[ -z $hotplug ]]; then
		skip proctrack_cpu_notices "CPU 1 was not online or cannot go offline"
	elif grep -q '^CPU 1 went offline' "$tmp/pt.err" &&
	     grep -q '^CPU 1 came online' "$tmp/pt.err"; then
		pass proctrack_cpu_notices
	else
		fail proctrack_cpu_notices "stderr: $(head -3 "$tmp/pt.err" | tr '\n' ' ')"
	fi
}

# ledger_line FILE WHAT: "RECEIVED LOST OFFERED NO_READER" from the
# examples' last line, "WHAT: O offered = R received + L lost + N no
# reader" (or a line of before the ledger: "R received, L lost (the BPF
# program offered O)", no reader 0), with "=" where the counts agree
ledger_line() {
	local w=${2//./\\.}
	tail -1 "$1" | sed -nE \
		-e "s/^$w: ([0-9]+) offered = ([0-9]+) received \\+ ([0-9]+) lost \\+ ([0-9]+) no reader$/\\2 \\3 \\1 \\4/p" \
		-e "s/^$w: ([0-9]+) received, ([0-9]+) lost \\(the BPF program offered ([0-9]+)\\)$/\\1 \\2 \\3 0/p"
}

# tpcount NAME N [stopped]: count a storm of N getppid() calls of a known
# pid, the counter running or stopped (SIGSTOP: its ring overflows); the
# result in $got: "RECEIVED LOST OFFERED NO_READER"
tpcount() {
	local name=$1 n=$2 stopped=${3:-} c
	storm "$n" || { fail "$name" "the storm did not start"; return 1; }
	"$tmp/ex/tpcount" -p "$storm" syscalls:sys_enter_getppid >"$tmp/tc.out" 2>"$tmp/tc.err" &
	c=$!
	pids+=("$c")
	if ! wait_for "$tmp/tc.err" '^Counting' "$c"; then
		fail "$name" "$(head -3 "$tmp/tc.err" | tr '\n' ' ')"
		return 1
	fi
	[[ -n $stopped ]] && kill -STOP "$c"
	go
	[[ -n $stopped ]] && kill -CONT "$c"
	stop "$c"
	got=$(ledger_line "$tmp/tc.out" syscalls:sys_enter_getppid)
	((rc == 0)) && [[ -n $got ]] && return 0
	fail "$name" "rc $rc: $(cat "$tmp/tc.out" "$tmp/tc.err" | head -3 | tr '\n' ' ')"
	return 1
}

run_tpcount() {
	local r l o u c op
	if tpcount tpcount_exact 5000; then
		read -r r l o u <<<"$got"
		[[ $r == 5000 && $l == 0 && $o == 5000 && $u == 0 ]] && pass tpcount_exact ||
			fail tpcount_exact "5000 calls: $r received, $l lost, $o offered, $u no reader"
	fi
	# the consumer stopped: the ring fills, the rest is lost, and no LOST
	# record reports it (nothing fits after it): only the final drain can
	if tpcount tpcount_losses_exact 50000 stopped; then
		read -r r l o u <<<"$got"
		((r + l == 50000 && l > 0 && o == 50000 && u == 0)) && pass tpcount_losses_exact ||
			fail tpcount_losses_exact "50000 calls: $r received, $l lost, $o offered, $u no reader"
	fi
	# started while its tracepoint already fires (a shell opening
	# /dev/null in a loop): every hit is received, lost or had no reader,
	# none unaccounted, whatever the order of the set-up
	bash -c 'while :; do : </dev/null; done' &
	op=$!
	pids+=("$op")
	sleep 0.2
	"$tmp/ex/tpcount" syscalls:sys_enter_openat >"$tmp/tc.out" 2>"$tmp/tc.err" &
	c=$!
	pids+=("$c")
	wait_for "$tmp/tc.err" '^Counting' "$c" && sleep 0.5
	stop "$c"
	kill -KILL "$op" 2>/dev/null
	wait "$op" 2>/dev/null
	read -r r l o u <<<"$(ledger_line "$tmp/tc.out" syscalls:sys_enter_openat)"
	if [[ -z $o ]]; then
		fail tpcount_while_firing "rc $rc, no last line: $(cat "$tmp/tc.out" "$tmp/tc.err" | tail -3 | tr '\n' ' ')"
	elif ((rc == 0 && o > 100 && o == r + l + u)); then
		pass tpcount_while_firing
	else
		fail tpcount_while_firing "rc $rc: $o offered, $r received, $l lost, $u no reader: $((o - r - l - u)) unaccounted"
	fi
}

# flightrec dumps on SIGUSR1 the newest records only: a contiguous run of
# sequence numbers ending at the last one written; at exit, nothing new
run_flightrec() {
	local f
	storm 20000 || { fail flightrec_dump "the storm did not start"; return; }
	"$tmp/ex/flightrec" -p "$storm" >"$tmp/fr.out" 2>"$tmp/fr.err" &
	f=$!
	pids+=("$f")
	if ! wait_for "$tmp/fr.err" '^Recording' "$f"; then
		fail flightrec_dump "$(head -3 "$tmp/fr.err" | tr '\n' ' ')"
		return
	fi
	go
	kill -USR1 "$f"
	wait_for "$tmp/fr.out" '^--- [0-9-]+ records' "$f"
	stop "$f"
	# dump 1 (SIGUSR1), dump 2 (exit); a record's PID is field 3, SEQ
	# field 6; each dump ends with "--- N records of W written"
	if ((rc == 0)) && awk -v pid="$storm" '
		/^--- dump/ { d++; next }
		/^--- / { n[d] = $2; w[d] = $5; next }
		d == 1 && $3 == pid { if (cnt && $6 != last + 1) gap++; if (!cnt) first = $6; last = $6; cnt++ }
		d == 2 && $3 == pid { after++ }
		END { exit !(d == 2 && cnt > 100 && cnt == n[1] && !gap && first > 0 &&
			     last == w[1] - 1 && !after && n[2] == 0) }' "$tmp/fr.out"; then
		pass flightrec_dump
	else
		fail flightrec_dump "rc $rc: $(grep -- '^---' "$tmp/fr.out" | tr '\n' ' ')"
	fi
	# the last line: written into the rings (the newest kept) or no reader
	if ((rc == 0)) && tail -1 "$tmp/fr.out" | awk '
		$1 == "syscalls:" && $3 == "offered" && $4 == "=" && $6 == "written" &&
		$9 == "lost" && $12 == "no" && NF == 13 { ok = $2 > 0 && $2 == $5 + $8 + $11 }
		END { exit !ok }'; then
		pass flightrec_ledger
	else
		fail flightrec_ledger "rc $rc, last line: $(tail -1 "$tmp/fr.out")"
	fi
}

# --- the examples, from the installed tree
cp -r "$root/usr/share/doc/libperfbuf/examples" "$tmp/ex"
if ! mk -C "$tmp/ex" >"$tmp/log" 2>&1; then
	fail examples_build "$(grep -m3 -i 'error' "$tmp/log" | tr '\n' ' ')"
	finish
fi
long=
for f in "$tmp"/ex/*.c; do
	[[ $f == *.bpf.c ]] && continue
	n=$(wc -l <"$f")
	((n < 100)) || long+=" ${f##*/} ($n lines)"
	LD_LIBRARY_PATH=$lib ldd "${f%.c}" | grep -q "libperfbuf.so.$MAJOR => $lib/" ||
		long+=" ${f##*/} (not linked to the installed libperfbuf)"
done
[[ -z $long ]] && pass examples_build || fail examples_build "$long"

if ! need_root; then
	skip examples_run "needs root: BPF programs"
else
	export LD_LIBRARY_PATH=$lib
	run_examples
fi

# --- uninstall
if mk uninstall OUTPUT="$BUILD" DESTDIR="$root" PREFIX=/usr >"$tmp/log" 2>&1; then
	left=$(find "$root" -type f -o -type l | sed "s|^$root||" | tr '\n' ' ')
	[[ -z $left ]] && pass make_uninstall || fail make_uninstall "left behind: $left"
else
	fail make_uninstall "$(tail -3 "$tmp/log" | tr '\n' ' ')"
fi

# --- the library alone: make lib and make install-lib in a build tree of
# their own build no tool, skeleton or BPF object, link none of the tool's
# libraries, and install only the library's files
libonly=$tmp/libonly
if ! mk lib install-lib V=1 OUTPUT="$libonly" DESTDIR="$tmp/libroot" PREFIX=/usr \
	>"$tmp/libonly.log" 2>&1; then
	fail install_lib_alone "$(tail -3 "$tmp/libonly.log" | tr "\n" " ")"
	finish
fi
tool=$(cd "$libonly" && find . -name perfbuf -o -name '*.skel.h' -o -name '*.bpf.o' -o -path ./tools |
	tr '\n' ' ')
libs=$(grep -oE -- '-l(nats|deflate)\b' "$tmp/libonly.log" | sort -u | tr '\n' ' ')
needed=$(readelf -dW "$libonly/libperfbuf.so.$VERSION" | grep -oE 'lib(nats|deflate)[^]]*' | tr '\n' ' ')
got=$(cd "$tmp/libroot" && find . -type f -o -type l | sed 's|^\./||' | sort)
others=$(grep -vE '^usr/(lib/libperfbuf(-object)?\.(a|so.*)|lib/pkgconfig/libperfbuf(-object)?\.pc|include/perfbuf(\.h|/.*\.h)|share/man/man3/.*\.3|share/doc/libperfbuf/examples/.*)$' <<<"$got" |
	tr '\n' ' ')
if [[ -n $tool ]]; then
	fail install_lib_alone "make lib install-lib built the tool's parts: $tool"
elif [[ -n $libs$needed ]]; then
	fail install_lib_alone "the library links the tool's libraries: $libs$needed"
elif [[ -n $others ]]; then
	fail install_lib_alone "install-lib installed more than the library: $others"
elif ! grep -qx usr/lib/pkgconfig/libperfbuf.pc <<<"$got" ||
	! grep -qx usr/share/man/man3/perfbuf__poll.3 <<<"$got"; then
	fail install_lib_alone "no pkg-config file or man page installed: $(head -c 300 <<<"$got")"
else
	pass install_lib_alone
fi
finish
