#!/usr/bin/env python3
# FFMA register-bank check: for each function in a `cuobjdump -sass` listing, how many FFMAs read two
# or more of their source registers from the register file (operands not marked .reuse) with the
# same parity (register number mod 2). Usage: ffma_banks.py LISTING.sass
import re, sys
fn = None; stats = {}
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m: fn = m.group(1); stats[fn] = [0, 0, 0]; continue
    m = re.search(r"\bFFMA\s+R(\d+), (R\d+(?:\.reuse)?|[^,]+), (R\d+(?:\.reuse)?|[^,]+), (R\d+(?:\.reuse)?|[^ ;]+)", line)
    if not m or fn is None: continue
    srcs = [s for s in m.groups()[1:] if s.startswith("R") and not s.endswith(".reuse") and s != "RZ"]
    regs = [int(s[1:]) for s in srcs]
    st = stats[fn]; st[0] += 1
    if len(regs) >= 2 and len(set(r % 2 for r in regs)) < len(regs): st[1] += 1
    if len(regs) == 3: st[2] += 1
for f, (n, c, three) in stats.items():
    if n > 100: print(f"{n:6d} FFMA, {c:6d} ({100*c/n:.0f}%) with same-parity RF sources, {three} with 3 RF sources: {f[:90]}")
