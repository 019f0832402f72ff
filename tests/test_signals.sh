#!/usr/bin/env bash
# SIGINT at random moments from exec to exit: perfbuf trace, record,
# stress and profile started as a script's background job is (SIGINT
# ignored: the handler must be installed, not inherited). Each run must
# end by itself on the first signal, exit 0 with its summary, and leave
# no BPF program behind; and no run may have loaded BPF before its
# SIGINT handler was in place (a signal then would have been discarded).
# The moments fall in the load, the attach, the run and the end (drain,
# detach, exit: the runs end by -n on their own); SIGNAL_SECONDS bounds
# trace's and record's runs (default 5: more or fewer runs by the
# machine's speed; at least 2 each).
# normal build only: when a signal lands is the loader's and the kernel's timing; ASan runs every stop path in test_trace (SIGINT, SIGTERM, a closed stdout) and test_record
source "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! need_root; then
	skip signals "needs root (BPF)"
	finish
fi
scripts/setup.sh --tracefs-only >/dev/null 2>&1 || true

/usr/bin/python3 - "$PERFBUF" "$tmp" "${SIGNAL_SECONDS:-5}" <<'PY'
import os, random, re, signal, subprocess, sys, time

perfbuf, tmp, budget = sys.argv[1], sys.argv[2], float(sys.argv[3])
cap = os.path.join(tmp, "s.cap")
CMDS = {
    # sched_switch fires all the time: -n 20 ends the run within ms of
    # the attach, so the moments after it land in the drain and detach
    "trace": ([perfbuf, "trace", "-n", "20", "tracepoint:sched:sched_switch"],
              r"^\d+ events received: \d+ printed, \d+ discarded .*; \d+ lost$"),
    "record": ([perfbuf, "record", "-o", cap, "-n", "20",
                "tracepoint:sched:sched_switch"],
               r"^perfbuf record: \d+ events, \d+ bytes of records in .*, \d+ lost$"),
    "stress": ([perfbuf, "stress", "-d", "1", "--cpu", "0"], r"^total "),
    "profile": ([perfbuf, "profile", "-d", "1", "--cpu", "0"],
                r"^perfbuf profile: \d+ samples"),
}


def ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as `perfbuf ... &` in a script


def caught(pid):
    """Does @pid catch SIGINT (SigCgt bit 1)? None once it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for l in f:
                if l.startswith("SigCgt:"):
                    return bool(int(l.split()[1], 16) & 2)
    except OSError:
        return None


def bpf_ids(pid):
    """The ids of the BPF programs @pid holds (fds of programs, links)."""
    ids = set()
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                if not os.readlink("/proc/%d/fd/%s" % (pid, fd)).startswith("anon_inode:bpf"):
                    continue
                with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                    ids |= {int(l.split()[1]) for l in f if l.startswith("prog_id:")}
                ids.add(-1)  # a BPF object, if no program yet
            except OSError:
                pass
    except OSError:
        pass
    return ids


def prog_alive(i):
    return subprocess.run(["bpftool", "prog", "show", "id", str(i)],
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def run(name, at):
    """@name's command with SIGINT @at s after exec (None: none sent).
    (phase, error or None, seconds from exec to exit)"""
    argv, summary = CMDS[name]
    err = open(os.path.join(tmp, "err"), "w+")
    out = open(os.path.join(tmp, "out"), "w+")
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=out, stderr=err,
                         preexec_fn=ignore_sigint)
    ids, early, phase = set(), False, "after exit"
    while p.poll() is None and (at is None or time.monotonic() - t0 < at):
        got, c = bpf_ids(p.pid), caught(p.pid)
        ids |= got
        early |= bool(got) and c is False
        time.sleep(0.003)
    if p.poll() is None:
        # exec to the handler is the dynamic loader and main()'s first
        # lines: no signal can be caught there, ignored or not
        while caught(p.pid) is False and time.monotonic() - t0 < at + 10:
            early |= bool(bpf_ids(p.pid))
            time.sleep(0.001)
        err.seek(0)
        phase = "attached" if "Attached" in err.read() else "loading"
        ids |= bpf_ids(p.pid)
        p.send_signal(signal.SIGINT)
    try:
        rc = p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return phase, "still running 20 s after SIGINT at %.3f s" % at, 0
    secs = time.monotonic() - t0
    err.seek(0)
    out.seek(0)
    text = err.read() + out.read()  # (stress: its table on stdout)
    if early:
        return phase, "BPF loaded before the SIGINT handler was installed", secs
    if rc != 0:
        return phase, "exit %d: %s" % (rc, text[-300:]), secs
    if not re.search(summary, text, re.M):
        return phase, "no summary: %s" % text[-300:], secs
    ids.discard(-1)
    end = time.monotonic() + 3  # freed after an RCU grace period
    while any(prog_alive(i) for i in ids) and time.monotonic() < end:
        time.sleep(0.05)
    left = [i for i in ids if prog_alive(i)]
    if left:
        return phase, "BPF programs %s still loaded after exit" % left, secs
    if name == "record":
        r = subprocess.run([perfbuf, "report", "--info", cap], capture_output=True)
        if r.returncode:
            return phase, "report of the capture: %s" % r.stderr.decode()[-200:], secs
    return phase, None, secs


def trials(name, window, stop, least):
    """SIGINT at random moments in [0, @window] s until @stop (at least
    @least runs): PASS or FAIL line."""
    phases, n = {}, 0
    while n < least or time.monotonic() < stop:
        at = random.uniform(0, window)
        phase, e, _ = run(name, at)
        n += 1
        phases[phase] = phases.get(phase, 0) + 1
        if e:
            print("FAIL signal_%s_random_moments: SIGINT at %.3f s (%s): %s" %
                  (name, at, phase, e))
            return 1
    print("PASS signal_%s_random_moments (%d runs in %.1f s: %s)" %
          (name, n, window, ", ".join("%d %s" % (v, k)
                                     for k, v in sorted(phases.items()))))
    return 0


# trace without a signal: how long exec to exit takes here (record's
# load and run are the same); stress and profile run 1 s (-d 1)
phase, e, full = run("trace", None)
if e:
    print("FAIL signal_trace_unsignalled: %s" % e)
    sys.exit(1)
stop = time.monotonic() + budget / 2
fails = trials("trace", full * 1.2, stop, 2)
fails += trials("record", full * 1.2, stop + budget / 2, 2)
fails += trials("stress", 1.5, 0, 1)
fails += trials("profile", 1.5, 0, 1)
sys.exit(1 if fails else 0)
PY
rc=$?
((rc)) && failed=1
finish
