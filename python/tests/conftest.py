# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Fixtures of the perfbuf Python tests: the build's objects, a record
producer run with BPF_PROG_TEST_RUN (bpf/emit.bpf.c) and its per-CPU
outcome counters."""
import ctypes
import os
import struct

import pytest

BUILD = os.environ.get("PERFBUF_BUILD", os.path.join(os.path.dirname(__file__), "../../build"))
os.environ.setdefault("PERFBUF_LIB", os.path.join(BUILD, "libperfbuf.so.4"))

import perfbuf  # noqa: E402  (after PERFBUF_LIB)

from perfbuf._libbpf import libbpf, run_on_cpu_opts  # noqa: E402

libbpf.libbpf_num_possible_cpus.restype = ctypes.c_int


def obj_path(name):
    return os.path.join(BUILD, name)


class Emitter:
    """bpf/emit.bpf.c: `count` records of `size` bytes on a CPU per run,
    each starting with (seq, time_ns, cpu, size); outcomes counted per CPU."""

    def __init__(self, obj):
        self.prog_fd = obj.prog_fd("emit")
        self.stats_fd = obj.map_fd("stats")
        self.ncpu = libbpf.libbpf_num_possible_cpus()

    def emit(self, cpu, count, size=32):
        args = struct.pack("QQ", count, size)
        buf = ctypes.create_string_buffer(args)
        o = run_on_cpu_opts(buf, len(args), cpu)
        err = libbpf.bpf_prog_test_run_opts(self.prog_fd, ctypes.byref(o))
        assert err == 0 and o.retval == 0, "emit on CPU %d: %d/%d" % (cpu, err, o.retval)

    def stats(self):
        """Per CPU: attempts, ok, enospc, e2big, enoent, eopnotsupp, other."""
        key = ctypes.c_uint32(0)
        val = ctypes.create_string_buffer(56 * self.ncpu)
        assert libbpf.bpf_map_lookup_elem(self.stats_fd, ctypes.byref(key), val) == 0
        return [struct.unpack_from("7Q", val, 56 * c) for c in range(self.ncpu)]


class BoundedEmit:
    """bpf/emit.bpf.o loaded by libbpf with the _bounded twins of emit and
    emit_rb, as the tool loads it where the kernel has no bpf_loop()
    (tools/common/kfeat.h): perfbuf.Object loads every program of an
    object. What the tests use of an Object."""

    def __init__(self, path):
        vp, cp = ctypes.c_void_p, ctypes.c_char_p
        for f, res, args in (("bpf_object__open_file", vp, [cp, vp]),
                             ("bpf_object__find_program_by_name", vp, [vp, cp]),
                             ("bpf_program__set_autoload", ctypes.c_int, [vp, ctypes.c_bool]),
                             ("bpf_object__load", ctypes.c_int, [vp]),
                             ("bpf_object__close", None, [vp]),
                             ("bpf_object__find_map_fd_by_name", ctypes.c_int, [vp, cp]),
                             ("bpf_program__fd", ctypes.c_int, [vp])):
            getattr(libbpf, f).restype, getattr(libbpf, f).argtypes = res, args
        self._buffers = []
        self._obj = libbpf.bpf_object__open_file(path.encode(), None)
        assert self._obj, "%s: opening failed" % path
        for name in (b"emit", b"emit_rb"):
            libbpf.bpf_program__set_autoload(
                libbpf.bpf_object__find_program_by_name(self._obj, name), False)
        assert libbpf.bpf_object__load(self._obj) == 0, "%s: loading failed" % path

    def prog_fd(self, name):
        return libbpf.bpf_program__fd(libbpf.bpf_object__find_program_by_name(
            self._obj, (name + "_bounded").encode()))

    def map_fd(self, name):
        return libbpf.bpf_object__find_map_fd_by_name(self._obj, name.encode())

    def perf_buffer(self, name, **kw):
        pb = perfbuf.PerfBuffer(self.map_fd(name), **kw)
        self._buffers.append(pb)
        return pb

    def close(self):
        for pb in self._buffers:
            pb.close()
        self._buffers = []
        if self._obj:
            libbpf.bpf_object__close(self._obj)
            self._obj = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def emit_object():
    """bpf/emit.bpf.o; on a kernel that refuses its emit (before 5.17: no
    bpf_loop()), the same object with the twins that take its place"""
    try:
        return perfbuf.Object(obj_path("bpf/emit.bpf.o"), attach=False)
    except OSError:
        return BoundedEmit(obj_path("bpf/emit.bpf.o"))


@pytest.fixture(scope="module")
def emitter():
    with emit_object() as obj:
        yield obj, Emitter(obj)
