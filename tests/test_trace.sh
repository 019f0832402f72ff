#!/usr/bin/env bash
# perfbuf trace and perfbuf list end to end: tracepoints with decoded
# fields, uprobes, JSON that survives hostile names, every error case,
# Ctrl-C drain, a closed stdout, and the options.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/trace_lib.sh"
trace_test trace trace

# bpftool prints "ID: TYPE  name NAME  tag ..."
attached_progs() { bpftool prog show 2>/dev/null | grep -cE 'name trace_(tp|kprobe|kretprobe|uprobe|uretprobe|tp_btf|raw_tp|fentry|fexit)( |$)'; }

# 1. exec N times of a uniquely named program, seen N times with its filename
prog="$tmp/pbexec_$$"
cp /bin/true "$prog"
if traced exec_seen_n_times --json tracepoint:sched:sched_process_exec; then
	for _ in 1 2 3 4 5; do "$prog"; done
	stop_trace
	check exec_seen_n_times json_check "$tmp/out" \
		"sum(1 for o in objs if o['type']=='event' and o['args'].get('filename')=='$prog' and o['comm']=='pbexec_$$'[:15])==5 and $trc==0"
	check json_summary_last json_check "$tmp/out" \
		"objs[-1]['type']=='summary' and objs[-1]['received']==sum(1 for o in objs if o['type']=='event') and len(objs[-1]['per_cpu'])>=1"
fi

# 2. the same in text: one line per event, headers; every field, however
# long the line (--width cuts, but never in a file)
if traced text_event_line tracepoint:sched:sched_process_exec; then
	"$prog"
	stop_trace
	check text_event_line grep -q "pbexec_$$ .*sched_process_exec filename=\"${prog:0:20}" "$tmp/out"
	check text_header grep -q '^TIME(s) .*CPU .*PID .*TID .*COMM .*PROBE' "$tmp/out"
	check text_summary grep -qE 'events received: [0-9]+ printed, [0-9]+ discarded \(past -n\); [0-9]+ lost$' "$tmp/err"
fi
longprog="$tmp/pbexec_$(printf 'x%.0s' $(seq 150))"
cp /bin/true "$longprog"
if traced text_no_width_cut tracepoint:sched:sched_process_exec; then
	"$longprog"
	stop_trace
	check text_no_width_cut grep -qF "filename=\"$longprog\" pid=" "$tmp/out"
fi
# a pipe is cut, a file is not
: >"$tmp/werr"
timeout 60 "$PERFBUF" trace -d 2 --width 60 tracepoint:sched:sched_process_exec 2>"$tmp/werr" |
	cat >"$tmp/out" &
attached "$tmp/werr" $!
"$longprog"
wait
check text_width_cut awk 'NR > 1 && /pbexec_/ { n++; if (length($0) != 60 || !/\.\.\.$/) bad = 1 } END { exit bad || !n }' "$tmp/out"
start_trace --width 60 -o "$tmp/wfile" tracepoint:sched:sched_process_exec
"$longprog"
stop_trace
check text_width_not_in_file grep -qF "filename=\"$longprog\" pid=" "$tmp/wfile"

# 3. sys_enter_openat: the user-space filename read as a string; --comm
opener="$tmp/pbopen$$"
cp /bin/cat "$opener"
echo hi >"$tmp/openme_$$"
if traced openat_filename --json --comm "pbopen$$" tracepoint:syscalls:sys_enter_openat; then
	"$opener" "$tmp/openme_$$" >/dev/null
	stop_trace
	check openat_filename json_check "$tmp/out" \
		"any(o['type']=='event' and o['args'].get('filename')=='$tmp/openme_$$' and o['args'].get('dfd')==-100 for o in objs) and all(o['comm']=='pbopen$$' for o in objs if o['type']=='event')"
fi

# an unreadable string (openat of the address 1) is not a string: null in
# JSON with its address under "unreadable", <unreadable 0x1> in text
badname=pbbad$$
bad_open() {
	python3 -c 'import ctypes, sys
libc = ctypes.CDLL(None)
libc.prctl(15, sys.argv[1].encode(), 0, 0, 0)
libc.syscall(257, -100, ctypes.c_void_p(1), 0)' "$badname"
}
if traced unreadable_string_json --json --comm "$badname" tracepoint:syscalls:sys_enter_openat; then
	bad_open
	stop_trace
	check unreadable_string_json json_check "$tmp/out" "
		[(o['args']['filename'], o.get('unreadable')) for o in objs if o['type'] == 'event' and
		 o['args']['flags'] == 0 and o['args']['dfd'] == -100] == [(None, {'filename': '0x1'})]"
	check readable_string_no_flag json_check "$tmp/out" "
		all('unreadable' not in o for o in objs if o['type'] == 'event' and o['args']['filename'])"
fi
if traced unreadable_string_text --comm "$badname" tracepoint:syscalls:sys_enter_openat; then
	bad_open
	stop_trace
	check unreadable_string_text grep -q 'sys_enter_openat dfd=-100 filename=<unreadable 0x1> flags=0 ' "$tmp/out"
fi

# 4. uprobe and uretprobe: known arguments and return values
if traced uprobe_args --json "uprobe:$TARGET:pb_target_add" "uretprobe:$TARGET:pb_target_add" \
		"uretprobe:$TARGET:pb_target_neg"; then
	"$TARGET" 3
	stop_trace
	cp "$tmp/out" "$tmp/uprobe.out"
	check uprobe_args json_check "$tmp/out" \
		"sum(1 for o in objs if o['type']=='event' and o['probe'].startswith('uprobe:') and o['args']=={'a':1,'b':2,'c':3,'d':4,'e':5,'f':6})==3"
	check uretprobe_ret json_check "$tmp/out" \
		"sum(1 for o in objs if o['type']=='event' and o['probe'].startswith('uretprobe:') and o['probe'].endswith(':pb_target_add') and o['args']['ret']==21 and o['args']['duration_ns']>0)==3 and sum(1 for o in objs if o['type']=='event' and o['probe'].endswith(':pb_target_neg') and o['args']=={'ret':-7})==3"
	if ((failed)); then	# what arrived, for the log
		echo "uprobe events (exit $trc):"
		cut -c1-200 "$tmp/uprobe.out"
		cat "$tmp/err"
	fi
fi

