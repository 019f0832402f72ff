#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Corrupt one field of a BPF object's .BTF section, as a hostile or
damaged file would (tests/test_run.sh, python/tests).

    btf_patch.py IN OUT WHAT [VALUE]

WHAT is where the bad value goes:
  maps_secinfo   the .maps DATASEC's first entry's type id (a map's VAR)
  maps_var       the type id of that VAR (the map definition's struct)
  map_member     the type id of that struct's first member
  name           the string offset of that struct's first member's name
  str_len        the header's string section length (past the section)
  mod_loop       the first const's type: itself (a modifier chain that loops)
  map_loop       mod_loop, and the map's VAR refers to that const
VALUE defaults to 0x7fffffff (a type id or offset past any table).
"""
import struct
import sys


def sections(elf):
    """{name: (file offset of its header, offset, size)} of a 64-bit LE ELF"""
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3a)
    hdr = lambda i: shoff + i * shentsize
    stroff, = struct.unpack_from("<Q", elf, hdr(shstrndx) + 0x18)
    out = {}
    for i in range(shnum):
        name_off, = struct.unpack_from("<I", elf, hdr(i))
        off, size = struct.unpack_from("<QQ", elf, hdr(i) + 0x18)
        end = elf.index(b"\0", stroff + name_off)
        out[elf[stroff + name_off:end].decode()] = (hdr(i), off, size)
    return out


def types(elf, btf):
    """[(file offset of the type, kind, vlen, name_off, type)], ids from 1"""
    hdr_len, type_off, type_len, str_off, _ = struct.unpack_from("<IIIII", elf, btf + 4)
    pos = btf + hdr_len + type_off
    end = pos + type_len
    out = [None]
    while pos < end:
        name_off, info, typ = struct.unpack_from("<III", elf, pos)
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        out.append((pos, kind, vlen, name_off, typ))
        extra = {1: 4, 3: 12, 6: 8 * vlen, 4: 12 * vlen, 5: 12 * vlen, 13: 8 * vlen,
                 14: 4, 15: 12 * vlen, 17: 4, 19: 12 * vlen}.get(kind, 0)
        pos += 12 + extra
    return out, btf + hdr_len + str_off


def btf_name(elf, strs, off):
    return elf[strs + off:elf.index(b"\0", strs + off)].decode()


def place(elf, what, value):
    """[(file offset, value)]: the fields @what names and their new values"""
    sec = sections(elf)
    btf = sec[".BTF"][1]
    if what == "str_len":
        return [(btf + 20, value)]
    ts, strs = types(elf, btf)
    maps = next(t for t in ts[1:] if t[1] == 15 and btf_name(elf, strs, t[3]) == ".maps")
    var = ts[struct.unpack_from("<I", elf, maps[0] + 12)[0]]
    st = ts[var[4]]
    const = next(i for i, t in enumerate(ts) if t and t[1] == 10)
    at = {"maps_secinfo": [(maps[0] + 12, value)], "maps_var": [(var[0] + 8, value)],
          "map_member": [(st[0] + 12 + 4, value)], "name": [(st[0] + 12, value)],
          "mod_loop": [(ts[const][0] + 8, const)],
          "map_loop": [(ts[const][0] + 8, const), (var[0] + 8, const)]}
    if what not in at:
        raise SystemExit("btf_patch.py: unknown field '%s'" % what)
    return at[what]


def main():
    src, dst, what = sys.argv[1:4]
    value = int(sys.argv[4], 0) if len(sys.argv) > 4 else 0x7fffffff
    elf = bytearray(open(src, "rb").read())
    for at, v in place(elf, what, value):
        struct.pack_into("<I", elf, at, v)
    open(dst, "wb").write(bytes(elf))


if __name__ == "__main__":
    main()
