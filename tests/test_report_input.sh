#!/usr/bin/env bash
# perfbuf report and record on hostile or faulty input and output: a
# capture edited frame by frame (tests/capture_edit.py rewrites the CRCs)
# without a label line, with 50,000 CPUs, with 5000 probes; a FIFO or a
# device for a capture; stdout closed or full; a perf.data that cannot be
# written; an existing capture when the attach fails. Each: one line
# saying what is wrong, exit 1, in bounded time and memory, nothing lost.
source "$(dirname "$0")/lib.sh"
TARGET=$(realpath "$BUILD/tests/uprobe_target")
EDIT=(/usr/bin/python3 "$(dirname "$0")/capture_edit.py")
scratch report-input
source "$(dirname "$0")/trace_lib.sh"
root_or_finish report_input "BPF: the capture edited is recorded"
SEQ="uprobe:$TARGET:pb_target_seq"

# one capture of 5 events, edited below
(while [[ ! -e $tmp/go ]]; do sleep 0.05; done; "$TARGET" 5) &
timeout 60 "$PERFBUF" record -o "$tmp/base.cap" -n 5 "$SEQ" 2>"$tmp/rec.err" &
rpid=$!
attached "$tmp/rec.err" "$rpid"
touch "$tmp/go"
wait "$rpid"
if ! "$PERFBUF" report "$tmp/base.cap" >"$tmp/base.txt" 2>/dev/null ||
   [[ $(grep -c pb_target_seq "$tmp/base.txt") != 5 ]]; then
	fail report_input_capture "recording 5 events failed: $(head -c 300 "$tmp/rec.err")"
	finish
fi

# 3.1: no label line: the text names the probe by its spec's last part
"${EDIT[@]}" "$tmp/base.cap" "$tmp/nolabel.cap" nolabel
"$PERFBUF" report "$tmp/nolabel.cap" >"$tmp/nolabel.txt" 2>"$tmp/err"
check report_probe_without_label test $? = 0 -a "$(grep -c ' pb_target_seq i=' "$tmp/nolabel.txt")" = 5

# 3.4: DATA frames of 50,000 CPUs that META does not list: refused at
# the first, in bounded time and memory
"${EDIT[@]}" "$tmp/base.cap" "$tmp/cpus.cap" cpus 50000
/usr/bin/time -f '%e %M' -o "$tmp/time" timeout 60 "$PERFBUF" report "$tmp/cpus.cap" \
	>/dev/null 2>"$tmp/err"
rc=$?
read -r secs kb < <(tail -1 "$tmp/time")
if ((rc == 1)) && grep -q 'damaged at byte [0-9]*: a frame of CPU [0-9]*, which the capture does not list' "$tmp/err" &&
   ((kb < 100000)); then
	pass "report_many_cpus_bounded ($secs s, $((kb / 1024)) MB)"
else
	fail report_many_cpus_bounded "exit $rc, $secs s, $kb KB: $(tail -c 300 "$tmp/err")"
fi

# 3.9: more probes than perfbuf takes: one line with the reason
"${EDIT[@]}" "$tmp/base.cap" "$tmp/probes.cap" probes 5000
error_case report_too_many_probes "probes.cap: the capture lists more than 4096 probes" report "$tmp/probes.cap"

# 3.7: a FIFO or a device is no capture, and opening one does not hang
mkfifo "$tmp/fifo"
error_case report_fifo_not_regular "fifo: not a regular file" report "$tmp/fifo"
error_case report_device_not_regular "/dev/zero: not a regular file" report /dev/zero
SECONDS=0
error_case record_fifo_no_reader "no reader" record -d 1 -o "$tmp/fifo" "$SEQ"
check record_fifo_no_hang test "$SECONDS" -lt 30

# 3.8: stdout closed, stdout full, a perf.data that does not fit
"$PERFBUF" report "$tmp/base.cap" >&- 2>"$tmp/err"
check report_stdout_closed test $? = 1 -a "$(cat "$tmp/err")" = \
	"perfbuf report: stdout is closed; redirect it (>FILE, >/dev/null)"
"$PERFBUF" report --info "$tmp/base.cap" >/dev/full 2>"$tmp/err"
check report_info_full_disk test $? = 1 -a -n "$(grep 'writing stdout failed: No space left on device' "$tmp/err")"
mkdir -p "$tmp/small"
if mount -t tmpfs -o size=4k tmpfs "$tmp/small" 2>/dev/null; then
	head -c 4096 /dev/zero >"$tmp/small/fill"	# full
	"$PERFBUF" report --perf-data "$tmp/small/out.data" "$tmp/base.cap" 2>"$tmp/err"
	check report_perf_data_nothing_left test $? = 1 -a ! -e "$tmp/small/out.data" -a -n "$(grep "No space left" "$tmp/err")"
	umount "$tmp/small"
else
	skip report_perf_data_nothing_left "cannot mount a small tmpfs"
fi

# 3.5: an existing capture survives a record whose attach fails
cp "$tmp/base.cap" "$tmp/keep.cap"
error_case record_failed_attach_keeps_file "kprobe" record -o "$tmp/keep.cap" kprobe:do_sys_openat2
check record_failed_attach_file_intact cmp -s "$tmp/base.cap" "$tmp/keep.cap"
check record_failed_attach_no_temp_left test "$(ls -A "$tmp" | grep -c keep)" = 1
finish
