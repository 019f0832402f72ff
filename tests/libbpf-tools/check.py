#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Real libbpf-tools objects through `perfbuf run` (tests/test_libbpf_tools.sh).

  check.py BUILD OBJDIR [SUBTEST... | kprobes | others]

kprobes: the tools that need kprobes or fentry (or run the machine out of
memory), which tests/vm/t_libbpf_tools.sh checks in the VM guests; others:
the rest (tests/vm/t_libbpf_tools_others.sh).

OBJDIR holds Debian's libbpf-tools objects (fetch.sh). The test drives a
workload whose values it knows (a process that exits with 3, a kill, an
open of a file that is not there, a loopback TCP connection...) and
compares each field of the tool's record with them. Objects built by
Debian carry no record type in their BTF: their records come as hex and
are laid out here with ctypes from the tools' headers (bcc 0.31); those
that do (execsnoop, sigsnoop, solisten, filelife) are compared as perfbuf
decoded them.
"""
import ctypes as C
import glob
import os
import re
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import run_check as rc  # noqa: E402  (Perfbuf, result, events)

BUILD, OBJS = sys.argv[1], sys.argv[2]
ONLY = sys.argv[3:]
rc.PERFBUF = os.path.join(BUILD, "perfbuf")
COMM = b"pbltcheck"             # this process's comm: the records' own
TABLE = []                      # (tool, runs, fields checked)
libc = C.CDLL(None, use_errno=True)
libc.prctl(15, COMM, 0, 0, 0)   # PR_SET_NAME


def obj(tool):
    return os.path.join(OBJS, tool + ".bpf.o")


class NotRun(Exception):
    """perfbuf ended before it attached a program: its stderr"""


def run(tool, args, workload, ready=("Attached",)):
    """perfbuf run --json ARGS TOOL's object, the workload driven once it
    attached (not when nothing attached: NotRun): (events' args, stderr,
    exit status, what the workload returned)"""
    # (in a TCG guest an object with BTF relocations takes long to load)
    pb = rc.Perfbuf(["run", "--json"] + args + [obj(tool)], ready=ready, wait=180)
    if pb.p.poll() is not None and not any(l.startswith(ready) for l in pb.err):
        raise NotRun(pb.end()[1])
    ctx = workload()
    time.sleep(0.5)
    out, err, code = pb.end()
    return [e["args"] for e in rc.events(out)], err, code, ctx


def raw(ev, cls):
    """a hex record (no type in the object's BTF) as @cls"""
    b = bytes.fromhex(ev["data"])
    return cls.from_buffer_copy(b.ljust(C.sizeof(cls), b"\0")[:C.sizeof(cls)])


def rec(ev, cls):
    """a record as @cls: laid out from its hex, or, when perfbuf found the
    type in the object's BTF (solisten, filelife), filled from the fields
    perfbuf decoded: the same checks then hold its decoding"""
    if "data" in ev:
        return raw(ev, cls)
    r = cls()
    for name, ctype in cls._fields_:
        v = ev[name]
        if isinstance(v, str) and ctype is C.c_void_p:
            v = int(v, 16)
        elif isinstance(v, str):
            v = v.encode("latin-1")
        elif isinstance(v, list):
            v = ctype(*v)
        setattr(r, name, v)
    return r


def cstr(b):
    return bytes(b).split(b"\0")[0]


def kernel_lacks(err):
    """what perfbuf said this kernel lacks (kprobes), or None: a tool
    whose programs need it is skipped with that reason"""
    lacks = None
    for line in err.splitlines():
        if "not attached: this kernel has no kprobes" in line:
            lacks = line.split("not attached: ", 1)[1].strip()
    if lacks and "fentry/fexit refused by this kernel" in err:
        lacks += "; fentry refused by this kernel"
    return lacks


def not_run(name, e):
    """check @name's result when perfbuf attached nothing (NotRun @e)"""
    check(name, "", "", "nothing attached: %s" % str(e).strip()[-400:], err=str(e))


def chosen(err, kprobe, kind):
    """@kind (fentry, fexit) when perfbuf left out the tool's @kprobe
    program for it (the line of those it left out), else kprobe"""
    out = [l for l in err.splitlines() if "not loading" in l]
    return kind if out and re.search(r"(: |, )%s \(" % kprobe, out[0]) else "kprobe"


def check(tool, runs, fields, why, name=None, err="", note=None):
    """the result of a tool's check (@note after its name: which of a
    tool's alternatives ran); a check that found no record, on a kernel
    where perfbuf said its programs cannot attach, is skipped"""
    lacks = kernel_lacks(err) if why else None
    if lacks:
        print("SKIP libbpf_tools_%s (%s)" % (name or tool, lacks))
        sys.stdout.flush()
        return
    if why is None and note:
        print("PASS libbpf_tools_%s (%s)" % (name or tool, note))
        sys.stdout.flush()
        TABLE.append((tool, runs, fields))
        return
    rc.result("libbpf_tools_" + (name or tool), why is None, why or "")
    if why is None:
        TABLE.append((tool, runs, fields))


def first(evs, pred):
    m = [e for e in evs if pred(e)]
    return m[0] if m else None


def compare(got, want):
    """the first field of @want that @got does not hold, or None"""
    for k, v in want.items():
        if got.get(k) != v:
            return "%s is %r, want %r" % (k, got.get(k), v)
    return None


# --- the tools ----------------------------------------------------------

def execsnoop():
    argv = ["/bin/echo", "alpha", "be ta", "gamma"]
    evs, err, code, child = run("execsnoop", [], lambda: subprocess.run(
        argv, stdout=subprocess.DEVNULL))
    want_args = b"\0".join(a.encode() for a in argv) + b"\0"
    e = first(evs, lambda e: e.get("comm") == "echo" and e.get("ppid") == os.getpid())
    why = "no event for echo: %s" % err if not e else compare(e, {
        "uid": 0, "retval": 0, "args_count": 4, "args_size": len(want_args)})
    if not why and e["args"] != "\0".join(argv):     # every argument, not argv[0]
        why = "args %r" % e["args"]
    check("execsnoop", "perfbuf run, exec of /bin/echo alpha 'be ta' gamma",
          "pid, ppid, uid, retval, args_count, args_size, comm, args", why)


def perf_map_id(pid):
    """the id of the perf event array process @pid holds open"""
    for fd in os.listdir("/proc/%d/fdinfo" % pid):
        try:
            info = dict(l.split(":", 1) for l in open("/proc/%d/fdinfo/%s" % (pid, fd))
                        if ":" in l)
        except OSError:
            continue
        if info.get("map_type", "").strip() == "4":
            return int(info["map_id"])
    return None


def execsnoop_attach():
    """perfbuf attach --map-id on the map of execsnoop loaded by another
    process: the type from the kernel's BTF of the program using it, the
    same fields; the loader is told its rings were taken"""
    argv = ["/bin/echo", "one", "two"]
    owner = rc.Perfbuf(["run", "-d", "30", obj("execsnoop")])
    try:
        mid = perf_map_id(owner.p.pid)
        if mid is None:
            rc.result("libbpf_tools_execsnoop_attach", False, "no map in the loader")
            return
        # the loader stopped while the rings change hands: once it sees
        # them taken it ends, and its programs go with it (within its 1 s
        # check; on a slow guest before the exec below)
        owner.p.send_signal(signal.SIGSTOP)
        pb = rc.Perfbuf(["attach", "--json", "--map-id", str(mid)], ready=("Reading",))
        subprocess.run(argv, stdout=subprocess.DEVNULL)
        owner.p.send_signal(signal.SIGCONT)
        end = time.time() + 10
        while owner.p.poll() is None and time.time() < end:
            time.sleep(0.2)
        out, err, code = pb.end()
        evs = [e["args"] for e in rc.events(out)]
        e = first(evs, lambda e: e.get("comm") == "echo" and e.get("ppid") == os.getpid())
        why = "no event for echo: %s" % err if not e else compare(e, {
            "uid": 0, "retval": 0, "args_count": 3, "args": "\0".join(argv)})
        _, oerr, ocode = owner.end()
        if not why and (ocode != 1 or "no longer in the map, replaced" not in oerr):
            why = "the loader was not told: exit %d: %s" % (ocode, oerr)
    finally:
        if owner.p.poll() is None:
            owner.p.send_signal(signal.SIGCONT)
        owner.end()
    check("execsnoop", "perfbuf attach --map-id of execsnoop's map (loaded by perfbuf run)",
          "pid, ppid, uid, retval, args_count, comm, args; the loader told its rings were taken",
          why, "execsnoop_attach")


class ExitEvent(C.Structure):
    _fields_ = [("start_time", C.c_ulonglong), ("exit_time", C.c_ulonglong),
                ("pid", C.c_uint), ("tid", C.c_uint), ("ppid", C.c_uint), ("sig", C.c_uint),
                ("exit_code", C.c_int), ("comm", C.c_char * 16)]


def exitsnoop():
    evs, err, code, child = run("exitsnoop", [], lambda: subprocess.Popen(
        ["/bin/sh", "-c", "exit 3"]))
    child.wait()
    recs = [raw(e, ExitEvent) for e in evs]
    r = first(recs, lambda r: r.pid == child.pid)
    why = "no record for pid %d: %s" % (child.pid, err) if not r else None
    if r and not (r.tid == r.pid and r.ppid == os.getpid() and r.exit_code == 3 and
                  r.sig == 0 and cstr(r.comm) == b"sh" and
                  0 < r.start_time <= r.exit_time):
        why = "record %r" % [(f, getattr(r, f)) for f, _ in ExitEvent._fields_]
    check("exitsnoop", "perfbuf run, sh -c 'exit 3'",
          "pid, tid, ppid, exit_code, sig, comm, start_time <= exit_time", why)


def sigsnoop():
    def work():
        child = subprocess.Popen(["sleep", "10"])
        time.sleep(0.2)
        os.kill(child.pid, signal.SIGUSR1)
        child.wait()
        return child
    # as the tool's own default: signal_generate only (sig_trace), one
    # record per signal, the kill(2) programs said dropped
    evs, err, code, child = run("sigsnoop", [], work)
    mine = [e for e in evs if e.get("tpid") == child.pid]
    why = "%d records for the kill: %s" % (len(mine), err) if len(mine) != 1 else \
        compare(mine[0], {"pid": os.getpid(), "sig": signal.SIGUSR1, "ret": 0,
                          "comm": COMM.decode()})
    if why is None and "not loading 6 programs: kill_entry" not in err:
        why = "the dropped kill programs not said: %s" % err
    check("sigsnoop", "perfbuf run, kill(child, SIGUSR1)",
          "pid, tpid, sig, ret, comm; one record per signal", why)
    # the tool's -k: the kill(2) family by hand
    kill = ["kill_entry", "kill_exit"]
    evs, err, code, child = run("sigsnoop", sum([["--prog", p] for p in kill], []), work)
    mine = [e for e in evs if e.get("tpid") == child.pid]
    why = "%d records for the kill: %s" % (len(mine), err) if len(mine) != 1 else \
        compare(mine[0], {"pid": os.getpid(), "sig": signal.SIGUSR1, "ret": 0})
    check("sigsnoop", "perfbuf run --prog kill_entry --prog kill_exit", "pid, tpid, sig, ret",
          why, name="sigsnoop_kill_only")


class StatEvent(C.Structure):
    _fields_ = [("ts_ns", C.c_ulonglong), ("pid", C.c_uint), ("ret", C.c_int),
                ("comm", C.c_char * 16), ("pathname", C.c_char * 255)]


def statsnoop():
    path = "/tmp/perfbuf-lt-stat-%d" % os.getpid()

    def work():
        try:
            os.stat(path)
        except FileNotFoundError:
            pass
    evs, err, code, _ = run("statsnoop", [], work)
    recs = [raw(e, StatEvent) for e in evs]
    r = first(recs, lambda r: cstr(r.pathname) == path.encode())
    why = "no record for %s: %s" % (path, err) if not r else None
    if r and not (r.pid == os.getpid() and r.ret == -2 and cstr(r.comm) == COMM):
        why = "pid %d ret %d comm %r" % (r.pid, r.ret, r.comm)
    check("statsnoop", "perfbuf run, stat() of a missing file", "pid, ret, comm, pathname",
          why)


class OpenEvent(C.Structure):
    _fields_ = [("ts", C.c_ulonglong), ("pid", C.c_int), ("uid", C.c_uint), ("ret", C.c_int),
                ("flags", C.c_int), ("callers", C.c_ulonglong * 2), ("comm", C.c_char * 16),
                ("fname", C.c_char * 255)]


def opensnoop():
    path = "/tmp/perfbuf-lt-open-%d" % os.getpid()

    def work():
        try:
            os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except FileNotFoundError:
            pass
    evs, err, code, _ = run("opensnoop", [], work)
    recs = [raw(e, OpenEvent) for e in evs]
    r = first(recs, lambda r: cstr(r.fname) == path.encode())
    why = "no record for %s: %s" % (path, err) if not r else None
    if r and not (r.pid == os.getpid() and r.uid == 0 and r.ret == -2 and
                  r.flags == os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC and
                  cstr(r.comm) == COMM):
        why = "pid %d uid %d ret %d flags %#o comm %r" % (r.pid, r.uid, r.ret, r.flags, r.comm)
    check("opensnoop", "perfbuf run, open() of a missing file",
          "pid, uid, ret, flags, comm, fname", why)


class SyncEvent(C.Structure):
    _fields_ = [("comm", C.c_char * 16), ("ts_us", C.c_ulonglong), ("sys", C.c_int)]


def syncsnoop():
    def work():
        fd = os.open("/tmp", os.O_RDONLY)
        os.fsync(fd)
        os.fdatasync(fd)
        os.close(fd)
    evs, err, code, _ = run("syncsnoop", [], work)
    mine = [r.sys for r in (raw(e, SyncEvent) for e in evs) if cstr(r.comm) == COMM]
    why = None if mine == [2, 3] else "sys %r, want [2, 3] (fsync, fdatasync): %s" % (mine, err)
    check("syncsnoop", "perfbuf run, fsync() and fdatasync()", "comm, sys (in order)", why)


class RunqEvent(C.Structure):
    _fields_ = [("task", C.c_char * 16), ("prev_task", C.c_char * 16),
                ("delta_us", C.c_ulonglong), ("pid", C.c_int), ("prev_pid", C.c_int)]


def runqslower():
    # a shell that waits for its sleeps: woken each time one ends
    child = subprocess.Popen(["/bin/sh", "-c", "read x; for i in 1 2 3 4 5; do sleep 0.02; done"],
                             stdin=subprocess.PIPE)
    evs, err, code, _ = run("runqslower", ["--set", "targ_tgid=%d" % child.pid],
                            lambda: (child.stdin.write(b"go\n"), child.stdin.flush(),
                                     child.wait()))
    recs = [raw(e, RunqEvent) for e in evs]
    bad = [r for r in recs if r.pid != child.pid or cstr(r.task) != b"sh" or
           r.delta_us > 10 ** 6]
    why = "no record: %s" % err if not recs else \
        "records of other tasks: %r" % [(r.pid, r.task) for r in bad] if bad else None
    check("runqslower", "perfbuf run --set targ_tgid=PID, a shell woken by its sleeps",
          "pid, task, delta_us (< 1 s), only the target's", why)


def tcp_pair(delay=0.0):
    """a loopback connection: the client sends 100 bytes, the server 200
    (the client reads them @delay s after they came); both closed"""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    cli = socket.create_connection(srv.getsockname())
    conn, _ = srv.accept()
    cli.sendall(b"c" * 100)
    conn.recv(100)
    conn.sendall(b"s" * 200)
    time.sleep(delay)
    got = 0
    while got < 200:
        got += len(cli.recv(200 - got))
    ports = cli.getsockname()[1], srv.getsockname()[1]
    cli.close()
    time.sleep(0.05)
    conn.close()
    srv.close()
    return ports


LOOPBACK = bytes([127, 0, 0, 1])


class LifeEvent(C.Structure):
    _fields_ = [("saddr", C.c_ubyte * 16), ("daddr", C.c_ubyte * 16), ("ts_us", C.c_ulonglong),
                ("span_us", C.c_ulonglong), ("rx_b", C.c_ulonglong), ("tx_b", C.c_ulonglong),
                ("pid", C.c_uint), ("sport", C.c_ushort), ("dport", C.c_ushort),
                ("family", C.c_ushort), ("comm", C.c_char * 16)]


def tcplife():
    evs, err, code, (cport, sport) = run("tcplife", [], tcp_pair)
    recs = [raw(e, LifeEvent) for e in evs]
    c = first(recs, lambda r: r.sport == cport and r.dport == sport)
    s = first(recs, lambda r: r.sport == sport and r.dport == cport)
    why = "no records for ports %d/%d: %s" % (cport, sport, err) if not (c and s) else None
    # bytes_acked and bytes_received: the data, and 1 or 2 for SYN and FIN
    if not why and not (c.pid == os.getpid() and c.family == 2 and
                        100 <= c.tx_b <= 102 and 200 <= c.rx_b <= 202 and
                        bytes(c.saddr[:4]) == LOOPBACK and
                        bytes(c.daddr[:4]) == LOOPBACK and cstr(c.comm) == COMM and
                        100 <= s.rx_b <= 102 and 200 <= s.tx_b <= 202 and c.span_us < 10 ** 7):
        why = "client %r server %r" % ((c.pid, c.family, c.tx_b, c.rx_b, bytes(c.saddr[:4])),
                                      (s.rx_b, s.tx_b))
    check("tcplife", "perfbuf run, a loopback connection (100 bytes out, 200 back)",
          "pid, saddr, daddr, sport, dport, family, rx_b, tx_b, span_us, comm; both ends", why)


class StateEvent(C.Structure):
    _fields_ = [("saddr", C.c_ubyte * 16), ("daddr", C.c_ubyte * 16), ("skaddr", C.c_ulonglong),
                ("ts_us", C.c_ulonglong), ("delta_us", C.c_ulonglong), ("pid", C.c_uint),
                ("oldstate", C.c_int), ("newstate", C.c_int), ("family", C.c_ushort),
                ("sport", C.c_ushort), ("dport", C.c_ushort), ("task", C.c_char * 16)]


def tcpstates():
    evs, err, code, (cport, sport) = run("tcpstates", [], tcp_pair)
    recs = [raw(e, StateEvent) for e in evs]
    syn = first(recs, lambda r: r.dport == sport and r.oldstate == 7 and r.newstate == 2)
    why = "no CLOSE->SYN_SENT to port %d: %s" % (sport, err) if not syn else None
    if syn:
        path = [(r.oldstate, r.newstate) for r in recs if r.skaddr == syn.skaddr]
        if path[:2] != [(7, 2), (2, 1)] or not (syn.pid == os.getpid() and syn.family == 2 and
                                                 bytes(syn.daddr[:4]) == LOOPBACK and
                                                 cstr(syn.task) == COMM):
            why = "client socket's states %r, pid %d" % (path, syn.pid)
    check("tcpstates", "perfbuf run, a loopback connection",
          "skaddr, oldstate, newstate (CLOSE->SYN_SENT->ESTABLISHED), pid, family, daddr, "
          "dport, task", why)


class PktlatEvent(C.Structure):
    _fields_ = [("saddr", C.c_uint * 4), ("daddr", C.c_uint * 4), ("delta_us", C.c_ulonglong),
                ("pid", C.c_int), ("tid", C.c_int), ("dport", C.c_ushort), ("sport", C.c_ushort),
                ("family", C.c_ushort), ("comm", C.c_char * 16)]


def tcppktlat():
    evs, err, code, (cport, sport) = run("tcppktlat", [], lambda: tcp_pair(0.05))
    recs = [raw(e, PktlatEvent) for e in evs]
    r = first(recs, lambda r: socket.ntohs(r.sport) == cport and socket.ntohs(r.dport) == sport)
    why = "no record for port %d: %s" % (cport, err) if not r else None
    if r and not (r.pid == os.getpid() and r.tid == os.getpid() and r.family == 2 and
                  r.saddr[0].to_bytes(4, "little") == LOOPBACK and
                  40000 <= r.delta_us < 10 ** 7 and cstr(r.comm) == COMM):
        why = "pid %d family %d delta_us %d" % (r.pid, r.family, r.delta_us)
    if not why and "tcp_probe (tp_btf tcp_probe_btf covers tcp_probe)" not in err:
        why = "no line for the raw_tp set left out: %s" % err
    check("tcppktlat", "perfbuf run (tp_btf set chosen), a reply read 50 ms after it came",
          "pid, tid, saddr, sport, dport, family, delta_us (>= 40 ms), comm", why)


class MountEvent(C.Structure):   # bcc 0.31: op last, enum op { MOUNT, UMOUNT }
    _fields_ = [("delta", C.c_ulonglong), ("flags", C.c_ulonglong), ("pid", C.c_uint),
                ("tid", C.c_uint), ("mnt_ns", C.c_uint), ("ret", C.c_int),
                ("comm", C.c_char * 16), ("fs", C.c_char * 8), ("src", C.c_char * 4096),
                ("dest", C.c_char * 4096), ("data", C.c_char * 512), ("op", C.c_int)]


def mountsnoop():
    dest = "/nonexistent-perfbuf-%d" % os.getpid()
    libc.mount.argtypes = [C.c_char_p] * 3 + [C.c_ulong, C.c_char_p]
    evs, err, code, _ = run("mountsnoop", [], lambda: libc.mount(
        b"none", dest.encode(), b"tmpfs", 0x400, b"size=1m"))  # MS_NOEXEC
    recs = [raw(e, MountEvent) for e in evs]
    r = first(recs, lambda r: cstr(r.dest) == dest.encode())
    why = "no record for %s: %s" % (dest, err) if not r else None
    if r and not (r.op == 0 and r.ret == -2 and r.pid == os.getpid() and
                  r.tid == os.getpid() and r.flags == 0x400 and cstr(r.fs) == b"tmpfs" and
                  cstr(r.src) == b"none" and cstr(r.data) == b"size=1m" and
                  cstr(r.comm) == COMM and r.mnt_ns == os.stat("/proc/self/ns/mnt").st_ino):
        why = "op %d ret %d flags %#x fs %r src %r data %r" % (r.op, r.ret, r.flags, r.fs,
                                                              r.src, r.data)
    check("mountsnoop", "perfbuf run (a ring buffer), mount() on a missing directory",
          "op, ret, pid, tid, mnt_ns, flags, fs, src, dest, data, comm", why)


class BioEvent(C.Structure):
    _fields_ = [("comm", C.c_char * 16), ("delta", C.c_ulonglong), ("qdelta", C.c_ulonglong),
                ("ts", C.c_ulonglong), ("sector", C.c_ulonglong), ("len", C.c_uint),
                ("pid", C.c_uint), ("cmd_flags", C.c_uint), ("dev", C.c_uint)]


def fs_type(path):
    """the type of the filesystem mounted deepest above @path"""
    best, kind = "", "?"
    for line in open("/proc/self/mounts"):
        _, mnt, fs = line.split()[:3]
        if (path + "/").startswith(mnt.rstrip("/") + "/") and len(mnt) >= len(best):
            best, kind = mnt, fs
    return kind


def biosnoop():
    """a direct write of 64 KiB; biosnoop's fentry program is refused on
    kernels that refuse fentry: its tp_btf alternative is used"""
    path = "/var/tmp/perfbuf-lt-bio-%d" % os.getpid()
    if os.major(os.stat("/var/tmp").st_dev) == 0:    # tmpfs, overlay, 9p (the guests)
        print("SKIP libbpf_tools_biosnoop (no block device under /var/tmp: it is on %s)" %
              fs_type("/var/tmp"))
        return

    def work():
        import mmap
        buf = mmap.mmap(-1, 65536)
        buf.write(b"x" * 65536)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_DIRECT)
        try:
            os.write(fd, buf)
            os.fsync(fd)
        finally:
            os.close(fd)
        return os.stat(path).st_dev
    try:
        evs, err, code, st_dev = run("biosnoop", [], work)
    finally:
        if os.path.exists(path):
            os.unlink(path)
    recs = [raw(e, BioEvent) for e in evs]
    dev = os.major(st_dev) << 20 | os.minor(st_dev)     # the kernel's dev_t
    r = first(recs, lambda r: r.pid == os.getpid() and r.cmd_flags & 0xff == 1 and
              r.len == 65536)
    why = "no 64 KiB write by pid %d: %s" % (os.getpid(), err) if not r else None
    # its own tool reads 7 bytes of comm (sizeof a pointer): kept as it is
    if r and not (r.dev == dev and cstr(r.comm) == COMM[:7] and r.sector > 0 and
                  0 < r.delta < 10 ** 10):
        why = "dev %#x (want %#x) comm %r sector %d delta %d" % (r.dev, dev, r.comm, r.sector,
                                                               r.delta)
    check("biosnoop", "perfbuf run (tp_btf for the refused fentry), a 64 KiB O_DIRECT write",
          "pid, comm (7 bytes, as the tool reads it), len, cmd_flags (write), dev, sector, "
          "delta", why)