# 4b. a function with two versions (as glibc's realpath@GLIBC_2.2.5 and
# realpath@@GLIBC_2.3): NAME alone is ambiguous, its versions listed;
# NAME@VERSION and NAME@@VERSION each trace their own; the versions read
# from .symtab's names, and from .gnu.version in a stripped copy
verlib=$(realpath "$BUILD/tests/libpbver.so")
cp "$verlib" "$tmp/libpbver-stripped.so"
strip --strip-all "$tmp/libpbver-stripped.so"
for lib in "$verlib" "$tmp/libpbver-stripped.so"; do
	[[ $lib == "$verlib" ]] && v=symtab || v=dynsym
	error_case "uprobe_version_ambiguous_$v" "^perfbuf trace: uprobe:$lib:pb_ver: 'pb_ver' is ambiguous: $lib defines several versions of it, pb_ver@PB_1, pb_ver@@PB_2 (the default); give one, e.g. uprobe:$lib:pb_ver@PB_1$" \
		trace "uprobe:$lib:pb_ver"
	error_case "uprobe_version_unknown_$v" "defines no version 'PB_9' of 'pb_ver'; its versions: pb_ver@PB_1, pb_ver@@PB_2 (the default)$" \
		trace "uprobe:$lib:pb_ver@@PB_9"
	if traced "uprobe_versions_$v" --json "uprobe:$lib:pb_ver@PB_1" "uprobe:$lib:pb_ver@@PB_2" \
			"uretprobe:$lib:pb_ver@PB_2" "uretprobe:$lib:pb_ver_both"; then
		/usr/bin/python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1]).pb_ver_both(3)' "$lib"
		stop_trace
		check "uprobe_versions_$v" json_check "$tmp/out" "(
			sorted((o['probe'].split(':')[-1], o['args'].get('arg0', o['args'].get('ret')))
			       for o in objs if o['type'] == 'event') ==
			sorted([('pb_ver@PB_1', 1), ('pb_ver@@PB_2', 2), ('pb_ver@PB_2', 4)] * 3 +
			       [('pb_ver_both', 18)]))"
	fi
done
# glibc's own (x86-64: realpath@GLIBC_2.2.5, realpath@@GLIBC_2.3)
libc=$(realpath /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null)
if [[ -n $libc ]] && readelf -W --dyn-syms "$libc" | grep -q ' realpath@GLIBC_2.2.5$'; then
	error_case uprobe_version_libc_realpath "'realpath' is ambiguous: .* realpath@GLIBC_2.2.5" \
		trace "uprobe:$libc:realpath"
else
	skip uprobe_version_libc_realpath "no realpath@GLIBC_2.2.5 in /lib/x86_64-linux-gnu/libc.so.6"
fi

# 5. hostile names: quote, backslash, newline, an invalid UTF-8 byte
hostile="$tmp/"$'pb"q\\b\nx\xff'
cp /bin/true "$hostile"
if traced json_hostile_names --json tracepoint:sched:sched_process_exec; then
	"$hostile"
	stop_trace
	# invalid bytes come out as \udcXX: surrogateescape decoding gives the same
	exp=$(printf '%s' "$hostile" | python3 -c 'import sys; print(repr(sys.stdin.buffer.read().decode("utf-8", "surrogateescape")))')
	check json_hostile_names json_check "$tmp/out" \
		"any(o['type']=='event' and o['args'].get('filename')==$exp and o['comm']==$exp.split('/')[-1][:15] for o in objs)"
fi
# control bytes, DEL, overlong, surrogate, valid UTF-8, truncated at the end:
# valid UTF-8 stays, control bytes are \u00XX, every byte of invalid UTF-8
# \udcXX (PEP 383), no raw control byte or DEL
hostile2="$tmp/"$'pb\x01\x7f\xc0\xaf\xed\xa0\x80\xc3\xa9\xe2\x82'
cp /bin/true "$hostile2"
if traced json_bad_utf8 --json tracepoint:sched:sched_process_exec; then
	"$hostile2"
	stop_trace
	exp=$(printf '%s' "$hostile2" | python3 -c '
import sys
print(repr(sys.stdin.buffer.read().decode("utf-8", "surrogateescape")))')
	check json_bad_utf8 json_check "$tmp/out" \
		"any(o['type']=='event' and o['args'].get('filename')==$exp for o in objs) and not any(b < 0x20 and b != 10 or b == 0x7f for b in open('$tmp/out','rb').read())"
	if ((failed)); then	# what arrived, for the log
		echo "exec events (exit $trc), wanted $exp:"
		cut -c1-300 "$tmp/out"
	fi
fi
# "y\xff" (invalid) and "y\xc3\xbf" (valid: y with U+00FF) are two names
# in JSON, and each gives its bytes back (surrogateescape)
mkdir -p "$tmp/u8a" "$tmp/u8b"
cp /bin/true "$tmp/u8a/"$'y\xff'
cp /bin/true "$tmp/u8b/"$'y\xc3\xbf'
if traced json_non_utf8_distinct --json tracepoint:sched:sched_process_exec; then
	"$tmp/u8a/"$'y\xff'
	"$tmp/u8b/"$'y\xc3\xbf'
	stop_trace
	check json_non_utf8_distinct json_check "$tmp/out" "(lambda names: len(names) == 2 and
		names[0] != names[1] and [n.encode('utf-8', 'surrogateescape') for n in names] ==
		[b'$tmp/u8a/y\\xff', b'$tmp/u8b/y\\xc3\\xbf'])(
		[o['args']['filename'] for o in objs if o['type'] == 'event' and '/u8' in o['args']['filename']])"
	check json_non_utf8_escape grep -qF 'u8a/y\udcff"' "$tmp/out"
fi
if start_trace tracepoint:sched:sched_process_exec; then
	"$hostile"
	stop_trace
	check text_hostile_one_line grep -qF 'pb\"q\\b\nx\xff"' "$tmp/out"
else
	fail text_hostile_one_line "did not attach"
fi

# 5b. syscall arguments: a string only where the argument is one (paths,
# names), a buffer as its pointer (read's holds stale memory at entry)
# unless --buffers, and then only as many bytes as its length says;
# execve's argv as a list; strings cut at --string-size, and marked.
# pbrw: a process with a known stale read buffer, a short write, a rename
rw_prog() {
	python3 - "$tmp" "$rwname" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(15, sys.argv[2].encode(), 0, 0, 0)	# PR_SET_NAME: what --comm matches
d = sys.argv[1]
buf = ctypes.create_string_buffer(b"STALE_SECRET_DATA", 64)
fd = os.open("/dev/zero", os.O_RDONLY)
libc.read(fd, buf, 64)
out = os.open("/dev/null", os.O_WRONLY)
libc.write(out, b"abcdefXYZ", 3)
libc.write(out, b"\x00\x01\xff\"q", 5)
open(d + "/rn_a", "w").close()
libc.rename((d + "/rn_a").encode(), (d + "/rn_b").encode())
PY
}
rwname=pbrw$$	# unique: another job may run these tests at the same time
rw_probes=(tracepoint:syscalls:sys_enter_read tracepoint:syscalls:sys_enter_write
	   'tracepoint:syscalls:sys_enter_rename*')
