# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The perfbuf Python package on BPF programs the tests load: every API
call, values compared field by field with what the test wrote."""
import errno
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import perfbuf
from conftest import Emitter, emit_object, obj_path

EMIT_DT = np.dtype([("seq", "<u8"), ("time_ns", "<u8"), ("cpu", "<u4"), ("size", "<u4")])


def write_records(recs):
    """tests/bpf/run_types.bpf.c copies each write(-1, rec) of our pid."""
    for r in recs:
        try:
            os.write(-1, r.tobytes())
        except OSError as e:
            assert e.errno == errno.EBADF


def poll_until(pb, want, timeout=5.0):
    got, end = [], time.monotonic() + timeout
    while sum(len(b) for b in got) < want and time.monotonic() < end:
        got.append(pb.poll(50))
    return got


def test_object_dtype_and_values():
    with perfbuf.Object(obj_path("tests/bpf/run_types.bpf.o"),
                        set={"target_pid": os.getpid(), "tag": "pyt", "mark": True}) as obj:
        dt = obj.dtype("run_event")
        assert dt == obj.dtype(map="events"), "the marker names the same type"
        assert dt.itemsize == 120
        assert dt["comm"] == np.dtype("S16")
        assert dt["inner"].names == ("port", "level", "flags")
        assert dt["inner"]["flags"].shape == (3,)
        assert dt["addr"].fields["v4"][1] == dt["addr"].fields["v6"][1] == 0, "a union"
        assert dt["state"] == np.dtype("<i4"), "an enum is its integer type"
        assert "bits_lo" not in dt.names, "bitfields have no numpy form"
        recs = np.zeros(50, dt)
        recs["s8"] = -np.arange(50)
        recs["u8"] = 200
        recs["s16"] = -30000
        recs["u16"] = 60000
        recs["s32"] = -(2 ** 31)
        recs["u32"] = 2 ** 32 - 1
        recs["s64"] = -(2 ** 63)
        recs["u64"] = 2 ** 64 - 1 - np.arange(50, dtype=np.uint64)
        recs["state"] = -1
        recs["comm"] = [b"c%d" % i for i in range(50)]
        recs["inner"]["port"] = 8080
        recs["inner"]["level"] = -3
        recs["inner"]["flags"] = [1, 2, 3]
        recs["addr"]["v6"] = np.arange(16)
        recs["counts"] = [[i, -i, 7, 9] for i in range(50)]
        recs["ptr"] = 0xffff888000000000
        with obj.perf_buffer("events") as pb:
            write_records(recs)
            batches = poll_until(pb, 50)
            got = np.concatenate([b.array(dt) for b in batches])
            assert len(got) == 50
            assert sum(b.short for b in batches) == 0
            assert (got["tag"] == b"pyt").all(), "--set's string reached the program"
            assert got["ok"].all(), "--set's bool reached the program"
            for name in dt.names:
                if name not in ("tag", "ok"):
                    assert (got[name] == recs[name]).all(), name
            assert all(set(b.cpu.tolist()) <= {0, 1} for b in batches)
            raw = [r for b in batches for r in b.raw]
            want = bytearray(recs[0].tobytes())
            want[dt.fields["ok"][1]] = 1
            want[dt.fields["tag"][1]:dt.fields["tag"][1] + 3] = b"pyt"
            assert raw[0][:120] == bytes(want), "raw: the bytes as written"


def test_set_errors():
    path = obj_path("tests/bpf/run_types.bpf.o")
    with pytest.raises(KeyError, match="no const volatile global 'nosuch'"):
        perfbuf.Object(path, set={"nosuch": 1})
    with pytest.raises(ValueError, match="target_pid=-1"):
        perfbuf.Object(path, set={"target_pid": -1})


def test_hostile_objects(tmp_path):
    bad = tmp_path / "x.bpf.o"
    bad.write_bytes(b"not an ELF file at all\n")
    with pytest.raises(ValueError, match="not a BPF object"):
        perfbuf.Object(bad)
    with pytest.raises(FileNotFoundError):
        perfbuf.Object(tmp_path / "missing.bpf.o")
    # an ELF file that is no BPF object: libbpf's own code, by its name
    with pytest.raises(OSError, match="BPF object format invalid"):
        perfbuf.Object("/bin/ls")
    with perfbuf.Object(obj_path("tests/bpf/run_types.bpf.o"), attach=False) as obj:
        with pytest.raises(LookupError, match="no type"):
            obj.dtype("no_such_struct")
        with pytest.raises(KeyError, match="no map 'nope'"):
            obj.perf_buffer("nope")


def test_corrupt_btf_refused(tmp_path):
    """a map's BTF type id past the table (libbpf 1.1 would segfault): a
    child process, so that a crash fails this test instead of ending pytest"""
    bad = tmp_path / "bad.bpf.o"
    patch = os.path.join(os.path.dirname(__file__), "../../tests/btf_patch.py")
    subprocess.run([sys.executable, patch,
                    obj_path("tests/bpf/py_opensnoop.bpf.o"), str(bad), "maps_var"], check=True)
    p = subprocess.run([sys.executable, "-c", "import sys, perfbuf\n"
                        "try:\n perfbuf.Object(sys.argv[1])\n"
                        "except ValueError as e:\n print(e)\n sys.exit(3)", str(bad)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 3, "exit %d: %s" % (p.returncode, p.stderr)
    assert "has a corrupt .BTF section: type [" in p.stderr and \
        "refers to type id 2147483647" in p.stderr, p.stderr
    assert "%s has a corrupt .BTF section" % bad in p.stdout, p.stdout


def test_dwarf_only_type():
    with perfbuf.Object(obj_path("tests/bpf/run_dwarf.bpf.o"), attach=False) as obj:
        dt = obj.dtype("event")
        assert dt.itemsize > 0 and len(dt.names) > 0


def test_signed_char_enum_and_tail_bitfield_dtype():
    with perfbuf.Object(obj_path("tests/bpf/run_bits.bpf.o"), attach=False) as obj:
        dt = obj.dtype(map="events")
        assert dt.itemsize == 8
        assert dt["sc"] == dt["sc_raw"] == np.dtype("i1"), "enums of signed char"
        assert "d" not in dt.names, "bitfields have no numpy form"


def test_bad_fds_and_maps(emitter):
    obj, _ = emitter
    with pytest.raises(OSError, match="not an open file descriptor"):
        perfbuf.PerfBuffer(9999)
    r, w = os.pipe()
    try:
        with pytest.raises(ValueError, match="is not a BPF map"):
            perfbuf.PerfBuffer(r)
    finally:
        os.close(r)
        os.close(w)
    with pytest.raises(ValueError, match="PERCPU_ARRAY, not a BPF_MAP_TYPE_PERF_EVENT_ARRAY"):
        perfbuf.PerfBuffer(obj.map_fd("stats"))
    with pytest.raises(TypeError):
        perfbuf.PerfBuffer("events")
    with pytest.raises(ValueError, match="power of two"):
        perfbuf.PerfBuffer(obj.map_fd("events"), page_cnt=3)


def test_emit_ordered_times_and_cpus(emitter):
    obj, em = emitter
    with obj.perf_buffer("events", ordered=True, page_cnt=64) as pb:
        for _ in range(4):
            for cpu in (0, 1):
                em.emit(cpu, 100)
        got = poll_until(pb, 800)
        a = np.concatenate([b.array(EMIT_DT) for b in got])
        t = np.concatenate([b.time_ns for b in got])
        cpus = np.concatenate([b.cpu for b in got])
        assert len(a) == 800
        assert (np.diff(t.astype(np.int64)) >= 0).all(), "ordered: times never go back"
        assert (a["cpu"] == cpus).all(), "each record on the CPU it names"
        for cpu in (0, 1):
            seq = a["seq"][a["cpu"] == cpu]
            assert (np.diff(seq.astype(np.int64)) == 1).all(), "per CPU, every record once"
        st = {s["cpu"]: s for s in pb.stats()}
        assert st[0]["received"] == st[1]["received"] == 400


def test_lost_matches_bpf_side(emitter):
    obj, em = emitter
    with obj.perf_buffer("events", page_cnt=1) as pb:
        before = em.stats()
        for cpu in (0, 1):
            for _ in range(20):
                em.emit(cpu, 1000, 64)       # 4 KiB rings: most are lost
        got = poll_until(pb, 1, 1)
        got.append(pb.drain())
        after = em.stats()
        for cpu in (0, 1):
            ok = after[cpu][1] - before[cpu][1]
            enospc = after[cpu][2] - before[cpu][2]
            assert enospc > 0, "overload"
            assert sum(b.lost_by_cpu.get(cpu, 0) for b in got) == enospc
            assert sum(int((b.cpu == cpu).sum()) for b in got) == ok
        assert sum(b.lost for b in got) == sum(
            after[c][2] - before[c][2] for c in (0, 1))


def test_close_while_polling(emitter):
    obj, _ = emitter
    pb = obj.perf_buffer("events", latency_ms=-1)
    seen, errs = [], []

    def reader():
        try:
            for b in pb.batches(timeout_ms=-1):
                seen.append(len(b))
        except Exception as e:   # noqa: BLE001: the test reports it
            errs.append(e)

    th = threading.Thread(target=reader)
    th.start()
    time.sleep(0.2)
    pb.close()
    th.join(5)
    assert not th.is_alive(), "close() ends a poll blocked in another thread"
    assert errs == []
    with pytest.raises(ValueError, match="closed"):
        pb.poll(0)
    with pytest.raises(ValueError, match="closed"):
        pb.stats()
    pb.close()                       # twice: a no-op


def test_arrays_outlive_their_batch():
    obj = emit_object()
    em = Emitter(obj)
    pb = obj.perf_buffer("events")
    em.emit(0, 10)
    b = poll_until(pb, 10)[-1]
    a = b.array(EMIT_DT)
    pb.close()
    obj.close()
    del pb
    assert len(a) == 10 and (a["seq"] == a["seq"][0] + np.arange(10)).all()
    assert len(b.raw) == 10 and len(b) == 10


def test_dtype_larger_than_records(emitter):
    obj, em = emitter
    with obj.perf_buffer("events") as pb:
        em.emit(1, 5, 32)
        b = poll_until(pb, 5)[-1]
        with pytest.raises(ValueError, match="larger than every record"):
            b.array(np.dtype("V64"))
        em.emit(1, 3, 32)
        em.emit(1, 2, 80)
        bs = poll_until(pb, 5)
        a = np.concatenate([x.array(np.dtype([("seq", "<u8"), ("pad", "V72")])) for x in bs])
        assert len(a) == 2 and sum(x.short for x in bs) == 3


def test_map_fd_pinned(emitter, tmp_path):
    obj, em = emitter
    if not os.path.ismount("/sys/fs/bpf"):
        os.system("mount -t bpf bpf /sys/fs/bpf")
    path = "/sys/fs/bpf/perfbuf_pytest_%d" % os.getpid()
    import ctypes
    from conftest import libbpf
    libbpf.bpf_obj_pin.argtypes = [ctypes.c_int, ctypes.c_char_p]
    assert libbpf.bpf_obj_pin(obj.map_fd("events"), path.encode()) == 0
    try:
        fd = perfbuf.map_fd(path)
        with perfbuf.PerfBuffer(fd) as pb:
            em.emit(0, 3)
            assert sum(len(b) for b in poll_until(pb, 3)) == 3
        os.close(fd)
    finally:
        os.unlink(path)
    with pytest.raises(FileNotFoundError, match="pin a map there"):
        perfbuf.map_fd(path)


def test_readme_agent(tmp_path):
    """python/examples/opensnoop.py, run as a person would, counts a command's opens."""
    import shutil
    import subprocess
    import sys
    here = os.path.dirname(__file__)
    agent = subprocess.Popen([sys.executable, os.path.join(here, "../examples/opensnoop.py"),
                              obj_path("tests/bpf/py_opensnoop.bpf.o"), "3"],
                             stdout=subprocess.PIPE, text=True)
    cat = tmp_path / "pyagent_cat"
    shutil.copy("/bin/cat", cat)
    first = agent.stdout.readline()      # a line a second once attached
    for _ in range(20):
        subprocess.run([str(cat), "/etc/hostname"], stdout=subprocess.DEVNULL, check=True)
    out, _ = agent.communicate(timeout=30)
    out = first + out
    assert agent.returncode == 0
    opens = sum(int(w.split("=")[1]) for line in out.splitlines()
                for w in line.split() if w.startswith("pyagent_cat="))
    assert opens >= 20, out


