#!/usr/bin/env bash
# perfbuf profile: both engines on tests/targets/profile_target.c (known
# call paths, frame pointers), kernel frames of a syscall loop, a process
# that exits (its binary deleted) during the run, the outputs (folded, JSON,
# an SVG rendered by headless Chromium), bad options.
source "$(dirname "$0")/lib.sh"
scratch profile
TARGET=$BUILD/tests/profile_target
pids=()
cleanup() { kill "${pids[@]}" $threaded 2>/dev/null; }

# one_line_error NAME REGEX ARGS...: exit 1 and exactly one stderr line
one_line_error() {
	local name=$1 re=$2
	shift 2
	"$PERFBUF" profile "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	local rc=$?
	if [[ $rc == 1 && $(wc -l <"$tmp/err") == 1 ]] && grep -qE -e "$re" "$tmp/err"; then
		pass "$name"
	else
		fail "$name" "rc=$rc stderr=$(cat "$tmp/err")"
	fi
}

one_line_error bad_frequency "bad frequency 'abc'" -F abc
one_line_error zero_frequency "bad frequency '0'" -F 0
one_line_error frequency_over_max "above kernel.perf_event_max_sample_rate" -F 1000000
one_line_error no_such_pid "no process with PID '999999999'" -p 999999999
if thread_target; then
	one_line_error pid_thread_refused "^perfbuf profile: -p $thread is a thread of process $threaded: -p takes a process ID" -p "$thread"
	kill "$threaded"
else
	fail pid_thread_refused "no thread of a two-thread python in 10 s"
fi
one_line_error bad_cpu "CPU 4095 is not online" --cpu 4095
one_line_error bad_engine "unknown engine 'frob'.*--engine bpf or --engine perf" --engine frob
one_line_error user_and_kernel_only "exclude each other" --user-only --kernel-only
# a full disk: said in the words of every command's stdout (a busy loop
# beside it: an idle machine gives no samples, and nothing to write)
if need_root; then
	timeout 3 sh -c 'while :; do :; done' &
	"$PERFBUF" profile -d 1 >/dev/full 2>"$tmp/full.err"
	check folded_disk_full test $? = 1 -a -n \
		"$(grep -x 'perfbuf profile: writing stdout failed: No space left on device' "$tmp/full.err")"
fi
one_line_error bad_duration "^perfbuf profile: -d wants a duration from 1ms to 1000d .*, not '-1'$" -d -1
one_line_error svg_needs_file "--svg needs a value" --svg
one_line_error stray_argument "unexpected argument 'extra'" extra
one_line_error unknown_option "unknown option '--frob'; run 'perfbuf profile --help'" --frob
check help bash -c "'$PERFBUF' profile --help | grep -q '^Usage: perfbuf profile'"

root_or_finish profile_runs
built_or_finish profile_target "$TARGET"

# profile ENGINE MODE SECONDS HZ [OPTIONS...]: profile_target MODE under
# `perfbuf profile -p`, from the moment sampling starts to the target's
# end. Leaves $tmp/ENGINE.MODE.{folded,err,cpu} (cpu: the target's CPU
# seconds of work).
profile() {
	local engine=$1 mode=$2 secs=$3 hz=$4 t p
	local out=$tmp/$engine.$mode
	shift 4
	# emptied here, not by the redirections: a run of the same engine and
	# mode before left its lines, which the waits below must not find
	: >"$out.tgt"
	: >"$out.err"
	"$TARGET" "$mode" "$secs" wait >"$out.tgt" &
	t=$!
	pids+=("$t")
	wait_line "$out.tgt" waiting "$t"
	"$PERFBUF" profile --engine "$engine" -F "$hz" -p "$t" "$@" >"$out.folded" 2>"$out.err" &
	p=$!
	wait_line "$out.err" '^perfbuf profile: sampling' "$p"
	kill -USR1 "$t"
	wait "$p"
	echo "rc=$?" >>"$out.err"
	wait "$t"
	sed -n 's/^cpu_seconds //p' "$out.tgt" >"$out.cpu"
}