# --- tools on kprobes and fentry (the VM guests: tests/vm/t_libbpf_tools.sh)


def ip4(u32):
    """an IPv4 address read as a u32 in network order, as its 4 bytes"""
    return u32.to_bytes(4, "little")


class BindEvent(C.Structure):
    _fields_ = [("addr", C.c_ubyte * 16), ("ts_us", C.c_ulonglong), ("pid", C.c_uint),
                ("bound_dev_if", C.c_uint), ("ret", C.c_int), ("port", C.c_ushort),
                ("proto", C.c_ushort), ("opts", C.c_ubyte), ("ver", C.c_ubyte),
                ("task", C.c_char * 16)]


def bindsnoop():
    """a UDP socket with SO_REUSEADDR and a TCP one with SO_REUSEPORT, each
    bound to 127.0.0.1 (the kernel picks the port)"""
    def work():
        ports = []
        for kind, opt in ((socket.SOCK_DGRAM, socket.SO_REUSEADDR),
                          (socket.SOCK_STREAM, socket.SO_REUSEPORT)):
            s = socket.socket(socket.AF_INET, kind)
            s.setsockopt(socket.SOL_SOCKET, opt, 1)
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
            s.close()
        return ports
    evs, err, code, (uport, tport) = run("bindsnoop", [], work)
    recs = [rec(e, BindEvent) for e in evs]
    u = first(recs, lambda r: r.port == uport and r.pid == os.getpid())
    t = first(recs, lambda r: r.port == tport and r.pid == os.getpid())
    why = "no records for ports %d, %d: %s" % (uport, tport, err) if not (u and t) else None
    for r, proto, opts in ((u, 17, 0x08), (t, 6, 0x10)) if not why else ():
        if not (r.ret == 0 and r.proto == proto and r.opts == opts and r.ver == 4 and
                bytes(r.addr[:4]) == LOOPBACK and r.bound_dev_if == 0 and
                cstr(r.task) == COMM):
            why = "port %d: ret %d proto %d opts %#x ver %d addr %r dev %d task %r" % (
                r.port, r.ret, r.proto, r.opts, r.ver, bytes(r.addr[:4]), r.bound_dev_if,
                r.task)
    check("bindsnoop", "perfbuf run, bind() of a UDP (SO_REUSEADDR) and a TCP socket "
          "(SO_REUSEPORT) to 127.0.0.1", "pid, port, proto, opts (reuseaddr, reuseport), ret, "
          "ver, addr, bound_dev_if, task", why, err=err)