def run_python(code):
    """@code in a new interpreter of this package (a crash there fails one
    test, not the run): (exit status, stderr)."""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=60, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    return p.returncode, p.stderr


def test_type_dtype_takes_a_type_only():
    rc, err = run_python(
        "import perfbuf\n"
        "for bad in (1, 0, None, 'event', 2 ** 64, object()):\n"
        "    try:\n"
        "        perfbuf.type_dtype(bad)\n"
        "    except TypeError as e:\n"
        "        assert 'takes a perfbuf.Type' in str(e), e\n"
        "    else:\n"
        "        raise SystemExit('no TypeError for %r' % (bad,))\n")
    assert rc == 0, "type_dtype(not a Type): exit %d, %s" % (rc, err.strip()[-300:])
    with pytest.raises(TypeError, match="Type.from_file"):
        perfbuf.Type()
    t = perfbuf.Type.from_file(obj_path("tests/bpf/run_types.bpf.o"), name="run_event")
    assert perfbuf.type_dtype(t).itemsize == t.size == 120 and t.name == "run_event"
    t.close()
    t.close()
    with pytest.raises(ValueError, match="closed"):
        perfbuf.type_dtype(t)
    with pytest.raises(LookupError, match="no type no_such"):
        perfbuf.Type.from_file(obj_path("tests/bpf/run_types.bpf.o"), name="no_such")
    with pytest.raises(TypeError, match="PerfBuffer.poll"):
        perfbuf.Batch(1, False)


