#!/usr/bin/env bash
# Fault cases: no privileges, too few fds, a full filesystem, a stopped
# consumer, hostile output paths. Each ends in one clear line and exit 1,
# or in exact accounting.
source "$(dirname "$0")/lib.sh"
TARGET=$(realpath "$BUILD/tests/uprobe_target")
scratch faults
tpid=
cleanup() { [[ -n $tpid ]] && kill -CONT "$tpid" 2>/dev/null && kill "$tpid" 2>/dev/null; }
source "$(dirname "$0")/trace_lib.sh"
root_or_finish faults

# the tool, bounded: an error case it accepted would run for ever (exit 124
# then, and the test that expected an error fails)
PB=(timeout -k 5 60 "$PERFBUF")

# one_line NAME RC REGEX: the last command exited RC with exactly one
# stderr line ($tmp/eerr) matching REGEX
one_line() {
	local rc=$? name=$1 want=$2 re=$3
	if [[ $rc == "$want" && $(wc -l <"$tmp/eerr") == 1 ]] && grep -qE -- "$re" "$tmp/eerr"; then
		pass "$name"
	else
		fail "$name" "exit $rc, stderr: $(head -c 300 "$tmp/eerr")"
	fi
}

# 1. unprivileged: one line naming what is missing, exit 1; nobody runs
# copies ($pub), since the checkout may be private
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
public_copy "$PERFBUF" "$BUILD/tests/bpf/run_types.bpf.o"
PB_PUB=(timeout -k 5 60 "$pub/perfbuf")
if as_nobody test -x "$pub/perfbuf"; then
	as_nobody "${PB_PUB[@]}" trace tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
	one_line nobody_trace 1 "^perfbuf trace: missing CAP_BPF, CAP_PERFMON, CAP_DAC_READ_SEARCH \(tracefs is root's only\); run it as root"
	as_nobody "${PB_PUB[@]}" stress >/dev/null 2>"$tmp/eerr"
	one_line nobody_stress 1 "^perfbuf stress: missing CAP_BPF, CAP_PERFMON; run it as root"
	as_nobody "${PB_PUB[@]}" demo >/dev/null 2>"$tmp/eerr"
	one_line nobody_demo 1 "^perfbuf demo: missing CAP_BPF, CAP_PERFMON"
	as_nobody "${PB_PUB[@]}" list >/dev/null 2>"$tmp/eerr"
	one_line nobody_list 1 "^perfbuf list: missing CAP_DAC_READ_SEARCH"
	# granted the capabilities, an unprivileged user may run it
	as_nobody --inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon \
		"${PB_PUB[@]}" stress --rate 1k --duration 0.3 --json >"$tmp/out" 2>"$tmp/eerr"
	check nobody_with_caps_stress grep -q '"ok":true' "$tmp/out"
	as_nobody --inh-caps=+bpf,+perfmon,+dac_read_search --ambient-caps=+bpf,+perfmon,+dac_read_search \
		"${PB_PUB[@]}" trace -n 1 -d 5 tracepoint:sched:sched_switch >"$tmp/out" 2>"$tmp/eerr"
	check nobody_with_caps_trace grep -q sched_switch "$tmp/out"
	# run reads tracefs as trace does: the capability named, not a mount
	as_nobody --inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon \
		"${PB_PUB[@]}" run -d 1 "$pub/run_types.bpf.o" >/dev/null 2>"$tmp/eerr"
	one_line nobody_with_caps_run 1 "^perfbuf run: missing CAP_DAC_READ_SEARCH \(tracefs is root's only\); run it as root"
	# maps by id or name: the kernel wants CAP_SYS_ADMIN, CAP_BPF or not
	as_nobody --inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon \
		"${PB_PUB[@]}" attach -d 1 --map-id 1 >/dev/null 2>"$tmp/eerr"
	one_line nobody_with_caps_attach_id 1 "^perfbuf attach: cannot open map id 1: opening a map by id needs CAP_SYS_ADMIN; run it as root, or give --map-pinned PATH$"
	as_nobody --inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon \
		"${PB_PUB[@]}" attach -d 1 --map-name events >/dev/null 2>"$tmp/eerr"
	one_line nobody_with_caps_attach_name 1 "^perfbuf attach: cannot open map events: looking through the loaded maps needs CAP_SYS_ADMIN"
	# without CAP_IPC_LOCK, 2 x 16 MiB of rings is over the mlock limits
	as_nobody --inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon \
		"${PB_PUB[@]}" stress --pages 4096 --duration 0.2 >/dev/null 2>"$tmp/eerr"
	# said before any ring is mapped, with the numbers needed
	one_line nobody_mlock_limit 1 "^perfbuf stress: [0-9]+ rings of 16384 KiB need [0-9]+ KiB of locked memory past kernel.perf_event_mlock_kb, RLIMIT_MEMLOCK allows [0-9]+ KiB: raise 'ulimit -l' to [0-9]+, give CAP_IPC_LOCK, or a smaller --pages$"
	# tracefs not mounted, and no CAP_SYS_ADMIN to mount it (own namespace)
	if unshare -m true 2>/dev/null; then
		unshare -m bash -c "umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null
			setpriv --reuid=nobody --regid=nogroup --clear-groups \\
				--inh-caps=+bpf,+perfmon,+dac_read_search --ambient-caps=+bpf,+perfmon,+dac_read_search \\
				timeout -k 5 60 '$pub/perfbuf' trace tracepoint:sched:sched_switch" >/dev/null 2>"$tmp/eerr"
		one_line tracefs_mount_refused 1 "^perfbuf trace: tracefs is not mounted and mounting it failed \\(Operation not permitted: needs CAP_SYS_ADMIN\\); as root run: mount -t tracefs"
	else
		skip tracefs_mount_refused "no unshare -m"
	fi