class ListenEvent(C.Structure):
    _fields_ = [("addr", C.c_uint * 4), ("pid", C.c_uint), ("proto", C.c_uint),
                ("backlog", C.c_int), ("ret", C.c_int), ("port", C.c_ushort),
                ("task", C.c_char * 16)]


def solisten():
    """listen() as the kernel's best kind (fexit where it loads), and with
    the fexit program left out (its kprobe and kretprobe)"""
    solisten_as([], "solisten")
    solisten_as(["--no-prog", "inet_listen_fexit"], "solisten_kprobe")


def solisten_as(args, name):
    def work():
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(37)
        port = s.getsockname()[1]
        s.close()
        return port
    try:
        evs, err, code, port = run("solisten", args, work)
    except NotRun as e:
        return not_run(name, e)
    recs = [rec(e, ListenEvent) for e in evs]
    r = first(recs, lambda r: r.port == port)
    why = "no record for port %d: %s" % (port, err) if not r else None
    # proto: the family in the high 16 bits, the type in the low
    if r and not (r.pid == os.getpid() and r.proto == (socket.AF_INET << 16 | 1) and
                  r.backlog == 37 and r.ret == 0 and ip4(r.addr[0]) == LOOPBACK and
                  cstr(r.task) == COMM):
        why = "pid %d proto %#x backlog %d ret %d addr %r task %r" % (
            r.pid, r.proto, r.backlog, r.ret, ip4(r.addr[0]), r.task)
    kind = chosen(err, "inet_listen_exit", "fexit")
    # the fexit program takes the place of the kprobe and kretprobe pair,
    # as in the tool's own userspace: the kprobe alone would fill the
    # tool's map with nothing to take its entries out
    if not why and kind == "fexit" and chosen(err, "inet_listen_entry", "fexit") != "fexit":
        why = "fexit chosen, the kprobe inet_listen_entry still loaded: %s" % err
    check("solisten", "perfbuf run %s(%s), listen(37) on 127.0.0.1" % (
        " ".join(args + [""]), kind), "pid, proto (AF_INET, SOCK_STREAM), backlog, ret, port, "
          "addr, task", why, name=name, err=err, note=kind)


