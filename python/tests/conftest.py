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


def emit_object():
    """bpf/emit.bpf.o, or on a kernel that refuses it (before 5.17: no
    bpf_loop()) its build for old kernels, bpf/compat/emit.bpf.o"""
    try:
        return perfbuf.Object(obj_path("bpf/emit.bpf.o"), attach=False)
    except OSError:
        return perfbuf.Object(obj_path("bpf/compat/emit.bpf.o"), attach=False)


@pytest.fixture(scope="module")
def emitter():
    with emit_object() as obj:
        yield obj, Emitter(obj)