# analyse FOLDED CPU_SECONDS HZ: the checks of the known call path
analyse_cpu() {
	python3 - "$@" <<'EOF'
import re, sys
folded, cpu, hz = sys.argv[1], float(open(sys.argv[2]).read() or 0), int(sys.argv[3])
total = top = path = edge = 0
for line in open(folded):
    stack, n = line.rstrip('\n').rsplit(' ', 1)
    n = int(n)
    if not stack.startswith('profile_target;'):
        continue
    frames = stack.split(';')
    total += n
    top += n * (frames[-1] == 'hot')
    path += n * (';main;outer;middle;hot' in stack)
    # a sample in hot's push/mov or pop/ret, where rbp is still middle's
    # frame: a frame-pointer walk (perf's too) skips middle (seen 1 in
    # about 9000 samples)
    edge += n * stack.endswith(';main;outer;hot')
want = hz * cpu
errs = []
if total == 0 or top < 0.8 * total:
    errs.append('hot on top of %d of %d samples (< 80%%)' % (top, total))
if path + edge < top or edge > 0.01 * top:
    errs.append('main;outer;middle;hot in order in %d of the %d with hot on top (%d more caught in its prologue or epilogue)' % (path, top, edge))
if not 0.8 * want <= total <= 1.2 * want:
    errs.append('%d samples for %.3f CPU s at %d Hz (want %.0f +-20%%)' % (total, cpu, hz, want))
print('; '.join(errs) if errs else 'ok %d samples (want %.0f), hot on top of %.1f%%' % (total, want, 100.0 * top / total))
EOF
}

for engine in bpf perf; do
	profile "$engine" cpu 1.5 499
	res=$(analyse_cpu "$tmp/$engine.cpu.folded" "$tmp/$engine.cpu.cpu" 499)
	if grep -q '^rc=0' "$tmp/$engine.cpu.err" && [[ $res == ok* ]]; then
		pass "known_call_path_$engine ($res)"
	else
		fail "known_call_path_$engine" "$res; $(tr '\n' ' ' <"$tmp/$engine.cpu.err")"
	fi
	check "reports_lost_and_throttled_$engine" \
		grep -qE '^perfbuf profile: [0-9]+ samples in .* lost [0-9]+, throttled [0-9]+$' "$tmp/$engine.cpu.err"
done

# the two engines: the same stacks, each within 10 points of the other's
# share (libc's frames print as addresses: they differ per run)
agree=$(python3 - "$tmp/bpf.cpu.folded" "$tmp/perf.cpu.folded" <<'EOF'
import re, sys
def shares(path):
    c = {}
    for line in open(path):
        stack, n = line.rstrip('\n').rsplit(' ', 1)
        if stack.startswith('profile_target;'):
            stack = re.sub(r'0x[0-9a-f]+', 'ADDR', stack)
            c[stack] = c.get(stack, 0) + int(n)
    total = sum(c.values()) or 1
    return {k: v / total for k, v in c.items()}
a, b = shares(sys.argv[1]), shares(sys.argv[2])
ta, tb = max(a, key=a.get), max(b, key=b.get)
if ta != tb:
    print('top stacks differ: %s / %s' % (ta, tb))
elif abs(a[ta] - b[tb]) > 0.1:
    print('top stack %.2f vs %.2f' % (a[ta], b[tb]))
else:
    print('ok %s: %.2f / %.2f' % (ta.split(';')[-1], a[ta], b[tb]))
EOF
)
[[ $agree == ok* ]] && pass "engines_agree ($agree)" || fail engines_agree "$agree"

# kernel frames of a syscall loop, below the user frames that made it
for engine in bpf perf; do
	profile "$engine" syscalls 1 499
	res=$(python3 - "$tmp/$engine.syscalls.folded" <<'EOF'
import sys
total = kern = 0
for line in open(sys.argv[1]):
    stack, n = line.rstrip('\n').rsplit(' ', 1)
    if not stack.startswith('profile_target;'):
        continue
    total += int(n)
    if ';main;sys_loop;' in stack and 'do_syscall_64_[k]' in stack and \
       stack.index('sys_loop') < stack.index('_[k]'):
        kern += int(n)
ok = total and kern >= 0.25 * total
print(('ok ' if ok else '') + '%d of %d samples in the kernel under sys_loop' % (kern, total))
EOF
)
	[[ $res == ok* ]] && pass "kernel_frames_$engine ($res)" || fail "kernel_frames_$engine" "$res"
