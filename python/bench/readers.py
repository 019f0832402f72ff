#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""One Python reader against one producer, for perfbuf-bench's python part.

    readers.py --reader perfbuf|bcc --build DIR [--secs S] [--rate R] [--pages N]

The producer is a child process pinned to CPU0 that runs a BPF program
with BPF_PROG_TEST_RUN, `batch` records of `size` bytes a run (perfbuf:
bpf/emit.bpf.c; bcc: the same loop compiled by bcc), flat out or paced at
`rate` records/s; the reader runs on CPU1 and decodes every record (perfbuf:
batch.array(dtype); bcc: b["events"].event(data) per record, as bcc's
tools do). Prints one JSON line: offered, received, lost (the reader's
count), enospc (the BPF side's failed writes), secs.
"""
import argparse
import ctypes
import json
import os
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
# the package loads the library it is given before anything else
_BUILD = sys.argv[sys.argv.index("--build") + 1] if "--build" in sys.argv[:-1] else "build"
os.environ.setdefault("PERFBUF_LIB", os.path.join(_BUILD, "libperfbuf.so.4"))
from perfbuf._libbpf import libbpf, run_on_cpu_opts  # noqa: E402


def produce(prog_fd, a, wfd):
    """The child: runs until a.secs are up, then writes records offered."""
    os.sched_setaffinity(0, {0})
    buf = ctypes.create_string_buffer(struct.pack("QQ", a.batch, a.size))
    o = run_on_cpu_opts(buf, 16, 0)
    run, offered = libbpf.bpf_prog_test_run_opts, 0
    start = time.monotonic()
    end = start + a.secs
    while True:
        now = time.monotonic()
        if now >= end:
            break
        if a.rate:
            ahead = offered / a.rate - (now - start)
            if ahead > 0.001:
                time.sleep(ahead)
        run(prog_fd, ctypes.byref(o))
        offered += a.batch
    os.write(wfd, b"%d\n" % offered)
    os._exit(0)


def start_producer(prog_fd, a):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        produce(prog_fd, a, w)
    os.close(w)
    return pid, r


def fill_ring(prog_fd, a):
    """Records of a full ring of a.pages on CPU0, written while nobody reads."""
    buf = ctypes.create_string_buffer(struct.pack("QQ", 1, a.size))
    o = run_on_cpu_opts(buf, 16, 0)
    rec = (a.size + 4 + 8 + 7) // 8 * 8        # header, u32 size, payload
    n = (a.pages * 4096 - 8) // rec
    struct.pack_into("QQ", buf, 0, n, a.size)
    while n:
        k = min(n, 1024)
        struct.pack_into("QQ", buf, 0, k, a.size)
        libbpf.bpf_prog_test_run_opts(prog_fd, ctypes.byref(o))
        n -= k
    return (a.pages * 4096 - 8) // rec


def drain_rounds(prog_fd, a, drain_once, rounds=7):
    """The median time to read and decode a full ring, over @rounds."""
    times, counts = [], []
    for _ in range(rounds):
        want = fill_ring(prog_fd, a)
        t0 = time.perf_counter()
        got = drain_once()
        times.append(time.perf_counter() - t0)
        counts.append((want, got))
    times.sort()
    return dict(drain_secs=times[len(times) // 2], records=counts[0][0],
                exact=all(w == g for w, g in counts))


def load_emit(a):
    """bpf/emit.bpf.o loaded (not attached): the object, its emit program's
    fd, and a function giving the BPF side's ENOSPC count (all CPUs)."""
    import perfbuf
    obj = perfbuf.Object(os.path.join(a.build, "bpf/emit.bpf.o"), attach=False)
    emit_fd = obj.prog_fd("emit")
    stats_fd, ncpu = obj.map_fd("stats"), os.cpu_count()

    def enospc():       # struct emit_stats per CPU: attempts, ok, enospc, ...
        key, val = ctypes.c_uint32(0), ctypes.create_string_buffer(56 * 1024)
        libbpf.bpf_map_lookup_elem(stats_fd, ctypes.byref(key), val)
        return sum(struct.unpack_from("7Q", val, 56 * c)[2] for c in range(ncpu))
    return obj, emit_fd, enospc


def live(a, prog_fd, poll, final):
    """The producer for a.secs while @poll() reads; @final() after it."""
    pid, r = start_producer(prog_fd, a)
    t0 = time.monotonic()
    while os.waitpid(pid, os.WNOHANG)[0] != pid:
        poll()
    final()
    secs = time.monotonic() - t0
    with os.fdopen(r) as f:
        return int(f.read() or 0), secs


def read_perfbuf(a):
    import numpy as np
    dt = np.dtype([("seq", "<u8"), ("time_ns", "<u8"), ("cpu", "<u4"), ("size", "<u4"),
                   ("rest", "V%d" % (a.size - 24))])
    obj, prog_fd, enospc = load_emit(a)
    pb = obj.perf_buffer("events", page_cnt=a.pages)
    st = {"received": 0, "lost": 0, "seq": 0}

    def take(b):
        arr = b.array(dt) if len(b) else ()
        st["received"] += len(arr)
        st["lost"] += b.lost
        if len(arr):
            st["seq"] += int(arr["seq"][-1])          # decoded: a field read
        return len(b)
    if a.mode == "drain":
        def drain_once():
            n = 0
            while True:
                k = take(pb.poll(0))
                n += k
                if not k:
                    return n
        return drain_rounds(prog_fd, a, drain_once)
    e0 = enospc()
    offered, secs = live(a, prog_fd, lambda: take(pb.poll(100)), lambda: take(pb.drain()))
    return dict(offered=offered, received=st["received"], lost=st["lost"],
                enospc=enospc() - e0, secs=secs)


class CReader(ctypes.Structure):
    _fields_ = [("received", ctypes.c_ulonglong), ("lost", ctypes.c_ulonglong),
                ("seq_sum", ctypes.c_ulonglong)]


def read_c(a):
    """python/bench/c_reader.c: libbpf's raw perf buffer, a C callback."""
    so = ctypes.CDLL(os.path.join(a.build, "python/c_reader.so"))
    so.c_reader_open.restype = ctypes.c_void_p
    so.c_reader_open.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p]
    libbpf.perf_buffer__poll.argtypes = [ctypes.c_void_p, ctypes.c_int]
    libbpf.perf_buffer__consume.argtypes = [ctypes.c_void_p]
    libbpf.perf_buffer__free.argtypes = [ctypes.c_void_p]
    obj, prog_fd, enospc = load_emit(a)
    r = CReader()
    pb = so.c_reader_open(obj.map_fd("events"), a.pages, ctypes.byref(r))
    if not pb:
        raise OSError(ctypes.get_errno(), "perf_buffer__new_raw")
    if a.mode == "drain":
        def drain_once():
            n0 = r.received
            libbpf.perf_buffer__consume(pb)
            return r.received - n0
        return drain_rounds(prog_fd, a, drain_once)
    e0 = enospc()
    offered, secs = live(a, prog_fd, lambda: libbpf.perf_buffer__poll(pb, 100),
                         lambda: libbpf.perf_buffer__consume(pb))
    libbpf.perf_buffer__free(pb)
    return dict(offered=offered, received=r.received, lost=r.lost,
                enospc=enospc() - e0, secs=secs)


