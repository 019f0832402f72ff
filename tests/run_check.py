#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The tests of `perfbuf run` and `perfbuf attach` (tests/test_run.sh).

The test is the producer: it writes each record's bytes with
write(-1, rec, size) (EBADF, nothing written anywhere); the objects of
tests/bpf/ copy them from the syscall's tracepoint into their maps, for
this process only (--set target_pid). Every field perfbuf printed is
compared with the value the test put there (ctypes lays the structs out
as C does).
"""
import atexit
import ctypes as C
import json
import re
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
PERFBUF = os.path.join(BUILD, "perfbuf")
OBJ = os.path.join(BUILD, "tests", "bpf")
ONLY = sys.argv[2:]
failed = 0


_public = []


def public_copy(path):
    """A copy of @path in a directory every user can read (mode 0755 in
    /tmp, removed at exit), for what runs as another user (nobody, or the
    clang a capability-only perfbuf starts): the checkout, and the build in
    it, may be mode 0700 (a clone in /root or in a mktemp -d)"""
    if not _public:
        _public.append(tempfile.mkdtemp(prefix="perfbuf-pub.", dir="/tmp"))
        os.chmod(_public[0], 0o755)
        atexit.register(shutil.rmtree, _public[0], True)
    dst = os.path.join(_public[0], os.path.basename(path))
    shutil.copy(path, dst)
    os.chmod(dst, 0o755 if os.access(path, os.X_OK) else 0o644)
    return dst


def result(name, ok, why=""):
    global failed
    if ok:
        print("PASS", name)
    else:
        failed += 1
        print("FAIL", name, why)
    sys.stdout.flush()


class Inner(C.Structure):
    _fields_ = [("port", C.c_ushort), ("level", C.c_byte), ("flags", C.c_ubyte * 3)]


class Addr(C.Union):
    _fields_ = [("v4", C.c_uint), ("v6", C.c_ubyte * 16)]


class RunEvent(C.Structure):
    _fields_ = [("s8", C.c_byte), ("u8", C.c_ubyte), ("s16", C.c_short),
                ("u16", C.c_ushort), ("s32", C.c_int), ("u32", C.c_uint),
                ("s64", C.c_longlong), ("u64", C.c_ulonglong), ("state", C.c_int),
                ("ok", C.c_bool), ("comm", C.c_char * 16), ("inner", Inner),
                ("addr", Addr), ("counts", C.c_int * 4), ("ptr", C.c_void_p),
                ("bits_lo", C.c_uint, 3), ("bits_hi", C.c_uint, 5),
                ("tag", C.c_char * 8)]


class DwarfEvent(C.Structure):
    _fields_ = [("seq", C.c_uint), ("delta", C.c_short), ("name", C.c_char * 12),
                ("value", C.c_ulonglong)]


class RunTail(C.Structure):
    _fields_ = [("seq", C.c_uint), ("len", C.c_uint), ("args", C.c_char * 64)]


STATES = {0: "RUN_IDLE", 5: "RUN_BUSY", -1: "RUN_GONE"}


def emit(raw):
    try:
        os.write(-1, raw)
    except OSError:
        pass


class Perfbuf:
    """perfbuf ARGS, started and waited for (stderr's Attached/Reading)"""

    def __init__(self, args, ready=("Attached", "Reading"), wait=30):
        self.p = subprocess.Popen([PERFBUF] + args, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.err = []
        self.ready = threading.Event()
        self.t = threading.Thread(target=self._read_err, args=(ready,), daemon=True)
        self.t.start()
        self.ready.wait(wait)

    def _read_err(self, ready):
        for line in self.p.stderr:
            line = line.decode(errors="replace")
            self.err.append(line)
            if line.startswith(ready):
                self.ready.set()
        self.ready.set()

    def end(self, timeout=30):
        """SIGINT (unless it ended), its stdout, stderr (the reader thread's:
        communicate() would take lines from it), exit status"""
        if self.p.poll() is None:
            time.sleep(0.3)
            self.p.send_signal(2)
        killer = threading.Timer(timeout, self.p.kill)
        killer.start()
        out = self.p.stdout.read().decode(errors="replace")
        self.p.wait()
        killer.cancel()
        self.t.join(5)
        return out, "".join(self.err), self.p.returncode


def events(out):
    return [o for o in map(json.loads, out.splitlines()) if o["type"] == "event"]


def num(v):
    return int(v) if isinstance(v, str) else v


def cstr(b):
    return b.split(b"\0")[0].decode("latin-1")


def want_run_event(e, tag):
    state = STATES.get(e.state, e.state)
    return {
        "s8": e.s8, "u8": e.u8, "s16": e.s16, "u16": e.u16, "s32": e.s32,
        "u32": e.u32, "s64": e.s64, "u64": e.u64, "state": state, "ok": e.ok,
        "comm": bytes(e.comm).decode("latin-1") if len(bytes(e.comm)) else "",
        "inner": {"port": e.inner.port, "level": e.inner.level,
                  "flags": list(e.inner.flags)},
        "addr": {"v4": e.addr.v4, "v6": list(e.addr.v6)},
        "counts": list(e.counts), "ptr": "0x%x" % (e.ptr or 0),
        "bits_lo": e.bits_lo, "bits_hi": e.bits_hi, "tag": tag,
    }


def compare(name, got, want):
    for k, v in want.items():
        g = got.get(k)
        g = num(g) if isinstance(v, int) and not isinstance(v, bool) else g
        if g != v:
            return "%s: %s is %r, want %r" % (name, k, got.get(k), v)
    if set(got) != set(want):
        return "%s: fields %s, want %s" % (name, sorted(got), sorted(want))
    return None


def rand_event(rng, i):
    e = RunEvent()
    e.s8, e.u8 = rng.randint(-128, 127), rng.randint(0, 255)
    e.s16, e.u16 = rng.randint(-32768, 32767), rng.randint(0, 65535)
    e.s32, e.u32 = rng.randint(-2**31, 2**31 - 1), rng.randint(0, 2**32 - 1)
    e.s64, e.u64 = rng.randint(-2**63, 2**63 - 1), rng.randint(0, 2**64 - 1)
    e.state = [0, 5, -1, 7][i % 4]
    e.ok = bool(i % 2)
    e.comm = b"task-%d" % i if i % 3 else b"exactly16bytes!!"[:16]
    e.inner.port, e.inner.level = rng.randint(0, 65535), rng.randint(-128, 127)
    for k in range(3):
        e.inner.flags[k] = rng.randint(0, 255)
    for k in range(16):
        e.addr.v6[k] = rng.randint(0, 255)
    for k in range(4):
        e.counts[k] = rng.randint(-2**31, 2**31 - 1)
    e.ptr = rng.randint(1, 2**64 - 1)
    e.bits_lo, e.bits_hi = rng.randint(0, 7), rng.randint(0, 31)
    return e


def every_kind():
    """run --json: every field of 20 records as written (--set tag)"""
    rng = random.Random(19)
    recs = [rand_event(rng, i) for i in range(20)]
    pb = Perfbuf(["run", "--json", "-n", "20", "--set", "target_pid=%d" % os.getpid(),
                  "--set", "tag=xyz", os.path.join(OBJ, "run_types.bpf.o")])
    for e in recs:
        emit(bytes(e))
    out, err, rc = pb.end()
    evs = events(out)
    why = None if len(evs) == 20 and rc == 0 else \
        "%d events, exit %d: %s" % (len(evs), rc, err)
    for i, (o, e) in enumerate(zip(evs, recs)):
        why = why or compare("record %d" % i, o["args"], want_run_event(e, "xyz"))
        cut = "comm" in o.get("cut", [])
        if not why and cut != (len(cstr(bytes(e.comm) + b"\0")) == 16):
            why = "record %d: comm cut %s" % (i, cut)
    summ = [o for o in map(json.loads, out.splitlines()) if o["type"] == "summary"]
    if not why and (len(summ) != 1 or summ[0]["received"] != 20 or
                    sum(c["received"] for c in summ[0]["per_cpu"]) != 20):
        why = "summary: %r" % summ
    result("run_every_kind", why is None, why or "")
    text = Perfbuf(["run", "-n", "1", "--set", "target_pid=%d" % os.getpid(),
                    os.path.join(OBJ, "run_types.bpf.o")])
    emit(bytes(recs[1]))
    out, err, rc = text.end()
    lines = out.splitlines()
    head = lines[0].split() if lines else []
    ok = head[:3] == ["TIME(s)", "CPU", "s8"] and head[-1] == "tag" and len(lines) == 2 \
        and '"none"' in lines[1] and "task-1" in lines[1]
    result("run_text_columns", ok, repr(lines[:2]) + err)
    # several maps: TIME CPU MAP FIELDS, the map's name under MAP
    text = Perfbuf(["run", "-n", "2", "--set", "target_pid=%d" % os.getpid(),
                    os.path.join(OBJ, "run_twomaps.bpf.o")])
    emit(b"abc")
    out, err, rc = text.end()
    lines = out.splitlines()
    rows = sorted(l.split()[2:4] for l in lines[1:3])
    ok = rc == 0 and lines[0].split() == ["TIME(s)", "CPU", "MAP", "FIELDS"] and \
        rows == [["events", "seq=3"], ["second", "seq=3"]]
    result("run_text_maps_columns", ok, repr(lines) + err)


def set_bool():
    """--set mark=true: every record's ok is true"""
    e = RunEvent()
    e.ok = False
    pb = Perfbuf(["run", "--json", "-n", "2", "--set", "target_pid=%d" % os.getpid(),
                  "--set", "mark=true", os.path.join(OBJ, "run_types.bpf.o")])
    emit(bytes(e))
    emit(bytes(e))
    out, err, rc = pb.end()
    evs = events(out)
    result("run_set_bool", len(evs) == 2 and all(o["args"]["ok"] is True for o in evs),
           err)


def dwarf_only():
    """struct event only in DWARF: found there, decoded"""
    recs = []
    for i in range(5):
        e = DwarfEvent(seq=i, delta=-i * 1000, value=2**40 + i)
        e.name = b"dw%d" % i
        recs.append(e)
    pb = Perfbuf(["run", "--json", "-n", "5", "--set", "target_pid=%d" % os.getpid(),
                  os.path.join(OBJ, "run_dwarf.bpf.o")])
    for e in recs:
        emit(bytes(e))
    out, err, rc = pb.end()
    evs = events(out)
    why = None if len(evs) == 5 else "%d events: %s" % (len(evs), err)
    for o, e in zip(evs, recs):
        why = why or compare("dwarf", o["args"], {"seq": e.seq, "delta": e.delta,
                                                  "name": cstr(e.name), "value": e.value})
    result("run_dwarf_only", why is None, why or "")


def bits_signed_enum():
    """a bitfield ending its struct, signed char enums: all there, signed"""
    # packed by hand: ctypes would start d in a unit of its own, at byte 8
    recs = [(-2, -3, 7, -123456789012), (1, -128, 0, 2**39 - 1)]
    pb = Perfbuf(["run", "--json", "-n", "2", "--set", "target_pid=%d" % os.getpid(),
                  os.path.join(OBJ, "run_bits.bpf.o")])
    for sc, raw, pad, d in recs:
        emit(bytes([sc & 0xff, raw & 0xff, pad]) + (d % 2**40).to_bytes(5, "little"))
    out, err, rc = pb.end()
    evs = events(out)
    why = None if len(evs) == 2 and rc == 0 else \
        "%d events, exit %d: %s" % (len(evs), rc, err)
    names = {-2: "RUN_SC_NEG", 1: "RUN_SC_ONE"}
    for o, (sc, raw, pad, d) in zip(evs, recs):
        why = why or compare("bits", o["args"], {"sc": names[sc], "sc_raw": raw,
                                                 "pad": pad, "d": d})
    result("run_bits_signed_enum", why is None, why or "")


def ringbuf_tail():
    """a RINGBUF map, records as long as written: the args that are there"""
    sizes = [8, 9, 20, 71, 72]
    pb = Perfbuf(["run", "--json", "-n", str(len(sizes)),
                  "--set", "target_pid=%d" % os.getpid(),
                  os.path.join(OBJ, "run_ringbuf.bpf.o")])
    payload = (b"abcdefghij" * 7)[:64]
    for i, n in enumerate(sizes):
        e = RunTail(seq=i, len=n - 8)
        raw = bytes(e)[:8] + payload[:n - 8]
        emit(raw)
    out, err, rc = pb.end()
    evs = events(out)
    why = None if len(evs) == len(sizes) else "%d events: %s" % (len(evs), err)
    for o, n in zip(evs, sizes):
        a = o["args"]
        want = payload[:n - 8].decode()
        if a.get("args") != want or a.get("len") != n - 8 or o["cpu"] != -1:
            why = why or "record of %d bytes: %r" % (n, o)
        # no NUL in the bytes there: the text goes on past them, cut
        if ("args" in o.get("cut", [])) != (n > 8):
            why = why or "record of %d bytes: cut %r" % (n, o.get("cut"))
    ok = why is None and "ring buffer" in err
    result("run_ringbuf_tail", ok, why or err)
    # execsnoop's args: NUL-separated strings, each kept (JSON: the bytes,
    # NULs as \u0000; text: \x00 between them), not argv[0] alone
    args = b"/bin/echo\0alpha\0be ta\0gamma\0"
    rec = (9).to_bytes(4, "little") + len(args).to_bytes(4, "little") + args.ljust(64, b"\0")
    for mode in ("--json", "text"):
        pb = Perfbuf(["run", "-n", "1", "--set", "target_pid=%d" % os.getpid(),
                      os.path.join(OBJ, "run_ringbuf.bpf.o")] + ([mode] if mode[0] == "-" else []))
        emit(rec)
        out, err, rc = pb.end()
        if mode == "--json":
            evs = events(out)
            ok = len(evs) == 1 and evs[0]["args"]["args"] == "/bin/echo\0alpha\0be ta\0gamma" \
                and "cut" not in evs[0]
        else:
            ok = '"/bin/echo\\x00alpha\\x00be ta\\x00gamma"' in out
        result("run_nul_separated_args_" + mode.strip("-"), ok, out + err)


def nested_strings():
    """a string in a nested struct: \\udcXX for a byte that is not UTF-8
    (not \\u00XX, another character), and a cut mark when no NUL ends it"""
    def rec(seq, name, x):
        return seq.to_bytes(4, "little") + name.ljust(4, b"\0") + x.to_bytes(4, "little")
    for mode in ("--json", "text"):
        pb = Perfbuf(["run", "-n", "2", "--set", "target_pid=%d" % os.getpid(),
                      os.path.join(OBJ, "run_nested.bpf.o")] + ([mode] if mode[0] == "-" else []))
        emit(rec(1, b"a\xffb", 5))
        emit(rec(2, b"abcd", 6))
        out, err, rc = pb.end()
        if mode == "--json":
            evs = sorted(events(out), key=lambda e: e["args"]["seq"])
            ok = len(evs) == 2 and evs[0]["args"]["in"] == {"name": "a\udcffb", "x": 5} and \
                "cut" not in evs[0] and evs[1]["args"]["in"] == {"name": "abcd", "x": 6} and \
                evs[1].get("cut") == ["in"] and '"a\\udcffb"' in out
        else:
            rows = sorted(l for l in out.splitlines()[1:3])
            ok = len(rows) == 2 and rows[1].endswith('{"name":"abcd","x":6}...') and \
                rows[0].endswith('{"name":"a\\udcffb","x":5}')
        result("run_nested_string_" + mode.strip("-"), ok, out + err)


def ringbuf_big():
    """a ring buffer record of 80 KiB, whole (it was cut at 64 KiB without
    a word): live, and through --record and report"""
    rec = (7).to_bytes(4, "little") + (b"a" * 79990 + b"END").ljust(80000, b"\0")
    pb = Perfbuf(["run", "--json", "--set", "target_pid=%d" % os.getpid(),
                  os.path.join(OBJ, "run_ringbig.bpf.o")])
    emit(rec)
    out, err, rc = pb.end()
    evs = events(out)
    ok = rc == 0 and len(evs) == 1 and evs[0]["args"]["seq"] == 7 and \
        evs[0]["args"]["text"] == "a" * 79990 + "END" and "cut" not in evs[0]
    result("run_ringbuf_over_64k", ok, err + out[:300])


def report_capture():
    """run --record -o X.cap of a copy of the object, the copy deleted:
    report decodes every field from the types in the capture"""
    import shutil
    import tempfile
    tmp = tempfile.mkdtemp()
    try:
        obj = os.path.join(tmp, "mine.bpf.o")
        cap = os.path.join(tmp, "x.cap")
        shutil.copy(os.path.join(OBJ, "run_types.bpf.o"), obj)
        rng = random.Random(5)
        recs = [rand_event(rng, i) for i in range(10)]
        pb = Perfbuf(["run", "--record", "-o", cap, "-n", "10",
                      "--set", "target_pid=%d" % os.getpid(), obj])
        for e in recs:
            emit(bytes(e))
        out, err, rc = pb.end()
        os.unlink(obj)
        p = subprocess.run([PERFBUF, "report", "--json", cap], capture_output=True,
                           timeout=60)
        evs = events(p.stdout.decode())
        why = None if rc == 0 and p.returncode == 0 and len(evs) == 10 else \
            "run exit %d: %s; report exit %d, %d events: %s" % (
                rc, err, p.returncode, len(evs), p.stderr.decode())
        for o, e in zip(evs, recs):
            why = why or compare("report", o["args"], want_run_event(e, "none"))
        text = subprocess.run([PERFBUF, "report", cap], capture_output=True, timeout=60)
        lines = text.stdout.decode().splitlines()
        if not why and (len(lines) != 11 or lines[0].split()[2] != "s8"):
            why = "text: %r" % lines[:2]
        # a damaged type: one line, exit 1, nothing decoded by a wrong type
        raw = bytearray(open(cap, "rb").read())
        i = raw.find(b"f 8 0 120")
        raw[i:i + 9] = b"f 8 0 999"
        bad = os.path.join(tmp, "bad.cap")
        open(bad, "wb").write(raw)
        p = subprocess.run([PERFBUF, "report", bad], capture_output=True, timeout=60)
        if not why and p.returncode != 1:
            why = "damaged capture: exit %d %r" % (p.returncode, p.stderr)
        # maps as run makes them live: by an enum's names, by the
        # record's own comm; a name no record has refused in one line
        p = subprocess.run([PERFBUF, "report", "--aggregate", "count() by state",
                            "--aggregate", "@c = count() by comm", cap],
                           capture_output=True, timeout=60)
        lines = p.stdout.decode().splitlines()
        if not why and (p.returncode != 0 or lines[:4] != [
                "@count[7]: 2", "@count[RUN_GONE]: 2", "@count[RUN_BUSY]: 3",
                "@count[RUN_IDLE]: 3"] or "@c[exactly16bytes!!]: 4" not in lines):
            why = "--aggregate: exit %d %r %r" % (p.returncode, lines, p.stderr)
        p = subprocess.run([PERFBUF, "report", "--aggregate", "sum(nosuch)", cap],
                           capture_output=True, timeout=60)
        if not why and (p.returncode != 1 or p.stderr.decode().count("\n") != 1 or
                        "no record has a field 'nosuch' (the records' fields: s8 u8 " not in p.stderr.decode()):
            why = "--aggregate sum(nosuch): exit %d %r" % (p.returncode, p.stderr)
        result("report_run_capture", why is None, why or "")
    finally:
        shutil.rmtree(tmp)


def aggregate():
    """run --aggregate: 20 records of known fields into maps, text and
    JSON: an enum's names as keys, comm as the record's own field, a sum
    by map; a name no record has refused in one line"""
    rng = random.Random(23)
    recs = [rand_event(rng, i) for i in range(20)]
    for i, e in enumerate(recs):
        e.u8 = i
    obj = os.path.join(OBJ, "run_types.bpf.o")
    args = ["--set", "target_pid=%d" % os.getpid(), "-n", "20"]
    runs = {}
    for mode in ("text", "json"):
        pb = Perfbuf(["run"] + (["--json"] if mode == "json" else []) + args +
                     ["--aggregate", "count() by state", "--aggregate", "@c = count() by comm",
                      "--aggregate", "@s = sum(u8) by probe", obj])
        for e in recs:
            emit(bytes(e))
        runs[mode] = pb.end()
    out, err, rc = runs["text"]
    lines = out.splitlines()
    want_c = ["@c[exactly16bytes!!]: 7"] + ["@c[task-%d]: 1" % i for i in
                                           sorted((i for i in range(20) if i % 3), key=str)]
    why = None
    if rc != 0:
        why = "text: exit %d: %s" % (rc, err)
    elif lines[:4] != ["@count[7]: 5", "@count[RUN_BUSY]: 5", "@count[RUN_GONE]: 5",
                       "@count[RUN_IDLE]: 5"]:
        why = "by state: %r" % lines[:4]
    elif sorted(l for l in lines if l.startswith("@c[")) != sorted(want_c):
        why = "by comm: %r" % [l for l in lines if l.startswith("@c[")]
    elif "@s[events]: 190" not in lines:
        why = "sum by map: %r" % lines
    elif "20 events received: 20 aggregated" not in err or "not written" in err:
        why = "summary: %r" % err
    out, err, rc = runs["json"]
    objs = [json.loads(l) for l in out.splitlines()]
    if not why and not any(o.get("map") == "@s" and o.get("key") == {"probe": "events"} and
                           o.get("value") == 190 for o in objs):
        why = "json: %r" % objs[-3:]
    p = subprocess.run([PERFBUF, "run", "--aggregate", "count() by nosuch", obj],
                       capture_output=True, timeout=60)
    if not why and (p.returncode != 1 or
                    not p.stderr.decode().startswith("perfbuf run: --aggregate 'count() by nosuch': no record has a field 'nosuch' (the records' fields: s8 u8 ")
                    or p.stderr.decode().count("\n") != 1):
        why = "a name no record has: exit %d %r" % (p.returncode, p.stderr)
    result("run_aggregate", why is None, why or "")
    # what --aggregate does not go with: one line each
    one_line("run_aggregate_record", ["run", "--record", "--aggregate", "count()", obj],
             "perfbuf run: --aggregate prints maps, not records: it does not go with --record")
    one_line("run_aggregate_nats", ["run", "--nats", "nats://127.0.0.1:1", "--aggregate",
                                    "count()", obj],
             "perfbuf run: --aggregate prints maps, not records: it does not go with --nats")
    one_line("run_interval_alone", ["run", "--interval", "1", obj],
             "perfbuf run: --interval is about the maps of --aggregate: give --aggregate EXPR")
    one_line("attach_keys_alone", ["attach", "--aggregate-keys", "5", "--map-name", "x"],
             "perfbuf attach: --aggregate-keys is about the maps of --aggregate")
    one_line("run_aggregate_stack", ["run", "--aggregate", "count() by kstack", obj],
             "perfbuf run: --aggregate 'count() by kstack': the records carry no stacks; "
             "maps by stack are perfbuf trace's")
    one_line("run_aggregate_bad", ["run", "--aggregate", "cnt()", obj],
             "perfbuf run: --aggregate 'cnt()': unknown function")


LOADER = r'''
import ctypes as C, os, sys, time
# the object loader is libperfbuf-object's, which needs libperfbuf first
C.CDLL(sys.argv[1], mode=C.RTLD_GLOBAL)
L = C.CDLL(os.path.join(os.path.dirname(sys.argv[1]), "libperfbuf-object.so"))
L.perfbuf_object__open.restype = C.c_void_p
o = L.perfbuf_object__open(sys.argv[2].encode())
assert L.perfbuf_object__set(C.c_void_p(o), ("target_pid=" + sys.argv[3]).encode()) == 0
assert L.perfbuf_object__load(C.c_void_p(o)) == 0
assert L.perfbuf_object__attach(C.c_void_p(o)) == 1
fd = L.perfbuf_object__map_fd(C.c_void_p(o), b"events")
mid = [l.split()[1] for l in open("/proc/self/fdinfo/%d" % fd) if l.startswith("map_id:")][0]
pin = sys.argv[4]
if C.CDLL("libbpf.so.1").bpf_obj_pin(fd, pin.encode()) != 0:
    pin = ""
print(mid, pin, flush=True)
sys.stdin.read()
if pin:
    os.unlink(pin)
'''


def attach_pinned_as_user(pin):
    """a user with CAP_BPF and CAP_PERFMON (and CAP_DAC_OVERRIDE, to open
    root's pin): the programs' BTF, by id, needs CAP_SYS_ADMIN; said so, not
    'no type' (with --type: exit 1) or 'give --type' (without: hex)"""
    if not shutil.which("setpriv"):
        print("SKIP attach_pinned_as_user: no setpriv")
        return
    caps = "+bpf,+perfmon,+dac_override"
    user = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
            "--inh-caps=" + caps, "--ambient-caps=" + caps,
            public_copy(PERFBUF), "attach", "-d", "1", "--map-pinned", pin]
    for name, extra, rc, want in [
            ("attach_pinned_as_user_type", ["--type", "run_event"], 1,
             "cannot be read without CAP_SYS_ADMIN"),
            ("attach_pinned_as_user_hex", [], 0,
             "its programs' BTF cannot be read without CAP_SYS_ADMIN; its records print as hex")]:
        p = subprocess.run(user + extra, capture_output=True, timeout=30)
        err = p.stderr.decode()
        said = [l for l in err.splitlines() if want in l]
        result(name, p.returncode == rc and len(said) == 1 and "no type" not in err and
               "give --type" not in err, "exit %d: %r" % (p.returncode, err))


def attach_by_id():
    """attach --map-id: a map of a program another process loaded (with
    libperfbuf-object through ctypes); the type from the kernel's BTF"""
    lib = os.path.join(BUILD, "libperfbuf.so")
    # an ASan build's library cannot be loaded by python: the normal one's
    if os.path.basename(os.path.normpath(BUILD)) == "san":
        lib = os.path.join(os.path.dirname(os.path.normpath(BUILD)), "libperfbuf.so")
    pin = "/sys/fs/bpf/perfbuf-run-test-%d" % os.getpid()
    loader = subprocess.Popen(["/usr/bin/python3", "-c", LOADER, lib,
                               os.path.join(OBJ, "run_types.bpf.o"), str(os.getpid()), pin],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        words = loader.stdout.readline().decode().split()
        mid = words[0] if words else None
        if not mid:
            result("attach_by_id", False, "the loader failed")
            return
        rng = random.Random(7)
        recs = [rand_event(rng, i) for i in range(5)]
        pb = Perfbuf(["attach", "--json", "-n", "5", "--map-id", mid])
        for e in recs:
            emit(bytes(e))
        out, err, rc = pb.end()
        evs = events(out)
        why = None if len(evs) == 5 else "%d events, exit %d: %s" % (len(evs), rc, err)
        for o, e in zip(evs, recs):
            why = why or compare("attach", o["args"], want_run_event(e, "none"))
        ok = why is None and "replaced" in err
        result("attach_by_id", ok, why or err)
        if len(words) < 2:
            print("SKIP attach_pinned: no bpffs at /sys/fs/bpf to pin the map in")
            return
        pb = Perfbuf(["attach", "--json", "-n", "2", "--map-pinned", words[1]])
        emit(bytes(recs[0]))
        emit(bytes(recs[1]))
        out, err, rc = pb.end()
        evs = events(out)
        why = None if len(evs) == 2 else "%d events, exit %d: %s" % (len(evs), rc, err)
        for o, e in zip(evs, recs):
            why = why or compare("pinned", o["args"], want_run_event(e, "none"))
        result("attach_pinned", why is None, why or "")
        # a type that is not there: that line alone (the rings are not
        # replaced by a run that never starts)
        one_line_t("attach_bad_type_one_line", ["attach", "-d", "1", "--map-pinned", words[1],
                                                "--type", "nosuch"], "no type 'nosuch'")
        attach_pinned_as_user(words[1])
    finally:
        loader.stdin.close()
        loader.wait(10)


def attach_finds():
    """attach's map said and checked: several of one name listed (ids and
    programs), a ring buffer beside its reader refused without --force, a
    pinned path that is no map said for what it is"""
    pid = "target_pid=%d" % os.getpid()
    bg = [Perfbuf(["run", "-d", "30", "--set", pid, os.path.join(OBJ, o)])
          for o in ("run_twomaps.bpf.o", "run_twomaps.bpf.o", "run_ringbig.bpf.o")]
    try:
        p = subprocess.run([PERFBUF, "attach", "-d", "1", "--map-name", "second"],
                           capture_output=True, timeout=60)
        err = p.stderr.decode()
        ok = p.returncode == 1 and len(err.splitlines()) == 1 and \
            "2 maps are named second: id " in err and err.count("(twomaps_write)") == 2 and \
            "give --map-id N" in err
        result("attach_name_several", ok, "exit %d: %r" % (p.returncode, err))
        one_line("attach_ringbuf_refused", ["attach", "-d", "1", "--map-name", "big"],
                 "is a ring buffer: beside its own reader each record goes to one of the two, "
                 "and both see gaps; give --force")
        pb = Perfbuf(["attach", "-d", "1", "--force", "--map-name", "big"])
        out, err, rc = pb.end()
        result("attach_ringbuf_force", rc == 0 and "Reading map big" in err, err)
        one_line("attach_pinned_regular_file", ["attach", "--map-pinned", "/etc/hostname"],
                 "--map-pinned /etc/hostname: a regular file outside a BPF filesystem (bpffs)")
        one_line("attach_pinned_directory", ["attach", "--map-pinned", "/tmp"],
                 "--map-pinned /tmp: a directory outside a BPF filesystem (bpffs)")
        one_line("attach_pinned_bpffs_directory", ["attach", "--map-pinned", "/sys/fs/bpf"],
                 "--map-pinned /sys/fs/bpf: a directory of bpffs, not a pinned map: give the "
                 "path of a map pinned in it")
        one_line("attach_include_without_header", ["attach", "-I", "/tmp", "--map-name", "big"],
                 "-I /tmp: include directories are for --header FILE.h")
        one_line("run_force_is_attach_s", ["run", "--force", "-d", "1",
                                           os.path.join(OBJ, "run_types.bpf.o")],
                 "--force is perfbuf attach's")
        pin = "/sys/fs/bpf/perfbuf-run-prog-%d" % os.getpid()
        show = subprocess.run(["bpftool", "-j", "prog", "show", "name", "twomaps_write"],
                              capture_output=True)
        progs = json.loads("[" + show.stdout.decode().replace("}\n{", "},{").strip() + "]") \
            if show.returncode == 0 and show.stdout.strip() else []
        progs = [q for q in (progs[0] if progs and isinstance(progs[0], list) else progs)]
        if not progs or subprocess.run(["bpftool", "prog", "pin", "id", str(progs[0]["id"]),
                                        pin]).returncode:
            print("SKIP attach_pinned_program: cannot pin a program (bpftool, bpffs)")
        else:
            try:
                one_line("attach_pinned_program", ["attach", "--map-pinned", pin],
                         "--map-pinned %s: a pinned BPF program, not a map" % pin)
            finally:
                os.unlink(pin)
    finally:
        for b in bg:
            b.end()


def attach_replaced():
    """a reader whose rings another reader took says so and ends (it
    went on with "lost 0", seeing nothing)"""
    pid = "target_pid=%d" % os.getpid()
    own = Perfbuf(["run", "-d", "30", "--set", pid, os.path.join(OBJ, "run_twomaps.bpf.o")])
    try:
        show = subprocess.run(["bpftool", "-j", "map", "show", "name", "second"],
                              capture_output=True).stdout.decode().strip()
        maps = json.loads(show) if show else []
        maps = maps if isinstance(maps, list) else [maps]
        if len(maps) != 1:
            result("attach_replaced", False, "maps named second: %r" % maps)
            return
        first = Perfbuf(["attach", "-d", "30", "--map-id", str(maps[0]["id"])])
        second = Perfbuf(["attach", "-d", "30", "--map-id", str(maps[0]["id"])])
        end = time.time() + 10
        while first.p.poll() is None and time.time() < end:
            time.sleep(0.2)
        out, err, rc = first.end()
        ok = rc == 1 and "map second: our rings of CPUs" in err and \
            "no longer in the map, replaced by another reader" in err and \
            re.search(r"\) [0-9.]+ s ago; what the programs wrote on them since went to that reader", err)
        result("attach_replaced", ok, "exit %d: %s" % (rc, err))
        # the first reader's end leaves the second's rings in the map
        time.sleep(3)
        alive = second.p.poll() is None
        out, err, rc = second.end()
        result("attach_replaced_survivor_keeps_rings",
               alive and "no longer in the map" not in err, "exit %d: %s" % (rc, err))
    finally:
        out, err, rc = own.end()
        result("attach_replaced_owner_told", rc == 1 and "no longer in the map" in err, err)


def partial_attach():
    """a program that cannot be attached: named with the reason, the
    others attached and read"""
    pb = Perfbuf(["run", "--json", "-n", "1", "--type", "run_tail", "--set",
                  "target_pid=%d" % os.getpid(), os.path.join(OBJ, "run_partial.bpf.o")])
    emit(b"12345")
    out, err, rc = pb.end()
    evs = events(out)
    ok = rc == 0 and len(evs) == 1 and evs[0]["args"]["seq"] == 5 and \
        'program missing (SEC("tracepoint/perfbuf_test/no_such_event")): not attached: ' \
        'No such file or directory (no such attach point on this kernel)' in err and \
        "Attached 1 program" in err
    result("run_partial_attach", ok, err + out)
    # no type anywhere (no marker, no struct event, no --type): hex
    pb = Perfbuf(["run", "--json", "-n", "1", "--set", "target_pid=%d" % os.getpid(),
                  os.path.join(OBJ, "run_partial.bpf.o")])
    emit(b"1234567")
    out, err, rc = pb.end()
    evs = events(out)
    want = bytes(RunTail(seq=7)).hex()
    ok = rc == 0 and len(evs) == 1 and evs[0]["args"]["size"] == 76 and \
        evs[0]["args"]["data"].startswith(want) and "print as hex" in err
    result("run_no_type_hex", ok, err + out)


def choose():
    """alternatives chosen as libbpf-tools do: of tp_btf and raw_tp for one
    tracepoint the tp_btf only (one record per write, not two); a program
    this kernel refuses left out when others remain; --prog/--no-prog by
    hand; a program that fails to load named, with the verifier's reason"""
    obj = os.path.join(OBJ, "run_alt.bpf.o")
    pid = "target_pid=%d" % os.getpid()
    pb = Perfbuf(["run", "--json", "--type", "run_tail", "--set", pid, obj])
    for n in (5, 6, 7):
        emit(b"x" * n)
    out, err, rc = pb.end()
    evs = events(out)
    fentry_refused = "alt_fentry (fentry ksys_write: fentry/fexit refused by this kernel)" in err
    tags = [1, 3] if not fentry_refused else [1]
    got = sorted((e["args"]["seq"], e["args"]["len"]) for e in evs)
    want = sorted((n, t) for n in (5, 6, 7) for t in tags)
    dropped = [l for l in err.splitlines() if "not loading" in l]
    ok = rc == 0 and got == want and len(dropped) == 1 and \
        "alt_raw (tp_btf alt_btf covers sys_enter)" in dropped[0] and "Attached %d program" % len(tags) in err
    result("choose_tp_btf_over_raw_tp", ok, "%r want %r: %s" % (got, want, err))
    one_line("choose_prog_verifier_named", ["run", "--prog", "alt_raw", "--set", pid, obj],
             'program alt_raw (SEC("raw_tp/sys_enter")) failed to load: Invalid argument: '
             'the verifier says "program of this type cannot use helper bpf_get_socket_cookie#46"')
    one_line("choose_no_prog_leaves_raw_tp", ["run", "--no-prog", "alt_btf", "--no-prog",
                                              "alt_fentry", "--set", pid, obj],
             "run without it: --no-prog alt_raw")
    if fentry_refused:
        one_line("choose_prog_fentry_refused", ["run", "--prog", "alt_fentry", obj],
                 'program alt_fentry (SEC("fentry/ksys_write")) failed to load: this kernel '
                 'refuses fentry programs (Operation not permitted as root: kernel lockdown')
    one_line("choose_prog_unknown", ["run", "--prog", "nosuch", obj],
             "--prog nosuch: the object has no such program (its programs: alt_btf, alt_raw, "
             "alt_fentry)")
    one_line("choose_no_prog_on_attach", ["attach", "--map-id", "1", "--no-prog", "x"],
             "--no-prog needs an object not loaded yet")


def load_errors():
    """what failed, named: a map (no verifier failure), libbpf's own codes,
    nothing attached (uprobe without target, no kprobes)"""
    one_line("load_map_named", ["run", os.path.join(OBJ, "run_badmap.bpf.o")],
             "failed: map badstacks could not be created: Invalid argument")
    one_line("load_libbpf_errno", ["run", "/bin/ls"],
             "is not a BPF object libbpf can open: BPF object format invalid")
    p = subprocess.run([PERFBUF, "run", "-d", "5", os.path.join(OBJ, "run_notarget.bpf.o")],
                       capture_output=True, timeout=60)
    err = p.stderr.decode()
    kprobes = os.path.exists("/sys/bus/event_source/devices/kprobe/type")
    ok = p.returncode == (0 if kprobes else 1) and \
        'program notarget_uprobe (SEC("uprobe")): not attached: its SEC() names no binary ' \
        'and function' in err and \
        (kprobes or 'program notarget_kprobe (SEC("kprobe/ksys_write")): not attached: this ' \
         'kernel has no kprobes (CONFIG_KPROBES is off)' in err) and \
        (kprobes or "no program of '%s' could be attached" % os.path.join(OBJ, "run_notarget.bpf.o")
         in err)
    result("load_nothing_attached", ok, "exit %d: %s" % (p.returncode, err))
    # uprobes only (gethostlatency, javagc): 0 attached is an error too
    p = subprocess.run([PERFBUF, "run", "-d", "5", "--no-prog", "notarget_kprobe",
                        os.path.join(OBJ, "run_notarget.bpf.o")], capture_output=True, timeout=60)
    err = p.stderr.decode()
    ok = p.returncode == 1 and "Attached" not in err and "could be attached" in err
    result("load_uprobe_only", ok, "exit %d: %s" % (p.returncode, err))


def one_line(name, args, want):
    p = subprocess.run([PERFBUF] + args, capture_output=True, timeout=60)
    err = p.stderr.decode()
    ok = p.returncode == 1 and len(err.splitlines()) == 1 and want in err
    result(name, ok, "exit %d: %r" % (p.returncode, err))


def hostile():
    """bad objects and options: one line each, exit 1"""
    one_line("hostile_not_elf", ["run", "tests/bpf/run_test.h"], "not an ELF object")
    one_line("hostile_type_name_too_long", ["run", "--header", "tests/bpf/run_test.h", "--type",
                                            "events:" + "x" * 300, "tests/bpf/run_test.h"],
             "the type name '%s...' is 300 characters long; the longest taken is 255" % ("x" * 40))
    one_line("hostile_no_maps", ["run", os.path.join(OBJ, "run_nomaps.bpf.o")],
             "no BPF_MAP_TYPE_PERF_EVENT_ARRAY or BPF_MAP_TYPE_RINGBUF map")
    one_line("hostile_set_unknown", ["run", "--set", "nope=1",
                                     os.path.join(OBJ, "run_types.bpf.o")],
             "no const volatile variable 'nope'")
    one_line("hostile_set_bad", ["run", "--set", "target_pid=-5",
                                 os.path.join(OBJ, "run_types.bpf.o")], "does not fit")
    one_line("hostile_set_long_name", ["run", "--set", "x" * 150 + "=1",
                                       os.path.join(OBJ, "run_types.bpf.o")],
             "the name is too long (150 characters; at most 127)")
    one_line("hostile_type_no_map", ["run", "-d", "2", "--type", "evnts:no_such_struct",
                                     os.path.join(OBJ, "run_types.bpf.o")],
             "--type evnts:no_such_struct: no map evnts to read (the map read is: events)")
    one_line("hostile_type_empty", ["run", "-d", "2", "--type", "events:",
                                    os.path.join(OBJ, "run_types.bpf.o")],
             "--type 'events:': give [MAP:]STRUCT")
    cap = "/tmp/perfbuf-huge-%d.cap" % os.getpid()
    one_line("hostile_record_huge_type", ["run", "-d", "1", "--record", "-o", cap,
                                          os.path.join(OBJ, "run_huge.bpf.o")],
             "--record: map events's record type (struct run_huge, 17825796 bytes) cannot be "
             "kept in a capture")
    if os.path.exists(cap):
        os.unlink(cap)
        result("hostile_record_huge_no_file", False, "a capture was written")
    one_line("hostile_no_type", ["run", "--type", "nosuch",
                                 os.path.join(OBJ, "run_types.bpf.o")], "no type 'nosuch'")
    # records of another size than the type: hex, counted (120 bytes and
    # perf's padding: its u32 size and the payload end on 8 bytes)
    pb = Perfbuf(["run", "--json", "--type", "run_inner", "--set",
                  "target_pid=%d" % os.getpid(), os.path.join(OBJ, "run_types.bpf.o")])
    emit(bytes(RunEvent()))
    emit(bytes(RunEvent()))
    out, err, rc = pb.end()
    summ = [json.loads(l) for l in out.splitlines() if '"summary"' in l]
    ok = rc == 0 and not events(out) and "a record of 124 bytes, struct run_inner has 6" in err \
        and "2 records of the wrong size for struct run_inner" in err and len(summ) == 1 \
        and summ[0]["discarded"] == 0 and summ[0]["undecoded"] == 2  # not blamed on -n
    result("hostile_wrong_size", ok, err + out)


def corrupt_btf():
    """one field of a map's BTF set past its table (tests/btf_patch.py):
    one line naming the section and the fault, exit 1, where libbpf 1.1
    would crash (a type id) or spin (map_loop)"""
    tmp = tempfile.mkdtemp(prefix="perfbuf-btf.")
    src = os.path.join(OBJ, "py_opensnoop.bpf.o")
    try:
        for what, want in [("maps_var", "refers to type id 2147483647, past its "),
                           ("map_member", "has a member of type id 2147483647"),
                           ("maps_secinfo", "has a variable of type id 2147483647"),
                           ("name", "has a name at string offset 2147483647, past its"),
                           ("str_len", "its header, types and strings do not fit"),
                           ("mod_loop", "is a chain of modifiers or typedefs that loops"),
                           ("map_loop", "is a chain of modifiers or typedefs that loops")]:
            bad = os.path.join(tmp, what + ".o")
            subprocess.run(["/usr/bin/python3", "tests/btf_patch.py", src, bad, what], check=True)
            err = one_line_t("corrupt_btf_" + what, ["run", "-d", "1", bad],
                             "'%s' has a corrupt .BTF section: " % bad)
            result("corrupt_btf_%s_said" % what, want in err, err)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def one_line_t(name, args, want, env=None, single=False):
    """one_line, but a hang (a FIFO's open()) is a failure, not the end;
    with @env, clang's own lines may come first unless @single"""
    try:
        p = subprocess.run([PERFBUF] + args, capture_output=True, timeout=20,
                           env=dict(os.environ, **(env or {})))
    except subprocess.TimeoutExpired:
        result(name, False, "still running after 20 s")
        return ""
    err = p.stderr.decode()
    ok = p.returncode == 1 and want in err and \
        ((env is not None and not single) or len(err.splitlines()) == 1)
    result(name, ok, "exit %d: %r" % (p.returncode, err))
    return err


def header_decodes(name, hdr, types, obj="run_types.bpf.o", tag="none"):
    """run --header HDR: a record decoded by the header's type"""
    e = rand_event(random.Random(29), 1)
    pb = Perfbuf(["run", "--json", "-n", "1", "--set", "target_pid=%d" % os.getpid(),
                  "--header", hdr] + types + [os.path.join(OBJ, obj)])
    emit(bytes(e))
    out, err, rc = pb.end()
    evs = events(out)
    why = None if len(evs) == 1 and rc == 0 else "%d events, exit %d: %s" % (len(evs), rc, err)
    why = why or compare(name, evs[0]["args"], want_run_event(e, tag))
    result(name, why is None, why or "")
    return err


def header_temps():
    return set(f for f in os.listdir("/tmp") if f.startswith("perfbuf-header."))


def setcap_clang(tmp, hdr):
    """perfbuf with file capabilities, run by nobody: the caller's CLANG
    (and PATH) are not what it runs"""
    os.chmod(tmp, 0o755)
    exe = os.path.join(tmp, "perfbuf-caps")
    shutil.copy(PERFBUF, exe)
    fake = os.path.join(tmp, "fake-clang")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\necho 'FAKE CLANG RAN' >&2\nexit 1\n")
    os.chmod(fake, 0o755)
    os.symlink(fake, os.path.join(tmp, "clang"))    # first in PATH
    if subprocess.run(["setcap", "cap_bpf,cap_perfmon,cap_dac_read_search+ep", exe]).returncode:
        print("SKIP header_setcap_ignores_clang_env: no setcap")
        return
    # clang, which has no capability, reads the header: a copy others can read
    p = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                        exe, "run", "-d", "1", "--header", public_copy(hdr), "--type",
                        "run_event", public_copy(os.path.join(OBJ, "run_types.bpf.o"))],
                       capture_output=True, timeout=60,
                       env=dict(os.environ, CLANG=fake, PATH=tmp + ":/usr/bin:/bin"))
    err = p.stderr.decode()
    result("header_setcap_ignores_clang_env", p.returncode == 0 and "FAKE" not in err,
           "exit %d: %s" % (p.returncode, err))