class ConnectEvent(C.Structure):
    _fields_ = [("saddr", C.c_ubyte * 16), ("daddr", C.c_ubyte * 16), ("task", C.c_char * 16),
                ("ts_us", C.c_ulonglong), ("af", C.c_uint), ("pid", C.c_uint),
                ("uid", C.c_uint), ("sport", C.c_ushort), ("dport", C.c_ushort)]


def tcpconnect():
    evs, err, code, (cport, sport) = run("tcpconnect", ["--set", "source_port=true"], tcp_pair)
    recs = [rec(e, ConnectEvent) for e in evs]
    # sport in host order (skc_num), dport as the kernel keeps it (network)
    r = first(recs, lambda r: r.sport == cport and socket.ntohs(r.dport) == sport)
    why = "no record for port %d -> %d: %s" % (cport, sport, err) if not r else None
    if r and not (r.af == socket.AF_INET and r.pid == os.getpid() and r.uid == 0 and
                  bytes(r.saddr[:4]) == LOOPBACK and bytes(r.daddr[:4]) == LOOPBACK and
                  cstr(r.task) == COMM):
        why = "af %d pid %d uid %d saddr %r daddr %r task %r" % (
            r.af, r.pid, r.uid, bytes(r.saddr[:4]), bytes(r.daddr[:4]), r.task)
    check("tcpconnect", "perfbuf run --set source_port=true, a loopback connect()",
          "af, pid, uid, saddr, daddr, sport, dport, task", why, err=err)


