#!/usr/bin/env python3
"""A capture file (perfbuf record) edited frame by frame, each frame's
CRC-32 (gzip's, as zlib computes it) made right again, so that what a
test feeds perfbuf report passes the CRC and reaches the code behind it.

  capture_edit.py IN OUT nolabel     the PROBES frame without label lines
  capture_edit.py IN OUT cpus N      N DATA frames of CPUs 1000.. (empty)
                                     added before the end
  capture_edit.py IN OUT probes N    a PROBES frame of N uprobes
"""
import struct
import sys
import zlib

HDR = struct.Struct("<16sIIQ")
FRAME = struct.Struct("<IIQII")
META, PROBES, DATA, END = 1, 3, 4, 8


def frames(d):
    pos = HDR.unpack_from(d, 0)[2]
    while pos + FRAME.size <= len(d):
        t, cpu, n, _, _ = FRAME.unpack_from(d, pos)
        yield t, cpu, d[pos + FRAME.size:pos + FRAME.size + n]
        pos += FRAME.size + n + (-n & 7)


def frame(t, cpu, data):
    return FRAME.pack(t, cpu, len(data), zlib.crc32(data), 0) + data + \
        b"\0" * (-len(data) & 7)


def main():
    d = open(sys.argv[1], "rb").read()
    what, out = sys.argv[3], [d[:HDR.unpack_from(d, 0)[2]]]
    for t, cpu, data in frames(d):
        if t == PROBES and what == "nolabel":
            data = b"".join(l for l in data.splitlines(True)
                            if not l.startswith(b"label "))
        elif t == PROBES and what == "probes":
            data = b"probe uprobe\nspec uprobe:/bin/true:main\nend\n" * \
                int(sys.argv[4])
        elif t == END and what == "cpus":
            out += [frame(DATA, 1000 + i, b"") for i in range(int(sys.argv[4]))]
        out.append(frame(t, cpu, data))
    open(sys.argv[2], "wb").write(b"".join(out))


main()
