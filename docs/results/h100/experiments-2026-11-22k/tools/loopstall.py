# Usage: python3 loopstall.py FILE.cubin: for the k-tile loop (2048 FFMAs) of each pipelined kernel, its shared
# loads, static stall cycles (control bits) and the instructions issued with stalls above 1, by opcode.
import sys
from collections import Counter
from cubin import kernels, k_tile_loop, opname, stall

for name, raw in kernels(sys.argv[1], 'pipelined'):
    body = k_tile_loop(raw)
    if body is None:
        continue
    ops = [(opname(lo), stall(hi)) for lo, hi in body]
    slow = Counter((op, st) for op, st in ops if st > 1)
    print(name[:54], 'LDS', sum(1 for op, _ in ops if op == 'LDS'), 'len', len(body), 'stall sum',
          sum(st for _, st in ops), 'instr', len(body), 'by op/stall>1:', dict(slow.most_common(8)))