class ConnlatEvent(C.Structure):
    _fields_ = [("saddr", C.c_ubyte * 16), ("daddr", C.c_ubyte * 16), ("comm", C.c_char * 16),
                ("delta_us", C.c_ulonglong), ("ts_us", C.c_ulonglong), ("tgid", C.c_uint),
                ("af", C.c_int), ("lport", C.c_ushort), ("dport", C.c_ushort)]


def tcpconnlat():
    """as the kernel's best kind (fentry where it loads), and with the
    fentry programs left out (kprobes)"""
    tcpconnlat_as([], "tcpconnlat")
    tcpconnlat_as(sum([["--no-prog", "fentry_" + f] for f in (
        "tcp_v4_connect", "tcp_v6_connect", "tcp_rcv_state_process")], []), "tcpconnlat_kprobe")


def tcpconnlat_as(args, name):
    try:
        evs, err, code, (cport, sport) = run("tcpconnlat", args, tcp_pair)
    except NotRun as e:
        return not_run(name, e)
    recs = [rec(e, ConnlatEvent) for e in evs]
    r = first(recs, lambda r: r.lport == cport and socket.ntohs(r.dport) == sport)
    why = "no record for port %d -> %d: %s" % (cport, sport, err) if not r else None
    if r and not (r.tgid == os.getpid() and r.af == socket.AF_INET and
                  bytes(r.saddr[:4]) == LOOPBACK and bytes(r.daddr[:4]) == LOOPBACK and
                  r.delta_us < 10 ** 7 and cstr(r.comm) == COMM):
        why = "tgid %d af %d saddr %r delta_us %d comm %r" % (
            r.tgid, r.af, bytes(r.saddr[:4]), r.delta_us, r.comm)
    kind = chosen(err, "tcp_v4_connect", "fentry")
    check("tcpconnlat", "perfbuf run %s(%s), a loopback connect()" % (
        "--no-prog fentry_... " if args else "", kind),
          "tgid, af, saddr, daddr, lport, dport, delta_us (< 10 s), comm", why, name=name,
          err=err, note=kind)


