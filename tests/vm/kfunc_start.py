#!/usr/bin/python3
"""kfunc_start.py FUNC: the offset of FUNC's first instruction after its
entry padding (endbr64 or its 4-byte nop where the kernel is built with IBT, then the 5-byte ftrace
call site: a nop or a call), read from /proc/kcore at FUNC's address in
/proc/kallsyms. For the kprobe:FUNC+OFFSET test (tests/vm/t_kfunc.sh)."""
import struct, sys

func = sys.argv[1]
addr = next(int(l.split()[0], 16) for l in open('/proc/kallsyms')
            if l.split()[2] == func and l.split()[1] in 'tT')
with open('/proc/kcore', 'rb') as f:
    hdr = f.read(64)
    phoff, = struct.unpack_from('<Q', hdr, 32)
    phnum, = struct.unpack_from('<H', hdr, 56)
    f.seek(phoff)
    for _ in range(phnum):
        ph = f.read(56)
        _, _, off, vaddr, _, filesz = struct.unpack_from('<IIQQQQ', ph)
        if vaddr <= addr < vaddr + filesz:
            f.seek(off + addr - vaddr)
            code = f.read(16)
            break
    else:
        sys.exit('%s at %#x is in no segment of /proc/kcore' % (func, addr))
# endbr64, or the 4-byte nop the kernel puts there when IBT is off
# (7.x: 0f 1f 40 XX, FineIBT's hash slot)
at = 4 if code[:4] in (b'\xf3\x0f\x1e\xfa', b'\x66\x0f\x1f\x00') or code[:3] == b'\x0f\x1f\x40' else 0
# (5.10 writes its 5-byte nop as 66 66 66 66 90)
if code[at] == 0xe8 or code[at:at + 5] in (b'\x0f\x1f\x44\x00\x00', b'\x66\x66\x66\x66\x90'):
    at += 5						# call __fentry__ / nop5
else:
    sys.exit('%s: no ftrace call site at +%d: %s' % (func, at, code.hex()))
print(at)