def header_include_dir(tmp):
    """-I DIR: a header including what is not beside it (libbpf-tools'
    headers want vmlinux.h)"""
    hdr = os.path.join(tmp, "lt.h")
    with open(hdr, "w") as f:
        f.write('#include "vmlinux.h"\nstruct lt_tail { __u32 seq; __u32 len; char args[64]; };\n')
    args = ["run", "--json", "-n", "1", "--set", "target_pid=%d" % os.getpid(), "--header", hdr,
            "--type", "rb:lt_tail", os.path.join(OBJ, "run_ringbuf.bpf.o")]
    p = subprocess.run([PERFBUF] + args, capture_output=True, timeout=60)
    err = p.stderr.decode()
    result("header_include_missing", p.returncode == 1 and "'vmlinux.h' file not found" in err,
           err)
    pb = Perfbuf(args[:1] + ["-I", BUILD] + args[1:])
    emit(bytes(RunTail(seq=4, len=3, args=b"abc")))
    out, err, rc = pb.end()
    evs = events(out)
    ok = rc == 0 and len(evs) == 1 and evs[0]["args"] == {"seq": 4, "len": 3, "args": "abc"}
    result("header_include_dir", ok, out + err)


def header():
    """--header FILE.h --type T: the tool compiles the header with clang"""
    hdr = os.path.abspath("tests/bpf/run_test.h")
    tmp = tempfile.mkdtemp(prefix="perfbuf-run-header.", dir="/tmp")    # nobody runs from it
    before = header_temps()
    try:
        # the other map (tails), which --type does not name: its marker
        err = header_decodes("header_second_map", hdr, ["--type", "events:run_event"],
                             "run_two_maps.bpf.o", "")
        result("header_second_map_typed", "print as hex" not in err, err)
        header_include_dir(tmp)
        odd = os.path.join(tmp, 'my"ev\\x.h')
        shutil.copy(hdr, odd)
        header_decodes("header_quoted_path", odd, ["--type", "run_event"])
        root = "/perfbuf-test-%d.h" % os.getpid()
        shutil.copy(hdr, root)
        try:
            header_decodes("header_in_root", root, ["--type", "run_event"])
        finally:
            os.unlink(root)
        one_line_t("header_type_not_c", ["run", "--header", hdr, "--type",
                                         'run_event *x;\n#include "/etc/passwd"\nstruct run_event',
                                         os.path.join(OBJ, "run_types.bpf.o")],
                   "is not a C type name")
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        one_line_t("header_fifo", ["run", "--header", fifo, "--type", "run_event",
                                   os.path.join(OBJ, "run_types.bpf.o")], "not a regular file")
        one_line_t("object_fifo", ["run", fifo], "not a regular file")
        # clang that cannot start (a memory limit: the loader fails): its
        # status and its own words, not "no clang"
        fake = os.path.join(tmp, "clang127")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'clang: error while loading shared libraries: "
                    "libLLVM-14.so.1: failed to map segment from shared object' >&2\nexit 127\n")
        os.chmod(fake, 0o755)
        err = one_line_t("header_clang_127", ["run", "--header", hdr, "--type", "run_event",
                                              os.path.join(OBJ, "run_types.bpf.o")],
                         "failed to map segment", {"CLANG": fake})
        result("header_clang_127_status", "status 127" in err, err)
        # a path no #include can spell; a clang that is not there, or dies
        both = os.path.join(tmp, 'a"b>c.h')
        shutil.copy(hdr, both)
        one_line_t("header_path_unincludable", ["run", "--header", both, "--type", "run_event",
                                                os.path.join(OBJ, "run_types.bpf.o")],
                   "cannot be #included")
        one_line_t("header_clang_missing", ["run", "--header", hdr, "--type", "run_event",
                                            os.path.join(OBJ, "run_types.bpf.o")],
                   "(set CLANG to its path)", {"CLANG": os.path.join(tmp, "no-clang")}, True)
        killed = os.path.join(tmp, "clang_killed")
        with open(killed, "w") as f:
            f.write("#!/bin/sh\nkill -9 $$\n")
        os.chmod(killed, 0o755)
        one_line_t("header_clang_killed", ["run", "--header", hdr, "--type", "run_event",
                                           os.path.join(OBJ, "run_types.bpf.o")],
                   "clang was killed by signal 9", {"CLANG": killed}, True)
        # a signal mid-compile: no file left in /tmp
        slow = os.path.join(tmp, "clang_slow")
        with open(slow, "w") as f:
            f.write("#!/bin/sh\nsleep 2\nexec clang \"$@\"\n")
        os.chmod(slow, 0o755)
        p = subprocess.Popen([PERFBUF, "run", "--header", hdr, "--type", "run_event",
                              os.path.join(OBJ, "run_types.bpf.o")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env=dict(os.environ, CLANG=slow))
        time.sleep(1)
        p.terminate()
        p.wait(20)
        time.sleep(1.5)     # the slow clang's sleep ends
        left = header_temps() - before
        result("header_signal_no_temp", not left, "left in /tmp: %s" % sorted(left))
        setcap_clang(tmp, hdr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    one_line("type_too_deep_said", ["run", os.path.join(OBJ, "run_deep.bpf.o")],
             "nests more than 32 levels deep")


LEDGER_WANT = [("RL_SMALL", 3), ("RL_BIG", 2), ("kind 2", 1)]


def ledger_json_ok(summ):
    """The summary's kinds: each offered what was written, all received"""
    kinds = [(k["kind"], k["offered"]) for k in summ.get("kinds", [])]
    if kinds != LEDGER_WANT or summ.get("ledger_mismatch"):
        return "kinds %r, not %r" % (summ.get("kinds"), LEDGER_WANT)
    for k in summ["kinds"]:
        if k["received"] != k["offered"] or k["lost"] or k["no_reader"] or k["failed"]:
            return "kind %r" % k
    return None


def ledger_text_ok(out):
    """the text summary's KIND table: OFFERED RECEIVED LOST NO READER KIND"""
    lines = out.splitlines()
    head = [i for i, l in enumerate(lines) if l.split()[:2] == ["OFFERED", "RECEIVED"]]
    if not head or lines[head[0]].split()[-1] != "KIND":
        return "no KIND table: %r" % lines[-6:]
    rows = [l.split(None, 4) for l in lines[head[0] + 1:head[0] + 4]]
    got = [(r[4], int(r[0])) for r in rows if len(r) == 5]
    return None if got == LEDGER_WANT else "rows %r" % rows


def ledger_kinds():
    """an object that writes with perfbuf_output(): run's summary has a
    line per kind (named from its enum), text and --json; --record keeps
    the ledger and report prints it"""
    import shutil
    import tempfile
    obj = os.path.join(OBJ, "run_ledger.bpf.o")
    recs = [struct.pack("<II", k, i) for i, k in enumerate([0, 1, 0, 7, 1, 0])]
    tmp = tempfile.mkdtemp()
    try:
        for name, args in [("run_ledger_json", ["--json"]), ("run_ledger_text", []),
                           ("report_ledger", ["--record", "-o", os.path.join(tmp, "l.cap")])]:
            pb = Perfbuf(["run"] + args + ["--set", "target_pid=%d" % os.getpid(), obj])
            for r in recs:
                emit(r)
            out, err, rc = pb.end()
            why = None if rc == 0 else "exit %d: %s" % (rc, err)
            if name == "report_ledger" and not why:
                p = subprocess.run([PERFBUF, "report", "--json", os.path.join(tmp, "l.cap")],
                                   capture_output=True, timeout=60)
                out, rc = p.stdout.decode(), p.returncode
                t = subprocess.run([PERFBUF, "report", os.path.join(tmp, "l.cap")],
                                   capture_output=True, timeout=60)
                why = ledger_text_ok(t.stderr.decode()) if rc == 0 else \
                    "report exit %d: %s" % (rc, p.stderr.decode())
            if not why and name != "run_ledger_text":
                summ = [o for o in map(json.loads, out.splitlines()) if o["type"] == "summary"]
                why = ledger_json_ok(summ[0]) if len(summ) == 1 else "summary %r" % summ
            elif not why:
                why = ledger_text_ok(err)     # the summary: on stderr
            result(name, why is None, why or "")
    finally:
        shutil.rmtree(tmp)
    ledger_attach(obj, recs)


def ledger_attach(obj, recs):
    """attach --map-id: the ledger of the program that writes to the map,
    counted from attach's start (the writes before had no reader)"""
    lib = os.path.join(BUILD, "libperfbuf.so")
    if os.path.basename(os.path.normpath(BUILD)) == "san":
        lib = os.path.join(os.path.dirname(os.path.normpath(BUILD)), "libperfbuf.so")
    loader = subprocess.Popen(["/usr/bin/python3", "-c", LOADER, lib, obj, str(os.getpid()),
                               "/nonexistent/pin"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)
    try:
        words = loader.stdout.readline().decode().split()
        if not words:
            result("attach_ledger", False, "the loader failed")
            return
        for r in recs:          # no reader yet: the program's, not ours
            emit(r)
        pb = Perfbuf(["attach", "--json", "--map-id", words[0]])
        for r in recs:
            emit(r)
        out, err, rc = pb.end()
        summ = [o for o in map(json.loads, out.splitlines()) if o["type"] == "summary"]
        why = "exit %d: %s" % (rc, err) if rc else \
            ledger_json_ok(summ[0]) if len(summ) == 1 else "summary %r" % summ
        result("attach_ledger", why is None, why or "")
    finally:
        loader.stdin.close()
        loader.wait(10)


if __name__ == "__main__":
    for name, fn in [("every_kind", every_kind), ("set_bool", set_bool),
                     ("dwarf_only", dwarf_only), ("ringbuf_tail", ringbuf_tail),
                     ("ringbuf_big", ringbuf_big), ("nested", nested_strings),
                     ("bits", bits_signed_enum),
                     ("attach_by_id", attach_by_id), ("attach_finds", attach_finds),
                     ("attach_replaced", attach_replaced), ("report", report_capture),
                     ("partial", partial_attach), ("choose", choose),
                     ("load_errors", load_errors),
                     ("hostile", hostile), ("corrupt_btf", corrupt_btf),
                     ("header", header), ("ledger", ledger_kinds),
                     ("aggregate", aggregate)]:
        if not ONLY or name in ONLY:
            fn()
    sys.exit(1 if failed else 0)