class LifeOfFile(C.Structure):
    _fields_ = [("file", C.c_char * 32), ("task", C.c_char * 16), ("delta_ns", C.c_ulonglong),
                ("tgid", C.c_int), ("dentry", C.c_void_p)]


def renamedata_members():
    """the members of the running kernel's struct renamedata (its BTF)"""
    out = subprocess.run(["bpftool", "btf", "dump", "file", "/sys/kernel/btf/vmlinux",
                          "format", "raw"], capture_output=True, text=True).stdout
    at = out.find("STRUCT 'renamedata'")
    names = set()
    for line in out[at:].splitlines()[1:] if at >= 0 else ():
        if not line.startswith("\t"):
            break
        names.add(line.split("'")[1])
    return names


def filelife():
    """a file created, kept 300 ms and removed, on a tmpfs of the test's own
    (not /tmp: an overlay in the guests creates and removes twice)"""
    import tempfile
    top = tempfile.mkdtemp(prefix="perfbuf-lt-life-")
    name = "pblt-life-%d" % os.getpid()
    if libc.mount(b"none", top.encode(), b"tmpfs", 0, b"size=1m") != 0:
        os.rmdir(top)
        check("filelife", "", "", "mount tmpfs on %s: errno %d" % (top, C.get_errno()))
        return

    def work():
        path = os.path.join(top, name)
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        time.sleep(0.3)
        os.unlink(path)
    try:
        evs, err, code, _ = run("filelife", [], work)
    finally:
        libc.umount(top.encode())
        os.rmdir(top)
    recs = [rec(e, LifeOfFile) for e in evs]
    mine = [r for r in recs if cstr(r.file) == name.encode()]
    if not mine and renamedata_members() & {"old_mnt_userns", "new_mnt_idmap"} == set():
        # 6.17 made them one mnt_idmap: bcc 0.31's probe then takes
        # vfs_unlink's directory (arg1) for the dentry (arg2), finds no
        # creation of it and writes nothing
        print("SKIP libbpf_tools_filelife (this kernel's struct renamedata has neither "
              "old_mnt_userns nor new_mnt_idmap, by which bcc 0.31's filelife tells where "
              "vfs_unlink's dentry is: it reads the wrong argument and records nothing)")
        return
    r = mine[0] if len(mine) == 1 else None
    why = "%d records for %s: %s" % (len(mine), name, err) if not r else None
    if r and not (r.tgid == os.getpid() and cstr(r.task) == COMM and
                  3 * 10 ** 8 <= r.delta_ns < 10 ** 10):
        why = "tgid %d task %r delta_ns %d" % (r.tgid, r.task, r.delta_ns)
    check("filelife", "perfbuf run, a file created, kept 300 ms, removed",
          "file, tgid, task, delta_ns (>= 300 ms); one record", why, err=err)