if traced read_buf_is_pointer --json --comm "$rwname" "${rw_probes[@]}"; then
	rw_prog
	stop_trace
	check read_buf_is_pointer json_check "$tmp/out" '
		any(o["probe"].endswith("sys_enter_read") and o["args"]["count"] == 64 and
		    isinstance(o["args"]["buf"], str) and o["args"]["buf"].startswith("0x")
		    for o in objs if o["type"] == "event")'
	check read_no_stale_data test -z "$(grep STALE_SECRET "$tmp/out")"
	check write_buf_is_pointer json_check "$tmp/out" '
		[o["args"]["buf"][:2] for o in objs if o["type"] == "event" and
		 o["probe"].endswith("sys_enter_write")] == ["0x", "0x"]'
	check rename_strings json_check "$tmp/out" "
		any(o['args'].get('oldname') == '$tmp/rn_a' and o['args'].get('newname') == '$tmp/rn_b'
		    for o in objs if o['type'] == 'event')"
	if ((failed)); then	# what arrived, for the log
		echo "pbrw events (exit $trc):"
		grep -v sys_enter_read "$tmp/out" | cut -c1-300
		cat "$tmp/err"
	fi
fi
if traced buffers_bounded_by_count --json --buffers --comm "$rwname" "${rw_probes[@]}"; then
	rw_prog
	stop_trace
	check buffers_bounded_by_count json_check "$tmp/out" '
		[o["args"]["buf"] for o in objs if o["type"] == "event" and
		 o["probe"].endswith("sys_enter_write")] == ["abc", "\x00\x01\udcff\"q"]'
	check buffers_read_stays_pointer json_check "$tmp/out" '
		all(o["args"]["buf"].startswith("0x") for o in objs if o["type"] == "event" and
		    o["probe"].endswith("sys_enter_read"))'
	check read_no_stale_data_buffers test -z "$(grep STALE_SECRET "$tmp/out")"
fi
if traced buffers_hex_text --buffers=hex --comm "$rwname" tracepoint:syscalls:sys_enter_write; then
	rw_prog
	stop_trace
	check buffers_hex_text grep -q 'sys_enter_write fd=[0-9]* buf=616263 count=3$' "$tmp/out"
	check buffers_hex_text_bytes grep -q 'buf=0001ff2271 count=5$' "$tmp/out"
fi
if traced buffers_escaped_text --buffers --comm "$rwname" tracepoint:syscalls:sys_enter_write; then
	rw_prog
	stop_trace
	check buffers_escaped_text grep -qF 'buf="\x00\x01\xff\"q" count=5' "$tmp/out"
fi

# execve: argv decoded; an argument past --string-size cut and marked, a
# list of more than 32 arguments cut and marked
long=$(printf 'L%.0s' $(seq 300))
many=($(seq 40))
if traced execve_argv --json tracepoint:syscalls:sys_enter_execve; then
	"$prog" one "two words" "" "$long"
	"$prog" "${many[@]}"
	stop_trace
	check execve_argv json_check "$tmp/out" "
		any(o['args'].get('filename') == '$prog' and
		    o['args']['argv'] == ['$prog', 'one', 'two words', '', 'L' * 255] and
		    o['cut'] == ['argv[4]'] for o in objs if o['type'] == 'event')"
	check execve_argv_many_cut json_check "$tmp/out" "
		any(o['args'].get('filename') == '$prog' and
		    o['args']['argv'] == ['$prog'] + [str(i) for i in range(1, 32)] and
		    o['cut'] == ['argv'] for o in objs if o['type'] == 'event')"
fi
if traced execve_argv_text --string-size 8 tracepoint:syscalls:sys_enter_execve; then
	"$prog" 12345678 123456789
	stop_trace
	check execve_argv_text grep -qF 'filename="'"${prog:0:8}"'"... argv=["'"${prog:0:8}"'"..., "12345678", "12345678"...] envp=0x' "$tmp/out"
fi

# --string-size: openat's path cut at N bytes and marked; raised to 4096
deep=$tmp/$(printf 'd%.0s' $(seq 200))/$(printf 'e%.0s' $(seq 200))/f
mkdir -p "${deep%/f}"
: >"$deep"
if traced string_cut_marked --json --comm pbopen$$ tracepoint:syscalls:sys_enter_openat; then
	"$opener" "$deep" >/dev/null
	stop_trace
	check string_cut_marked json_check "$tmp/out" "
		any(o['args']['filename'] == '$deep'[:255] and o['cut'] == ['filename']
		    for o in objs if o['type'] == 'event')"
fi
if traced string_size_raised --json --string-size 4096 --comm pbopen$$ tracepoint:syscalls:sys_enter_openat; then
	"$opener" "$deep" >/dev/null
	stop_trace
	check string_size_raised json_check "$tmp/out" "
		any(o['args']['filename'] == '$deep' and 'cut' not in o
		    for o in objs if o['type'] == 'event')"
fi
if traced string_cut_text --string-size 5 --comm pbopen$$ tracepoint:syscalls:sys_enter_openat; then
	"$opener" "$tmp/openme_$$" >/dev/null
	stop_trace
	check string_cut_text grep -qF "filename=\"${tmp:0:5}\"... flags=" "$tmp/out"
fi

# a probe named twice, exactly or through a glob: one rule, attached once,
# each event printed once
if traced same_probe_twice_once --json tracepoint:sched:sched_process_exec tracepoint:sched:sched_process_exec \
		'tracepoint:sched:sched_process_e*'; then
	"$prog"
	stop_trace
	check same_probe_twice_once grep -q '^Attached 2 probes' "$tmp/err"
	check same_probe_twice_no_warning test -z "$(grep -i 'warning\|exists' "$tmp/err")"
	check same_probe_twice_events_once json_check "$tmp/out" \
		"sum(1 for o in objs if o['type']=='event' and o['args'].get('filename')=='$prog')==1"