def in_child(fn, timeout=20.0):
    """fn() in a forked child; its exit status (-signal when killed; None
    when it had to be killed after @timeout s: it hung)."""
    pid = os.fork()
    if pid == 0:
        code = 99
        try:
            code = fn()
        finally:
            os._exit(code)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
        time.sleep(0.02)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return None


def refused_in_child(pb):
    """Exit status bits: the calls that did not raise the fork error."""
    from perfbuf._lib import lib
    bad = 0
    for i, call in enumerate((lambda: pb.poll(0), pb.drain, pb.stats)):
        try:
            call()
            bad |= 1 << i
        except OSError as e:
            if e.errno != errno.ECHILD or "forked child" not in str(e):
                bad |= 1 << i
    # the library's own check, under the package's
    if lib.perfbuf__poll(pb._pb, 0) != -errno.ECHILD:
        bad |= 1 << 3
    pb.close()
    return bad


def test_forked_child_gets_an_error(emitter):
    obj, em = emitter
    with obj.perf_buffer("events") as pb:
        em.emit(0, 5)
        status = in_child(lambda: refused_in_child(pb))
        assert status == 0, "poll, drain, stats in a forked child: status %r" % (status,)
        em.emit(0, 5)
        got = pb.drain()
        assert len(got) == 10, "the parent reads on after the child's close"


