# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""libbpf.so.1 through ctypes: what the package (maps), its tests and its
bench call directly (map info, pinned objects, BPF_PROG_TEST_RUN)."""
import ctypes

libbpf = ctypes.CDLL("libbpf.so.1", use_errno=True)
libbpf.bpf_obj_get.restype, libbpf.bpf_obj_get.argtypes = ctypes.c_int, [ctypes.c_char_p]
libbpf.bpf_obj_get_info_by_fd.restype = ctypes.c_int
libbpf.bpf_obj_get_info_by_fd.argtypes = [ctypes.c_int, ctypes.c_void_p,
                                          ctypes.POINTER(ctypes.c_uint32)]
libbpf.bpf_prog_test_run_opts.argtypes = [ctypes.c_int, ctypes.c_void_p]
libbpf.bpf_map_lookup_elem.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]

BPF_F_TEST_RUN_ON_CPU = 1 << 0


class TestRunOpts(ctypes.Structure):
    """libbpf 1.1's struct bpf_test_run_opts."""
    __test__ = False        # not a pytest test class
    _fields_ = [("sz", ctypes.c_size_t), ("data_in", ctypes.c_void_p),
                ("data_out", ctypes.c_void_p), ("data_size_in", ctypes.c_uint32),
                ("data_size_out", ctypes.c_uint32), ("ctx_in", ctypes.c_void_p),
                ("ctx_out", ctypes.c_void_p), ("ctx_size_in", ctypes.c_uint32),
                ("ctx_size_out", ctypes.c_uint32), ("retval", ctypes.c_uint32),
                ("repeat", ctypes.c_int), ("duration", ctypes.c_uint32),
                ("flags", ctypes.c_uint32), ("cpu", ctypes.c_uint32),
                ("batch_size", ctypes.c_uint32)]


def run_on_cpu_opts(ctx_buf, ctx_size, cpu):
    """Options for BPF_PROG_TEST_RUN of a program with context @ctx_buf on @cpu."""
    return TestRunOpts(sz=ctypes.sizeof(TestRunOpts), ctx_in=ctypes.addressof(ctx_buf),
                       ctx_size_in=ctx_size, flags=BPF_F_TEST_RUN_ON_CPU, cpu=cpu)


libbpf.libbpf_strerror.restype = ctypes.c_int
libbpf.libbpf_strerror.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
