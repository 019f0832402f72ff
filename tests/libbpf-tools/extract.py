#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""extract.py BINARY OUT.bpf.o: the BPF object a libbpf-tools binary
carries (its skeleton holds the object's ELF bytes in .rodata). Exit 1
when the binary holds none."""
import struct
import sys

EM_BPF = 247


def bpf_elf(data):
    at = 0
    while True:
        at = data.find(b"\x7fELF\x02\x01\x01", at)
        if at < 0:
            return None
        hdr = data[at:at + 64]
        if len(hdr) == 64 and struct.unpack_from("<H", hdr, 18)[0] == EM_BPF:
            shoff, = struct.unpack_from("<Q", hdr, 40)
            shentsize, shnum = struct.unpack_from("<HH", hdr, 58)
            return data[at:at + shoff + shentsize * shnum]
        at += 1


obj = bpf_elf(open(sys.argv[1], "rb").read())
if obj is None:
    sys.exit(1)
open(sys.argv[2], "wb").write(obj)