fi
if traced same_uprobe_two_spellings --json "uprobe:$TARGET:pb_target_add+0x0" "uprobe:$TARGET:pb_target_add+0"; then
	"$TARGET" 1
	stop_trace
	check same_uprobe_two_spellings json_check "$tmp/out" \
		"sum(1 for o in objs if o['type']=='event')==1"
fi

# 5c. output. JSON integers beyond 2^53 are strings (exact in every
# reader): lseek's offset of 2^62 and -1 (SEEK_END from the end)
if traced json_int_beyond_2_53 --json --comm "pbseek$$" tracepoint:syscalls:sys_enter_lseek; then
	python3 -c 'import ctypes, os, sys
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)
fd = os.open("/dev/null", os.O_RDONLY)
os.lseek(fd, 2**62, 0)
os.lseek(fd, 2**53, 0)
os.lseek(fd, -2**53 - 1, 2)' "pbseek$$"
	stop_trace
	check json_int_beyond_2_53 json_check "$tmp/out" '(
		[o["args"]["offset"] for o in objs if o["type"] == "event"] ==
		["4611686018427387904", 9007199254740992, "-9007199254740993"])'
fi
# -n: the summary says what was received, printed and discarded, adding up
timeout 120 "$PERFBUF" trace --json -n 5 tracepoint:sched:sched_switch >"$tmp/out" 2>"$tmp/err"
check count_summary_adds_up json_check "$tmp/out" '(lambda s: s["type"] == "summary" and
	s["printed"] == 5 == sum(1 for o in objs if o["type"] == "event") and
	s["received"] == s["printed"] + s["discarded"] and
	s["received"] == sum(c["received"] for c in s["per_cpu"]))(objs[-1])'
timeout 120 "$PERFBUF" trace -n 5 tracepoint:sched:sched_switch >/dev/null 2>"$tmp/err"
check count_summary_text grep -qE '^([0-9]+) events received: 5 printed, [0-9]+ discarded \(past -n\); [0-9]+ lost$' "$tmp/err"
# --time: one clock in text and JSON; rel (the default) since the start,
# mono CLOCK_MONOTONIC (/proc/uptime here: no suspend), wall the date
if traced time_wall_json --json --time wall tracepoint:sched:sched_process_exec; then
	"$prog"
	stop_trace
	check time_wall_json json_check "$tmp/out" "all(isinstance(o['time_ns'], str) and
		abs(int(o['time_ns']) / 1e9 - $(date +%s)) < 30 for o in objs if o['type'] == 'event')"
fi
if traced time_wall_text --time wall tracepoint:sched:sched_process_exec; then
	"$prog"
	stop_trace
	check time_wall_text grep -qE "^$(date +%Y-%m-%d)T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} .* sched_process_exec filename=\"$prog\"" "$tmp/out"
	check time_wall_header grep -qE '^TIME +CPU' "$tmp/out"
fi
if traced time_mono_text --time mono tracepoint:sched:sched_process_exec; then
	"$prog"
	stop_trace
	up=$(cut -d' ' -f1 /proc/uptime)
	check time_mono_text awk -v up="$up" '/sched_process_exec/ { d = up - $1; if (d < 0 || d > 30) bad = 1; n++ } END { exit bad || !n }' "$tmp/out"
fi
if traced time_rel_default --json tracepoint:sched:sched_process_exec; then
	"$prog"
	stop_trace
	check time_rel_default json_check "$tmp/out" "all(0 < o['time_ns'] < 30e9 for o in objs if o['type'] == 'event')"
fi
error_case err_time_value "^perfbuf trace: --time wants rel, mono or wall, not 'utc'$" \
	trace --time utc tracepoint:sched:sched_process_exec
# addresses and the names of values, from the format's print fmt: a
# loopback TCP connection over IPv4 and IPv6 (inet_sock_set_state prints
# saddr %pI4, daddr_v6 %pI6c, newstate __print_symbolic)
tcp_pair() {
	python3 -c 'import ctypes, socket, sys
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)
for fam, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    s = socket.socket(fam); s.bind((host, 0)); s.listen()
    c = socket.create_connection((host, s.getsockname()[1])); a, _ = s.accept()
    c.close(); a.close(); s.close()' "pbtcp$$"
}
if traced addr_ipv4_json --json --comm "pbtcp$$" tracepoint:sock:inet_sock_set_state; then
	tcp_pair
	stop_trace
	check addr_ipv4_json json_check "$tmp/out" "any(o['args']['family'] == 2 and
		o['args']['saddr'] == '127.0.0.1' and o['args']['daddr'] == '127.0.0.1' and
		o['names']['newstate'] == 'TCP_ESTABLISHED' and o['args']['newstate'] == 1 and
		o['names']['family'] == 'AF_INET' for o in objs if o['type'] == 'event')"
	check addr_ipv6_json json_check "$tmp/out" "any(o['args']['family'] == 10 and
		o['args']['daddr_v6'] == '::1' and o['names']['family'] == 'AF_INET6'
		for o in objs if o['type'] == 'event')"
fi
if traced addr_names_text --comm "pbtcp$$" tracepoint:sock:inet_sock_set_state; then
	tcp_pair
	stop_trace
	check addr_names_text grep -qE 'newstate=1\(TCP_ESTABLISHED\) .*family=2\(AF_INET\) .*saddr=127\.0\.0\.1 daddr=127\.0\.0\.1 ' "$tmp/out"
fi
# losses in a text file: a '#' line where each gap is, adding up to the
# summary's count (a storm into a one-page ring)
: >"$tmp/err"	# not the last run's "Attached" line
timeout 30 "$PERFBUF" trace --pages 1 -o "$tmp/lost.txt" tracepoint:syscalls:sys_enter_getpgid 2>"$tmp/err" &
tpid=$!
attached "$tmp/err" "$tpid"
python3 -c 'import os
for i in range(200000): os.getpgid(0)'
stop_trace
lost=$(grep -oE '; [0-9]+ lost$' "$tmp/err" | grep -oE '[0-9]+')
inband=$(grep -E '^# ([0-9.]+ )?CPU [0-9]+: [0-9]+ events? lost$' "$tmp/lost.txt" |
	grep -oE '[0-9]+ events? lost$' | awk '{ s += $1 } END { print s + 0 }')
check text_lost_in_band test -n "$lost" -a "${lost:-0}" -gt 0 -a "$inband" = "$lost"