BCC_PROG = r"""
struct rec { u64 seq; u64 time_ns; u32 cpu; u32 size; char rest[SIZE - 24]; };
BPF_PERF_OUTPUT(events);
BPF_PERCPU_ARRAY(scratch, struct rec, 1);
BPF_PERCPU_ARRAY(enospc, u64, 1);
int emit(struct bpf_raw_tracepoint_args *ctx)
{
    u32 zero = 0;
    struct rec *r = scratch.lookup(&zero);
    u64 n = ctx->args[0];
    if (!r)
        return 0;
    for (int i = 0; i < 1024; i++) {
        if (i >= n)
            break;
        r->seq++;
        r->time_ns = bpf_ktime_get_ns();
        r->cpu = bpf_get_smp_processor_id();
        r->size = SIZE;
        if (events.perf_submit(ctx, r, SIZE) == -28) {
            u64 *e = enospc.lookup(&zero);
            if (e)
                (*e)++;
        }
    }
    return 0;
}
"""


def read_bcc(a):
    from bcc import BPF
    b = BPF(text=BCC_PROG.replace("SIZE", str(a.size)))
    prog_fd = b.load_func("emit", BPF.RAW_TRACEPOINT).fd
    st = {"received": 0, "lost": 0, "seq": 0}
    events = b["events"]

    def on_event(cpu, data, size):
        e = events.event(data)                       # bcc's decode, per record
        st["received"] += 1
        st["seq"] = e.seq

    def on_lost(n):
        st["lost"] += n

    events.open_perf_buffer(on_event, page_cnt=a.pages, lost_cb=on_lost)
    if a.mode == "drain":
        def drain_once():
            before = st["received"]
            b.perf_buffer_consume()
            return st["received"] - before
        return drain_rounds(prog_fd, a, drain_once)
    offered, secs = live(a, prog_fd, lambda: b.perf_buffer_poll(100), b.perf_buffer_consume)
    t = b["enospc"]
    enospc = sum(t[t.Key(0)])
    return dict(offered=offered, received=st["received"], lost=st["lost"],
                enospc=enospc, secs=secs)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reader", choices=("perfbuf", "bcc", "c"), required=True)
    p.add_argument("--mode", choices=("live", "drain"), default="live",
                   help="live: a producer for --secs; drain: a full ring read")
    p.add_argument("--build", default="build")
    p.add_argument("--secs", type=float, default=3)
    p.add_argument("--rate", type=float, default=0, help="records/s; 0: flat out")
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--batch", type=int, default=256, help="records per program run")
    p.add_argument("--pages", type=int, default=64)
    a = p.parse_args()
    os.sched_setaffinity(0, {1})
    res = {"perfbuf": read_perfbuf, "bcc": read_bcc, "c": read_c}[a.reader](a)
    res.update(reader=a.reader, mode=a.mode, rate=a.rate, pages=a.pages, size=a.size)
    print(json.dumps(res), flush=True)
    os._exit(0)     # bcc's table destructors complain at exit


if __name__ == "__main__":
    main()
