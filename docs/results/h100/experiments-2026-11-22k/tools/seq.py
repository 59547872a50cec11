# Usage: python3 seq.py FILE.cubin NAME_PART: the k-tile loop as a compact sequence, runs of FFMAs as F<n>,
# other instructions as OPCODE/stall.
import sys
from cubin import kernels, k_tile_loop, opname, stall

for name, raw in kernels(sys.argv[1], sys.argv[2]):
    body = k_tile_loop(raw)
    if body is None:
        continue
    out, run = [], 0
    for lo, hi in body:
        op, st = opname(lo), stall(hi)
        if op == 'FFMA' and st == 1:
            run += 1
            continue
        if run:
            out.append(f'F{run}')
            run = 0
        out.append(f'{op}/{st}')
    if run:
        out.append(f'F{run}')
    print(name[:44])
    print(' '.join(out))
