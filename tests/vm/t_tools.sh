#!/usr/bin/env bash
# The commands beyond trace, on this kernel:
# - profile --engine bpf: samples of a busy loop the test runs, with
#   kernel and user frames (bpf/profile.bpf.c);
# - run and attach on the test's own objects (tests/run_check.py's
#   every_kind and attach_by_id: every field compared);
# - the Python package's record tests over bpf/emit.bpf.c;
# - trace --metrics: the received count of the test's read()s scraped.
source "$(dirname "$0")/lib.sh"

spin 8 &
sp=$!
if "$PERFBUF" profile --engine bpf -F 199 -d 3 >"$tmp/prof" 2>"$tmp/prof.err"; then
	check profile_bpf_samples grep -q 'bash' "$tmp/prof" ||
		{ head -c 600 "$tmp/prof"; cat "$tmp/prof.err"; }
else
	fail profile_bpf_samples "exit $?: $(head -c 300 "$tmp/prof.err")"
fi
kill $sp 2>/dev/null
wait $sp 2>/dev/null

# run_check.py prints its own PASS/FAIL lines
/usr/bin/python3 tests/run_check.py "$BUILD" every_kind attach_by_id ||
	failed=1

if /usr/bin/python3 -c 'import numpy, pytest' 2>/dev/null; then
	out=$(PERFBUF_BUILD="$BUILD" PERFBUF_LIB="$BUILD/libperfbuf.so.4" PYTHONPATH=python \
		timeout 200 /usr/bin/python3 -m pytest -p no:cacheprovider -q -rA \
		-k 'emit_ordered_times_and_cpus or lost_matches_bpf_side' python/tests 2>&1)
	n=$(grep -c '^PASSED ' <<<"$out")
	check python_records test "$n" = 2 || echo "$out" | tail -20
else
	skip python_records "numpy or pytest missing for /usr/bin/python3"
fi

port=$(free_ports 1)
head -c 777 /dev/urandom >"$tmp/file"
vm_trace "$tmp/m" "pbdd $tmp/file 100; pbdd $tmp/file 200; pbdd $tmp/file 300; sleep 1;
	/usr/bin/python3 tests/metrics_util.py get http://127.0.0.1:$port/metrics >$tmp/scrape" \
	-- --comm pbvm_dd --metrics 127.0.0.1:$port tracepoint:syscalls:sys_enter_read
got=$(awk '/^perfbuf_events_received_total/ { s += $2 } END { print s + 0 }' "$tmp/scrape")
check metrics_received test "$got" -ge 3 || { head -c 1500 "$tmp/scrape"; show "$tmp/m"; }
finish