# the ledger: two probes hit 3:1 by a storm (only it, by --comm) into one
# page: both lose; each probe offered what the storm made, and offered =
# received + lost + no_reader + failed; the probes' lost add up to the
# summary's, in JSON and in text
ledger_n=40000
asan_build && ledger_n=8000
ledger_probes=(tracepoint:syscalls:sys_enter_getpgid tracepoint:syscalls:sys_enter_getppid)
if traced ledger_json --json --pages 1 --comm "pbledg$$" "${ledger_probes[@]}"; then
	ledger_storm "pbledg$$" "$ledger_n"
	stop_trace
	why=$(ledger_verdict json "$tmp/out" "$ledger_n" 2>&1)
	[[ $trc == 0 && -z $why ]] && pass ledger_json || fail ledger_json "exit $trc; ${why:-}"
fi
if traced ledger_text --pages 1 --comm "pbledg$$" -o /dev/null "${ledger_probes[@]}"; then
	ledger_storm "pbledg$$" "$ledger_n"
	stop_trace
	why=$(ledger_verdict text "$tmp/err" "$ledger_n" 2>&1)
	[[ $trc == 0 && -z $why ]] && pass ledger_text || fail ledger_text "exit $trc; ${why:-}"
	check ledger_no_mismatch test -z "$(grep 'counts disagree' "$tmp/err")"
fi

# 6. errors: one line, exit 1, nothing left attached
before=$(attached_progs)
error_case err_no_probe 'no probe given' trace
error_case err_unknown_kind 'unknown probe' trace bogus:thing
error_case err_bad_syntax 'bad probe' trace tracepoint:sched
error_case err_unknown_tracepoint 'no tracepoint matches' trace tracepoint:sched:no_such_tp
error_case err_uprobe_no_binary 'no such binary' trace uprobe:/no/such/binary:main
error_case err_uprobe_no_symbol "no function symbol 'no_such_fn'" trace "uprobe:$TARGET:no_such_fn"
error_case err_uprobe_not_elf "^perfbuf trace: uprobe:/etc/passwd:main: /etc/passwd is not an ELF executable or library; give a binary" trace uprobe:/etc/passwd:main
error_case err_uprobe_offset_past_end "offset 999999999 is past the end of pb_target_add ([0-9]* bytes); give one from 0 to [0-9]*$" \
	trace "uprobe:$TARGET:pb_target_add+999999999"
error_case err_option_takes_no_value "^perfbuf trace: --json takes no value, not '--json=yes'; run 'perfbuf trace --help'$" \
	trace --json=yes tracepoint:sched:sched_process_exec
error_case err_buffers_bad_value "^perfbuf trace: --buffers wants escaped or hex, not 'raw'$" \
	trace --buffers=raw tracepoint:syscalls:sys_enter_write
error_case err_string_size_range "^perfbuf trace: --string-size wants a number from 1 to 4096, not '5000'$" \
	trace --string-size 5000 tracepoint:syscalls:sys_enter_openat
# a kernel function this kernel cannot probe (no kprobes, fentry refused):
# the tracepoints that fit it (do_sys_openat2 is reached by open, openat,
# openat2 and creat), or none: never one of another function's
kfunc_hint() {	# NAME PROBE ERE: the one line, exit 1
	error_case "$1" 'has no kprobes .* refuses fentry' trace -d 1 "$2"
	grep -q 'has no kprobes' "$tmp/eerr" || return 0	# (failed above)
	check "$1"_fits grep -qE -- "$3" "$tmp/eerr" || cat "$tmp/eerr"
}
timeout 60 "$PERFBUF" trace -d 0.1 fentry:do_sys_openat2 >/dev/null 2>"$tmp/eerr"
if ! grep -q 'has no kprobes' "$tmp/eerr"; then
	skip fallback_hint "this kernel probes kernel functions (kprobes or fentry)"
else
	kfunc_hint hint_shared_syscalls fentry:do_sys_openat2 \
		'instead: tracepoint:syscalls:sys_enter_open tracepoint:syscalls:sys_enter_openat tracepoint:syscalls:sys_enter_openat2 tracepoint:syscalls:sys_enter_creat \('
	kfunc_hint hint_return_exits fexit:do_sys_openat2 'instead: tracepoint:syscalls:sys_exit_open .*sys_exit_openat2'
	kfunc_hint hint_vfs_read kprobe:vfs_read 'instead: tracepoint:syscalls:sys_enter_read tracepoint:syscalls:sys_enter_pread64 \('
	kfunc_hint hint_own_syscall kretprobe:ksys_write 'instead: tracepoint:syscalls:sys_exit_write \('
	kfunc_hint hint_scheduler fentry:try_to_wake_up 'instead: tracepoint:sched:sched_waking tracepoint:sched:sched_wakeup \('
	kfunc_hint hint_named_tracepoint fentry:kmem_cache_free 'named for it instead: tracepoint:kmem:kmem_cache_free \('
	kfunc_hint hint_subsystem fentry:tcp_sendmsg "instead: 'tracepoint:tcp:\\*'"
	kfunc_hint hint_none fentry:crc32_le "; no tracepoint is known to fit crc32_le: see 'perfbuf list'"
fi
timeout 120 "$PERFBUF" trace tracepoint:sched:sched_process_exec >&- 2>"$tmp/eerr"
check err_stdout_closed test "$?" = 1 -a "$(wc -l <"$tmp/eerr")" = 1 -a \
	-n "$(grep -x 'perfbuf trace: stdout is closed; redirect it (>FILE, >/dev/null) or give -o FILE' "$tmp/eerr")"
timeout 120 "$PERFBUF" trace -n 1 -o "$tmp/closed.out" tracepoint:sched:sched_switch >&- 2>"$tmp/err"
check stdout_closed_output_file test "$?" = 0 -a "$(grep -c sched_switch "$tmp/closed.out")" = 1
error_case err_partial_attach "no function symbol" trace tracepoint:sched:sched_process_exec "uprobe:$TARGET:no_such_fn"
# a busy probe attached before the failing one prints nothing
error_case err_partial_attach_busy "no function symbol" trace tracepoint:sched:sched_switch "uprobe:$TARGET:no_such_fn"
check err_partial_attach_no_events test ! -s "$tmp/eout"
error_case err_bad_duration '-d wants a duration from 1ms to 1000d' trace -d abc tracepoint:sched:sched_process_exec
error_case err_bad_pages '^perfbuf trace: --pages wants a power of two (1, 2, 4, ... 1048576), not 3$' trace --pages 3 tracepoint:sched:sched_process_exec
error_case err_pages_range '^perfbuf trace: --pages wants a number from 1 to 1048576, not .2097152.$' trace --pages 2097152 tracepoint:sched:sched_process_exec
# the ring must hold the probes' largest record: said before anything loads
error_case err_pages_too_small "^perfbuf trace: --pages 1 is too small for these probes' largest record ([0-9]* bytes); use --pages 4 or more$" \
	trace --pages 1 --string-size 4096 tracepoint:syscalls:sys_enter_rename
