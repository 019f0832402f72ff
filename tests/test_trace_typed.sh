#!/usr/bin/env bash
# Typed arguments of a uprobe from the binary's DWARF (uprobe_target is
# built with -g): named as its source names them, as many as it has, a
# char * a string (the path the test passed), an enum by name, a bool;
# --filter by those names; a copy without DWARF prints arg0..arg5; struct
# members of an argument (p->x) printed and filtered on. (The
# kernel function kinds are tested in the guest: tests/vm/t_typed.sh.)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/trace_lib.sh"
trace_test trace_typed typed
path="/tmp/pb_typed_$$_$RANDOM"

if start_trace --json --filter "uprobe:$TARGET:pb_target_str:path == \"/tmp/pb_typed_*\" && n > 4000" \
		"uprobe:$TARGET:pb_target_str" "uretprobe:$TARGET:pb_target_str"; then
	"$TARGET" 2 "$path"
	"$TARGET" 1 /pb/other
	stop_trace
	check uprobe_dwarf_names json_check "$tmp/out" "(
		[o['args'] for o in objs if o['type'] == 'event' and o['probe'].startswith('uprobe:')] ==
		[{'path': '$path', 'n': 4242, 'color': 2, 'on': True}] * 2)"
	check uprobe_dwarf_enum_name json_check "$tmp/out" "(
		sum(o['names'] == {'color': 'PB_GREEN'} for o in objs
		    if o['type'] == 'event' and o['probe'].startswith('uprobe:')) == 2)"
	# int: 4242 + 1 + PB_GREEN + true, for both runs (no filter on it);
	# traced with its entry: how long it took
	check uretprobe_dwarf_ret json_check "$tmp/out" "(
		[sorted(o['args']) for o in objs if o['type'] == 'event' and o['probe'].startswith('uretprobe:')] ==
		[['duration_ns', 'ret']] * 3 and
		[o['args']['ret'] for o in objs if o['type'] == 'event' and o['probe'].startswith('uretprobe:')] ==
		[4246] * 3)"
else
	fail uprobe_dwarf "trace did not start: $(head -c 300 "$tmp/err")"
fi

# text: name=value, the string quoted as trace prints strings
if start_trace "uprobe:$TARGET:pb_target_str"; then
	"$TARGET" 1 "$path"
	stop_trace
	check uprobe_dwarf_text grep -q "pb_target_str path=.*$path.* n=4242 color=2(PB_GREEN) on=true" "$tmp/out" ||
		cat "$tmp/out"
fi

# without DWARF: the registers as arg0..arg5
objcopy --strip-debug "$TARGET" "$tmp/nodwarf"
if start_trace --json "uprobe:$tmp/nodwarf:pb_target_str"; then
	"$tmp/nodwarf" 1 "$path"
	stop_trace
	check uprobe_no_dwarf_args json_check "$tmp/out" "(
		[sorted(o['args']) for o in objs if o['type'] == 'event'] ==
		[['arg0', 'arg1', 'arg2', 'arg3', 'arg4', 'arg5']] and
		[o['args']['arg1'] for o in objs if o['type'] == 'event'] == [4242])"
fi
# struct members (latency_target's pb_point(struct point *p), -g): the
# filter p->x == 7 in the kernel selects exactly that call; --member prints
# them, through two pointers, a string member, and a NULL pointer on the
# way as null (never a number read from elsewhere)
LAT=$(realpath "$BUILD/tests/latency_target")
if start_trace --json --filter "uprobe:$LAT:pb_point:p->x == 7" --member 'p->next->x' \
		"uprobe:$LAT:pb_point" "uprobe:$LAT:pb_sleep_ms"; then
	"$LAT" 1
	stop_trace
	check member_filter json_check "$tmp/out" "(
		[o['args'] for o in objs if o['type'] == 'event' and o['probe'].endswith(':pb_point')] ==
		[{'p': o['args']['p'], 'p->x': 7, 'p->next->x': 1007}
		 for o in objs if o['type'] == 'event' and o['probe'].endswith(':pb_point')][:1] and
		len([o for o in objs if o['type'] == 'event' and o['probe'].endswith(':pb_sleep_ms')]) == 5)" ||
		cut -c 1-300 "$tmp/out"
else
	fail member_filter "trace did not start: $(head -c 300 "$tmp/err")"
fi
if start_trace --json --member 'p->x,p->name' --member 'p->next->x' "uprobe:$LAT:pb_point"; then
	"$LAT" 1
	stop_trace
	check member_values json_check "$tmp/out" "(
		[(o['args']['p->x'], o['args']['p->name'], o['args']['p->next->x'])
		 for o in objs if o['type'] == 'event'] ==
		[(x, 'p%d' % x, 1000 + x if x < 9 else None) for x in range(10)])" ||
		cut -c 1-300 "$tmp/out"
fi
if start_trace --filter 'p->name == "p3"' --member 'p->y' "uprobe:$LAT:pb_point"; then
	"$LAT" 1
	stop_trace
	check member_text grep -q 'pb_point p=0x[0-9a-f]* p->y=103 p->name="p3"$' "$tmp/out" ||
		cat "$tmp/out"
fi
# members from the kernel's BTF: a raw tracepoint's task_struct arguments
# (sched_switch: arg1 prev, arg2 next), filtered on next's comm in the
# kernel; prev is the task the event ran in
if start_trace --json --filter 'arg2->comm == "latency_target"' \
		--member 'arg1->pid,arg1->comm,arg2->pid' rawtracepoint:sched_switch; then
	"$LAT" 1 &
	lp=$!
	wait $lp
	stop_trace
	check member_btf json_check "$tmp/out" "(
		len([o for o in objs if o['type'] == 'event']) >= 5 and
		all(o['args']['arg2->comm'] == 'latency_target' and o['args']['arg2->pid'] == $lp and
		    o['args']['arg1->pid'] == o['tid'] and o['args']['arg1->comm'] == o['comm']
		    for o in objs if o['type'] == 'event'))" ||
		{ echo "exit $trc, $(grep -c '"event"' "$tmp/out") events:"; cut -c 1-300 "$tmp/out" | head -5; cat "$tmp/err"; }
else
	fail member_btf "trace did not start: $(head -c 300 "$tmp/err")"
fi
error_case member_no_such 'uprobe:.*pb_point.*p->nope.*has no member .nope.' \
	trace --member 'p->nope' "uprobe:$LAT:pb_point"
many=()
for i in $(seq 17); do many+=(--member "p->x$i"); done
error_case member_too_many "^perfbuf trace: more than 16 --member options; list them with commas$" \
	trace "${many[@]}" "uprobe:$LAT:pb_point"
error_case member_no_arg "--member 'q->x': no probe has an argument 'q'" \
	trace --member 'q->x' "uprobe:$LAT:pb_point"
error_case member_syntax "--member 'p.x': want ARG->MEMBER" \
	trace --member 'p.x' "uprobe:$LAT:pb_point"
error_case member_not_ptr "'p->x->y': '->' needs a pointer" \
	trace --filter 'p->x->y == 1' "uprobe:$LAT:pb_point"
finish