def test_forked_child_while_a_thread_polls(emitter):
    obj, _ = emitter
    pb = obj.perf_buffer("events", latency_ms=-1)
    th = threading.Thread(target=lambda: [None for _ in pb.batches(timeout_ms=-1)])
    th.start()
    time.sleep(0.2)             # the thread holds the poll lock at the fork
    status = in_child(lambda: refused_in_child(pb) & 7)
    pb.close()
    th.join(5)
    assert status == 0, "a forked child's calls while the parent polled: status %r" % (status,)


def test_forked_child_close_leaves_parent_probes():
    with perfbuf.Object(obj_path("tests/bpf/run_types.bpf.o"),
                        set={"target_pid": os.getpid()}) as obj:
        dt = obj.dtype(map="events")
        with obj.perf_buffer("events") as pb:
            status = in_child(lambda: obj.close() or 0)
            assert status == 0, "Object.close() in a forked child: status %r" % (status,)
            write_records(np.zeros(3, dt))
            got = poll_until(pb, 3)
            assert sum(len(b) for b in got) == 3, "the parent's probe still attached"


def test_integers_that_do_not_fit(emitter):
    """ctypes wraps an integer silently (2**64 into a size_t is 0: the
    default page count; 2**64 + 8192 bytes: one page per CPU): every one
    passed down is refused instead, its name and range said"""
    obj, _ = emitter
    fd = obj.map_fd("events")
    for kw, what in [({"page_cnt": 2**64}, "page_cnt 18446744073709551616"),
                     ({"buffer_size": 2**64 + 8192}, "buffer_size 18446744073709559808"),
                     ({"latency_ms": 2**32 + 5}, "latency_ms 4294967301"),
                     ({"latency_ms": -2**31 - 1}, "latency_ms -2147483649"),
                     ({"batch_bytes": 2**64 + 1}, "batch_bytes 18446744073709551617")]:
        with pytest.raises(OverflowError, match="perfbuf: %s does not fit in C's" % what):
            perfbuf.PerfBuffer(fd, **kw)
    with pytest.raises(OverflowError, match="map_fd 4294967299 does not fit"):
        perfbuf.PerfBuffer(2**32 + 3)
    with pytest.raises(TypeError, match="page_cnt must be an integer, not float"):
        perfbuf.PerfBuffer(fd, page_cnt=4.0)
    with perfbuf.PerfBuffer(fd, page_cnt=np.int64(2)) as pb:     # numpy's integers are
        with pytest.raises(OverflowError, match="timeout_ms 4294967296 does not fit"):
            pb.poll(2**32)
        assert len(pb.poll(0)) == 0
        assert all(s["data_size"] == 2 * 4096 for s in pb.stats())


