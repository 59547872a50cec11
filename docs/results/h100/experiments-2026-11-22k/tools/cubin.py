# Shared by loops.py, loopstall.py and seq.py: the kernels of a sm_90 cubin as lists of 128-bit
# instructions (lo, hi words), their loops, and the fields those scripts read. Opcode names come from
# ../../experiments-2026-11-22j/tools/opmap.json (low 12 bits, mapped from a cuobjdump listing).
import json, os, struct

_T = os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../experiments-2026-11-22j/tools')
OPMAP = {int(k): v for k, v in json.load(open(os.path.join(_T, 'opmap.json'))).items()}
FFMA, LDS = 0x223, 0x984


def opname(lo):
    return OPMAP.get(lo & 0xfff, '?')


def stall(hi):  # the control bits' stall count
    return (hi >> 41) & 0xf


def kernels(path, part=''):
    """(name, instructions) of every kernel whose section name contains `part`."""
    data = open(path, 'rb').read()
    shoff = struct.unpack_from('<Q', data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    secs = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]
    strtab = secs[shstrndx][4]
    for s in secs:
        name = data[strtab + s[0]:data.index(b'\0', strtab + s[0])].decode()
        if name.startswith('.text.') and part in name:
            yield name[6:], [struct.unpack_from('<QQ', data, s[4] + i) for i in range(0, s[5], 16)]


def loops(raw):
    """(first, last) instruction index of every backward branch."""
    for idx, (lo, hi) in enumerate(raw):
        if opname(lo) != 'BRA':
            continue
        imm = ((lo >> 16) & 0xff) | ((lo >> 34) << 8)
        if imm & (1 << 37):
            imm -= 1 << 38
        target = idx + 1 + imm // 4
        if target < idx:
            yield target, idx


def extra_read_cycles(body):
    """FFMAs, and their extra register-file read cycles as ffma_banks.py counts them: per FFMA, the most
    reads from one bank (register % 2) minus one, operands flagged for reuse by the FFMA before excluded
    (the reuse cache survives shared loads)."""
    prev, extra, ffmas = None, 0, 0
    for lo, hi in body:
        if lo & 0xfff == FFMA:
            regs, reuse = [(lo >> 24) & 0xff, (lo >> 32) & 0xff, hi & 0xff], (hi >> 58) & 0xf
            rf = [r for slot, r in enumerate(regs) if r != 255 and not (prev and prev[0][slot] == r and (prev[1] >> slot) & 1)]
            extra += max(sum(1 for x in rf if x % 2 == p) for p in (0, 1)) - 1 if rf else 0
            ffmas += 1
            prev = (regs, reuse)
        elif lo & 0xfff != LDS:
            prev = None
    return ffmas, extra


def k_tile_loop(raw, ffmas=2048):
    """The loop with exactly `ffmas` FFMAs (the k-tile loop of a 16x8 configuration), or None."""
    for first, last in loops(raw):
        body = raw[first:last + 1]
        if sum(1 for lo, _ in body if lo & 0xfff == FFMA) == ffmas:
            return body
    return None
