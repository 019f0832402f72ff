# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""perfbuf: BPF perf buffers read at C speed, in numpy batches.

    import perfbuf
    with perfbuf.Object("prog.bpf.o", set={"target_pid": 42}) as obj:
        dt = obj.dtype("event")
        pb = obj.perf_buffer("events")
        for batch in pb.batches(timeout_ms=100):
            a = batch.array(dt)

A thin layer over libperfbuf (ctypes): the rings are drained in C into a
batch, and Python sees whole arrays, never a record at a time.
"""
from .buffer import Batch, PerfBuffer
from .ledger import Ledger
from .maps import map_fd
from .obj import Object, Type, type_dtype
from ._lib import lib as _clib

__all__ = ["Batch", "Ledger", "PerfBuffer", "Object", "Type", "map_fd", "type_dtype", "version"]


def version():
    """libperfbuf's version, "MAJOR.MINOR.PATCH"."""
    return _clib.perfbuf_version().decode()
