# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Fixtures of the perfbuf Python tests: the build's objects, a record
producer run with BPF_PROG_TEST_RUN (bpf/emit.bpf.c) and its per-CPU
outcome counters."""
import ctypes
import os
import struct

import pytest

BUILD = os.environ.get("PERFBUF_BUILD", os.path.join(os.path.dirname(__file__), "../../build"))
os.environ.setdefault("PERFBUF_LIB", os.path.join(BUILD, "libperfbuf.so.3"))

import perfbuf  # noqa: E402  (after PERFBUF_LIB)
from perfbuf import _lib  # noqa: E402

libbpf = ctypes.CDLL("libbpf.so.1", use_errno=True)
libbpf.bpf_object__find_program_by_name.restype = ctypes.c_void_p
libbpf.bpf_object__find_program_by_name.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
libbpf.bpf_program__fd.argtypes = [ctypes.c_void_p]
libbpf.bpf_prog_test_run_opts.argtypes = [ctypes.c_int, ctypes.c_void_p]
libbpf.bpf_map_lookup_elem.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
libbpf.libbpf_num_possible_cpus.restype = ctypes.c_int
_lib.lib.perfbuf_object__bpf.restype = ctypes.c_void_p
_lib.lib.perfbuf_object__bpf.argtypes = [ctypes.c_void_p]

BPF_F_TEST_RUN_ON_CPU = 1 << 0


class TestRunOpts(ctypes.Structure):
    _fields_ = [("sz", ctypes.c_size_t), ("data_in", ctypes.c_void_p),
                ("data_out", ctypes.c_void_p), ("data_size_in", ctypes.c_uint32),
                ("data_size_out", ctypes.c_uint32), ("ctx_in", ctypes.c_void_p),
                ("ctx_out", ctypes.c_void_p), ("ctx_size_in", ctypes.c_uint32),
                ("ctx_size_out", ctypes.c_uint32), ("retval", ctypes.c_uint32),
                ("repeat", ctypes.c_int), ("duration", ctypes.c_uint32),
                ("flags", ctypes.c_uint32), ("cpu", ctypes.c_uint32),
                ("batch_size", ctypes.c_uint32)]


def obj_path(name):
    return os.path.join(BUILD, name)


class Emitter:
    """bpf/emit.bpf.c: `count` records of `size` bytes on a CPU per run,
    each starting with (seq, time_ns, cpu, size); outcomes counted per CPU."""

    def __init__(self, obj):
        bpf = _lib.lib.perfbuf_object__bpf(obj._obj)
        prog = libbpf.bpf_object__find_program_by_name(bpf, b"emit")
        self.prog_fd = libbpf.bpf_program__fd(prog)
        self.stats_fd = obj.map_fd("stats")
        self.ncpu = libbpf.libbpf_num_possible_cpus()

    def emit(self, cpu, count, size=32):
        args = struct.pack("QQ", count, size)
        buf = ctypes.create_string_buffer(args)
        o = TestRunOpts(sz=ctypes.sizeof(TestRunOpts), ctx_in=ctypes.addressof(buf),
                        ctx_size_in=len(args), flags=BPF_F_TEST_RUN_ON_CPU, cpu=cpu)
        err = libbpf.bpf_prog_test_run_opts(self.prog_fd, ctypes.byref(o))
        assert err == 0 and o.retval == 0, "emit on CPU %d: %d/%d" % (cpu, err, o.retval)

    def stats(self):
        """Per CPU: attempts, ok, enospc, e2big, enoent, eopnotsupp, other."""
        key = ctypes.c_uint32(0)
        val = ctypes.create_string_buffer(56 * self.ncpu)
        assert libbpf.bpf_map_lookup_elem(self.stats_fd, ctypes.byref(key), val) == 0
        return [struct.unpack_from("7Q", val, 56 * c) for c in range(self.ncpu)]


@pytest.fixture(scope="module")
def emitter():
    with perfbuf.Object(obj_path("bpf/emit.bpf.o"), attach=False) as obj:
        yield obj, Emitter(obj)
