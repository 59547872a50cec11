#!/usr/bin/env python3
# FFMA register-bank check on a `cuobjdump -sass` listing. The register file has two banks (register
# number mod 2); an FFMA whose register-file reads include n from one bank needs n - 1 more cycles to
# read them. For each function: how many FFMAs read three source registers from the register file,
# how many read two or more from one bank, how many all three, and the sum of the extra read cycles,
# the count that tracks the speed of the FP32 pipelined kernels (docs/kernels/fp32-ladder.md,
# "Register banks and the inner loop": in Nsight Compute's source counters an FFMA with one extra
# cycle drew 2.2 times the dispatch-stall samples of one without). An operand comes from the reuse
# cache, not the register file, when the last FFMA before it read the same register in the same
# operand slot and flagged it `.reuse` (the flag keeps it for the next FFMA; ptxas keeps it across
# shared-memory loads, LDS, too).
# Usage: ffma_banks.py LISTING.sass
import re, sys

OPERAND = r"(R\d+(?:\.reuse)?|[^,; ]+)"
fn = None
stats = {}
prev = None  # (registers by slot, reuse flags by slot) of the last FFMA, while the cache holds
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m:
        fn = m.group(1); stats[fn] = [0, 0, 0, 0, 0]; prev = None; continue
    if fn is None or not re.match(r"\s+/\*[0-9a-f]{4,}\*/", line):
        continue
    m = re.search(r"\bFFMA\s+R\d+, " + OPERAND + ", " + OPERAND + ", " + OPERAND, line)
    if not m:
        if not re.search(r"\bLDS\b", line):
            prev = None
        continue
    ops = m.groups()
    regs = [o.split(".")[0] if o.startswith("R") and o != "RZ" else None for o in ops]
    flags = [o.endswith(".reuse") for o in ops]
    rf = [int(r[1:]) for slot, r in enumerate(regs)
          if r is not None and not (prev and prev[0][slot] == r and prev[1][slot])]
    per_bank = max(sum(1 for r in rf if r % 2 == b) for b in (0, 1)) if rf else 0
    st = stats[fn]; st[0] += 1
    if len(rf) == 3: st[1] += 1
    if per_bank >= 2: st[2] += 1
    if per_bank == 3: st[3] += 1
    st[4] += max(per_bank - 1, 0)
    prev = (regs, flags)
for f, (n, three, pair, one_bank, extra) in stats.items():
    if n > 100:
        print(f"{n:6d} FFMA: {three:5d} with 3 register-file sources, {pair:5d} ({100 * pair / n:.0f}%) with 2+ "
              f"in one bank, {one_bank:4d} with 3, {extra:5d} extra read cycles: {f[:90]}")