else
	fail nobody "nobody cannot run $pub/perfbuf, a copy in a directory others can read"
fi
# root with every capability dropped is refused the same way
setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all \
	"${PB[@]}" stress >/dev/null 2>"$tmp/eerr"
one_line root_without_caps 1 "^perfbuf stress: missing CAP_BPF, CAP_PERFMON"

# 2. too few fds (fewer than the CPUs at the lowest): EMFILE, raise ulimit -n
for n in 4 8 32 64; do
	prlimit --nofile=$n "${PB[@]}" stress --duration 0.2 >/dev/null 2>"$tmp/eerr"
	one_line "nofile_${n}_stress" 1 "^perfbuf stress: Too many open files \(RLIMIT_NOFILE $n, [0-9]+ needed.*raise 'ulimit -n'$"
	prlimit --nofile=$n "${PB[@]}" trace tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
	one_line "nofile_${n}_trace" 1 "^perfbuf trace: Too many open files \(RLIMIT_NOFILE $n, .*raise 'ulimit -n'$"
	prlimit --nofile=$n "${PB[@]}" run -d 1 "$BUILD/tests/bpf/run_types.bpf.o" >/dev/null 2>"$tmp/eerr"
	one_line "nofile_${n}_run" 1 "^perfbuf run: Too many open files \(RLIMIT_NOFILE $n, .*raise 'ulimit -n'$"
	prlimit --nofile=$n "${PB[@]}" attach -d 1 --map-id 1 >/dev/null 2>"$tmp/eerr"
	one_line "nofile_${n}_attach" 1 "^perfbuf attach: Too many open files \(RLIMIT_NOFILE $n, .*raise 'ulimit -n'$"
done
# a low soft limit under a high hard one is raised, not an error
(ulimit -Sn 8 && "${PB[@]}" stress --rate 1k --duration 0.2 --json >"$tmp/out" 2>"$tmp/eerr")
check nofile_soft_limit_raised grep -q '"ok":true' "$tmp/out"

