# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""libperfbuf.so through ctypes: its functions and the structs Python fills;
and libperfbuf-object.so (a BPF object's loading and record types), loaded
at the first use of `objlib`.

The structs here are prefixes of the C ones: each starts with `size_t sz`,
set to the Python size, and the library reads or writes only that many
bytes (include/perfbuf/common.h), so a newer library stays compatible.
"""
import ctypes
import ctypes.util
import errno
import operator
import os

from . import _config

c_u32, c_u64, c_s32, c_size = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int32, ctypes.c_size_t
c_int, c_bool, c_void_p, c_char_p = ctypes.c_int, ctypes.c_bool, ctypes.c_void_p, ctypes.c_char_p


class PerfbufOpts(ctypes.Structure):
    _fields_ = [("sz", c_size), ("page_cnt", c_size), ("cpus", ctypes.POINTER(c_int)),
                ("cpu_cnt", c_size), ("wakeup_events", c_u32), ("watermark", c_u32),
                ("latency_ms", c_int), ("max_record_size", c_size), ("budget", c_size),
                ("drain_on_free", c_bool), ("timestamps", c_bool), ("ordered", c_bool),
                ("no_hotplug", c_bool), ("overwrite", c_bool), ("span_fn", c_void_p),
                ("buffer_size", c_size)]


class CpuStats(ctypes.Structure):
    _fields_ = [("sz", c_size), ("cpu", c_int), ("online", c_bool), ("samples", c_u64),
                ("bytes", c_u64), ("lost", c_u64), ("lost_kernel", c_u64), ("wakeups", c_u64),
                ("polls", c_u64), ("high_water", c_u64), ("corrupt", c_u64), ("late", c_u64),
                ("onlined", c_u64), ("offlined", c_u64), ("data_size", c_u64), ("avail", c_u64),
                ("lost_total", c_u64)]


class BatchOpts(ctypes.Structure):
    _fields_ = [("sz", c_size), ("data_bytes", c_size), ("record_cnt", c_size)]


class BatchView(ctypes.Structure):
    _fields_ = [("sz", c_size), ("cnt", c_size), ("data", c_void_p), ("data_bytes", c_size),
                ("offset", ctypes.POINTER(c_u32)), ("size", ctypes.POINTER(c_u32)),
                ("cpu", ctypes.POINTER(c_s32)), ("time_ns", ctypes.POINTER(c_u64)),
                ("lost_cnt", c_size), ("lost_cpu", ctypes.POINTER(c_s32)),
                ("lost", ctypes.POINTER(c_u64)), ("lost_total", c_u64), ("late", c_u64),
                ("notices", c_u64), ("full", c_bool),
                ("uniform", c_u32), ("stride", c_u32)]


class Field(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("offset", c_u32), ("size", c_u32), ("kind", c_u32),
                ("nelem", c_u32), ("bit_offset", c_u32), ("bit_size", c_u32),
                ("parent", c_s32), ("first_child", c_s32), ("nchildren", c_s32),
                ("nenum", c_s32), ("is_signed", ctypes.c_uint8)]


class LedgerKind(ctypes.Structure):
    _fields_ = [("sz", c_size), ("offered", c_u64), ("received", c_u64), ("lost", c_u64),
                ("no_reader", c_u64), ("failed", c_u64)]


class LedgerCpu(ctypes.Structure):
    _fields_ = [("sz", c_size), ("cpu", c_int), ("checked", c_bool), ("mismatch", c_bool),
                ("written", c_u64), ("full", c_u64), ("no_reader", c_u64), ("failed", c_u64),
                ("received", c_u64), ("lost", c_u64)]


class Closable:
    """close() on leaving a with block, and when collected."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def c_int_arg(ctype, value, what):
    """@value as an integer of C type @ctype, or OverflowError (TypeError:
    not an integer). ctypes itself wraps silently: 2**64 into a size_t is
    0, 2**32 + 5 into an int is 5. Every integer the package passes down
    goes through here."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError("perfbuf: %s must be an integer, not %s"
                        % (what, type(value).__name__)) from None
    bits = 8 * ctypes.sizeof(ctype)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if ctype(-1).value == -1 \
        else (0, (1 << bits) - 1)
    if not lo <= v <= hi:
        raise OverflowError("perfbuf: %s %d does not fit in C's %s (%d to %d)"
                            % (what, v, ctype.__name__, lo, hi))
    return v


def sized(struct_type):
    """A zeroed struct with its sz set, as PERFBUF_OPTS() does in C."""
    s = struct_type()
    s.sz = ctypes.sizeof(struct_type)
    return s


def _candidates(name, env):
    """Where library @name (libNAME.so.MAJOR) may be: $@env; for the object
    library, next to $PERFBUF_LIB; LIBDIR; the loader's search path."""
    soname = "lib%s.so.%d" % (name, _config.MAJOR)
    if os.environ.get(env):
        yield os.environ[env]
    elif env != "PERFBUF_LIB" and os.environ.get("PERFBUF_LIB"):
        yield os.path.join(os.path.dirname(os.environ["PERFBUF_LIB"]), soname)
    if _config.LIBDIR:
        yield os.path.join(_config.LIBDIR, soname)
    found = ctypes.util.find_library(name)
    if found:
        yield found
    yield soname


def _load(name, env):
    errors = []
    for path in _candidates(name, env):
        try:
            return ctypes.CDLL(path, use_errno=True)
        except OSError as e:
            errors.append(str(e))
    raise ImportError("perfbuf: cannot load lib%s.so.%d (%s): install it (make install) "
                      "or set %s to its path"
                      % (name, _config.MAJOR, "; ".join(errors), env))


def _typed(dll, protos):
    for name, (res, args) in protos.items():
        f = getattr(dll, name)
        f.restype, f.argtypes = res, args
    return dll


class _ObjectLib:
    """libperfbuf-object, loaded (after libperfbuf, which it needs) when a
    program first opens an object or reads a type: reading a map by fd
    needs libperfbuf alone."""
    _dll = None

    def __getattr__(self, name):
        if _ObjectLib._dll is None:
            _ObjectLib._dll = _typed(_load("perfbuf-object", "PERFBUF_OBJECT_LIB"),
                                     _OBJECT_PROTOS)
        return getattr(_ObjectLib._dll, name)


lib = _load("perfbuf", "PERFBUF_LIB")
objlib = _ObjectLib()

_PROTOS = {
    "perfbuf__new": (c_void_p, [c_int, c_void_p, c_void_p, ctypes.POINTER(PerfbufOpts)]),
    "perfbuf__free": (None, [c_void_p]),
    "perfbuf__poll": (c_int, [c_void_p, c_int]),
    "perfbuf__consume": (c_int, [c_void_p]),
    "perfbuf__drain": (c_int, [c_void_p]),
    "perfbuf__stop": (c_int, [c_void_p]),
    "perfbuf__ring_cnt": (c_size, [c_void_p]),
    "perfbuf__stats": (c_int, [c_void_p, c_size, ctypes.POINTER(CpuStats)]),
    "perfbuf_batch__new": (c_void_p, [ctypes.POINTER(BatchOpts)]),
    "perfbuf_batch__free": (None, [c_void_p]),
    "perfbuf_batch__reset": (None, [c_void_p]),
    "perfbuf_batch__view": (c_int, [c_void_p, ctypes.POINTER(BatchView)]),
    "perfbuf_version": (c_char_p, []),
}
_OBJECT_PROTOS = {
    "perfbuf_object__open": (c_void_p, [c_char_p]),
    "perfbuf_object__set": (c_int, [c_void_p, c_char_p]),
    "perfbuf_object__load": (c_int, [c_void_p]),
    "perfbuf_object__attach": (c_int, [c_void_p]),
    "perfbuf_object__detach": (c_int, [c_void_p]),
    "perfbuf_object__map_fd": (c_int, [c_void_p, c_char_p]),
    "perfbuf_object__prog_cnt": (c_int, [c_void_p]),
    "perfbuf_object__prog_name": (c_char_p, [c_void_p, c_int]),
    "perfbuf_object__type": (c_void_p, [c_void_p, c_char_p, c_char_p]),
    "perfbuf_object__free": (None, [c_void_p]),
    "perfbuf_type__from_file": (c_void_p, [c_char_p, c_char_p, c_char_p]),
    "perfbuf_type__free": (None, [c_void_p]),
    "perfbuf_type__name": (c_char_p, [c_void_p]),
    "perfbuf_type__size": (c_size, [c_void_p]),
    "perfbuf_type__field_cnt": (c_int, [c_void_p]),
    "perfbuf_type__field": (ctypes.POINTER(Field), [c_void_p, c_int]),
    "perfbuf_object__prog_fd": (c_int, [c_void_p, c_int]),
    "perfbuf_ledger__from_object": (c_void_p, [c_void_p, c_void_p]),
}
_PROTOS.update({
    "perfbuf_ledger__new": (c_void_p, [c_int, c_void_p]),
    "perfbuf_ledger__free": (None, [c_void_p]),
    "perfbuf_ledger__read": (c_int, [c_void_p, c_void_p]),
    "perfbuf_ledger__kind_cnt": (c_size, [c_void_p]),
    "perfbuf_ledger__kind_name": (c_char_p, [c_void_p, c_size]),
    "perfbuf_ledger__kind": (c_int, [c_void_p, c_size, ctypes.POINTER(LedgerKind)]),
    "perfbuf_ledger__cpu_cnt": (c_size, [c_void_p]),
    "perfbuf_ledger__cpu": (c_int, [c_void_p, c_size, ctypes.POINTER(LedgerCpu)]),
})
_typed(lib, _PROTOS)

# the batch's record callback, passed to perfbuf__new() as a C pointer:
# no Python runs per record
batch_record_fn = ctypes.cast(lib.perfbuf_batch__record_fn, c_void_p)


def strerror(err):
    """os.strerror() that knows libbpf's own codes (4000-4007,
    LIBBPF_ERRNO__LIBELF to LIBBPF_ERRNO__PROG2BIG): libbpf_strerror()"""
    err = abs(err)
    if 4000 <= err < 4100:
        from ._libbpf import libbpf
        buf = ctypes.create_string_buffer(128)
        libbpf.libbpf_strerror(err, buf, len(buf))
        return buf.value.decode(errors="replace")
    return os.strerror(err)


def errno_error(err, what):
    """An OSError for negative errno @err: '@what: strerror'."""
    err = abs(err)
    return OSError(err, "perfbuf: %s: %s" % (what, strerror(err)))


def forked_error(what, pid):
    """The error of a call in a process forked from the one (@pid) that
    made @what: the kernel gives the child none of its ring mappings."""
    return OSError(errno.ECHILD, "perfbuf: this %s belongs to process %d, not to this "
                   "forked child (a child gets no copy of its rings): make a new one in "
                   "the child, on a map of its own" % (what, pid))


def last_errno():
    return ctypes.get_errno() or 22