class TracerEvent(C.Structure):
    _fields_ = [("saddr", C.c_ubyte * 16), ("daddr", C.c_ubyte * 16), ("task", C.c_char * 16),
                ("ts_us", C.c_ulonglong), ("af", C.c_uint), ("pid", C.c_uint),
                ("uid", C.c_uint), ("netns", C.c_uint), ("dport", C.c_ushort),
                ("sport", C.c_ushort), ("type", C.c_ubyte)]


def tcptracer():
    """connect, accept and both closes of one loopback connection; the
    ports in network order, as the tool keeps them"""
    evs, err, code, (cport, sport) = run("tcptracer", [], tcp_pair)
    recs = [rec(e, TracerEvent) for e in evs]
    netns = os.stat("/proc/self/ns/net").st_ino
    kinds = {0: (cport, sport), 1: (sport, cport)}      # connect, accept: (sport, dport)
    got = {}
    for r in recs:
        ends = (socket.ntohs(r.sport), socket.ntohs(r.dport))
        if r.type in kinds and ends == kinds[r.type] or \
                r.type == 2 and ends in ((cport, sport), (sport, cport)):
            got.setdefault((r.type, ends), r)
    want = [(0, (cport, sport)), (1, (sport, cport)), (2, (cport, sport)), (2, (sport, cport))]
    why = None if len(got) == 4 else "records (type, ports) %r, want %r: %s" % (
        sorted(got), want, err)
    for r in got.values() if not why else ():
        if not (r.af == socket.AF_INET and r.pid == os.getpid() and r.uid == 0 and
                r.netns == netns and bytes(r.saddr[:4]) == LOOPBACK and
                bytes(r.daddr[:4]) == LOOPBACK and cstr(r.task) == COMM):
            why = "type %d: af %d pid %d uid %d netns %d (want %d) task %r" % (
                r.type, r.af, r.pid, r.uid, r.netns, netns, r.task)
    check("tcptracer", "perfbuf run, a loopback connection",
          "type (connect, accept, close of each end), af, pid, uid, netns, saddr, daddr, sport, "
          "dport, task", why, err=err)


class OomEvent(C.Structure):
    _fields_ = [("fpid", C.c_uint), ("tpid", C.c_uint), ("pages", C.c_ulonglong),
                ("fcomm", C.c_char * 16), ("tcomm", C.c_char * 16)]


def cgroup2():
    """a cgroup2 mount with the memory controller: the system's, or one of
    the test's own (the guests mount none): (its path, ours to unmount)"""
    import tempfile
    if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        top, own = "/sys/fs/cgroup", False
    else:
        top, own = tempfile.mkdtemp(prefix="perfbuf-lt-cg-"), True
        if libc.mount(b"none", top.encode(), b"cgroup2", 0, None) != 0:
            os.rmdir(top)
            return None, "mount cgroup2: errno %d" % C.get_errno()
    if "memory" not in open(os.path.join(top, "cgroup.controllers")).read().split():
        return None, "no memory controller in cgroup2 (bound to a v1 hierarchy?)"
    with open(os.path.join(top, "cgroup.subtree_control"), "w") as f:
        f.write("+memory")
    return top, own


def oomkill():
    """dd's 64 MiB buffer in a memory cgroup of 24 MiB: the cgroup's OOM
    killer takes dd; oc->totalpages is the cgroup's limit in pages"""
    limit = 24 << 20

    def work():
        top, own = cgroup2()
        if top is None:
            return None, own
        cg = os.path.join(top, "perfbuf-lt-oom-%d" % os.getpid())
        os.mkdir(cg)
        try:
            open(os.path.join(cg, "memory.max"), "w").write(str(limit))
            child = subprocess.Popen(
                ["dd", "if=/dev/zero", "of=/dev/null", "bs=64M", "count=1"],
                preexec_fn=lambda: open(os.path.join(cg, "cgroup.procs"), "w").write("0"),
                stderr=subprocess.DEVNULL)
            child.wait()
        finally:
            os.rmdir(cg)
            if own:
                libc.umount(top.encode())
                os.rmdir(top)
        return child, None
    # (nothing is set up where perfbuf cannot attach: NotRun)
    evs, err, code, (child, nocg) = run("oomkill", [], work)
    if nocg:
        check("oomkill", "", "", nocg)
        return
    recs = [rec(e, OomEvent) for e in evs]
    r = first(recs, lambda r: r.tpid == child.pid)
    why = "no record for dd (pid %d, exit %d): %s" % (child.pid, child.returncode, err) \
        if not r else None
    if r and not (r.fpid == child.pid and r.pages == limit // os.sysconf("SC_PAGE_SIZE") and
                  cstr(r.fcomm) == b"dd" and cstr(r.tcomm) == b"dd" and
                  child.returncode == -signal.SIGKILL):
        why = "fpid %d pages %d fcomm %r tcomm %r, dd's exit %d" % (
            r.fpid, r.pages, r.fcomm, r.tcomm, child.returncode)
    check("oomkill", "perfbuf run (a ring buffer), dd's 64 MiB buffer in a 24 MiB memory cgroup",
          "fpid, tpid (dd, killed), pages (the cgroup's limit), fcomm, tcomm", why, err=err)


class ReclaimEvent(C.Structure):
    _fields_ = [("task", C.c_char * 16), ("delta_ns", C.c_ulonglong),
                ("nr_reclaimed", C.c_ulonglong), ("nr_free_pages", C.c_ulonglong),
                ("pid", C.c_int)]


HOG = """
import os
open("/proc/self/oom_score_adj", "w").write("1000")
held = []
for _ in range(256):            # 16 GiB: more than a guest has
    held.append(b"\\1" * (64 << 20))
"""


def kallsym(name):
    for line in open("/proc/kallsyms"):
        addr, _, sym = line.split()[:3]
        if sym == name:
            return int(addr, 16)
    return 0