# too little address space for the kernel's BTF: libbpf's ESRCH ("No such
# process", no program named) replaced by the cause, said first
# (ASan maps terabytes of shadow: no 'ulimit -v' there)
if asan_build; then
	skip vmem_kernel_btf "an ASan build"
else
	for cmd in "trace tracepoint:sched:sched_switch" stress; do
		(ulimit -v 20000; exec "${PB[@]}" $cmd) >/dev/null 2>"$tmp/eerr"
		one_line "vmem_kernel_btf_${cmd%% *}" 1 "^perfbuf ${cmd%% *}: out of memory \(RLIMIT_AS: 'ulimit -v' 20000 KiB\) while loading the BPF programs?: the kernel's BTF \(/sys/kernel/btf/vmlinux\) does not fit; raise 'ulimit -v'$"
	done
	# run's loads are the library's (perfbuf_object__load): the same cause
	(ulimit -v 20000; exec "${PB[@]}" run -d 1 "$BUILD/tests/bpf/run_two_maps.bpf.o") >/dev/null 2>"$tmp/eerr"
	one_line vmem_kernel_btf_run 1 "^perfbuf run: out of memory \(RLIMIT_AS: 'ulimit -v' 20000 KiB\) while loading '.*run_two_maps.bpf.o': the kernel's BTF \(/sys/kernel/btf/vmlinux\) does not fit; raise 'ulimit -v'$"
	# profile under less and less room, up from where nothing starts:
	# every failure says its cause (one line when it did not start); in
	# the window where it starts but its reading fails (it ended with
	# exit 1 and not a word), the cause, then the summary of what it had.
	# The window is found, not assumed: it moves with the build.
	found= bad= ok=0 seen=
	for v in $(seq 13000 125 26000); do
		(ulimit -v "$v"; exec "${PB[@]}" profile -d 0.2) >/dev/null 2>"$tmp/eerr"
		rc=$?
		seen+=" $v:$rc"
		# the start needs a little more on some runs: on past a few
		if ((rc == 0)); then
			((++ok >= 6)) && break
			continue
		fi
		ok=0
		# too little for the dynamic loader: perfbuf never ran
		((rc == 127)) && grep -q 'error while loading shared libraries' "$tmp/eerr" && continue
		if grep -qx "perfbuf profile: reading the samples failed: Cannot allocate memory (RLIMIT_AS: 'ulimit -v' $v KiB); stopped there" "$tmp/eerr"; then
			grep -q '^perfbuf profile: [0-9]* samples in ' "$tmp/eerr" && found=$v ||
				{ bad="$v: no summary after the failure"; break; }
		elif ((rc != 1)) || [[ $(wc -l <"$tmp/eerr") != 1 ]] ||
		     ! grep -q "(RLIMIT_AS: 'ulimit -v' $v KiB)" "$tmp/eerr"; then
			bad="$v: exit $rc, $(head -c 300 "$tmp/eerr")"
			break
		fi
	done
	check vmem_profile_said test -z "$bad"
	[[ -n $bad ]] && echo "  ulimit -v scan: $bad; limit:exit$seen"
	# the window between a start that fails and a run that has room is
	# a few hundred KiB wide, and where it falls varies with what the
	# process has mapped: some runs' scans step over it
	if [[ -n $found ]]; then
		pass vmem_profile_reading_said
	elif [[ -z $bad ]]; then
		skip vmem_profile_reading_said "no 'ulimit -v' in 125 KiB steps made the reading fail after the start here (limit:exit$seen)"
	fi
fi

