# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Object: a person's own BPF object, run as `perfbuf run` runs it, and the
numpy dtype of its records from the same type finder (BTF, the
PERFBUF_EVENT marker, then DWARF)."""
import ctypes
import errno
import os

import numpy as np

from . import _lib
from . import ledger as _ledger
from ._lib import objlib
from .buffer import PerfBuffer

# enum perfbuf_field_kind (include/perfbuf/type.h)
INT, BOOL, ENUM, FLOAT, PTR, STRING, ARRAY, STRUCT, UNION, BYTES = range(1, 11)


def _scalar(f):
    if f.kind in (INT, ENUM) or (f.kind == BOOL and f.size != 1):
        if f.size in (1, 2, 4, 8):
            return np.dtype("%s%d" % ("i" if f.is_signed else "u", f.size))
        return np.dtype("V%d" % f.size)
    if f.kind == BOOL:
        return np.dtype("?")
    if f.kind == FLOAT:
        return np.dtype("f%d" % f.size)
    if f.kind == PTR:
        return np.dtype("u%d" % f.size)
    if f.kind == STRING:
        return np.dtype("S%d" % f.nelem)
    return np.dtype("V%d" % max(f.size, 1))


class _Walker:
    """perfbuf_type's flat field table to a numpy dtype."""

    def __init__(self, t):
        self.t = t
        self.skipped = []        # bitfields and flexible arrays: no numpy form

    def field(self, i):
        return objlib.perfbuf_type__field(self.t, i).contents

    def dtype(self, i):
        f = self.field(i)
        if f.kind in (STRUCT, UNION):
            return self.members(i, f)
        if f.kind == ARRAY:
            elem = self.dtype(f.first_child)
            return np.dtype((elem, (f.nelem,)))
        return _scalar(f)

    def members(self, i, f):
        names, formats, offsets = [], [], []
        for c in range(f.first_child, f.first_child + f.nchildren):
            self.member(c, 0, names, formats, offsets)
        return np.dtype({"names": names, "formats": formats, "offsets": offsets,
                         "itemsize": f.size})

    def member(self, c, base, names, formats, offsets):
        m = self.field(c)
        name = (m.name or b"").decode()
        if m.bit_size or (m.kind == ARRAY and m.nelem == 0):
            self.skipped.append(name)
            return
        if not name and m.kind in (STRUCT, UNION):
            # an anonymous struct or union: its members are the parent's
            for cc in range(m.first_child, m.first_child + m.nchildren):
                self.member(cc, base + m.offset, names, formats, offsets)
            return
        names.append(name or "f%d" % c)
        formats.append(self.dtype(c))
        offsets.append(base + m.offset)


class Type(_lib.Closable):
    """A record's C type, as the type finder read it (BTF, the PERFBUF_EVENT
    marker, then DWARF): Type.from_file(), or Object.type()."""

    def __init__(self, *_args, **_kw):
        raise TypeError("perfbuf: make a Type with Type.from_file() or Object.type()")

    @classmethod
    def _own(cls, handle):
        t = cls.__new__(cls)
        t._t = handle
        return t

    @classmethod
    def from_file(cls, path, map=None, name=None):
        """C type @name ("event", "struct event"), or @map's record type, of
        BPF object file @path."""
        path = os.fspath(path)
        h = objlib.perfbuf_type__from_file(os.fsencode(path), map.encode() if map else None,
                                        name.encode() if name else None)
        if not h:
            raise _no_type(path, name, map, _lib.last_errno())
        return cls._own(h)

    @property
    def name(self):
        return objlib.perfbuf_type__name(self._handle()).decode()

    @property
    def size(self):
        return objlib.perfbuf_type__size(self._handle())

    def _handle(self):
        if not self._t:
            raise ValueError("perfbuf: the Type is closed")
        return self._t

    def close(self):
        """Free it. Idempotent."""
        h, self._t = getattr(self, "_t", None), None
        if h:
            objlib.perfbuf_type__free(h)


def _no_type(path, name, map, err):
    what = name or ("for map '%s'" % map if map else "event")
    return LookupError("perfbuf: %s: no type %s (%s)" % (path, what, _lib.strerror(err)))


def type_dtype(t):
    """The numpy dtype of @t, a perfbuf.Type."""
    if not isinstance(t, Type):
        raise TypeError("perfbuf: type_dtype() takes a perfbuf.Type (Type.from_file(), "
                        "Object.type()), not %s" % type(t).__name__)
    return _Walker(t._handle()).dtype(0)


def _set_arg(name, value):
    if isinstance(value, bool):
        value = "true" if value else "false"
    elif isinstance(value, bytes):
        value = value.decode()
    return ("%s=%s" % (name, value)).encode()