timeout 120 "$PERFBUF" trace --pages 1 -n 1 tracepoint:sched:sched_switch >"$tmp/out" 2>"$tmp/err"
check pages_1_small_records test "$?" = 0 -a "$(grep -c sched_switch "$tmp/out")" = 1
error_case err_pid_missing 'no such process' trace -p 2147483647 tracepoint:sched:sched_process_exec
error_case err_bad_cpu '--cpu wants a number' trace --cpu 99999 tracepoint:sched:sched_process_exec
error_case err_bad_option 'perfbuf trace --help' trace --nope tracepoint:sched:sched_process_exec
error_case err_rawtp_unknown 'no raw tracepoint' trace rawtracepoint:no_such_rawtp
if [[ ! -e /sys/bus/event_source/devices/kprobe ]]; then
	error_case err_kprobe_unsupported 'no kprobes.*tracepoint:syscalls:sys_enter_openat' trace kprobe:do_sys_openat2
	error_case err_fentry_unsupported 'no kprobes.*fentry' trace fentry:do_sys_openat2
	error_case err_kretprobe_unsupported 'no kprobes' trace kretprobe:do_sys_openat2
else
	skip err_kprobe_unsupported "this kernel has kprobes"
fi
error_case err_kprobe_no_function "no kernel function" trace kprobe:no_such_function_xyz
nobody=$(id -u nobody 2>/dev/null)
# a copy others can read: the checkout may be private
[[ -n $nobody ]] && public_copy "$PERFBUF"
if [[ -n $nobody ]] && setpriv --reuid="$nobody" --regid="$nobody" --clear-groups test -x "$pub/perfbuf"; then
	timeout 20 setpriv --reuid="$nobody" --regid="$nobody" --clear-groups "$pub/perfbuf" trace \
		tracepoint:sched:sched_process_exec >/dev/null 2>"$tmp/eerr"
	rc=$?
	check err_not_root test "$rc" = 1 -a "$(wc -l <"$tmp/eerr")" = 1 -a -n "$(grep 'missing CAP_BPF, CAP_PERFMON, CAP_DAC_READ_SEARCH' "$tmp/eerr")"
else
	skip err_not_root "no user nobody"
fi
if pgrep -x perfbuf >/dev/null || pgrep -x perfbuf-bench >/dev/null; then
	skip err_nothing_left_attached "another perfbuf is loading trace programs"
else
	check err_nothing_left_attached test "$(attached_progs)" -le "$before"
fi

# 7. Ctrl-C under load: drained, everything received is printed, exit 0
# getpgid() storms pinned to both CPUs: one stream in time order (it used
# to print half the lines older than the line before), late ones marked
# and rare.
# (ASan: a fifth; the order is the library's, the same in both builds,
# and checking 400,000 lines of JSON takes most of the time)
storm_n=100000
asan_build && storm_n=20000
storm() {
	python3 -c 'import os, sys
os.sched_setaffinity(0, {int(sys.argv[1])})
for i in range(int(sys.argv[2])): os.getpgid(0)' "$1" "$storm_n"
}
if (($(nproc) >= 2)) && start_trace --json tracepoint:syscalls:sys_enter_getpgid; then
	storm 0 & p0=$!
	storm 1 & p1=$!
	wait "$p0" "$p1"
	stop_trace
	check trace_time_order json_check "$tmp/out" '
		(lambda ev: len({e["cpu"] for e in ev}) == 2 and
		 all(ev[i]["time_ns"] <= ev[i + 1]["time_ns"] for i in range(len(ev) - 1)) and
		 sum(1 for e in objs if e.get("late")) <= len(ev) // 1000)(
		[e for e in objs if e["type"] in ("event", "lost") and
		 "time_ns" in e and not e.get("late")])'
elif (($(nproc) < 2)); then
	skip trace_time_order "needs 2 CPUs"
else
	fail trace_time_order "did not attach: $(head -c 300 "$tmp/err")"
fi

if start_trace --json tracepoint:sched:sched_switch tracepoint:syscalls:sys_enter_getppid; then
	for _ in $(seq 200); do :; done
	stop_trace
	check sigint_drain_exit_0 test "$trc" = 0
	check sigint_drain_counts json_check "$tmp/out" \
		"objs[-1]['type']=='summary' and objs[-1]['received']==sum(1 for o in objs if o['type']=='event') > 0"
else
	fail sigint_drain_exit_0 "did not attach"
fi

# SIGTERM is a clean stop too; -p keeps one process only
if start_trace --json tracepoint:sched:sched_switch; then
	sleep 0.3
	kill -TERM "$tpid"
	wait "$tpid"
	trc=$?
	tpid=
	check sigterm_exit_0 json_check "$tmp/out" "objs[-1]['type']=='summary' and $trc==0"
else
	fail sigterm_exit_0 "did not attach"
fi
# (the process waits for the attach: a loaded machine takes seconds)
rm -f "$tmp/go"
(while [[ ! -e $tmp/go ]]; do sleep 0.05; done; exec "$TARGET" 2) &
target_pid=$!
if start_trace --json -p "$target_pid" "uprobe:$TARGET:pb_target_add"; then
	touch "$tmp/go"
	"$TARGET" 5
	wait "$target_pid"
	stop_trace
	check pid_filter json_check "$tmp/out" \
		"[o['pid'] for o in objs if o['type']=='event']==[$target_pid]*2"
else
	fail pid_filter "did not attach"
	touch "$tmp/go"
fi