def test_buffer_size_and_lost_total(emitter):
    obj, em = emitter
    with pytest.raises(ValueError, match="exclusive"):
        perfbuf.PerfBuffer(obj.map_fd("events"), page_cnt=4, buffer_size=1 << 20)
    with obj.perf_buffer("events", page_cnt=1) as pb:
        nrings = len(pb.stats())
    # a share of 3 pages each: rings of 2
    with obj.perf_buffer("events", buffer_size=3 * 4096 * nrings) as pb:
        st = pb.stats()
        assert all(s["data_size"] == 2 * 4096 for s in st), "a power of two within the share"
        cpu = st[0]["cpu"]
        before = em.stats()
        em.emit(cpu, 1000, 64)                  # 8 KiB ring: most are lost
        pb.poll(0)
        after = em.stats()
        enospc = after[cpu][2] - before[cpu][2]
        s0 = pb.stats()[0]
        assert enospc > 0 and s0["lost_total"] == enospc, "the kernel's count, before a drain"


def _open_devnull(n):
    for _ in range(n):
        os.close(os.open("/dev/null", os.O_RDONLY))


def test_ledger_every_open_accounted():
    """tests/bpf/py_opensnoop.bpf.c writes with perfbuf_output(): opens made
    before the reader exists are no reader's, the rest received; the
    program's counts and the reader's agree per CPU."""
    with perfbuf.Object(obj_path("tests/bpf/py_opensnoop.bpf.o"),
                        set={"target_pid": os.getpid()}) as obj:
        _open_devnull(30)                   # attached, no ring in the map yet
        with obj.perf_buffer("events", page_cnt=16) as pb:
            _open_devnull(50)
            obj.detach()
            got = len(pb.drain()) + sum(len(b) for b in poll_until(pb, 0, 0))
            led = pb.ledger()
            assert isinstance(led, perfbuf.Ledger) and isinstance(led, dict)
            # our opens, and any this interpreter made meanwhile
            k = led[0]
            assert k["no_reader"] >= 30 and k["received"] >= 50, led
            assert k["lost"] == k["failed"] == 0, led
            assert k["offered"] == k["received"] + k["no_reader"], led
            assert led.totals()["offered"] == k["offered"]
            assert led.mismatch == [], led.cpus
            assert got == k["received"]
            assert sum(c["received"] for c in led.cpus) == got
        unchecked = obj.ledger()
        assert unchecked[0] == k and unchecked.mismatch is None


def test_ledger_reader_first_and_mismatch_said():
    """Object(attach=False): the reader first, then attach, nothing without
    a reader. Read while records wait in the rings, the sides disagree:
    said (a warning, Ledger.mismatch), never hidden."""
    with perfbuf.Object(obj_path("tests/bpf/py_opensnoop.bpf.o"),
                        set={"target_pid": os.getpid()}, attach=False) as obj:
        with obj.perf_buffer("events", page_cnt=16, latency_ms=-1) as pb:
            assert obj.attach() == 1
            _open_devnull(20)
            with pytest.warns(RuntimeWarning, match="disagree"):
                led = pb.ledger()           # 20 written, none received yet
            assert led[0]["no_reader"] == 0 and led[0]["received"] >= 20
            assert led.mismatch and led.mismatch[0]["written"] > led.mismatch[0]["received"]
            obj.detach()
            pb.drain()
            assert pb.ledger().mismatch == []


def test_ledger_absent():
    with perfbuf.Object(obj_path("tests/bpf/run_types.bpf.o"), attach=False) as obj:
        with pytest.raises(LookupError, match="perfbuf_output"):
            obj.ledger()
