#!/usr/bin/env bash
# perfbuf trace --kstack --ustack: each event's stacks, named, in text and
# JSON, on tests/targets/profile_target.c (known call paths, frame
# pointers): a system call's kernel stack under its user callers, maps by
# stack (--aggregate 'count() by ustack'), a uprobe's user stack; without
# the options, no stack anywhere.
source "$(dirname "$0")/lib.sh"
scratch stacks
TARGET=$(realpath "$BUILD/tests/profile_target" 2>/dev/null)
tpid= t=
cleanup() { kill $tpid $t 2>/dev/null; }
source "$(dirname "$0")/trace_lib.sh"
root_or_finish trace_stacks
built_or_finish trace_stacks "$BUILD/tests/profile_target"

# getppid() from sys_loop: the tracepoint's kernel stack reaches the
# system call entry; the user stack is sys_loop, main
# (300 s, killed when done: the traces load for seconds on a loaded
# machine; a target gone meanwhile left -n waiting for ever)
"$TARGET" syscalls 300 >/dev/null &
t=$!
timeout 120 "$PERFBUF" trace --kstack --ustack --json -n 5 -p "$t" \
	tracepoint:syscalls:sys_enter_getppid >"$tmp/sys.json" 2>"$tmp/err"
check syscall_stacks_json json_check "$tmp/sys.json" "(
len([o for o in objs if o['type'] == 'event']) == 5 and
all('do_syscall_64_[k]' in o['kstack'] and o['kstack'][0].endswith('_[k]') and
    o['ustack'][:2] == ['sys_loop', 'main']
    for o in objs if o['type'] == 'event'))"
timeout 120 "$PERFBUF" trace --ustack -n 3 -p "$t" tracepoint:syscalls:sys_enter_getppid \
	>"$tmp/sys.txt" 2>"$tmp/err"
# after each event line: a tab, then the frames, leaf first
check syscall_ustack_text python3 - "$tmp/sys.txt" <<'EOF'
import sys
# '#' lines: losses and CPU notices (another job's hotplug), not events
lines = [l for l in open(sys.argv[1]).read().splitlines()[1:] if not l.startswith('#')]
events = [i for i, l in enumerate(lines) if not l.startswith('\t')]
assert len(events) == 3, lines
for i in events:
    assert lines[i + 1:i + 3] == ['\tsys_loop', '\tmain'], lines[i:i + 4]
assert not any('_[k]' in l for l in lines), 'kernel frames without --kstack'
EOF
# maps by stack, bpftrace's @[ustack] = count(): the first 200 events by
# their user stack, and by comm and kernel stack, in text and in JSON
timeout 120 "$PERFBUF" trace --aggregate 'count() by ustack' --aggregate '@k = count() by comm, kstack' \
	-n 200 -p "$t" tracepoint:syscalls:sys_enter_getppid >"$tmp/agg.txt" 2>"$tmp/err"
check agg_by_stack_text python3 - "$tmp/agg.txt" <<'EOF'
import re, sys
maps = {}
for m in re.finditer(r'^(@\w*)\[(.*?)\]: (\d+)$', open(sys.argv[1]).read(), re.M | re.S):
    maps.setdefault(m.group(1), []).append((m.group(2), int(m.group(3))))
u, k = maps['@count'], maps['@k']
assert sum(c for _, c in u) == 200 and sum(c for _, c in k) == 200, maps
assert all(key.startswith('\n    sys_loop\n    main\n') for key, _ in u), u
assert all(key.startswith('profile_target, \n    ') and '\n    do_syscall_64_[k]\n' in key
           for key, _ in k), k
EOF
timeout 120 "$PERFBUF" trace --aggregate 'count() by ustack' --json -n 50 -p "$t" \
	tracepoint:syscalls:sys_enter_getppid >"$tmp/agg.json" 2>"$tmp/err"
check agg_by_stack_json json_check "$tmp/agg.json" "(
sum(o['value'] for o in objs if o['type'] == 'aggregate' and 'key' in o) == 50 and
all(o['key']['ustack'][:2] == ['sys_loop', 'main']
    for o in objs if o['type'] == 'aggregate' and 'key' in o))"
# --events beside a map by stack: the events print no stack unless asked
timeout 120 "$PERFBUF" trace --events --json --aggregate 'count() by ustack' -n 5 -p "$t" \
	tracepoint:syscalls:sys_enter_getppid >"$tmp/aggev.json" 2>"$tmp/err"
check agg_events_no_stack_unasked json_check "$tmp/aggev.json" "(
len([o for o in objs if o['type'] == 'event']) == 5 and
all('ustack' not in o and 'kstack' not in o for o in objs if o['type'] == 'event') and
any(o['type'] == 'aggregate' and o.get('key', {}).get('ustack', [])[:2] == ['sys_loop', 'main'] for o in objs))"
kill "$t"
wait "$t" 2>/dev/null

# a uprobe at hot's entry: hot, middle, outer, main (the kernel reads the
# return address a function's entry has not saved yet); no kernel frames
"$TARGET" cpu 300 >/dev/null &
t=$!
timeout 120 "$PERFBUF" trace --kstack --ustack --json -n 2 "uprobe:$TARGET:hot" \
	>"$tmp/up.json" 2>"$tmp/err"
check uprobe_ustack json_check "$tmp/up.json" "(
all(o['ustack'][:4] == ['hot', 'middle', 'outer', 'main'] and o['kstack'] == []
    for o in objs if o['type'] == 'event') and
len([o for o in objs if o['type'] == 'event']) == 2)"
# without the options the events are as they were: no stack keys
timeout 120 "$PERFBUF" trace --json -n 2 "uprobe:$TARGET:hot" >"$tmp/plain.json" 2>"$tmp/err"
check no_stacks_unless_asked json_check "$tmp/plain.json" "(
all('kstack' not in o and 'ustack' not in o for o in objs) and
len([o for o in objs if o['type'] == 'event']) == 2)"
kill "$t"
wait "$t" 2>/dev/null
t=
finish