# CPU hotplug in JSON: a "cpu" object each way (CPU1 back online whatever
# happens: the trap)
cpu1=/sys/devices/system/cpu/cpu1/online
if [[ -w $cpu1 ]] && (($(nproc) >= 2)); then
	trap 'echo 1 >"$cpu1" 2>/dev/null; scratch_end' EXIT	# scratch_end: cleanup, $tmp, $pub
	if start_trace --json tracepoint:sched:sched_switch; then
		echo 0 >"$cpu1"
		sleep 0.5
		for _ in 1 2 3 4 5; do echo 1 >"$cpu1" 2>/dev/null && break; sleep 0.2; done
		sleep 0.5
		stop_trace
		check json_cpu_objects json_check "$tmp/out" '(
			[(o["cpu"], o["online"]) for o in objs if o["type"] == "cpu"][:2] == [(1, False), (1, True)] and
			all(set(o) == {"type", "time_ns", "cpu", "online"} for o in objs if o["type"] == "cpu"))'
	else
		fail json_cpu_objects "did not attach: $(cat "$tmp/err")"
	fi
	echo 1 >"$cpu1" 2>/dev/null
else
	skip json_cpu_objects "cannot take CPU1 offline"
fi

# 8. stdout closed early: prompt stop, summary on stderr, no SIGPIPE death
: >"$tmp/err"
(timeout 120 "$PERFBUF" trace tracepoint:sched:sched_switch 2>"$tmp/err" | head -1 >"$tmp/out"
 exit "${PIPESTATUS[0]}") &
after_attach "$tmp/err" $!
check head_1_exit_0 test "$attach_rc" = 0
check head_1_prompt test "$attach_ms" -lt 5000
check head_1_summary_on_stderr grep -q 'events received' "$tmp/err"
# what the pipe did not take is not written, for that reason; none past -n
check head_1_summary_names_closed_output grep -qE '^[0-9]+ events received: [0-9]+ printed, 0 discarded \(past -n\); [0-9]+ not written: output closed \(broken pipe\); [0-9]+ lost$' "$tmp/err"
timeout 120 "$PERFBUF" trace --json tracepoint:sched:sched_switch 2>"$tmp/err" | head -1 >"$tmp/out"
rc=${PIPESTATUS[0]}
check head_1_json_summary_on_stderr test "$rc" = 0 -a -n "$(grep '"type":"summary"' "$tmp/err")"
check head_1_json_summary_not_written grep -qE '"type":"summary","received":[0-9]+,"printed":[0-9]+,"discarded":0,"not_written":[0-9]+,"output_error":"output closed \(broken pipe\)"' "$tmp/err"

# 9. -n, -d, -o, --stats, --cpu, globs, raw tracepoints
timeout 120 "$PERFBUF" trace -n 3 tracepoint:sched:sched_switch >"$tmp/out" 2>"$tmp/err"
check count_n_3 test "$?" = 0 -a "$(grep -c sched_switch "$tmp/out")" = 3
: >"$tmp/err"
timeout 120 "$PERFBUF" trace -d 2 --stats -o "$tmp/file" --cpu 0 --json \
	tracepoint:sched:sched_switch >"$tmp/out" 2>"$tmp/err" &
after_attach "$tmp/err" $!
check duration_and_output_file test "$attach_rc" = 0 -a "$attach_ms" -le 5000 -a -s "$tmp/file" -a ! -s "$tmp/out"
check cpu_filter json_check "$tmp/file" "all(o['cpu']==0 for o in objs if o['type']=='event')"
check stats_line grep -q '^stats: [0-9]* events/s, [0-9]* lost/s, ring fill' "$tmp/err"
# a full disk: an explicit error with the count of events it cost, exit 1
if [[ -w /dev/full ]]; then
	timeout 120 "$PERFBUF" trace -n 5 -o /dev/full tracepoint:sched:sched_switch >/dev/null 2>"$tmp/err"
	rc=$?
	# the first write fails: 0 to 5 events were read by then
	check output_disk_full test "$rc" = 1 -a -n "$(grep -xE 'perfbuf trace: writing /dev/full failed: No space left on device; ([02-5] events|1 event) not written' "$tmp/err")"
	# nothing reaches /dev/full: the summary says 0 printed
	check output_disk_full_summary_printed grep -qE '^[0-9]+ events? received: 0 printed, ' "$tmp/err"
	timeout 120 "$PERFBUF" trace --json -n 5 tracepoint:sched:sched_switch >/dev/full 2>"$tmp/err"
	rc=$?
	check output_disk_full_json test "$rc" = 1 -a -n "$(grep -E 'writing stdout failed: No space left on device; ([02-5] events|1 event) not written' "$tmp/err")" -a -n "$(grep '"type":"summary"' "$tmp/err")"
else
	skip output_disk_full "no /dev/full"
fi
timeout 120 "$PERFBUF" trace -d 1 'tracepoint:syscalls:sys_enter_open*' >/dev/null 2>"$tmp/err"
check glob_attaches_several grep -qE '^Attached ([2-9]|[0-9]{2,}) probes' "$tmp/err"
if traced rawtracepoint_event --json rawtracepoint:sched_process_exec; then
	"$prog"
	btf_progs=$(bpftool prog show 2>/dev/null | grep -cE 'name trace_tp_btf( |$)')
	stop_trace
	check rawtracepoint_event json_check "$tmp/out" \
		"any(o['type']=='event' and o['comm']=='pbexec_$$'[:15] and 'arg0' in o['args'] for o in objs)"
	# BTF has btf_trace_sched_process_exec: tp_btf, not the raw_tp fallback
	check rawtracepoint_uses_tp_btf test "$btf_progs" -ge 1
fi
# what an event costs the traced thread: the kernel stamps each record
# (PERF_SAMPLE_TIME), so the program reads no clock of its own, and it
# takes the task's name from the task, not through the helper's byte copy
# (a --comm filter's comparison aside); unordered events still carry
# their times
if traced time_from_kernel --json --unordered tracepoint:sched:sched_process_exec; then
	clock_calls=0 comm_calls=0
	for id in $(bpftool prog show 2>/dev/null | sed -nE 's/^([0-9]+): .* name trace_[a-z_]+( .*|$)/\1/p'); do
		bpftool prog dump xlated id "$id" >"$tmp/xlated" 2>/dev/null
		clock_calls=$((clock_calls + $(grep -c 'call bpf_ktime_get' "$tmp/xlated")))
		comm_calls=$((comm_calls + $(grep -c 'call bpf_get_current_comm' "$tmp/xlated")))
	done
	"$prog"
	"$prog"
	stop_trace
	check program_reads_no_clock test "$clock_calls" = 0
	check program_copies_comm_itself test "$comm_calls" = 0
	check time_from_kernel json_check "$tmp/out" \
		"[o['time_ns'] > 0 for o in objs if o['type']=='event' and o['comm']=='pbexec_$$'[:15]] == [True, True]"