def drsnoop():
    """a process that takes memory until the kernel kills it: before
    the OOM killer, its allocations reclaim directly. The machine runs out
    of memory: in the VM guests only (PBLT_GUEST=1); this process and
    perfbuf are kept from the OOM killer"""
    if os.environ.get("PBLT_GUEST") != "1":
        print("SKIP libbpf_tools_drsnoop (it runs the machine out of memory: in the VM guests "
              "only, tests/vm/t_libbpf_tools.sh)")
        return
    zone_stat = kallsym("vm_zone_stat")
    if not zone_stat:
        check("drsnoop", "", "", "no vm_zone_stat in /proc/kallsyms")
        return
    pages = os.sysconf("SC_PHYS_PAGES")

    def work():
        child = subprocess.Popen(["/usr/bin/python3", "-c", HOG], stderr=subprocess.DEVNULL)
        child.wait()
        return child
    open("/proc/self/oom_score_adj", "w").write("-1000")     # perfbuf inherits it
    try:
        evs, err, code, child = run("drsnoop", ["--set", "vm_zone_stat_kaddr=%d" % zone_stat],
                                    work)
    finally:
        open("/proc/self/oom_score_adj", "w").write("0")
    mine = [r for r in (rec(e, ReclaimEvent) for e in evs) if r.pid == child.pid]
    why = "no record for pid %d (exit %d): %s" % (child.pid, child.returncode, err) \
        if not mine else None
    # free pages as the reclaim began: below the watermarks, far below all
    bad = [r for r in mine if not (cstr(r.task) == b"python3" and 0 < r.delta_ns < 6 * 10 ** 10
                                   and 0 < r.nr_free_pages < pages // 4 and
                                   r.nr_reclaimed < pages)]
    if not why and (bad or child.returncode != -signal.SIGKILL):
        r = (bad or mine)[0]
        why = "task %r delta_ns %d nr_free_pages %d nr_reclaimed %d, exit %d" % (
            r.task, r.delta_ns, r.nr_free_pages, r.nr_reclaimed, child.returncode)
    check("drsnoop", "perfbuf run --set vm_zone_stat_kaddr=ADDR, a process taking memory "
          "until the OOM killer ends it (guests only)",
          "pid, task, delta_ns, nr_free_pages (< 1/4 of memory), nr_reclaimed", why, err=err)


def named_failures():
    """objects that cannot run here say why in one line, naming the map
    (capable's stack map, sized by its own tool) or the programs"""
    cases = [("capable", "failed: map stackmap could not be created: Invalid argument (the "
              "object leaves its size 0: its own tool sets it before the load)"),
             ("gethostlatency", 'program handle_entry (SEC("uprobe")): not attached: its SEC() '
              "names no binary and function")]
    for tool, want in cases:
        p = subprocess.run([rc.PERFBUF, "run", "-d", "1", obj(tool)], capture_output=True,
                           timeout=60)
        err = p.stderr.decode()
        rc.result("libbpf_tools_%s_named" % tool, p.returncode == 1 and want in err,
                  "exit %d: %s" % (p.returncode, err))


def every_object():
    """each object runs, or says in named words why not: the program
    (with --no-prog), the map, nothing attached, no map to read"""
    named = ("failed to load", "could not be created", "could be attached",
             "no BPF_MAP_TYPE_PERF_EVENT_ARRAY or BPF_MAP_TYPE_RINGBUF map")
    objs = sorted(glob.glob(os.path.join(OBJS, "*.bpf.o")))
    bad, ran = [], 0
    for o in objs:
        p = subprocess.run([rc.PERFBUF, "run", "-d", "1", o], capture_output=True, timeout=120,
                           stdin=subprocess.DEVNULL)
        err = p.stderr.decode(errors="replace")
        last = err.strip().splitlines()[-1] if err.strip() else ""
        if p.returncode == 0 and "Attached" in err:
            ran += 1
        elif p.returncode != 1 or not any(w in last for w in named) or "Unknown error" in err:
            bad.append("%s: exit %d: %s" % (os.path.basename(o), p.returncode, last))
    why = None if not bad and len(objs) >= 20 else "%d objects; %s" % (len(objs), bad)
    rc.result("libbpf_tools_every_object", why is None, why or "")
    print("  %d objects: %d ran, %d said why not" % (len(objs), ran, len(objs) - ran))


TOOLS = [("execsnoop", execsnoop), ("execsnoop_attach", execsnoop_attach),
         ("exitsnoop", exitsnoop), ("sigsnoop", sigsnoop),
         ("statsnoop", statsnoop), ("opensnoop", opensnoop), ("syncsnoop", syncsnoop),
         ("runqslower", runqslower), ("tcplife", tcplife), ("tcpstates", tcpstates),
         ("tcppktlat", tcppktlat), ("mountsnoop", mountsnoop), ("biosnoop", biosnoop),
         ("bindsnoop", bindsnoop), ("solisten", solisten), ("tcpconnect", tcpconnect),
         ("tcpconnlat", tcpconnlat), ("filelife", filelife), ("tcptracer", tcptracer),
         ("oomkill", oomkill), ("drsnoop", drsnoop),
         ("named_failures", named_failures),
         ("every_object", every_object)]

# kprobe and fentry programs (the build machine has neither), drsnoop's OOM
KPROBES = ["bindsnoop", "solisten", "tcpconnect", "tcpconnlat", "filelife", "tcptracer",
           "oomkill", "drsnoop"]
if ONLY == ["kprobes"]:
    ONLY = KPROBES
elif ONLY == ["others"]:
    ONLY = [name for name, _ in TOOLS if name not in KPROBES]

if __name__ == "__main__":
    for name, fn in TOOLS:
        if not ONLY or name in ONLY:
            try:
                fn()
            except NotRun as e:
                not_run(name, e)
    if TABLE:
        print("  tool -> runs -> fields checked")
        for row in TABLE:
            print("  %s -> %s -> %s" % row)
    sys.exit(1 if rc.failed else 0)
