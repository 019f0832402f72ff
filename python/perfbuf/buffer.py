# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""PerfBuffer: a perf event array's rings read in batches, as numpy arrays.

One C call drains the rings into a batch (perfbuf_batch__record_fn is the
collector's callback: no Python runs per record); Python copies the batch's
arrays out once, so a Batch and the arrays made from it stay valid whatever
happens to the buffer afterwards.
"""
import ctypes
import errno
import os
import threading

import numpy as np

from . import _lib
from ._lib import lib
from .maps import check_perf_event_array


def _array(ptr, n, dtype):
    if n == 0:
        return np.empty(0, dtype)
    return np.ctypeslib.as_array(ptr, shape=(n,)).astype(dtype, copy=True)


class Batch:
    """Every record one drain delivered: samples and losses."""

    def __init__(self, view, timestamps):
        if not isinstance(view, _lib.BatchView):
            raise TypeError("perfbuf: a Batch comes from PerfBuffer.poll() or drain(), "
                            "not from %s" % type(view).__name__)
        n = self._n = view.cnt
        self._data = np.frombuffer(ctypes.string_at(view.data, view.data_bytes)
                                   if n else b"", dtype=np.uint8)
        self._uniform, self._stride = view.uniform, view.stride
        if self._uniform:       # offsets and sizes follow: made when asked
            self._offset = self._size = None
        else:
            self._offset = _array(view.offset, n, np.int64)
            self._size = _array(view.size, n, np.int64)
        self.cpu = _array(view.cpu, n, np.int32)
        self.time_ns = _array(view.time_ns, n, np.uint64) if timestamps else None
        self.lost = int(view.lost_total)
        self.lost_by_cpu = {}
        for i in range(view.lost_cnt):
            c = int(view.lost_cpu[i])
            self.lost_by_cpu[c] = self.lost_by_cpu.get(c, 0) + int(view.lost[i])
        self.late = int(view.late)
        self.short = 0

    def __len__(self):
        return self._n

    def _layout(self):
        if self._size is None:
            self._offset = np.arange(self._n, dtype=np.int64) * self._stride
            self._size = np.full(self._n, self._uniform, dtype=np.int64)
        return self._offset, self._size

    def __repr__(self):
        return "<perfbuf.Batch %d samples, %d lost>" % (len(self), self.lost)

    @property
    def sizes(self):
        """Payload bytes of each sample (the kernel pads to 4 mod 8)."""
        return self._layout()[1]

    @property
    def raw(self):
        """The payloads as a list of bytes."""
        d, (off, size) = self._data, self._layout()
        return [d[o:o + s].tobytes() for o, s in zip(off.tolist(), size.tolist())]

    def array(self, dtype):
        """The payloads as a numpy structured array of @dtype (a copy: it
        outlives the batch). Records shorter than dtype.itemsize are left
        out and counted in self.short."""
        dt = np.dtype(dtype)
        isz = dt.itemsize
        n = len(self)
        if isz == 0:
            raise ValueError("perfbuf: dtype %s has no size" % dt)
        if self._uniform >= isz:
            # one size for all: a strided view of the packed payloads, copied
            self.short = 0
            rows = np.ndarray((n, isz), dtype=np.uint8, buffer=self._data,
                              strides=(self._stride, 1))
            return rows.copy().view(dt).reshape(n)
        off, size = self._layout()
        fits = size >= isz
        k = int(np.count_nonzero(fits))
        self.short = n - k
        if n and k == 0:
            raise ValueError("perfbuf: dtype of %d bytes is larger than every record "
                             "(the largest is %d bytes): use the record's type "
                             "(Object.dtype) or a smaller dtype" % (isz, int(size.max())))
        if k == 0:
            return np.empty(0, dt)
        off = off[fits] if k < n else off
        stride = int(off[1] - off[0]) if k > 1 else isz
        if stride >= isz and (k == 1 or bool(np.all(np.diff(off) == stride))):
            # one size for all: a strided view of the packed payloads
            view = np.ndarray((k,), dtype=dt, buffer=self._data, offset=int(off[0]),
                              strides=(stride,))
            return view.copy()
        rows = self._data[off[:, None] + np.arange(isz)]
        return rows.view(dt).reshape(k)


class PerfBuffer(_lib.Closable):
    """The rings of a BPF_MAP_TYPE_PERF_EVENT_ARRAY map, one per CPU."""

    def __init__(self, map_fd, page_cnt=None, ordered=False, latency_ms=10,
                 timestamps=None, batch_bytes=4 << 20, _owner=None, buffer_size=None):
        """page_cnt: data pages per CPU (64 when neither is given); or
        buffer_size: bytes for all CPUs together, each CPU's ring the
        largest power of two of pages within its share."""
        self._pid = os.getpid()     # the process whose rings these are
        page_cnt, buffer_size = (None if v is None else _lib.c_int_arg(_lib.c_size, v, what)
                                 for v, what in ((page_cnt, "page_cnt"),
                                                 (buffer_size, "buffer_size")))
        latency_ms = _lib.c_int_arg(_lib.c_int, latency_ms, "latency_ms")
        batch_bytes = _lib.c_int_arg(_lib.c_size, batch_bytes, "batch_bytes")
        if page_cnt is not None and buffer_size is not None:
            raise ValueError("perfbuf: page_cnt and buffer_size are exclusive")
        if buffer_size is not None and buffer_size <= 0:
            raise ValueError("perfbuf: buffer_size %r is not a size" % (buffer_size,))
        if buffer_size is None and page_cnt is None:
            page_cnt = 64
        if page_cnt is not None and (page_cnt <= 0 or page_cnt & (page_cnt - 1)):
            raise ValueError("perfbuf: page_cnt %r is not a power of two" % (page_cnt,))
        self.name = check_perf_event_array(map_fd)
        self._timestamps = bool(ordered if timestamps is None else timestamps or ordered)
        self._lock = threading.Lock()       # one poll (or close) at a time
        self._closing = False
        self._closing_lock = threading.Lock()
        self._pb = self._batch = None
        self._more = False
        self._owner = _owner        # an Object keeps its map alive for us
        bo = _lib.sized(_lib.BatchOpts)
        bo.data_bytes = batch_bytes
        self._batch = lib.perfbuf_batch__new(ctypes.byref(bo))
        if not self._batch:
            raise _lib.errno_error(_lib.last_errno(), "batch of %d bytes" % batch_bytes)
        o = _lib.sized(_lib.PerfbufOpts)
        o.page_cnt, o.latency_ms = page_cnt or 0, latency_ms
        o.buffer_size = buffer_size or 0
        o.timestamps, o.ordered = self._timestamps, ordered
        self._pb = lib.perfbuf__new(map_fd, _lib.batch_record_fn, self._batch, ctypes.byref(o))
        if not self._pb:
            err = _lib.last_errno()
            lib.perfbuf_batch__free(self._batch)
            self._batch = None
            raise _lib.errno_error(err, "map '%s': %s" % (
                self.name, "rings of %d pages" % page_cnt if page_cnt
                else "%d bytes of rings for all CPUs" % buffer_size))

    def _forked(self):
        return os.getpid() != self._pid

    def _check_process(self):
        """In a forked child, before the lock: a thread of the parent may
        have held it at the fork, and no thread of the child will free it."""
        if self._forked():
            raise _lib.forked_error("PerfBuffer", self._pid)

    def _check_open(self):
        if not self._pb:
            raise ValueError("perfbuf: the PerfBuffer is closed")

    def _check(self, n, what):
        """Raise for a negative errno @n of the library's call @what."""
        if n == -errno.ECHILD:      # the library's own check of the process
            raise _lib.forked_error("PerfBuffer", self._pid)
        if n < 0:
            raise _lib.errno_error(n, what)

    def poll(self, timeout_ms=100):
        """Wait up to @timeout_ms for records and return a Batch of what one
        drain delivered (maybe nothing)."""
        timeout_ms = _lib.c_int_arg(_lib.c_int, timeout_ms, "timeout_ms")
        self._check_process()
        with self._lock:
            self._check_open()
            lib.perfbuf_batch__reset(self._batch)
            if self._more:
                n = lib.perfbuf__consume(self._pb)
            else:
                n = lib.perfbuf__poll(self._pb, timeout_ms)
            if n == -errno.ECANCELED:
                raise ValueError("perfbuf: the PerfBuffer was closed while polling")
            if n != -errno.EINTR:
                self._check(n, "poll")
            return self._take()

    def _take(self):
        v = _lib.sized(_lib.BatchView)
        lib.perfbuf_batch__view(self._batch, ctypes.byref(v))
        self._more = bool(v.full)
        return Batch(v, self._timestamps)

    def drain(self):
        """Everything left in the rings, and the losses the kernel counted
        but did not report yet: call after the producers stop."""
        self._check_process()
        with self._lock:
            self._check_open()
            lib.perfbuf_batch__reset(self._batch)
            n = lib.perfbuf__consume(self._pb) if self._more else lib.perfbuf__drain(self._pb)
            self._check(n, "drain")
            return self._take()

    def batches(self, timeout_ms=100):
        """poll() again and again, until close()."""
        while True:
            try:
                yield self.poll(timeout_ms)
            except ValueError:
                if not self._closing:
                    raise
                return

    def _handle(self):
        """The collector, for the ledger's check (Object.ledger(pb))."""
        self._check_process()
        self._check_open()
        return self._pb

    def ledger(self):
        """The ledger of the Object this buffer reads (Object.perf_buffer()),
        checked against this buffer's counts: Object.ledger(self)."""
        if self._owner is None:
            raise ValueError("perfbuf: this PerfBuffer is not an Object's: call "
                             "Object.ledger(pb)")
        return self._owner.ledger(self)

    def stats(self):
        """Per CPU: cpu, online, received, lost, bytes, wakeups, ... (dicts)."""
        self._check_process()
        with self._lock:
            self._check_open()
            out = []
            for i in range(lib.perfbuf__ring_cnt(self._pb)):
                s = _lib.sized(_lib.CpuStats)
                self._check(lib.perfbuf__stats(self._pb, i, ctypes.byref(s)), "stats")
                d = {f: getattr(s, f) for f, _ in _lib.CpuStats._fields_ if f != "sz"}
                d["received"] = d.pop("samples")
                out.append(d)
            return out

    def close(self):
        """Free the rings; a poll() in another thread returns first. Idempotent.
        In a forked child: this process's memory and fds only (the library
        leaves the parent's map slots and events alone)."""
        if self._forked():
            self._free()    # the locks may be held by a thread not copied
            return
        with self._closing_lock:
            if self._closing or not self._pb:
                return
            self._closing = True
        lib.perfbuf__stop(self._pb)     # any thread: its poll returns now
        with self._lock:
            self._free()

    def _free(self):
        pb, self._pb = self._pb, None
        if pb:
            lib.perfbuf__free(pb)
        if self._batch:
            lib.perfbuf_batch__free(self._batch)
        self._batch = None
        self._owner = None