fi

# 10. tracefs mounted when missing (in a private mount namespace)
if unshare -m true 2>/dev/null; then
	unshare -m bash -c "umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null;
		[[ ! -e /sys/kernel/tracing/events ]] || exit 3
		timeout 120 '$PERFBUF' trace -d 1 tracepoint:sched:sched_process_exec >/dev/null 2>&1" 
	rc=$?
	if ((rc == 3)); then skip tracefs_automount "cannot unmount tracefs"; else check tracefs_automount test "$rc" = 0; fi
else
	skip tracefs_automount "no unshare -m"
fi

# 11. perfbuf list
"$PERFBUF" list 'sched:sched_process_e*' >"$tmp/out" 2>"$tmp/err"
check list_glob grep -qx 'tracepoint:sched:sched_process_exec' "$tmp/out"
check list_glob_only_matches test "$(grep -vc '^tracepoint:sched:sched_process_e' "$tmp/out")" = 0
error_case list_no_match 'nothing matches' list no_such_probe_xyz
"$PERFBUF" list | head -1 >/dev/null
check list_head_1 test "${PIPESTATUS[0]}" = 0
"$PERFBUF" trace --help >"$tmp/out"
check help_examples grep -q 'perfbuf trace tracepoint:sched:sched_process_exec' "$tmp/out"

# Events the BPF side could not write for a reason the kernel does not
# count (no ring in the CPU's slot: a CPU just back online before its new
# ring is in the map) are counted, never silent: the probe's and the
# summary's no_reader, not lost (no ring dropped them). Empty CPU1's slot
# from outside, then make 100 events there.
if [[ $(cat /sys/devices/system/cpu/cpu1/online 2>/dev/null) == 1 ]] &&
   start_trace --json "uprobe:$TARGET:pb_target_seq"; then
	map=$(for f in /proc/$tpid/fdinfo/*; do
		grep -qs '^map_type:[[:space:]]*4$' "$f" && awk '/^map_id:/ {print $2}' "$f"
	done | head -1)
	if [[ -n $map ]] && bpftool map delete id "$map" key 1 0 0 0 2>/dev/null; then
		taskset -c 1 "$TARGET" 100
		stop_trace
		check undelivered_counted_no_reader json_check "$tmp/out" '
[s for s in objs if s["type"] == "summary" and s["per_cpu"][1] == {"cpu": 1, "received": 0, "lost": 0} and
 s["no_reader"] == 100 and s["probes"][0]["offered"] == s["probes"][0]["received"] + 100 and
 s["probes"][0]["no_reader"] == 100]'
	else
		stop_trace
		fail undelivered_counted_no_reader "no events map ($map) of perfbuf trace to empty"
	fi
else
	skip undelivered_counted_no_reader "needs CPU1 online"
	stop_trace
fi

# Many CPUs (a /sys list of 300 possible, LD_PRELOAD'ed; 2 online): a
# summary row per CPU, however many; the default budget shares about
# 34 MiB at most (at 300 CPUs: 64 KiB rings), and the summary says the
# memory mapped
fake=(env LD_PRELOAD="$BUILD/tests/fake_cpus.so" FAKE_CPUS_POSSIBLE=0-299)
if asan_build || [[ $PERFBUF != "$BUILD/perfbuf" ]]; then
	skip many_cpus_summary "the sanitizer or valgrind runtime must come first"
else
	timeout 60 "${fake[@]}" "$PERFBUF" trace --json -d 1 tracepoint:sched:sched_process_exec \
		>"$tmp/mout" 2>"$tmp/merr"
	check many_cpus_summary json_check "$tmp/mout" '(
len(objs[-1]["per_cpu"]) == 300 and objs[-1]["rings"] >= 1 and
objs[-1]["ring_bytes"] == objs[-1]["rings"] * 65536)'
	timeout 60 "${fake[@]}" "$PERFBUF" trace -d 1 --buffer-size 3M \
		tracepoint:sched:sched_process_exec >/dev/null 2>"$tmp/merr"
	# 3 MiB / 300 = 10 KiB each: rings of 8 KiB
	check buffer_size_text_summary grep -qE '^ring memory: (8|16) KiB mapped in [12] rings of 8 KiB$' "$tmp/merr"
fi
error_case buffer_size_below_a_page 'less than a page for each of the' \
	trace --buffer-size 4K tracepoint:sched:sched_process_exec
error_case buffer_size_with_pages 'exclusive' \
	trace --buffer-size 8M --pages 4 tracepoint:sched:sched_process_exec
error_case buffer_size_bad 'wants a size' trace --buffer-size 8X tracepoint:sched:sched_process_exec
error_case buffer_size_too_small_for_records 'give [0-9]*K or more' \
	trace --buffer-size 8K --string-size 4096 tracepoint:sched:sched_process_exec

# RLIMIT_MEMLOCK in the way (no CAP_IPC_LOCK, paranoid > -1): raised to
# what the rings need when the hard limit allows, else one line
if command -v setpriv >/dev/null && command -v prlimit >/dev/null &&
   (( $(cat /proc/sys/kernel/perf_event_paranoid) > -1 )); then
	nolock=(setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock)
	timeout 60 prlimit --memlock=65536:65536 "${nolock[@]}" "$PERFBUF" trace -d 1 \
		--buffer-size 64M tracepoint:sched:sched_process_exec >/dev/null 2>"$tmp/lerr"
	rc=$?
	if ((rc == 1)) && (($(wc -l <"$tmp/lerr") == 1)) && grep -q "raise 'ulimit -l' to" "$tmp/lerr"; then
		pass memlock_said
	else
		fail memlock_said "exit $rc: $(head -c 300 "$tmp/lerr")"
	fi
	# 2 rings of 2 MiB: 4 MiB under the hard limit (8 MiB here) even
	# without perf_event_mlock_kb's allowance, which every process of
	# root's shares
	hard=$(ulimit -H -l)
	[[ $hard == unlimited ]] && hard=unlimited || hard=$((hard * 1024))
	timeout 60 prlimit --memlock=65536:$hard "${nolock[@]}" "$PERFBUF" trace -d 1 \
		--buffer-size 4M tracepoint:sched:sched_process_exec >/dev/null 2>"$tmp/lerr"
	check memlock_raised grep -q '^ring memory: 4096 KiB mapped in 2 rings' "$tmp/lerr"
else
	skip memlock_said "needs setpriv, prlimit and kernel.perf_event_paranoid above -1"
fi

finish