done

# --user-only / --kernel-only: only frames of that kind
profile bpf syscalls 0.5 499 --user-only
check user_only bash -c "grep -q 'main;sys_loop' '$tmp/bpf.syscalls.folded' && ! grep -q '_\[k\]' '$tmp/bpf.syscalls.folded'"
profile perf syscalls 0.5 499 --kernel-only
check kernel_only python3 - "$tmp/perf.syscalls.folded" <<'EOF'
import sys
seen = 0
for line in open(sys.argv[1]):
    frames = line.rsplit(' ', 1)[0].split(';')[1:]
    if any(not f.endswith('_[k]') for f in frames):
        sys.exit('user frame in ' + line)
    seen += 'do_syscall_64_[k]' in frames
sys.exit(0 if seen else 'no kernel stack')
EOF

# A process that runs, exits and whose binary is deleted, all during a
# system-wide run: still named at the end (symbols read at first sight).
for engine in bpf perf; do
	cp "$TARGET" "$tmp/gone_target"
	: >"$tmp/sw.err"	# not the last engine's line
	# Ctrl-C after it, not -d: the target's 0.4 s of CPU can take longer
	"$PERFBUF" profile --engine "$engine" -F 199 >"$tmp/sw.folded" 2>"$tmp/sw.err" &
	p=$!
	wait_line "$tmp/sw.err" '^perfbuf profile: sampling' "$p"
	"$tmp/gone_target" cpu 0.4 >/dev/null
	rm -f "$tmp/gone_target"
	kill -INT "$p"
	wait "$p"
	check "exited_process_named_$engine" grep -qE '^gone_target;.*main;outer;middle;hot [0-9]+$' "$tmp/sw.folded"
done

# -p of a process that exits and is not reaped (its parent, sleep, never
# waits): the run ends by itself, exit 0 (kill(pid, 0) saw the zombie as
# alive: the run went on until the parent did)
( sleep 0.5 & echo $! >"$tmp/zpid"; exec sleep 30 ) &
pids+=("$!")
for _ in $(seq 100); do [[ -s $tmp/zpid ]] && break; sleep 0.05; done
timeout 120 "$PERFBUF" profile -p "$(cat "$tmp/zpid")" >/dev/null 2>"$tmp/zombie.err"
rc=$?
check pid_zombie_ends_run bash -c "[[ $rc == 0 ]] && grep -q 'process $(cat "$tmp/zpid") ended' '$tmp/zombie.err'" ||
	head -c 300 "$tmp/zombie.err"
kill "${pids[-1]}" 2>/dev/null

# JSON Lines: stack objects and a summary, all valid
profile perf cpu 0.5 199 --json
check json_output python3 - "$tmp/perf.cpu.folded" <<'EOF'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
stacks = [o for o in objs if o['type'] == 'stack']
summ = objs[-1]
assert summ['type'] == 'summary' and summ['engine'] == 'perf' and summ['hz'] == 199
assert summ['samples'] == sum(o['count'] for o in stacks), 'counts add up'
assert any(o['ustack'][-4:] == ['main', 'outer', 'middle', 'hot'] for o in stacks)
assert all(isinstance(o['kstack'], list) and o['pid'] > 0 for o in stacks)
assert 'lost' in summ and 'throttled' in summ
EOF

# The flame graph: well-formed, its script runs in Chromium (the boxes
# counted into data-ready), it renders (user frames' warm colours on the
# screenshot), and #zoom=NAME zooms (boxes outside hidden).
profile bpf mixed 0.6 499 --svg "$tmp/flame.svg"
check svg_well_formed python3 -c "
import sys, xml.dom.minidom
d = xml.dom.minidom.parse('$tmp/flame.svg')
t = [g.getElementsByTagName('title')[0].firstChild.data for g in d.getElementsByTagName('g')]
sys.exit(0 if any(x.startswith('sys_loop ') for x in t) and any(x.startswith('hot ') for x in t) and any('_[k] (' in x for x in t) else 'frames missing')"
if ! command -v chromium >/dev/null; then
	fail svg_renders "chromium is not installed: run 'make setup'"
