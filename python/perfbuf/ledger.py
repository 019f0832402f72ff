# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The ledger of a BPF program that writes with perfbuf_output()
(perfbuf/bpf.h): every output counted by its outcome, per kind, in its map
`perfbuf_ledger`; read through libperfbuf's perfbuf_ledger__*() and, with
the PerfBuffer that read the program's map, checked against the reader's
own counts per CPU (include/perfbuf/ledger.h)."""
import ctypes
import warnings

from . import _lib
from ._lib import lib

COUNTS = ("offered", "received", "lost", "no_reader", "failed")


class Ledger(dict):
    """Kind -> {"offered", "received", "lost", "no_reader", "failed"}; a
    kind is its name (the program's PERFBUF_LEDGER_KINDS() enum) or its
    number. Every kind named, and every other that offered something, is
    there; offered = received + lost + no_reader + failed.

    cpus: per CPU, the program's side ("written", "full", "no_reader",
    "failed") and, when checked, the reader's ("received", "lost").
    mismatch: the CPUs whose two sides disagree ([] when all agree, None
    when not checked against a PerfBuffer); a warning says so too."""

    def __init__(self):
        super().__init__()
        self.cpus = []
        self.mismatch = None

    def totals(self):
        """Every kind's counts summed."""
        return {c: sum(k[c] for k in self.values()) for c in COUNTS}


def _kinds(h, out):
    for k in range(lib.perfbuf_ledger__kind_cnt(h)):
        s = _lib.sized(_lib.LedgerKind)
        if lib.perfbuf_ledger__kind(h, k, ctypes.byref(s)):
            continue
        name = lib.perfbuf_ledger__kind_name(h, k)
        if name is None and not s.offered:
            continue
        out[name.decode(errors="replace") if name is not None else k] = {
            c: getattr(s, c) for c in COUNTS}


def _cpus(h, out, checked):
    for i in range(lib.perfbuf_ledger__cpu_cnt(h)):
        c = _lib.sized(_lib.LedgerCpu)
        if lib.perfbuf_ledger__cpu(h, i, ctypes.byref(c)):
            continue
        d = {f: getattr(c, f) for f, _ in _lib.LedgerCpu._fields_
             if f not in ("sz", "checked", "mismatch")}
        if not checked:
            del d["received"], d["lost"]
        out.cpus.append(d)
        if c.mismatch:
            out.mismatch.append(d)


def read(h, pb_handle, what):
    """A Ledger from ledger handle @h, checked against collector
    @pb_handle (None: not checked); @what names it in errors."""
    n = lib.perfbuf_ledger__read(h, pb_handle)
    if n < 0:
        raise _lib.errno_error(n, "%s: reading the ledger" % what)
    out = Ledger()
    out.mismatch = [] if pb_handle else None
    _kinds(h, out)
    _cpus(h, out, bool(pb_handle))
    if n:
        warnings.warn("perfbuf: %s: the program's and the reader's counts disagree on "
                      "%d CPU%s (Ledger.mismatch)" % (what, n, "" if n == 1 else "s"),
                      RuntimeWarning, stacklevel=3)
    return out


def from_object(obj_handle, path, pb_handle=None):
    """The Ledger of loaded object @obj_handle (file @path)."""
    h = _lib.objlib.perfbuf_ledger__from_object(obj_handle, None)
    if not h:
        err = _lib.last_errno()
        if err == 2:
            raise LookupError("perfbuf: %s has no ledger: its programs do not write with "
                              "perfbuf_output() (perfbuf/bpf.h)" % path)
        raise _lib.errno_error(err, "%s: the ledger" % path)
    try:
        return read(h, pb_handle, path)
    finally:
        lib.perfbuf_ledger__free(h)