class Object(_lib.Closable):
    """Open, set `const volatile` globals, load and auto-attach a BPF object."""

    def __init__(self, path, set=None, attach=True):
        self.path = os.fspath(path)
        self._buffers = []
        self._obj = objlib.perfbuf_object__open(os.fsencode(self.path))
        if not self._obj:
            err = _lib.last_errno()
            if err == errno.ENOEXEC:
                raise ValueError("perfbuf: %s is not a BPF object (ELF): build it with "
                                 "clang -target bpf" % self.path)
            if err == errno.EBADMSG:
                raise ValueError("perfbuf: %s has a corrupt .BTF section (what is wrong: "
                                 "the line above); rebuild it with clang -g -target bpf"
                                 % self.path)
            raise OSError(err, "perfbuf: %s: %s" % (self.path, _lib.strerror(err)), self.path)
        try:
            for k, v in (set or {}).items():
                self._set(k, v)
            err = objlib.perfbuf_object__load(self._obj)
            if err:
                raise _lib.errno_error(err, "%s: loading failed (the verifier's reasons "
                                       "above)" % self.path)
            self.attached = 0
            if attach:
                self.attach()
        except BaseException:
            self.close()
            raise

    def _set(self, name, value):
        err = objlib.perfbuf_object__set(self._obj, _set_arg(name, value))
        if err == -errno.ENOENT:
            raise KeyError("perfbuf: %s has no const volatile global '%s' in .rodata"
                           % (self.path, name))
        if err == -errno.ERANGE:
            raise ValueError("perfbuf: %s=%r does not fit the variable's type" % (name, value))
        if err:
            raise ValueError("perfbuf: %s=%r: not a value of the variable's type" % (name, value))

    def _check_open(self):
        if not self._obj:
            raise ValueError("perfbuf: the Object is closed")

    def dtype(self, name=None, map=None):
        """The numpy dtype of C type @name ("event", "struct event"), or of
        @map's records (by its PERFBUF_EVENT marker, else `event`)."""
        with self.type(name, map) as t:
            return type_dtype(t)

    def type(self, name=None, map=None):
        """The perfbuf.Type of C type @name, or of @map's records (as dtype())."""
        self._check_open()
        t = objlib.perfbuf_object__type(self._obj, map.encode() if map else None,
                                     name.encode() if name else None)
        if not t:
            raise _no_type(self.path, name, map, _lib.last_errno())
        return Type._own(t)

    def prog_fd(self, name):
        """The fd of loaded program @name (for BPF_PROG_TEST_RUN, say); the
        Object owns it, until close()."""
        self._check_open()
        for i in range(objlib.perfbuf_object__prog_cnt(self._obj)):
            if objlib.perfbuf_object__prog_name(self._obj, i) == name.encode():
                fd = objlib.perfbuf_object__prog_fd(self._obj, i)
                if fd < 0:
                    raise _lib.errno_error(fd, "%s: program '%s'" % (self.path, name))
                return fd
        raise KeyError("perfbuf: %s has no program '%s'" % (self.path, name))

    def map_fd(self, name):
        self._check_open()
        fd = objlib.perfbuf_object__map_fd(self._obj, name.encode())
        if fd < 0:
            raise KeyError("perfbuf: %s has no map '%s'" % (self.path, name))
        return fd

    def ledger(self, pb=None):
        """What became of every output of the programs' perfbuf_output()
        (perfbuf/bpf.h), per kind: a perfbuf.Ledger (a dict). With @pb,
        the PerfBuffer of the map the programs write to, each CPU's
        counts are checked against the reader's (Ledger.mismatch); read it
        after pb.drain(), the programs detached (detach()), or the records
        still in the rings show as a mismatch. LookupError: the object
        has no ledger."""
        self._check_open()
        return _ledger.from_object(self._obj, self.path, pb._handle() if pb else None)

    def attach(self):
        """Attach every program (Object(attach=False) leaves them loaded
        only: create the PerfBuffer first, and no event finds its CPU's
        slot empty). The number attached."""
        self._check_open()
        self.attached = objlib.perfbuf_object__attach(self._obj)
        if self.attached < 0:
            raise _lib.errno_error(self.attached, "%s: no program could be attached"
                                   % self.path)
        return self.attached

    def detach(self):
        """Detach every program (they write nothing more); close() does too."""
        self._check_open()
        err = objlib.perfbuf_object__detach(self._obj)
        if err:
            raise _lib.errno_error(err, "%s: detach" % self.path)

    def perf_buffer(self, map_name, **kw):
        """A PerfBuffer on the object's perf event array @map_name."""
        pb = PerfBuffer(self.map_fd(map_name), _owner=self, **kw)
        self._buffers.append(pb)
        return pb

    def close(self):
        """Close its buffers, detach and unload. Idempotent."""
        for pb in self._buffers:
            pb.close()
        self._buffers = []
        if self._obj:
            objlib.perfbuf_object__free(self._obj)
            self._obj = None