else
	chrome() { timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$tmp/chrome" "$@" 2>/dev/null; }
	chrome --dump-dom "file://$tmp/flame.svg" >"$tmp/dom"
	boxes=$(grep -c '<g class="f"' "$tmp/flame.svg")
	check svg_script_runs grep -q "data-ready=\"$boxes\"" "$tmp/dom"
	chrome --window-size=1200,400 --screenshot="$tmp/shot.png" "file://$tmp/flame.svg" >/dev/null
	check svg_renders python3 - "$tmp/shot.png" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n'
pos, idat, w = 8, b'', 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
        bpp = {2: 3, 6: 4}[ctype]
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
raw, rows, prev = zlib.decompress(idat), [], bytearray(w * bpp)
for y in range(h):
    f, line = raw[y * (w * bpp + 1)], bytearray(raw[y * (w * bpp + 1) + 1:(y + 1) * (w * bpp + 1)])
    for i in range(len(line)):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
warm = sum(1 for r in rows for i in range(0, w * bpp, bpp) if r[i] > 200 and r[i + 2] < 80)
cool = sum(1 for r in rows for i in range(0, w * bpp, bpp) if r[i] < 120 and r[i + 1] > 160)
sys.exit(0 if warm > 1000 and cool > 100 else 'warm %d cool %d pixels' % (warm, cool))
EOF
	chrome --dump-dom "file://$tmp/flame.svg#zoom=sys_loop" >"$tmp/dom.zoom"
	check svg_zoom python3 - "$tmp/dom.zoom" <<'EOF'
import re, sys
dom = open(sys.argv[1]).read()
# zoomed on sys_loop: its box spans the width, hot (under outer) is hidden
hot = re.search(r'<g class="f"[^>]*style="display: none;"[^>]*><title>hot ', dom)
full = re.search(r'<title>sys_loop \([^<]*</title><rect x="10" y="[0-9]+" width="1180"', dom)
sys.exit(0 if hot and full else 'hot hidden: %s, sys_loop full width: %s' % (bool(hot), bool(full)))
EOF
fi

# Ctrl-C ends a run like -d does; a reader that stops early (| head -1)
# is no error
"$PERFBUF" profile >"$tmp/int.folded" 2>"$tmp/int.err" &
p=$!
wait_line "$tmp/int.err" '^perfbuf profile: sampling' "$p"
spin 0.5	# (an idle machine gave 0 or 1 samples in 2 s)
kill -INT "$p"
wait "$p"
rc=$?
check sigint_ends_run bash -c "[[ $rc == 0 ]] && grep -q ' samples in ' '$tmp/int.err' && [[ -s '$tmp/int.folded' ]]"
("$PERFBUF" profile -F 999 -d 1 2>"$tmp/head.err" | head -1 >"$tmp/head.out"
 exit "${PIPESTATUS[0]}") &
p=$!
# a CPU busy all along; not spin in the background: killed, its subshell
# left timeout's loop running, and the file waited 60 s for it
for _ in $(seq 300); do kill -0 "$p" 2>/dev/null || break; spin 0.2; done
wait "$p"
rc=$?
check head_1 bash -c "[[ $rc == 0 && \$(wc -l <'$tmp/head.out') == 1 ]] && ! grep -q writing '$tmp/head.err'"

# the output file cannot be made: one line naming its directory, exit 1,
# before the sampling (not after a run of -d)
one_line_error svg_unwritable "^perfbuf profile: cannot create '$tmp/no/such/dir/f.svg': its directory '$tmp/no/such/dir' does not exist$" \
	-d 2 --svg "$tmp/no/such/dir/f.svg"
# stdout closed: refused before sampling (as trace does), not a run
# whose output goes nowhere with exit 0
"$PERFBUF" profile -d 1 >&- 2>"$tmp/closed.err"
check profile_stdout_closed test $? = 1 -a "$(cat "$tmp/closed.err")" = \
	"perfbuf profile: stdout is closed; redirect it (>FILE, >/dev/null)"
finish
