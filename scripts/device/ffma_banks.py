#!/usr/bin/env python3
# FFMA register-bank check on a `cuobjdump -sass` listing. For each function: how many FFMAs read
# three source registers from the register file, how many read two or more of the same parity
# (register number mod 2: the bank), and how many read all three from one bank, the case that
# tracked the speed of the FP32 pipelined kernels (docs/kernels/fp32-ladder.md). An operand comes
# from the reuse cache, not the register file, when the previous instruction read the same register
# in the same operand slot and flagged it `.reuse` (the flag keeps it for the next instruction).
# Usage: ffma_banks.py LISTING.sass
import re, sys

OPERAND = r"(R\d+(?:\.reuse)?|[^,; ]+)"
fn = None
stats = {}
prev = None  # (registers by slot, reuse flags by slot) of the previous instruction if an FFMA
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m:
        fn = m.group(1); stats[fn] = [0, 0, 0, 0]; prev = None; continue
    if fn is None or not re.match(r"\s+/\*[0-9a-f]{4,}\*/", line):
        continue
    m = re.search(r"\bFFMA\s+R\d+, " + OPERAND + ", " + OPERAND + ", " + OPERAND, line)
    if not m:
        prev = None; continue
    ops = m.groups()
    regs = [o.split(".")[0] if o.startswith("R") and o != "RZ" else None for o in ops]
    flags = [o.endswith(".reuse") for o in ops]
    rf = [int(r[1:]) for slot, r in enumerate(regs)
          if r is not None and not (prev and prev[0][slot] == r and prev[1][slot])]
    st = stats[fn]; st[0] += 1
    if len(rf) == 3: st[1] += 1
    if len(rf) >= 2 and len({r % 2 for r in rf}) < len(rf): st[2] += 1
    if len(rf) == 3 and len({r % 2 for r in rf}) == 1: st[3] += 1
    prev = (regs, flags)
for f, (n, three, pair, one_bank) in stats.items():
    if n > 100:
        print(f"{n:6d} FFMA: {three:5d} with 3 register-file sources, {pair:5d} ({100 * pair / n:.0f}%) with a "
              f"same-parity pair, {one_bank:4d} with all 3 in one bank: {f[:90]}")