# 3. a full filesystem: the error, the count not written, exit 1 (it stops
# there); the whole lines written plus the events not written are all that
# was received
mkdir "$tmp/small"
if mount -t tmpfs -o size=16k perfbuf-test "$tmp/small" 2>/dev/null; then
	# 5000 lines of ~100 bytes: 30 times what fits
	if start_trace -o "$tmp/small/out" "uprobe:$TARGET:pb_target_neg"; then
		"$TARGET" 5000
		stop_trace
		line=$(grep -E "^perfbuf trace: writing $tmp/small/out failed: No space left on device; [0-9]+ events? not written$" "$tmp/err")
		check small_fs_error test "$trc" = 1 -a -n "$line"
		unwritten=$(grep -oE '[0-9]+ events? not written' <<<"$line" | cut -d' ' -f1)
		received=$(grep -oE '^[0-9]+ events received' "$tmp/err" | cut -d' ' -f1)
		# event lines start with the time; a cut last line is not written
		written=$(python3 -c 'import sys; d = open(sys.argv[1], "rb").read().split(b"\n")[:-1]
print(sum(l[:1].isdigit() for l in d))' "$tmp/small/out")
		check small_fs_accounting test "${received:-0}" -gt 0 -a "$((written + ${unwritten:-0}))" = "$received"
		# the summary names the cause, counts as not written what did
		# not reach the file, and nothing as past -n (none was given)
		check small_fs_summary_names_disk_full grep -qE "^$received events received: $written printed, 0 discarded \(past -n\); ${unwritten:-x} not written: disk full \($tmp/small/out\); [0-9]+ lost$" "$tmp/err"
	else
		fail small_fs_error "did not attach: $(cat "$tmp/err")"
	fi
	umount "$tmp/small"
else
	skip small_fs "cannot mount tmpfs"
fi

# 4. a stopped consumer: what fits the ring waits for it, what does not
# is counted lost, exactly (only the target hits the probe)
if traced sigstop_nothing_lost --json "uprobe:$TARGET:pb_target_neg"; then
	kill -STOP "$tpid"
	"$TARGET" 1000
	sleep 0.2
	kill -CONT "$tpid"
	"$TARGET" 5
	stop_trace
	check sigstop_nothing_lost json_check "$tmp/out" \
		"$trc==0 and sum(o['type']=='event' for o in objs)==1005 and objs[-1]['lost']==0"
fi
if traced sigstop_overflow_exact --json --pages 2 "uprobe:$TARGET:pb_target_neg"; then
	kill -STOP "$tpid"
	"$TARGET" 3000
	kill -CONT "$tpid"
	stop_trace
	check sigstop_overflow_exact json_check "$tmp/out" \
		"$trc==0 and objs[-1]['lost'] > 0 and sum(o['type']=='event' for o in objs) + objs[-1]['lost']==3000 and sum(o['count'] for o in objs if o['type']=='lost')==objs[-1]['lost']"
fi

# 5. output files: created 0600, never through a symlink, truncated only
# when regular; a FIFO is written as is, its reader waited for a second
"${PB[@]}" trace -n 2 -o "$tmp/new" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
check output_mode_0600 test "$(stat -c %a "$tmp/new")" = 600 -a "$(grep -c sched_switch "$tmp/new")" = 2
echo precious >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/link"
"${PB[@]}" trace -n 2 -o "$tmp/link" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
one_line output_symlink_refused 1 "^perfbuf trace: cannot write '$tmp/link': it is a symbolic link"
check output_symlink_target_kept test "$(cat "$tmp/victim")" = precious
ln "$tmp/victim" "$tmp/hardlink"
"${PB[@]}" trace -n 2 -o "$tmp/hardlink" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
one_line output_hardlink_refused 1 "^perfbuf trace: cannot write '$tmp/hardlink': it has other hard links"
check output_hardlink_target_kept test "$(cat "$tmp/victim")" = precious
# a socket: open() says ENXIO as for a FIFO unread, but no reader comes
/usr/bin/python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$tmp/sock"
start=$(date +%s%N)
"${PB[@]}" trace -n 2 -o "$tmp/sock" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
one_line output_socket_refused 1 "^perfbuf trace: cannot write '$tmp/sock': it is a socket"
check output_socket_at_once test $(( ($(date +%s%N) - start) / 1000000 )) -lt 900
head -c 100000 /dev/zero >"$tmp/old"
"${PB[@]}" trace -n 1 -o "$tmp/old" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
check output_regular_replaced test "$(grep -c sched_switch "$tmp/old")" = 1 -a "$(stat -c %s "$tmp/old")" -lt 1000

# another user's file in a sticky world-writable directory (/tmp): every
# command's output replaces it with one of ours (0600, FILE.XXXXXX
# renamed over it), never writes into it (it kept its owner and mode and
# was readable by that user)
mkdir -m 1777 "$tmp/sticky"
F=$tmp/sticky/out
plant() { rm -f "$F"; echo precious >"$F"; chown nobody:nogroup "$F"; chmod 666 "$F"; }
# ours: root's, 0600, no temporary file left beside it
ours() { [[ $(stat -c '%U %a' "$F") == "root 600" ]] && ! compgen -G "$F.*" >/dev/null; }
"${PB[@]}" record -n 2 -o "$tmp/two.cap" tracepoint:sched:sched_switch 2>/dev/null
obj=$BUILD/tests/bpf/run_types.bpf.o
for c in "trace -n 2 -o $F tracepoint:sched:sched_switch" "record -n 2 -o $F tracepoint:sched:sched_switch" \
	 "run -d 1 -o $F $obj" "run --record -d 1 -o $F $obj" "profile -d 0.2 --svg $F" \
	 "report --perf-data $F $tmp/two.cap"; do
	plant
	# shellcheck disable=SC2086
	"${PB[@]}" $c >/dev/null 2>"$tmp/eerr"
	rc=$?
	name=${c%% -*}
	name=output_other_users_file_${name// /_}
	[[ $c == *--record* ]] && name+=_record
	[[ $c == *--perf-data* ]] && name+=_perf_data
	if [[ $rc == 0 ]] && ours && ! grep -qx precious "$F"; then
		pass "$name"
	else
		fail "$name" "exit $rc, $(stat -c '%U %a' "$F"), $(ls "$tmp/sticky" | tr '\n' ' ') $(head -c 200 "$tmp/eerr")"
	fi
done

# a run that fails before it starts (a bad object, map or probe; or one
# of its probes cannot be set up after another could) leaves the file that
# was there as it was, and nothing beside it
for c in "run -o $F /no/such.bpf.o" "run --record -o $F /no/such.bpf.o" \
	 "run -o $F tests/bpf/run_test.h" "attach -o $F --map-id 2147483647" \
	 "trace -o $F tracepoint:no_such:probe" "record -o $F tracepoint:no_such:probe" \
	 "trace -o $F tracepoint:sched:sched_switch uprobe:/bin/true:no_such_fn" \
	 "record -o $F tracepoint:sched:sched_switch rawtracepoint:no_such_tp"; do
	echo precious >"$F"
	chmod 644 "$F"
	# shellcheck disable=SC2086
	"${PB[@]}" $c >/dev/null 2>"$tmp/eerr"
	rc=$?
	name=${c%% -*}
	name=output_kept_on_failed_${name// /_}
	[[ $c == *sched_switch* ]] && name=output_kept_on_failed_start_${c%% *}
	[[ $c == *--record* ]] && name+=_record
	[[ $c == *run_test.h* ]] && name+=_not_elf
	if [[ $rc == 1 && $(cat "$F") == precious && $(stat -c %a "$F") == 644 ]] &&
	   ! compgen -G "$F.*" >/dev/null; then
		pass "$name"
	else
		fail "$name" "exit $rc, $(wc -c <"$F") bytes, $(ls "$tmp/sticky" | tr '\n' ' ') $(head -c 200 "$tmp/eerr")"
	fi
done
mkfifo "$tmp/fifo"
timeout 60 cat "$tmp/fifo" >"$tmp/from_fifo" &
"${PB[@]}" trace -n 3 -o "$tmp/fifo" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
rc=$?
wait
check output_fifo test "$rc" = 0 -a "$(grep -c sched_switch "$tmp/from_fifo")" = 3
# a reader that opens the FIFO a little after us (its start raced ours)
(sleep 0.3; timeout 60 cat "$tmp/fifo" >"$tmp/from_fifo") &
"${PB[@]}" trace -n 3 -o "$tmp/fifo" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
rc=$?
wait
check output_fifo_late_reader test "$rc" = 0 -a "$(grep -c sched_switch "$tmp/from_fifo")" = 3
mkdir "$tmp/dir"
"${PB[@]}" trace -n 1 -o "$tmp/dir" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
one_line output_directory 1 "^perfbuf trace: cannot write '$tmp/dir': Is a directory$"
# a file that cannot be made: its directory named, with why
"${PB[@]}" trace -n 1 -o "$tmp/nodir/out" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
one_line output_no_directory 1 "^perfbuf trace: cannot create '$tmp/nodir/out': its directory '$tmp/nodir' does not exist$"
mkdir "$tmp/rodir"
unshare -m sh -c 'mount --bind -o ro "$1" "$1" && shift && exec "$@"' sh "$tmp/rodir" \
	"${PB[@]}" trace -n 1 -o "$tmp/rodir/out" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
one_line output_readonly_directory 1 "^perfbuf trace: cannot create '$tmp/rodir/out': its directory '$tmp/rodir' is on a read-only file system$"

# a file that cannot be replaced: a mount point (rename() says EBUSY) is
# written into, said at the start; an immutable or append-only file is
# refused at the start; one that turns immutable during the run leaves
# the output in FILE.perfbuf-part, named
mkdir "$tmp/mnt"
echo old >"$tmp/mnt/src"
echo old >"$tmp/mnt/F"
if mount --bind "$tmp/mnt/src" "$tmp/mnt/F"; then
	"${PB[@]}" trace -n 3 -o "$tmp/mnt/F" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
	rc=$?
	if [[ $rc == 0 && $(grep -c sched_switch "$tmp/mnt/F") == 3 ]] &&
	   grep -q "^perfbuf trace: '$tmp/mnt/F' is a mount point, which cannot be replaced: the output is written into it$" "$tmp/eerr" &&
	   ! compgen -G "$tmp/mnt/F.*" >/dev/null; then
		pass output_mount_point_trace
	else
		fail output_mount_point_trace "exit $rc, $(wc -l <"$tmp/mnt/F") lines, $(ls "$tmp/mnt" | tr '\n' ' ') $(head -c 300 "$tmp/eerr")"
	fi
	"${PB[@]}" record -n 3 -o "$tmp/mnt/F" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
	rc=$?
	n=$("$PERFBUF" report "$tmp/mnt/F" 2>/dev/null | grep -c sched_switch)
	check output_mount_point_record test "$rc" = 0 -a "$n" -ge 3
	# written at the end (a rename then): copied into it
	"${PB[@]}" profile -d 0.3 --svg "$tmp/mnt/F" >/dev/null 2>"$tmp/eerr"
	rc=$?
	check output_mount_point_profile_svg test "$rc" = 0 -a "$(grep -c '<svg' "$tmp/mnt/F")" -ge 1
	umount "$tmp/mnt/F"
	# another user's file bound there: neither replaced nor written into
	echo old >"$tmp/mnt/src"
	chown nobody "$tmp/mnt/src"
	mount --bind "$tmp/mnt/src" "$tmp/mnt/F"
	"${PB[@]}" trace -n 1 -o "$tmp/mnt/F" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
	one_line output_mount_point_not_ours 1 "^perfbuf trace: cannot write '$tmp/mnt/F': it cannot be replaced, and it is another user's file, which is not written into$"
	check output_mount_point_not_ours_kept test "$(cat "$tmp/mnt/src")" = old
	umount "$tmp/mnt/F"
else
	skip output_mount_point "cannot bind-mount a file"
fi
echo old >"$tmp/imm"
if chattr +i "$tmp/imm" 2>/dev/null; then
	"${PB[@]}" trace -n 3 -o "$tmp/imm" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
	one_line output_immutable_refused_at_start 1 "^perfbuf trace: cannot write '$tmp/imm': it is immutable \(chattr \+i\): clear that with 'chattr -i', or give another file$"
	chattr -i "$tmp/imm"
	chattr +a "$tmp/imm"
	"${PB[@]}" record -n 3 -o "$tmp/imm" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
	one_line output_append_only_refused_at_start 1 "^perfbuf record: cannot write '$tmp/imm': it is append-only \(chattr \+a\)"
	chattr -a "$tmp/imm"
	# made immutable while the run goes: nothing can be written at the end
	"${PB[@]}" profile -d 2 --svg "$tmp/imm" >/dev/null 2>"$tmp/eerr" &
	pid=$!
	sleep 1
	chattr +i "$tmp/imm"
	wait "$pid"
	rc=$?
	chattr -i "$tmp/imm"
	if [[ $rc == 1 && $(cat "$tmp/imm") == old ]] && grep -q '<svg' "$tmp/imm.perfbuf-part" &&
	   grep -q "the output is kept in $tmp/imm.perfbuf-part$" "$tmp/eerr"; then
		pass output_unplaceable_kept
	else
		fail output_unplaceable_kept "exit $rc, $(ls "$tmp" | tr '\n' ' ') $(head -c 300 "$tmp/eerr")"
	fi
	rm -f "$tmp/imm.perfbuf-part"
else
	skip output_immutable "chattr +i is not supported on $(stat -f -c %T "$tmp")"
fi

# -o naming one of our fds (/dev/stdout, /dev/stderr, /proc/self/fd/N):
# written to as it is, a pipe, a socket
n=$("${PB[@]}" trace -n 2 -o /dev/stdout tracepoint:sched:sched_switch 2>"$tmp/eerr" | grep -c sched_switch)
check output_dev_stdout_pipe test "${PIPESTATUS[0]}" = 0 -a "$n" = 2
# (stderr has the summary too, whose table names the probe: event lines only)
n=$("${PB[@]}" trace -n 2 -o /dev/stderr tracepoint:sched:sched_switch 2>&1 >/dev/null | grep -cE '^[0-9]+\.[0-9]+ .* sched_switch prev_comm=')
check output_dev_stderr test "$n" = 2
"${PB[@]}" record -n 2 -o /proc/self/fd/1 tracepoint:sched:sched_switch 2>"$tmp/eerr" | cat >"$tmp/piped.cap"
check output_proc_self_fd_pipe_record test "$("$PERFBUF" report "$tmp/piped.cap" 2>/dev/null | grep -c sched_switch)" -ge 2
n=$(/usr/bin/python3 -c 'import socket, subprocess, sys
a, b = socket.socketpair()
p = subprocess.run(sys.argv[1:], stdout=b, stderr=subprocess.DEVNULL)
b.close()
data = b"".join(iter(lambda: a.recv(65536), b""))
print(p.returncode, data.count(b"sched_switch"))' "${PB[@]}" trace -n 2 -o /dev/stdout tracepoint:sched:sched_switch)
check output_dev_stdout_socket test "$n" = "0 2"
"${PB[@]}" trace -n 2 -o /dev/fd/0 tracepoint:sched:sched_switch </dev/null >/dev/null 2>"$tmp/eerr"
one_line output_fd_read_only 1 "^perfbuf trace: cannot write '/dev/fd/0': that file descriptor is not open for writing$"

# SIGKILL: the events a run wrote are in FILE (it is the run's once the
# run started); kills before that leave one FILE.perfbuf-part at most,
# which the next run says and removes; one another run holds is not
# touched
K=$tmp/killed
echo old >"$K"
if start_trace -o "$K" "uprobe:$TARGET:pb_target_neg"; then
	"$TARGET" 100
	sleep 0.3
	kill -KILL "$tpid"
	wait "$tpid" 2>/dev/null
	tpid=
	n=$(grep -c pb_target_neg "$K")
	if [[ $n == 100 ]] && ! compgen -G "$K.*" >/dev/null; then
		pass output_sigkill_events_in_file
	else
		fail output_sigkill_events_in_file "$n events in it, $(ls "$tmp" | grep killed | tr '\n' ' ')"
	fi
else
	fail output_sigkill_events_in_file "did not attach: $(head -c 300 "$tmp/err")"
fi
for t in 0.05 0.1 0.2 0.3 0.5; do
	"$PERFBUF" trace -o "$K" 'tracepoint:sched:*' >/dev/null 2>&1 &
	pid=$!
	sleep "$t"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
done
left=$(compgen -G "$K.*" | wc -l)
check output_sigkill_at_most_one_part test "$left" -le 1
echo part >"$K.perfbuf-part"
chmod 600 "$K.perfbuf-part"
"${PB[@]}" trace -n 1 -o "$K" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
rc=$?
if [[ $rc == 0 ]] && grep -q "^perfbuf trace: '$K.perfbuf-part' was left by a run that was killed before its output became '$K' (5 bytes): removed$" "$tmp/eerr" &&
   ! compgen -G "$K.*" >/dev/null && [[ $(grep -c sched_switch "$K") == 1 ]]; then
	pass output_killed_part_said
else
	fail output_killed_part_said "exit $rc, $(ls "$tmp" | grep killed | tr '\n' ' ') $(head -c 300 "$tmp/eerr")"
fi
echo part >"$K.perfbuf-part"
flock "$K.perfbuf-part" sleep 30 &
lpid=$!
sleep 0.2
"${PB[@]}" trace -n 1 -o "$K" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
one_line output_part_in_use 1 "^perfbuf trace: cannot write '$K': another perfbuf run is writing it now"
check output_part_in_use_kept test "$(cat "$K.perfbuf-part")" = part
kill "$lpid"
wait "$lpid" 2>/dev/null
rm -f "$K.perfbuf-part"
# a FILE.perfbuf-part no run of ours left (a symbolic link): refused, kept
ln -s "$tmp/nowhere" "$K.perfbuf-part"
"${PB[@]}" trace -n 1 -o "$K" tracepoint:sched:sched_switch >/dev/null 2>"$tmp/eerr"
one_line output_part_not_ours 1 "^perfbuf trace: cannot write '$K': its name with '.perfbuf-part' added is taken by a file no run of ours left; remove that$"
check output_part_not_ours_kept test "$(readlink "$K.perfbuf-part")" = "$tmp/nowhere"
rm -f "$K.perfbuf-part"

# 6. a tracefs category that cannot be read, after one that could (a fake
# tracefs in a mount namespace of its own; root without the DAC
# capabilities): one line naming it, never a crash
if unshare -m true 2>/dev/null; then
	mkdir -p "$tmp/fakefs/events/aaa/pbx_other" "$tmp/fakefs/events/zzz/pbx_tp"
	chmod 000 "$tmp/fakefs/events/zzz"
	unshare -m bash -c "mount --bind '$tmp/fakefs' /sys/kernel/tracing &&
		setpriv --inh-caps=-dac_override,-dac_read_search \\
			--bounding-set=-dac_override,-dac_read_search \\
			timeout -k 5 60 '$PERFBUF' trace 'tracepoint:*:pbx_tp'" >/dev/null 2>"$tmp/eerr"
	one_line tracefs_category_unreadable 1 "^perfbuf trace: cannot read /sys/kernel/tracing/events/zzz: Permission denied$"
	chmod 755 "$tmp/fakefs/events/zzz"
else
	skip tracefs_category_unreadable "no unshare -m"
fi
finish
