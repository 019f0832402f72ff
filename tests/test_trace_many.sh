#!/usr/bin/env bash
# perfbuf trace with many probes: syscall tracepoints through the raw
# tracepoints sys_enter/sys_exit (one link, the values as the tracepoint
# gives them); at the end the flow stops at once, the drain and summary
# come before the (slow) detach and its progress lines; a signal while
# detaching leaves the rest to the kernel and exits; the warning before
# attaching hundreds of tracepoints; hundreds of uprobes in uprobe_multi
# links, detached at once.
# normal build only: attaching and detaching hundreds of tracepoints is the kernel's time; ASan runs the same attach and detach code in test_trace's globs
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/trace_lib.sh"
trace_test trace_stop stop
# about 100 tracepoints with perf events: seconds to detach on 6.x
many=('tracepoint:btrfs:*')
if (($(ls -d /sys/kernel/tracing/events/btrfs/*/ 2>/dev/null | wc -l) < 60)); then
	many=('tracepoint:ext4:*' 'tracepoint:sched:*' 'tracepoint:irq:*')
fi

# line N of FILE matching PATTERN (0: none)
line_of() { grep -n -m1 -- "$2" "$1" | cut -d: -f1 | grep . || echo 0; }

# links_of PID TYPE: its BPF links of TYPE (perf, raw_tracepoint)
links_of() { grep -h "^link_type:[[:space:]]*$2\$" /proc/"$1"/fdinfo/* 2>/dev/null | wc -l; }

# 0. syscall tracepoints: two raw tracepoint links, no perf event, and the
# record the tracepoint writes: registers 1-6 (mmap's fd and offset are the
# 5th and 6th), the number, the return value
name="pbm$$"
name=${name:0:15}
head -c 8192 /dev/zero >"$tmp/file"
if (($(uname -m | grep -c x86_64))) && start_trace --json --comm "$name" \
		tracepoint:syscalls:sys_enter_openat tracepoint:syscalls:sys_exit_openat \
		tracepoint:syscalls:sys_enter_mmap tracepoint:syscalls:sys_exit_getpgid; then
	raw=$(links_of "$tpid" raw_tracepoint) perf=$(links_of "$tpid" perf)
	# prints: fd, the errno of the failing open, the flags (os.open adds
	# O_CLOEXEC)
	python3 -c "
import errno, mmap, os
open('/proc/self/comm', 'w').write('$name')
fd = os.open('$tmp/file', os.O_RDONLY | os.O_CLOEXEC)
bad = os.O_WRONLY | os.O_CREAT | os.O_EXCL
try: os.open('$tmp/file', bad, 0o640)
except OSError as e: err = e.errno
m = mmap.mmap(fd, 4, mmap.MAP_PRIVATE, mmap.PROT_READ, offset=4096)
try: os.getpgid(4194305)
except OSError: pass
print(fd, err, os.O_RDONLY | os.O_CLOEXEC, bad | os.O_CLOEXEC, mmap.PROT_READ, mmap.MAP_PRIVATE, errno.ESRCH)" >"$tmp/py"
	stop_trace
	read -r fd err f1 f2 prot priv esrch <"$tmp/py"
	check syscalls_one_link_each test "$raw" = 2 -a "$perf" = 0
	check syscalls_enter_args json_check "$tmp/out" "([o['args'] for o in objs if o['type']=='event' and o['probe'].endswith('sys_enter_openat') and o['args']['filename'] == '$tmp/file'] ==
		[{'__syscall_nr': 257, 'dfd': -100, 'filename': '$tmp/file', 'flags': $f1, 'mode': 0},
		 {'__syscall_nr': 257, 'dfd': -100, 'filename': '$tmp/file', 'flags': $f2, 'mode': 0o640}])"
	check syscalls_exit_ret json_check "$tmp/out" "([o['args']['ret'] for o in objs if o['type']=='event' and o['probe'].endswith('sys_exit_openat')][-2:] == [$fd, -$err] and
		[o['args'] for o in objs if o['type']=='event' and o['probe'].endswith('sys_exit_getpgid')] == [{'__syscall_nr': 121, 'ret': -$esrch}])"
	check syscalls_six_args json_check "$tmp/out" "any(o['args'] == {'__syscall_nr': 9, 'addr': 0, 'len': 4, 'prot': $prot, 'flags': $priv, 'fd': $fd, 'off': 4096} for o in objs if o['type']=='event' and o['probe'].endswith('sys_enter_mmap'))"
	if ((failed)); then grep -v '"lib' "$tmp/out" | head -20; fi
else
	skip syscalls_one_link_each "x86-64 only, or did not attach: $(head -c 300 "$tmp/err")"
fi

# 1. -d ends it: the summary (text: on stderr), then "detaching N probes",
# then "detached"
timeout 300 "$PERFBUF" trace -d 1 "${many[@]}" >"$tmp/out" 2>"$tmp/err"
rc=$?
s=$(line_of "$tmp/err" '^[0-9]* events received')
a=$(line_of "$tmp/err" '^perfbuf trace: detaching [0-9]* probes, about [0-9]* s')
b=$(line_of "$tmp/err" '^perfbuf trace: detached [0-9]* probes in ')
check stop_exit_0 test "$rc" = 0
check stop_summary_before_detach test "$s" -gt 0 -a "$a" -gt "$s"
check stop_detach_done test "$b" -gt "$a"
if ((failed)); then cat "$tmp/err"; fi

# 2. Ctrl-C, then Ctrl-C while detaching: out at once, the kernel detaches
start_trace --json "${many[@]}" || fail second_sigint "did not attach: $(head -c 300 "$tmp/err")"
kill -INT "$tpid"
wait_line "$tmp/err" '^perfbuf trace: detaching' "$tpid"
kill -INT "$tpid"
wait "$tpid"
rc=$?
tpid=
left=$(sed -n 's/^perfbuf trace: leaving \([0-9]*\) probes for the kernel to detach (process \([0-9]*\) exits when it is done)$/\1 \2/p' "$tmp/err")
check second_sigint_exit_0 test "$rc" = 0
check second_sigint_leaves_rest [ -n "$(grep -E '^[1-9][0-9]* [0-9]+$' <<<"$left")" ]
check second_sigint_summary json_check "$tmp/out" "objs[-1]['type']=='summary'"
# the process that held the files is gone when the kernel is done
child=${left#* }
for _ in $(seq 1200); do kill -0 "$child" 2>/dev/null || break; sleep 0.1; done
check second_sigint_kernel_done test -n "$child" && ! kill -0 "$child" 2>/dev/null
if ((failed)); then cat "$tmp/err"; fi

# 3. hundreds of uprobes: one uprobe_multi link per binary and kind where
# the kernel has them (>= 6.6), every probe's events, and a prompt end: a
# uprobe's own perf event waits ~80 ms to detach, one at a time (200: 20 s
# after the summary); else the line that says so
probes=()
for n in $(seq 100 299); do probes+=("uprobe:$TARGET:pb_many_$n"); done
if start_trace --json "${probes[@]}" "uretprobe:$TARGET:pb_many_300" "uretprobe:$TARGET:pb_many_301"; then
	multi=$(($(links_of "$tpid" uprobe_multi) + $(links_of "$tpid" uretprobe_multi)))
	"$TARGET" 1
	t0=$(date +%s%N)
	stop_trace
	ms=$((($(date +%s%N) - t0) / 1000000))
	check uprobes_many_events json_check "$tmp/out" "($trc == 0 and
		sorted(o['probe'].split(':')[-1] for o in objs if o['type'] == 'event') ==
		sorted(['pb_many_%d' % n for n in range(100, 302)]) and
		all(o['args'] == {'ret': 301 + (o['probe'][-1] == '1')} for o in objs
		    if o['type'] == 'event' and o['probe'].startswith('uretprobe')))"
	if [[ $(uname -r) =~ ^([0-9]+)\.([0-9]+) ]] &&
	   ((BASH_REMATCH[1] > 6 || (BASH_REMATCH[1] == 6 && BASH_REMATCH[2] >= 6))); then
		check uprobes_many_two_multi_links test "$multi" = 2
		check uprobes_many_detach_prompt test "$ms" -lt 10000
	else
		check uprobes_many_detach_said grep -q '^perfbuf trace: detaching 202 probes, about [0-9]* s (the kernel waits ~80 ms per uprobe)' "$tmp/err"
	fi
	if ((failed)); then echo "  $ms ms from SIGINT to exit, $multi uprobe_multi links"; cat "$tmp/err"; fi
else
	fail uprobes_many_events "did not attach: $(head -c 300 "$tmp/err")"
fi

# 4. hundreds of tracepoints: a warning with the cost, before attaching
# (a filter no probe can take stops it right after)
error_lines=$("$PERFBUF" trace --filter 'no_such_field == 1' 'tracepoint:*:*' 2>&1 >/dev/null)
check warn_many_probes grep -qE '^perfbuf trace: warning: [0-9]{3,} tracepoints: attaching takes about [0-9]+ s and detaching at the end about [0-9]+ s' <<<"$error_lines"

finish
