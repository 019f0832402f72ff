# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""BPF maps by fd or pinned path, checked before a collector is built on them."""
import ctypes
import os

from . import _lib
from ._libbpf import libbpf as _libbpf

PERF_EVENT_ARRAY = 4
RINGBUF = 27
_TYPE_NAMES = {1: "HASH", 2: "ARRAY", 3: "PROG_ARRAY", 4: "PERF_EVENT_ARRAY",
               5: "PERCPU_HASH", 6: "PERCPU_ARRAY", 27: "RINGBUF"}


class _MapInfo(ctypes.Structure):
    """The head of the kernel's struct bpf_map_info (it takes a shorter one)."""
    _fields_ = [("type", ctypes.c_uint32), ("id", ctypes.c_uint32),
                ("key_size", ctypes.c_uint32), ("value_size", ctypes.c_uint32),
                ("max_entries", ctypes.c_uint32), ("map_flags", ctypes.c_uint32),
                ("name", ctypes.c_char * 16)]


def map_fd(pinned_path):
    """The fd of the BPF map pinned at @pinned_path (in a bpffs); the caller
    closes it (os.close)."""
    fd = _libbpf.bpf_obj_get(os.fsencode(pinned_path))
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, "perfbuf: %s: %s: pin a map there (bpftool map pin) or give "
                      "its fd" % (pinned_path, _lib.strerror(err)), pinned_path)
    return fd


def check_perf_event_array(fd):
    """Raise a clear error unless @fd is a BPF_MAP_TYPE_PERF_EVENT_ARRAY map.
    Returns the map's name."""
    if not isinstance(fd, int) or isinstance(fd, bool):
        raise TypeError("perfbuf: map_fd must be an int (a map's file descriptor), "
                        "not %s" % type(fd).__name__)
    _lib.c_int_arg(ctypes.c_int, fd, "map_fd")
    try:
        os.fstat(fd)
    except OSError:
        raise OSError(9, "perfbuf: fd %d is not an open file descriptor: pass a "
                      "BPF_MAP_TYPE_PERF_EVENT_ARRAY map's fd" % fd) from None
    info = _MapInfo()
    n = ctypes.c_uint32(ctypes.sizeof(info))
    if _libbpf.bpf_obj_get_info_by_fd(fd, ctypes.byref(info), ctypes.byref(n)):
        raise ValueError("perfbuf: fd %d is not a BPF map: pass a "
                         "BPF_MAP_TYPE_PERF_EVENT_ARRAY map's fd" % fd)
    name = info.name.decode(errors="replace")
    if info.type != PERF_EVENT_ARRAY:
        raise ValueError("perfbuf: map '%s' (fd %d) is a BPF_MAP_TYPE_%s, not a "
                         "BPF_MAP_TYPE_PERF_EVENT_ARRAY" %
                         (name, fd, _TYPE_NAMES.get(info.type, str(info.type))))
    return name
